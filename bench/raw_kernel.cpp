// The raw MPI-IO kernel: the same bytes as the HDF5 runs, at the same layout inside each dataset
// (a file view equivalent to the selection), datasets back to back, no HDF5 metadata.
// Collective cases use MPI_File_write_at_all / read_at_all, independent ones write_at / read_at.
#include "kernel.hpp"

#include <zlib.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <stdexcept>

namespace bench {

namespace {

constexpr char kNative[] = "native";

uint64_t chunk_elems(const DsetSpec &d) {
    uint64_t n = 1;
    for (uint64_t c : d.chunk)
        n *= c;
    return n;
}

// Bytes of the dataset's raw image (whole chunks for chunked datasets).
uint64_t raw_dset_bytes(const DsetSpec &d) {
    uint64_t chunks = 1;
    for (size_t i = 0; i < d.chunk.size(); ++i)
        chunks *= (d.dims[i] + d.chunk[i] - 1) / d.chunk[i];
    return d.chunk.empty() ? d.nelems() * d.esize() : chunks * chunk_elems(d) * d.esize();
}

// Byte offset (within the dataset's raw image) of element g: row-major for contiguous
// datasets, chunk-major for chunked ones.
uint64_t raw_elem_offset(const DsetSpec &d, uint64_t g) {
    if (d.chunk.empty())
        return g * d.esize();
    uint64_t coord[8];
    for (size_t i = d.dims.size(); i-- > 0;) {
        coord[i] = g % d.dims[i];
        g /= d.dims[i];
    }
    uint64_t chunk_index = 0, within = 0;
    for (size_t i = 0; i < d.dims.size(); ++i) {
        chunk_index = chunk_index * ((d.dims[i] + d.chunk[i] - 1) / d.chunk[i]) + coord[i] / d.chunk[i];
        within = within * d.chunk[i] + coord[i] % d.chunk[i];
    }
    return (chunk_index * chunk_elems(d) + within) * d.esize();
}

// Calls fn(g, m, n) for the pieces of an element run that are contiguous in the raw image (split
// at chunk boundaries of the last dimension and at row ends).
template <class Fn> void split_run(const DsetSpec &d, const ElemRun &run, Fn &&fn) {
    if (d.chunk.empty())
        return fn(run.g, run.m, run.n);
    const uint64_t last = d.dims.back(), clast = d.chunk.back();
    for (uint64_t g = run.g, m = run.m, left = run.n; left > 0;) {
        const uint64_t x = g % last, n = std::min({left, clast - x % clast, last - x});
        fn(g, m, n);
        g += n;
        m += n;
        left -= n;
    }
}

// Contiguous (when allowed), a regular vector, or an indexed list of the blocks, relative to base.
TypeDesc describe(const std::vector<ByteRun> &runs, bool file_side, uint64_t base) {
    auto off = [&](size_t i) { return file_side ? runs[i].file : runs[i].mem; };
    const size_t n = runs.size();
    TypeDesc t;
    bool contiguous = true, regular = n >= 2;
    for (size_t i = 1; i < n; ++i) {
        contiguous = contiguous && off(i) == off(i - 1) + runs[i - 1].len;
        regular = regular && runs[i].len == runs[0].len && off(i) > off(i - 1) &&
                  off(i) - off(i - 1) == off(1) - off(0);
    }
    if (contiguous) {
        t.bytes = off(n - 1) + runs[n - 1].len - off(0);
        return t;
    }
    if (regular && runs[0].len <= INT_MAX)
        return TypeDesc{TypeDesc::Vector, 0, n, runs[0].len, off(1) - off(0), {}, {}};
    t.kind = TypeDesc::Indexed;
    for (size_t i = 0; i < n; ++i) {
        if (runs[i].len > INT_MAX)
            throw std::runtime_error("raw block larger than INT_MAX");
        t.lens.push_back(static_cast<int>(runs[i].len));
        t.disps.push_back(static_cast<MPI_Aint>(off(i) - base));
    }
    return t;
}

// Local. The plan of one access of one rank.
RawPlan make_plan(const CaseSpec &c, const Access &a) {
    const DsetSpec &d = c.dsets[static_cast<size_t>(a.dset)];
    const size_t fe = d.esize(), me = mem_stride(c, a), w = moved_bytes(a);
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
        plan.file_disp = r.g * fe + file_member_offset(c, a);
        plan.mem_disp = r.m * me + mem_member_offset(a);
        plan.file = w == fe ? TypeDesc{TypeDesc::Contig, r.n * w, 0, 0, 0, {}, {}}
                            : TypeDesc{TypeDesc::Vector, 0, r.n, w, fe, {}, {}};
        plan.mem = w == me ? TypeDesc{TypeDesc::Contig, r.n * w, 0, 0, 0, {}, {}}
                           : TypeDesc{TypeDesc::Vector, 0, r.n, w, me, {}, {}};
        plan.use_view = plan.file.kind != TypeDesc::Contig;
        return plan;
    }
    std::vector<ByteRun> runs;
    for (const ElemRun &r : a.runs)
        split_run(d, r, [&](uint64_t g, uint64_t m, uint64_t n) {
            runs.push_back({raw_elem_offset(d, g), m * me, n * w});
        });
    std::sort(runs.begin(), runs.end(), [](const ByteRun &x, const ByteRun &y) { return x.file < y.file; });
    for (const ByteRun &r : runs) {
        ByteRun *last = plan.runs.empty() ? nullptr : &plan.runs.back();
        if (last != nullptr && last->file + last->len == r.file && last->mem + last->len == r.mem)
            last->len += r.len;
        else
            plan.runs.push_back(r);
    }
    // Memory: contiguous in file order, or a type with displacements relative to the lowest
    // memory byte (indexed types accept any order).
    plan.file_disp = plan.runs.front().file;
    plan.mem_disp =
        std::min_element(plan.runs.begin(), plan.runs.end(), [](const ByteRun &x, const ByteRun &y) {
            return x.mem < y.mem;
        })->mem;
    plan.file = describe(plan.runs, true, plan.file_disp);
    plan.mem = describe(plan.runs, false, plan.mem_disp);
    if (plan.mem.kind == TypeDesc::Contig && plan.runs.front().mem != plan.mem_disp)
        throw std::runtime_error("internal: contiguous memory plan not starting at its lowest byte");
    plan.use_view = plan.file.kind != TypeDesc::Contig;
    return plan;
}

} // namespace

PhaseTimes reduce_times(double local, double data) {
    double in[2] = {local, data}, out[2] = {0, 0};
    BENCH_MPI(MPI_Allreduce(in, out, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return PhaseTimes{out[0], out[1]};
}

MPI_Datatype TypeDesc::make() const {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    if (kind == Contig)
        BENCH_MPI(MPI_Type_contiguous(static_cast<int>(bytes), MPI_BYTE, &t));
    else if (kind == Vector)
        BENCH_MPI(MPI_Type_create_hvector(static_cast<int>(count), static_cast<int>(block),
                                          static_cast<MPI_Aint>(stride), MPI_BYTE, &t));
    else
        BENCH_MPI(
            MPI_Type_create_hindexed(static_cast<int>(lens.size()), lens.data(), disps.data(), MPI_BYTE, &t));
    BENCH_MPI(MPI_Type_commit(&t));
    return t;
}

RawKernel::RawKernel(const CaseSpec &c) : c_(c) {
    for (const Access &a : c.accesses)
        plans_.push_back(make_plan(c, a));
    // Collective: an access uses a file view on all ranks if any rank needs one.
    std::vector<int> local(plans_.size()), global(plans_.size());
    for (size_t i = 0; i < plans_.size(); ++i)
        local[i] = plans_[i].use_view ? 1 : 0;
    BENCH_MPI(MPI_Allreduce(local.data(), global.data(), static_cast<int>(plans_.size()), MPI_INT, MPI_LOR,
                            MPI_COMM_WORLD));
    for (size_t i = 0; i < plans_.size(); ++i)
        plans_[i].use_view = global[i] != 0;
    packed_.resize(c.accesses.size() * static_cast<size_t>(c.timesteps));
}

uint64_t RawKernel::base(int t, int d) const {
    uint64_t step = 0, before = 0;
    for (size_t i = 0; i < c_.dsets.size(); ++i) {
        if (static_cast<int>(i) == d)
            before = step;
        step += raw_dset_bytes(c_.dsets[i]);
    }
    return step * static_cast<uint64_t>(t) + before;
}

// Compressed cases, write: pack this rank's chunks (chunk-major), compress each, write them back
// to back after the other ranks' (offsets by MPI_Exscan). Returns the time in the data call.
double RawKernel::write_packed(MPI_File fh, int t, size_t i, unsigned char *mem, uint64_t &cbase) {
    const RawPlan &p = plans_[i];
    const DsetSpec &d = c_.dsets[static_cast<size_t>(c_.accesses[i].dset)];
    const uint64_t cb = chunk_elems(d) * d.esize();
    const uint64_t lo = p.runs.empty() ? 0 : p.runs.front().file;
    const uint64_t hi = p.runs.empty() ? 0 : p.runs.back().file + p.runs.back().len;
    if (lo % cb != 0 || (hi - lo) % cb != 0)
        fatal("internal: compressed raw plan is not made of whole chunks");
    stage_.resize(hi - lo);
    for (const ByteRun &r : p.runs)
        std::memcpy(stage_.data() + (r.file - lo), mem + r.mem, r.len);
    const uint64_t nch = (hi - lo) / cb;
    cbuf_.resize(static_cast<size_t>(compressBound(static_cast<uLong>(cb)) * nch));
    Packed &pk = packed_[static_cast<size_t>(t) * c_.accesses.size() + i];
    pk.sizes.assign(nch, 0);
    uint64_t mine = 0, off = 0, total = 0;
    for (uint64_t k = 0; k < nch; ++k) {
        uLongf len = compressBound(static_cast<uLong>(cb));
        if (compress2(cbuf_.data() + mine, &len, stage_.data() + k * cb, static_cast<uLong>(cb),
                      c_.deflate_level()) != Z_OK)
            fatal("zlib compress2 failed");
        pk.sizes[k] = len;
        mine += len;
    }
    BENCH_MPI(MPI_Exscan(&mine, &off, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    BENCH_MPI(MPI_Allreduce(&mine, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    pk.offset = cbase + (rank() == 0 ? 0 : off);
    cbase += total;
    const double d0 = MPI_Wtime();
    BENCH_MPI(MPI_File_write_at_all(fh, static_cast<MPI_Offset>(pk.offset), cbuf_.data(),
                                    static_cast<int>(mine), MPI_BYTE, MPI_STATUS_IGNORE));
    return MPI_Wtime() - d0;
}

// Compressed cases, read: this rank's packed chunks, uncompressed into place.
double RawKernel::read_packed(MPI_File fh, int t, size_t i, unsigned char *mem) {
    const RawPlan &p = plans_[i];
    const DsetSpec &d = c_.dsets[static_cast<size_t>(c_.accesses[i].dset)];
    const uint64_t cb = chunk_elems(d) * d.esize();
    const Packed &pk = packed_[static_cast<size_t>(t) * c_.accesses.size() + i];
    uint64_t mine = 0;
    for (uint64_t s : pk.sizes)
        mine += s;
    cbuf_.resize(mine);
    const double d0 = MPI_Wtime();
    BENCH_MPI(MPI_File_read_at_all(fh, static_cast<MPI_Offset>(pk.offset), cbuf_.data(),
                                   static_cast<int>(mine), MPI_BYTE, MPI_STATUS_IGNORE));
    const double data = MPI_Wtime() - d0;
    const uint64_t lo = p.runs.empty() ? 0 : p.runs.front().file;
    stage_.resize(pk.sizes.size() * cb);
    for (size_t k = 0, pos = 0; k < pk.sizes.size(); pos += pk.sizes[k++]) {
        uLongf len = static_cast<uLongf>(cb);
        if (uncompress(stage_.data() + k * cb, &len, cbuf_.data() + pos, static_cast<uLong>(pk.sizes[k])) !=
                Z_OK ||
            len != cb)
            fatal("zlib uncompress failed on a raw chunk");
    }
    for (const ByteRun &r : p.runs)
        std::memcpy(mem + r.mem, stage_.data() + (r.file - lo), r.len);
    return data;
}

PhaseTimes RawKernel::run(bool write, const std::string &path, Buffers &buf) {
    const bool coll = c_.mode.coll_data, compressed = c_.compressed();
    double data = 0;
    bool view_set = false;
    uint64_t cbase = 0; // compressed: where the next dataset starts
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = MPI_Wtime();
    MPI_File fh = MPI_FILE_NULL;
    BENCH_MPI(MPI_File_open(MPI_COMM_WORLD, path.c_str(),
                            write ? MPI_MODE_CREATE | MPI_MODE_WRONLY : MPI_MODE_RDONLY, MPI_INFO_NULL, &fh));
    for (int t = 0; t < c_.timesteps; ++t)
        for (size_t i = 0; i < c_.accesses.size(); ++i) {
            const RawPlan &p = plans_[i];
            unsigned char *mem = buf.ptr(t, c_.accesses[i].array);
            if (compressed) {
                data += write ? write_packed(fh, t, i, mem, cbase) : read_packed(fh, t, i, mem);
                continue;
            }
            const double d0 = MPI_Wtime();
            MPI_Offset off = static_cast<MPI_Offset>(base(t, c_.accesses[i].dset) + p.file_disp);
            MPI_Datatype ft = MPI_BYTE, mt = MPI_BYTE;
            int count = static_cast<int>(p.bytes);
            if (p.use_view) {
                ft = p.bytes > 0 ? p.file.make() : MPI_BYTE;
                BENCH_MPI(MPI_File_set_view(fh, off, MPI_BYTE, ft, kNative, MPI_INFO_NULL));
                view_set = true;
                off = 0;
            } else if (view_set) {
                BENCH_MPI(MPI_File_set_view(fh, 0, MPI_BYTE, MPI_BYTE, kNative, MPI_INFO_NULL));
                view_set = false;
            }
            if (p.bytes > 0 && p.mem.kind != TypeDesc::Contig) {
                mt = p.mem.make();
                count = 1;
            }
            void *at = mem + p.mem_disp;
            if (write)
                BENCH_MPI(coll ? MPI_File_write_at_all(fh, off, at, count, mt, MPI_STATUS_IGNORE)
                               : MPI_File_write_at(fh, off, at, count, mt, MPI_STATUS_IGNORE));
            else
                BENCH_MPI(coll ? MPI_File_read_at_all(fh, off, at, count, mt, MPI_STATUS_IGNORE)
                               : MPI_File_read_at(fh, off, at, count, mt, MPI_STATUS_IGNORE));
            for (MPI_Datatype *type : {&ft, &mt})
                if (*type != MPI_BYTE)
                    MPI_Type_free(type);
            data += MPI_Wtime() - d0;
        }
    if (write)
        BENCH_MPI(MPI_File_sync(fh)); // the HDF5 runs call H5Fflush before closing, like h5bench
    BENCH_MPI(MPI_File_close(&fh));
    return reduce_times(MPI_Wtime() - t0, data);
}

} // namespace bench
