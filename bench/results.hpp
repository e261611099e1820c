// Measurements of a case, their summary statistics (statistics.cpp) and the run's environment.
#pragma once

#include "common.hpp"
#include "kernel.hpp"
#include "verify.hpp"

#include <array>
#include <string>
#include <vector>

namespace bench {

struct Summary {
    int n = 0;
    double median_s = 0, min_s = 0, max_s = 0;    // phase time
    double median_bw = 0, min_bw = 0, max_bw = 0; // MiB/s
    double median_data_s = 0;                     // time inside data calls
};
Summary summarize(const std::vector<double> &seconds, const std::vector<double> &data_seconds, double bytes);

struct DriverResult {
    bool ran = false;
    std::vector<double> wsec, rsec, wdata, rdata; // counted repetitions
    Summary w, r;
    Probe wprobe, rprobe;
    DriverStats stats;
    std::vector<std::string> failures; // read-back verification failures
};

// A ratio of bandwidths a/b from the counted rounds: the median of the per-round ratios (in each
// round both drivers ran back to back, so slow drifts of the machine's load cancel) and their
// range, which shows how far apart single repetitions were.
struct RatioSpread {
    int n = 0; // rounds where both ran
    double median = 0, min = 0, max = 0;
};

struct CaseResult {
    std::string id, pattern, mode, what, raw_note;
    double bytes = 0;  // data bytes per phase, all ranks
    int timesteps = 0; // time steps per file (--timesteps, or more under --min-phase)
    int datasets = 0, accesses = 0;
    std::array<DriverResult, kNumDrivers> drv;
    FileCheck check;
    std::vector<std::string> failures; // everything that makes the case fail
    double elapsed_s = 0;
    bool failed() const { return !failures.empty(); }
    // Bandwidth ratio a/b for a phase ('w' or 'r') paired round by round; n = 0 when unavailable.
    RatioSpread paired_ratio(Driver a, Driver b, char phase) const;
    // Its median; 0 when unavailable.
    double ratio(Driver a, Driver b, char phase) const { return paired_ratio(a, b, phase).median; }
};

struct RunInfo {
    std::string started, host, mpi_library, hdf5_version, plugin_path, size, dir, label;
    std::string io_layer;     // ompio | romio321 | mpich: names the published table
    std::string io_component; // as shown: "default (ompio)", "romio321", "ROMIO (MPICH)"
    std::string plugin_config;
    std::string load_start,
        load_end; // /proc/loadavg (1, 5, 15 min) at start and end: other load on the machine
    int ranks = 0, timesteps = 0, reps = 0, warmup = 0;
    double min_phase_s = 0; // --min-phase (0: every case at `timesteps`)
    double total_s = 0;
};

} // namespace bench
