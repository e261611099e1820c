// One rank's part of an MPI collective transfer: the file view (displacement + file type) and the
// memory side (base, count, type).
#pragma once

#include "run_io.hpp"

#include <mpi.h>

#include <memory>
#include <vector>

namespace mpiio {

// Empty (mem_count 0) for a rank with nothing to move.
struct CollectiveRequest {
    MPI_Offset view_disp = 0;     // the lowest file byte touched (absolute address)
    MPI_Datatype file = MPI_BYTE; // file type from view_disp; MPI_BYTE when contiguous
    bool file_contiguous = true;  // bytes [view_disp, view_disp + bytes) in order: no view needed
    void *mem_base = nullptr;
    MPI_Datatype mem = MPI_BYTE;
    int mem_count = 0;
    size_t bytes = 0;                                    // payload bytes
    haddr_t end = 0;                                     // one past the highest file byte
    std::shared_ptr<const Datatype> file_type, mem_type; // keep derived types alive
};

// Local. The request describing sorted, merged runs (hindexed byte blocks over absolute memory
// addresses); one run of at most INT_MAX bytes needs no derived type at all.
CollectiveRequest request_from_runs(const std::vector<Run> &runs);

} // namespace mpiio
