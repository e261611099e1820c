// Command line of h5bench_vfd.
#pragma once

#include "common.hpp"
#include "patterns.hpp"

#include <string>
#include <vector>

namespace bench {

struct CaseSel {
    std::string pattern;
    Mode mode;
};

// Bounds of --min-phase: a phase never grows past this many times --timesteps or this much data
// (all ranks): buffers and files hold every step at once.
inline constexpr int kMaxStepFactor = 8;
inline constexpr double kMaxPhaseBytes = 512.0 * 1024.0 * 1024.0;

struct Options {
    std::vector<CaseSel> cases; // resolved matrix
    std::vector<Driver> drivers = {Driver::Mpio, Driver::Mpiio, Driver::Raw, Driver::Mpio2};
    Size size = Size::Medium;
    int timesteps = 3;
    // > 0: per case, more time steps (at most kMaxStepFactor x timesteps and kMaxPhaseBytes of
    // data per phase) so that the reference driver's shorter phase lasts about this long.
    double min_phase_s = 0;
    int reps = 5;
    int warmup = 1;
    int confirm_reps = -1;             // repetitions of a flagged case's rerun (-1: 2 x reps; 0: none)
    std::string dir = "/dev/shm";      // data files go to <dir>/h5bench_vfd.<pid-of-rank0>/
    std::string out = "bench-results"; // CSV/JSON/SVG/table
    std::string plugin_config;         // config string for the mpiio driver ("" = defaults)
    std::string label;                 // free text for the chart title / JSON
    std::string server_ops;            // command counting the servers' operations (server_ops.hpp)
    bool stop_on_failure = false;
    bool thread_multiple = false; // MPI_THREAD_MULTIPLE without subfiling (--thread-multiple)
};

// Local, before MPI_Init (main needs it to choose the thread level): the drivers the command line
// asks for, as parse_options will read them (the default list when --drivers is absent or invalid;
// parse_options then reports the error). argv is left as it was.
std::vector<Driver> drivers_in_argv(int argc, char **argv);
// Local, before MPI_Init: whether MPI must be initialised with MPI_THREAD_MULTIPLE (subfiling among
// the drivers, or --thread-multiple).
bool thread_multiple_in_argv(int argc, char **argv);

// Collective (every rank parses the same argv). Returns false and prints usage on rank 0 when
// the program should exit; `exit_code` tells with which status.
bool parse_options(int argc, char **argv, Options &opt, int &exit_code);

} // namespace bench
