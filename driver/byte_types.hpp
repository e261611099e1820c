// MPI datatypes for byte ranges of any size. MPI counts are `int`, so a transfer of more than
// INT_MAX bytes is described by one derived datatype of 1 GiB blocks (plus a remainder).
#pragma once

#include "mpi_handles.hpp"

#include <cstddef>

namespace mpiio {

// The (datatype, count) pair that moves `bytes` contiguous bytes.
struct ByteRun {
    Datatype owned;               // set only when a derived type was needed
    MPI_Datatype type = MPI_BYTE; // MPI_BYTE or owned.get()
    int count = 0;
};

// Local.
ByteRun byte_run(std::size_t bytes);

// Local. The part of a buffer described by (count, type) that lies past its first `done` bytes,
// in the datatype's type-map order, is set to zero (reads past the end of the file read zeros).
void zero_fill_after(void *buf, int count, MPI_Datatype type, std::size_t done, std::size_t total);

} // namespace mpiio
