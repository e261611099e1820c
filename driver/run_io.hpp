// Independent transfers: contiguous file ranges and byte runs moved with MPI_File_{read,write}_at.
// They never change the shared handle's file view (that is a collective call), so any rank may
// call them alone; many small runs of a write may go through a view of the rank's own handle
// (view_writer.hpp).
#pragma once

#include "file.hpp"

#include <mpi.h>

#include <cstddef>
#include <span>
#include <vector>

namespace mpiio {

using Run = selection::ByteRun;

// Local. One MPI_File_{read,write}_at of `count` items of `mem_type` (`bytes` payload bytes in
// all) to or from the contiguous file range starting at `addr`. Returns the bytes moved. A read
// past the end of the file leaves the rest of the memory zeroed; a short write throws.
size_t independent_transfer(File *file, Direction dir, haddr_t addr, void *buf, int count,
                            MPI_Datatype mem_type, size_t bytes);

// Local. The same for `bytes` contiguous bytes of memory (any size).
size_t independent_bytes(File *file, Direction dir, haddr_t addr, char *buf, size_t bytes);

// A run at least this long moves with a call of its own, straight from or to the caller's memory:
// one more MPI call costs less than copying it through the staging buffer (a second copy of every
// byte, and fresh pages whenever a file's staging buffer first grows: 3x slower collective chunk
// fill under ROMIO, h5perf chunked collective write 0.55x the built-in driver before).
inline constexpr size_t kDirectRunBytes = size_t{64} << 10;

// Fewest small runs an unbridged write moves as one call through the rank's own view
// (view_writer.hpp) rather than one call each, and most (a bound on the view's type map).
inline constexpr size_t kViewWriteMinRuns = 8;
inline constexpr size_t kViewWriteMaxRuns = size_t{1} << 20;

// Local. The runs' bytes between their memory and `buffer`, which holds the file from `base` on:
// one memcpy per run, into memory for a read, into the buffer for a write.
void copy_runs_via_buffer(std::span<const Run> runs, char *buffer, haddr_t base, Direction dir);

// Local. Sorted, merged runs with as few MPI calls as the staging buffer allows: small runs
// separated by at most config.sieve_gap bytes are moved as one range through the staging buffer.
// Reads always bridge such gaps; writes bridge them (reading the gap and writing it back
// unchanged) only when `bridge_write_gaps` says no other process writes there meanwhile, and
// otherwise move kViewWriteMinRuns or more small runs as one call through the rank's own view.
void independent_runs(File *file, Direction dir, const std::vector<Run> &runs, bool bridge_write_gaps);

// Local. The part of a buffer described by (count, type) that lies past its first `done` bytes,
// in the datatype's type-map order, is set to zero (reads past the end of the file read zeros).
void zero_fill_after(void *buf, int count, MPI_Datatype type, size_t done, size_t total);

} // namespace mpiio
