// MPI datatype constructors that stay correct for any count and any displacement: MPI-3.1 counts
// are `int`, so anything larger than 2^30 items is built in 2^30-item blocks and joined with a
// struct. Displacements are MPI_Aint (64-bit) throughout. All functions are local (no
// communication) and return uncommitted types unless the name says otherwise.
#pragma once

#include "type_spec.hpp"

#include <mpi.h>

#include <cstdint>
#include <span>

namespace mpiio::selection {

// Largest count handed to one MPI constructor call. The `max_count` parameters below exist so tests
// can exercise the splitting with small numbers; production code uses the default.
inline constexpr MPI_Count kMaxCount = MPI_Count{1} << 30;

// `n` (>= 1) contiguous bytes.
mpiio::Datatype contiguous_bytes(MPI_Count n, MPI_Count max_count = kMaxCount);

// `n` (>= 1) copies of `inner`, the i-th at byte displacement i * stride.
mpiio::Datatype hvector_any(MPI_Count n, MPI_Aint stride, MPI_Datatype inner,
                            MPI_Count max_count = kMaxCount);

// Byte runs (disp[i], len[i]) visited in the given order (lengths >= 1). Picks hvector for
// equal-length, equal-stride runs, hindexed_block for equal lengths, hindexed otherwise.
mpiio::Datatype runs_type(std::span<const MPI_Aint> disp, std::span<const MPI_Count> len,
                          MPI_Count max_count = kMaxCount);

// Entries (count[i] items of type[i] at disp[i]) in the given order, any number of entries.
mpiio::Datatype struct_any(std::span<const int> count, std::span<const MPI_Aint> disp,
                           std::span<const MPI_Datatype> type, MPI_Count max_count = kMaxCount);

// Commits `t` and hands it to shared ownership (for TypeSpec and the cache).
DatatypePtr commit_shared(mpiio::Datatype t);

// The facts a derived (non-contiguous) TypeSpec carries besides its type.
struct DerivedFacts {
    MPI_Count bytes = 0;
    MPI_Aint span = 0;
    std::uint64_t blocks = 0;
    TypeShape shape = TypeShape::Indexed;
    bool monotonic = true;
};

// Commits `t` into a TypeSpec at offset 0, count 1, with `facts`.
TypeSpec derived_spec(mpiio::Datatype t, const DerivedFacts &facts);

// A TypeSpec for `bytes` contiguous bytes at `offset`: MPI_BYTE x bytes when it fits an int, one
// derived type otherwise.
TypeSpec contiguous_spec(MPI_Aint offset, MPI_Count bytes);

} // namespace mpiio::selection
