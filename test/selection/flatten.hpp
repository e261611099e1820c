// Test oracle, part 1: what an MPI datatype really describes. Two independent readings:
// flatten() decodes the constructor tree (MPI_Type_get_envelope/contents), packed_positions()
// lets MPI's own engine pack a buffer whose bytes encode their positions.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace seltest {

struct ByteRun {
    std::int64_t disp;
    std::int64_t len;
    bool operator==(const ByteRun &) const = default;
};

// Appends with merging of exactly adjacent runs.
void push_run(std::vector<ByteRun> &runs, std::int64_t disp, std::int64_t len);

// Byte runs of `count` copies of `type` (typemap order), displaced by `base`, merged. Stops after
// `limit` runs (returns false; `out` then holds the first `limit` runs). Throws std::runtime_error
// for constructors it does not know.
bool flatten(MPI_Datatype type, std::int64_t count, std::int64_t base, std::vector<ByteRun> &out,
             std::size_t limit = 1u << 24);

// Byte positions (relative to the type's origin) visited by MPI_Pack of (count, type), as merged
// runs. Only for types whose true extent starts at 0 and is small (allocates `span` bytes).
std::vector<ByteRun> packed_runs(MPI_Datatype type, int count, std::int64_t span);

std::string describe(const std::vector<ByteRun> &runs, std::size_t max = 8);

} // namespace seltest
