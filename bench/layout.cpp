#include "layout.hpp"

#include "values.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace bench {

namespace {

uint64_t nchunks(const DsetSpec &d) {
    uint64_t n = 1;
    for (size_t i = 0; i < d.dims.size(); ++i)
        n *= (d.dims[i] + d.chunk[i] - 1) / d.chunk[i];
    return n;
}

uint64_t chunk_elems(const DsetSpec &d) {
    uint64_t n = 1;
    for (uint64_t c : d.chunk)
        n *= c;
    return n;
}

// Splits an element run at chunk boundaries of the last dimension (and row ends), calling
// fn(g, m, n) for pieces that are contiguous in the raw image.
template <class Fn> void split_run(const DsetSpec &d, const ElemRun &run, Fn &&fn) {
    if (d.chunk.empty()) {
        fn(run.g, run.m, run.n);
        return;
    }
    const uint64_t last = d.dims.back(), clast = d.chunk.back();
    uint64_t g = run.g, m = run.m, left = run.n;
    while (left > 0) {
        const uint64_t x = g % last;
        const uint64_t n = std::min({left, clast - x % clast, last - x});
        fn(g, m, n);
        g += n;
        m += n;
        left -= n;
    }
}

TypeDesc describe(const std::vector<uint64_t> &offs, const std::vector<uint64_t> &lens, uint64_t base,
                  bool allow_contig) {
    TypeDesc t;
    const size_t n = offs.size();
    uint64_t total = 0;
    for (uint64_t l : lens)
        total += l;
    bool contiguous = true;
    for (size_t i = 1; i < n; ++i)
        if (offs[i] != offs[i - 1] + lens[i - 1])
            contiguous = false;
    if (allow_contig && contiguous) {
        t.kind = TypeDesc::Contig;
        t.bytes = total;
        return t;
    }
    bool regular = n >= 2;
    for (size_t i = 1; i < n && regular; ++i)
        if (lens[i] != lens[0] || offs[i] - offs[i - 1] != offs[1] - offs[0] || offs[i] < offs[i - 1])
            regular = false;
    if (regular && lens[0] <= INT_MAX) {
        t.kind = TypeDesc::Vector;
        t.count = n;
        t.block = lens[0];
        t.stride = offs[1] - offs[0];
        return t;
    }
    t.kind = TypeDesc::Indexed;
    t.lens.reserve(n);
    t.disps.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        if (lens[i] > INT_MAX)
            throw std::runtime_error("raw block larger than INT_MAX");
        t.lens.push_back(static_cast<int>(lens[i]));
        t.disps.push_back(static_cast<MPI_Aint>(offs[i] - base));
    }
    return t;
}

} // namespace

uint64_t raw_dset_bytes(const DsetSpec &d) {
    if (d.chunk.empty())
        return d.nelems() * d.esize();
    return nchunks(d) * chunk_elems(d) * d.esize();
}

uint64_t raw_elem_offset(const DsetSpec &d, uint64_t g) {
    if (d.chunk.empty())
        return g * d.esize();
    const size_t rank = d.dims.size();
    uint64_t coord[8];
    for (size_t i = rank; i-- > 0;) {
        coord[i] = g % d.dims[i];
        g /= d.dims[i];
    }
    uint64_t chunk_index = 0, within = 0;
    for (size_t i = 0; i < rank; ++i) {
        const uint64_t nci = (d.dims[i] + d.chunk[i] - 1) / d.chunk[i];
        chunk_index = chunk_index * nci + coord[i] / d.chunk[i];
        within = within * d.chunk[i] + coord[i] % d.chunk[i];
    }
    return (chunk_index * chunk_elems(d) + within) * d.esize();
}

size_t mem_stride(const CaseSpec &c, const Access &a) {
    return c.arrays[static_cast<size_t>(a.array)].elem_bytes;
}

size_t mem_member_offset(const Access &a) { return a.mem == MemKind::Member ? particle_offset(a.field) : 0; }

size_t file_member_offset(const CaseSpec &c, const Access &a) {
    const DsetSpec &d = c.dsets[static_cast<size_t>(a.dset)];
    return (d.ftype == FileType::Particle && a.mem != MemKind::Record) ? particle_offset(a.field) : 0;
}

MPI_Datatype TypeDesc::make() const {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    switch (kind) {
    case Contig:
        BENCH_MPI(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &t));
        break;
    case Vector:
        BENCH_MPI(MPI_Type_create_hvector(static_cast<int>(count), static_cast<int>(block),
                                          static_cast<MPI_Aint>(stride), MPI_BYTE, &t));
        break;
    case Indexed:
        BENCH_MPI(
            MPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(), disps.data(), MPI_BYTE, &t));
        break;
    }
    BENCH_MPI(MPI_Type_commit(&t));
    return t;
}

RawPlan make_plan(const CaseSpec &c, const Access &a) {
    const DsetSpec &d = c.dsets[static_cast<size_t>(a.dset)];
    const size_t fe = d.esize(), fo = file_member_offset(c, a);
    const size_t me = mem_stride(c, a), mo = mem_member_offset(a);
    const size_t w = moved_bytes(a);
    RawPlan plan;
    plan.bytes = a.count * w;
    if (a.count == 0)
        return plan;

    if (w != fe || w != me) {
        // Element-wise on at least one side (one field of a record): a strided vector. The
        // h5bench interleaved patterns select one contiguous block of elements per rank.
        if (a.runs.size() != 1 || !d.chunk.empty())
            throw std::runtime_error("element-wise raw plan needs one run in a contiguous dataset");
        const ElemRun &r = a.runs[0];
        plan.file_disp = r.g * fe + fo;
        plan.mem_disp = r.m * me + mo;
        if (w == fe) {
            plan.file.kind = TypeDesc::Contig;
            plan.file.bytes = r.n * w;
        } else {
            plan.file = TypeDesc{TypeDesc::Vector, 0, r.n, w, fe, {}, {}};
        }
        if (w == me) {
            plan.mem.kind = TypeDesc::Contig;
            plan.mem.bytes = r.n * w;
        } else {
            plan.mem = TypeDesc{TypeDesc::Vector, 0, r.n, w, me, {}, {}};
        }
        plan.use_view = plan.file.kind != TypeDesc::Contig;
        return plan;
    }

    std::vector<ByteRun> runs;
    runs.reserve(a.runs.size());
    for (const ElemRun &r : a.runs)
        split_run(d, r, [&](uint64_t g, uint64_t m, uint64_t n) {
            runs.push_back({raw_elem_offset(d, g), m * me, n * w});
        });
    std::sort(runs.begin(), runs.end(), [](const ByteRun &x, const ByteRun &y) { return x.file < y.file; });
    std::vector<ByteRun> merged;
    merged.reserve(runs.size());
    for (const ByteRun &r : runs) {
        if (!merged.empty() && merged.back().file + merged.back().len == r.file &&
            merged.back().mem + merged.back().len == r.mem)
            merged.back().len += r.len;
        else
            merged.push_back(r);
    }
    plan.file_disp = merged.front().file;
    std::vector<uint64_t> fo_list, mo_list, lens;
    for (const ByteRun &r : merged) {
        fo_list.push_back(r.file);
        mo_list.push_back(r.mem);
        lens.push_back(r.len);
    }
    plan.file = describe(fo_list, lens, plan.file_disp, true);
    // Memory: contiguous in file order, or a type with displacements relative to the first
    // memory byte in file order (indexed types accept any order).
    uint64_t mem_min = UINT64_MAX;
    for (uint64_t m : mo_list)
        mem_min = std::min(mem_min, m);
    plan.mem_disp = mem_min;
    plan.mem = describe(mo_list, lens, mem_min, true);
    if (plan.mem.kind == TypeDesc::Contig && mo_list.front() != mem_min)
        throw std::runtime_error("internal: contiguous memory plan not starting at its lowest byte");
    plan.use_view = plan.file.kind != TypeDesc::Contig;
    plan.runs = std::move(merged);
    return plan;
}

void finalize_views(std::vector<RawPlan> &plans) {
    std::vector<int> local(plans.size()), global(plans.size());
    for (size_t i = 0; i < plans.size(); ++i)
        local[i] = plans[i].use_view ? 1 : 0;
    BENCH_MPI(MPI_Allreduce(local.data(), global.data(), static_cast<int>(plans.size()), MPI_INT, MPI_LOR,
                            MPI_COMM_WORLD));
    for (size_t i = 0; i < plans.size(); ++i)
        plans[i].use_view = global[i] != 0;
}

} // namespace bench
