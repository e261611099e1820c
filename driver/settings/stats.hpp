// Per-file I/O statistics (config key stats=summary prints them at close; the experimental ctl
// opcode H5FD_MPIIO_CTL_GET_STATS returns them to tests and tools).
#pragma once

#include "h5fd_mpiio.h"

#include <mpi.h>

#include <chrono>
#include <string>

namespace mpiio {

using Stats = H5FD_mpiio_stats_t;

// Measures wall time spent in MPI-IO data calls, only for a file whose statistics are printed
// (stats=summary: `clocked`); otherwise seconds_in_mpi_io stays 0 and no clock is read (two clock
// reads per call cost about a twentieth of a tiny MPI_File_write_at, and a file open makes seven
// such calls). An operation that makes a call per byte run holds one timer around all of them (so
// its staging copies and datatype building count too); the timers of its calls then see
// `running` and read no clock. The clock is the C++ steady clock, not MPI_Wtime: a monotonic
// clock without a call through the MPI library.
class IoTimer {
public:
    IoTimer(Stats &stats, bool &running, bool clocked)
        : stats_(stats), running_(running), outer_(clocked && !running) {
        if (outer_) {
            running_ = true;
            start_ = Clock::now();
        }
    }
    ~IoTimer() {
        if (outer_) {
            stats_.seconds_in_mpi_io += std::chrono::duration<double>(Clock::now() - start_).count();
            running_ = false;
        }
    }
    IoTimer(const IoTimer &) = delete;
    IoTimer &operator=(const IoTimer &) = delete;

private:
    using Clock = std::chrono::steady_clock;
    Stats &stats_;
    bool &running_;
    bool outer_;
    Clock::time_point start_{};
};

// What stats=summary says of the file before its counters, one line each (rank 0's).
struct StatsHeader {
    std::string storage;     // the storage class in effect (settings/storage.hpp, describe)
    std::string layout;      // the file's stripes (file/file_layout.hpp, describe)
    std::string aggregators; // the aggregating route's (CollectiveEngine::describe_aggregation)
};

// Collective: sums the counters over `comm` (times: maximum) and, on rank 0, writes one summary
// block for `file_name` to stderr, the header's lines first.
void print_stats_summary(MPI_Comm comm, int rank, const std::string &file_name, const StatsHeader &header,
                         const Stats &mine);

} // namespace mpiio
