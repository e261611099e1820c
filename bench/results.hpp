// Measurements of a case and their summary statistics; writers for the terminal table, CSV,
// JSON, Markdown and the SVG chart.
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

struct CaseResult {
    std::string id, pattern, mode, what, raw_note;
    double bytes = 0; // data bytes per phase, all ranks
    int datasets = 0, accesses = 0;
    std::array<DriverResult, kNumDrivers> drv;
    FileCheck check;
    std::vector<std::string> failures; // everything that makes the case fail
    double elapsed_s = 0;
    bool failed() const { return !failures.empty(); }
    // Ratio of median bandwidths a/b for a phase ('w' or 'r'); 0 when unavailable.
    double ratio(Driver a, Driver b, char phase) const;
};

struct RunInfo {
    std::string started, host, mpi_library, io_component, hdf5_version, plugin_path, size, dir, label;
    std::string plugin_config;
    std::string load_start,
        load_end; // /proc/loadavg (1, 5, 15 min) at start and end: other load on the machine
    int ranks = 0, timesteps = 0, reps = 0, warmup = 0;
    double total_s = 0;
};

// All writers run on rank 0.
void print_table(FILE *out, const RunInfo &info, const std::vector<CaseResult> &results);
void write_outputs(const std::string &dir, const RunInfo &info, const std::vector<CaseResult> &results);

} // namespace bench
