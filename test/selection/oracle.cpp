#include "oracle.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <span>
#include <sstream>

namespace seltest {

namespace sel = mpiio::selection;

std::vector<ByteRun> hdf5_runs(hid_t space, std::size_t elem_size, std::size_t limit) {
    std::vector<ByteRun> runs;
    if (H5Sget_select_npoints(space) <= 0)
        return runs;
    hid_t it = H5Ssel_iter_create(space, elem_size, 0);
    if (it < 0)
        throw std::runtime_error("H5Ssel_iter_create failed");
    std::vector<hsize_t> off(4096);
    std::vector<size_t> len(4096);
    for (;;) {
        size_t nseq = 0, nelem = 0;
        if (H5Ssel_iter_get_seq_list(it, off.size(), SIZE_MAX, &nseq, &nelem, off.data(), len.data()) < 0)
            throw std::runtime_error("H5Ssel_iter_get_seq_list failed");
        if (nseq == 0)
            break;
        for (size_t i = 0; i < nseq; ++i)
            push_run(runs, static_cast<std::int64_t>(off[i]), static_cast<std::int64_t>(len[i]));
        if (runs.size() >= limit)
            break;
    }
    H5Ssel_iter_close(it);
    if (runs.size() > limit)
        runs.resize(limit);
    return runs;
}

bool pair_streams(const std::vector<ByteRun> &file, const std::vector<ByteRun> &mem,
                  std::vector<Segment> &out) {
    std::size_t i = 0, j = 0;
    std::int64_t fi = 0, mj = 0; // consumed bytes of file[i], mem[j]
    while (i < file.size() && j < mem.size()) {
        const std::int64_t take = std::min(file[i].len - fi, mem[j].len - mj);
        out.push_back({file[i].disp + fi, mem[j].disp + mj, take});
        fi += take;
        mj += take;
        if (fi == file[i].len) {
            ++i;
            fi = 0;
        }
        if (mj == mem[j].len) {
            ++j;
            mj = 0;
        }
    }
    return i == file.size() && j == mem.size();
}

std::vector<Segment> normalize(const std::vector<Segment> &segs) {
    std::vector<Segment> out;
    for (const Segment &s : segs) {
        if (!out.empty() && out.back().file + out.back().len == s.file &&
            out.back().mem + out.back().len == s.mem)
            out.back().len += s.len;
        else
            out.push_back(s);
    }
    return out;
}

std::string spec_runs(const sel::TypeSpec &spec, std::int64_t base, std::vector<ByteRun> &runs,
                      std::size_t limit) {
    std::ostringstream err;
    MPI_Count size = 0;
    MPI_Type_size_x(spec.type, &size);
    if (size * spec.count != spec.bytes)
        err << "type size " << size << " x count " << spec.count << " != bytes " << spec.bytes << "; ";
    if (spec.bytes == 0) {
        if (spec.count != 0 || spec.blocks != 0 || spec.shape != sel::TypeShape::Empty)
            err << "empty spec with count/blocks/shape set; ";
        return err.str();
    }
    if (spec.type == MPI_BYTE) {
        if (spec.count != spec.bytes || spec.span != spec.bytes || !spec.contiguous || spec.owned)
            err << "MPI_BYTE spec inconsistent; ";
    } else {
        if (!spec.owned || spec.owned->get() != spec.type || spec.count != 1)
            err << "derived spec without ownership or with count " << spec.count << "; ";
        MPI_Count lb = 0, extent = 0, tlb = 0, textent = 0;
        MPI_Type_get_extent_x(spec.type, &lb, &extent);
        MPI_Type_get_true_extent_x(spec.type, &tlb, &textent);
        if (lb != 0 || tlb != 0)
            err << "lb " << lb << " true lb " << tlb << " (want 0); ";
        if (textent != spec.span || extent != spec.span)
            err << "extent " << extent << " true extent " << textent << " != span " << spec.span << "; ";
    }
    std::vector<ByteRun> rel;
    const bool complete = flatten(spec.type, spec.count, 0, rel, limit);
    if (complete) {
        std::int64_t total = 0, lo = INT64_MAX, hi = 0;
        bool ascending = true;
        for (std::size_t i = 0; i < rel.size(); ++i) {
            total += rel[i].len;
            lo = std::min(lo, rel[i].disp);
            hi = std::max(hi, rel[i].disp + rel[i].len);
            if (i > 0 && rel[i - 1].disp + rel[i - 1].len > rel[i].disp)
                ascending = false;
        }
        if (total != spec.bytes)
            err << "flattened " << total << " bytes, spec says " << spec.bytes << "; ";
        if (lo != 0 || hi != spec.span)
            err << "flattened range [" << lo << "," << hi << ") vs span " << spec.span << "; ";
        if (ascending != spec.monotonic)
            err << "monotonic flag " << spec.monotonic << " but flattened ascending=" << ascending << "; ";
        if (spec.contiguous != (rel.size() == 1 && ascending))
            err << "contiguous flag " << spec.contiguous << " with " << rel.size() << " runs; ";
        if (spec.span <= (1 << 22) && spec.bytes <= (1 << 22)) {
            std::vector<ByteRun> packed = packed_runs(spec.type, spec.count, spec.span);
            if (packed != rel)
                err << "MPI_Pack order differs from flattening: pack " << describe(packed) << " flatten "
                    << describe(rel) << "; ";
        }
    }
    for (const ByteRun &r : rel)
        push_run(runs, base + spec.offset + r.disp, r.len);
    return err.str();
}

std::string check_single(hid_t space, std::size_t elem_size, const sel::TypeSpec &spec) {
    std::vector<ByteRun> got;
    std::string err = spec_runs(spec, 0, got);
    std::vector<ByteRun> want = hdf5_runs(space, elem_size);
    if (got != want)
        err += "runs differ: built " + describe(got) + " hdf5 " + describe(want);
    return err;
}

std::vector<Segment> expected_segments(hid_t file_space, hid_t mem_space, std::size_t elem_size,
                                       std::int64_t file_address, std::int64_t mem_address) {
    std::vector<ByteRun> f = hdf5_runs(file_space, elem_size), m;
    if (mem_space == H5S_BLOCK) {
        std::int64_t total = 0;
        for (const ByteRun &r : f)
            total += r.len;
        push_run(m, 0, total);
    } else {
        m = hdf5_runs(mem_space == H5S_ALL ? file_space : mem_space, elem_size);
    }
    for (ByteRun &r : f)
        r.disp += file_address;
    for (ByteRun &r : m)
        r.disp += mem_address;
    std::vector<Segment> segs;
    if (!pair_streams(f, m, segs))
        throw std::runtime_error("expected_segments: selections differ in size");
    std::stable_sort(segs.begin(), segs.end(),
                     [](const Segment &a, const Segment &b) { return a.file < b.file; });
    return normalize(segs);
}

// The segments the independent engine moves for a piece of this pair (selection::for_each_segment,
// which walks the run layouts without MPI), file positions relative to the piece's address and
// memory positions relative to its buffer (both away from zero, so a walk that drops either shows).
static std::vector<Segment> walked_segments(const sel::TypePair &pair) {
    constexpr MPI_Offset kFileAddress = (MPI_Offset{1} << 20) + 3;
    constexpr std::uintptr_t kBase = std::uintptr_t{1} << 40; // never dereferenced
    const sel::TypedPiece piece{kFileAddress, reinterpret_cast<const void *>(kBase), pair};
    const std::size_t order[] = {0};
    std::vector<Segment> walked;
    if (pair.file.empty())
        return walked;
    sel::for_each_segment(std::span(&piece, 1), order, [&](std::uint64_t file, char *mem, std::size_t len) {
        walked.push_back({static_cast<std::int64_t>(file) - kFileAddress,
                          static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(mem) - kBase),
                          static_cast<std::int64_t>(len)});
    });
    return normalize(walked);
}

std::string check_pair(hid_t file_space, hid_t mem_space, std::size_t elem_size, const sel::TypePair &pair) {
    std::string err;
    std::vector<ByteRun> f, m;
    std::string e1 = spec_runs(pair.file, 0, f), e2 = spec_runs(pair.mem, 0, m);
    if (!e1.empty())
        err += "file: " + e1;
    if (!e2.empty())
        err += "mem: " + e2;
    if (!pair.file.monotonic)
        err += "file side not monotonic; ";
    std::vector<Segment> got;
    if (!pair_streams(f, m, got))
        return err + "file and memory types differ in size";
    got = normalize(got);
    std::vector<Segment> want = expected_segments(file_space, mem_space, elem_size, 0, 0);
    if (got != want)
        err += "pairing differs: built " + describe(got) + " expected " + describe(want);
    std::vector<Segment> walked = walked_segments(pair);
    if (walked != got)
        err += "the driver's walk differs: walked " + describe(walked) + " types " + describe(got);
    return err;
}

std::string describe(const std::vector<Segment> &segs, std::size_t max) {
    std::ostringstream s;
    s << segs.size() << " segments:";
    for (std::size_t i = 0; i < segs.size() && i < max; ++i)
        s << " (f" << segs[i].file << ",m" << segs[i].mem << ",n" << segs[i].len << ")";
    if (segs.size() > max)
        s << " ...";
    return s.str();
}

} // namespace seltest
