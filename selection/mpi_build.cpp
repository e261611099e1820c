#include "mpi_build.hpp"

#include "common/error.hpp"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

namespace mpiio::selection {

// Local. Two-level split keeps every count <= max_count: q blocks of max_count bytes, then the rest.
mpiio::Datatype contiguous_bytes(MPI_Count n, MPI_Count max_count) {
    if (n < 1 || max_count < 2)
        throw Error(ErrorKind::Internal, "contiguous_bytes: empty run");
    mpiio::Datatype result;
    if (n <= max_count) {
        check_mpi(MPI_Type_contiguous(static_cast<int>(n), MPI_BYTE, result.out()), "MPI_Type_contiguous");
        return result;
    }
    const MPI_Count q = n / max_count, rest = n % max_count;
    mpiio::Datatype block, blocks;
    check_mpi(MPI_Type_contiguous(static_cast<int>(max_count), MPI_BYTE, block.out()), "MPI_Type_contiguous");
    if (q > INT_MAX)
        throw Error(ErrorKind::Unsupported, "run of more than 2^61 bytes");
    check_mpi(MPI_Type_contiguous(static_cast<int>(q), block.get(), blocks.out()), "MPI_Type_contiguous");
    if (rest == 0)
        return blocks;
    int counts[2] = {1, static_cast<int>(rest)};
    MPI_Aint disps[2] = {0, static_cast<MPI_Aint>(q * max_count)};
    MPI_Datatype types[2] = {blocks.get(), MPI_BYTE};
    check_mpi(MPI_Type_create_struct(2, counts, disps, types, result.out()), "MPI_Type_create_struct");
    return result;
}

// Local. More than max_count copies: an hvector of max_count-copy hvectors plus a remainder hvector.
mpiio::Datatype hvector_any(MPI_Count n, MPI_Aint stride, MPI_Datatype inner, MPI_Count max_count) {
    if (n < 1 || max_count < 2)
        throw Error(ErrorKind::Internal, "hvector_any: empty vector");
    mpiio::Datatype result;
    if (n <= max_count) {
        check_mpi(MPI_Type_create_hvector(static_cast<int>(n), 1, stride, inner, result.out()),
                  "MPI_Type_create_hvector");
        return result;
    }
    const MPI_Count q = n / max_count, rest = n % max_count;
    if (q > INT_MAX)
        throw Error(ErrorKind::Unsupported, "vector of more than 2^61 blocks");
    mpiio::Datatype block, blocks, tail;
    check_mpi(MPI_Type_create_hvector(static_cast<int>(max_count), 1, stride, inner, block.out()),
              "MPI_Type_create_hvector");
    check_mpi(MPI_Type_create_hvector(static_cast<int>(q), 1, stride * max_count, block.get(), blocks.out()),
              "MPI_Type_create_hvector");
    if (rest == 0)
        return blocks;
    check_mpi(MPI_Type_create_hvector(static_cast<int>(rest), 1, stride, inner, tail.out()),
              "MPI_Type_create_hvector");
    int counts[2] = {1, 1};
    MPI_Aint disps[2] = {0, static_cast<MPI_Aint>(q * max_count) * stride};
    MPI_Datatype types[2] = {blocks.get(), tail.get()};
    check_mpi(MPI_Type_create_struct(2, counts, disps, types, result.out()), "MPI_Type_create_struct");
    return result;
}

namespace {

// Local. One MPI constructor call for at most max_count runs, each at most max_count bytes.
mpiio::Datatype runs_type_small(std::span<const MPI_Aint> disp, std::span<const MPI_Count> len) {
    const std::size_t n = disp.size();
    mpiio::Datatype result;
    bool equal_len = true, equal_stride = n >= 2;
    const MPI_Aint stride = n >= 2 ? disp[1] - disp[0] : 0;
    for (std::size_t i = 1; i < n && (equal_len || equal_stride); ++i) {
        equal_len = equal_len && len[i] == len[0];
        equal_stride = equal_stride && disp[i] - disp[i - 1] == stride;
    }
    if (equal_len && equal_stride && stride > 0) {
        // Regular runs: no per-run arrays at all.
        mpiio::Datatype vec;
        check_mpi(MPI_Type_create_hvector(static_cast<int>(n), static_cast<int>(len[0]), stride, MPI_BYTE,
                                          vec.out()),
                  "MPI_Type_create_hvector");
        if (disp[0] == 0)
            return vec;
        // Keep the absolute position of the first run (the caller joins several groups).
        int one = 1;
        MPI_Aint d = disp[0];
        MPI_Datatype t = vec.get();
        check_mpi(MPI_Type_create_struct(1, &one, &d, &t, result.out()), "MPI_Type_create_struct");
        return result;
    }
    if (equal_len) {
        check_mpi(MPI_Type_create_hindexed_block(static_cast<int>(n), static_cast<int>(len[0]), disp.data(),
                                                 MPI_BYTE, result.out()),
                  "MPI_Type_create_hindexed_block");
        return result;
    }
    std::vector<int> lengths(n);
    for (std::size_t i = 0; i < n; ++i)
        lengths[i] = static_cast<int>(len[i]);
    check_mpi(
        MPI_Type_create_hindexed(static_cast<int>(n), lengths.data(), disp.data(), MPI_BYTE, result.out()),
        "MPI_Type_create_hindexed");
    return result;
}

} // namespace

// Local. Runs longer than 2^30 bytes are cut into 2^30-byte pieces (same bytes, same order), and
// more than 2^30 runs are built in groups joined by a struct whose members all sit at 0.
mpiio::Datatype runs_type(std::span<const MPI_Aint> disp, std::span<const MPI_Count> len,
                          MPI_Count max_count) {
    if (disp.empty() || disp.size() != len.size() || max_count < 2)
        throw Error(ErrorKind::Internal, "runs_type: bad run list");
    bool long_runs = false;
    for (MPI_Count l : len)
        long_runs = long_runs || l > max_count;
    std::vector<MPI_Aint> cut_disp;
    std::vector<MPI_Count> cut_len;
    if (long_runs) {
        for (std::size_t i = 0; i < disp.size(); ++i)
            for (MPI_Count done = 0; done < len[i]; done += max_count) {
                cut_disp.push_back(disp[i] + static_cast<MPI_Aint>(done));
                cut_len.push_back(std::min(max_count, len[i] - done));
            }
        disp = cut_disp;
        len = cut_len;
    }
    if (disp.size() <= static_cast<std::size_t>(max_count))
        return runs_type_small(disp, len);
    std::vector<mpiio::Datatype> groups;
    std::vector<MPI_Datatype> handles;
    for (std::size_t first = 0; first < disp.size(); first += max_count) {
        const std::size_t n = std::min<std::size_t>(max_count, disp.size() - first);
        groups.push_back(runs_type_small(disp.subspan(first, n), len.subspan(first, n)));
        handles.push_back(groups.back().get());
    }
    std::vector<int> ones(groups.size(), 1);
    std::vector<MPI_Aint> zeros(groups.size(), 0);
    return struct_any(ones, zeros, handles, max_count);
}

// Local. Groups of at most 2^30 entries become inner structs, joined by an outer struct at 0.
mpiio::Datatype struct_any(std::span<const int> count, std::span<const MPI_Aint> disp,
                           std::span<const MPI_Datatype> type, MPI_Count max_count) {
    const std::size_t n = count.size();
    if (n == 0 || disp.size() != n || type.size() != n || max_count < 2)
        throw Error(ErrorKind::Internal, "struct_any: bad entry list");
    mpiio::Datatype result;
    if (n <= static_cast<std::size_t>(max_count)) {
        check_mpi(
            MPI_Type_create_struct(static_cast<int>(n), count.data(), disp.data(), type.data(), result.out()),
            "MPI_Type_create_struct");
        return result;
    }
    std::vector<mpiio::Datatype> groups;
    std::vector<MPI_Datatype> handles;
    for (std::size_t first = 0; first < n; first += max_count) {
        const std::size_t m = std::min<std::size_t>(max_count, n - first);
        groups.push_back(
            struct_any(count.subspan(first, m), disp.subspan(first, m), type.subspan(first, m), max_count));
        handles.push_back(groups.back().get());
    }
    std::vector<int> ones(groups.size(), 1);
    std::vector<MPI_Aint> zeros(groups.size(), 0);
    return struct_any(ones, zeros, handles, max_count);
}

// Local.
DatatypePtr commit_shared(mpiio::Datatype t) {
    check_mpi(MPI_Type_commit(t.ptr()), "MPI_Type_commit");
    return std::make_shared<const mpiio::Datatype>(std::move(t));
}

// Local. Avoids a derived type whenever MPI_BYTE with an int count can say it.
TypeSpec derived_spec(mpiio::Datatype t, const DerivedFacts &facts) {
    TypeSpec spec;
    spec.owned = commit_shared(std::move(t));
    spec.type = spec.owned->get();
    spec.count = 1;
    spec.bytes = facts.bytes;
    spec.span = facts.span;
    spec.blocks = facts.blocks;
    spec.shape = facts.shape;
    spec.contiguous = false;
    spec.monotonic = facts.monotonic;
    return spec;
}

TypeSpec contiguous_spec(MPI_Aint offset, MPI_Count bytes) {
    TypeSpec spec;
    if (bytes <= 0)
        return spec;
    spec.offset = offset;
    spec.bytes = bytes;
    spec.span = static_cast<MPI_Aint>(bytes);
    spec.blocks = 1;
    spec.shape = TypeShape::Contiguous;
    if (bytes <= INT_MAX) {
        spec.count = static_cast<int>(bytes);
        return spec;
    }
    spec.owned = commit_shared(contiguous_bytes(bytes));
    spec.type = spec.owned->get();
    spec.count = 1;
    return spec;
}

} // namespace mpiio::selection
