// Per-file I/O statistics (config key stats=summary prints them at close; the experimental ctl
// opcode H5FD_MPIIO_CTL_GET_STATS returns them to tests and tools).
#pragma once

#include "h5fd_mpiio.h"

#include <mpi.h>

#include <string>

namespace mpiio {

using Stats = H5FD_mpiio_stats_t;

// Measures wall time spent in MPI-IO data calls.
class IoTimer {
public:
    explicit IoTimer(Stats &stats) : stats_(stats), start_(MPI_Wtime()) {}
    ~IoTimer() { stats_.seconds_in_mpi_io += MPI_Wtime() - start_; }
    IoTimer(const IoTimer &) = delete;
    IoTimer &operator=(const IoTimer &) = delete;

private:
    Stats &stats_;
    double start_;
};

// Collective: sums the counters over `comm` (times: maximum) and, on rank 0, writes one summary
// block for `file_name` to stderr.
void print_stats_summary(MPI_Comm comm, int rank, const std::string &file_name, const Stats &mine);

} // namespace mpiio
