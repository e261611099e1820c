// Results of a run and their writers (report.cpp): per case and driver the counted repetitions,
// their summaries, the ratios and the parity test against the A/A control; the terminal and
// Markdown tables, CSV, JSON and the SVG chart.
#pragma once

#include "common.hpp"
#include "kernel.hpp"
#include "server_ops.hpp"
#include "stats.hpp"

#include <array>
#include <optional>
#include <string>
#include <vector>

namespace bench {

struct Summary {
    int n = 0;
    double median_s = 0, min_s = 0, max_s = 0;    // phase time
    double median_bw = 0, min_bw = 0, max_bw = 0; // MiB/s
    double median_data_s = 0;                     // time inside data calls
};

struct DriverResult {
    bool ran = false;
    std::vector<double> wsec, rsec, wdata, rdata; // counted repetitions
    Summary w, r;
    Probe wprobe, rprobe;
    DriverStats stats;
    ServerOps wops, rops;              // the servers' operations in the first round's phases (--server-ops)
    std::vector<std::string> failures; // read-back verification failures
    // Why the driver refused the phase (refusal.hpp), "" when it ran: the case is not supported
    // by it in that direction (no read follows a refused write).
    std::string refused_write, refused_read;
};

// The first round's files (rank 0): sizes, and whether the two HDF5 files are byte-identical.
struct FileCheck {
    bool done = false, identical = false;
    bool gaps = false;      // some dataset elements are never written (every rank knows)
    std::string bytes_note; // "identical" or how the HDF5 files differ byte-wise
    uint64_t size_mpio = 0, size_mpiio = 0, size_raw = 0;
    uint64_t size_subfiling = 0; // the stub, its subfiles and its configuration file together
    std::string subfiling_files; // describe_subfiled(): "stub 2.0 KiB + 1 subfile ..."
    std::optional<uint64_t> digest_mpio, digest_mpiio; // of every byte of the file
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
    std::vector<CaseResult> confirmation; // the rerun of a case the parity test flagged (0 or 1)

    bool failed() const { return !failures.empty(); }
    void summarize(); // fills every driver's w and r from its repetitions
    // Per counted round, log of the bandwidth ratio a/b in a phase ('w' or 'r'): log(time b /
    // time a), the drivers having moved the same bytes; empty when one of them did not run.
    std::vector<double> log_ratios(Driver a, Driver b, char phase) const;
    // Median and range of the per-round bandwidth ratios a/b (in each round both drivers ran back
    // to back, so slow drifts of the machine's load cancel); n = 0 when unavailable.
    Spread ratio(Driver a, Driver b, char phase) const;
    // The parity test of this measurement: log(mpiio/mpio) against log(mpio2/mpio) per round.
    Parity parity(char phase) const {
        return bench::parity(log_ratios(Driver::Mpiio, Driver::Mpio, phase),
                             log_ratios(Driver::Mpio2, Driver::Mpio, phase));
    }
    bool flagged(char phase) const { return parity(phase).verdict != "~"; }
    // The same test of mpiio against another peer (the subfiling driver): log(mpiio/other) against
    // the same A/A control; the first measurement's (reruns confirm mpiio/mpio's verdicts only).
    Parity parity_against(Driver other, char phase) const {
        return bench::parity(log_ratios(Driver::Mpiio, other, phase),
                             log_ratios(Driver::Mpio2, Driver::Mpio, phase));
    }
    // The published verdict: a flagged phase takes its rerun's verdict (when it was rerun).
    bool rerun(char phase) const { return flagged(phase) && !confirmation.empty(); }
    std::string verdict(char phase) const {
        return (rerun(phase) ? confirmation.front() : *this).parity(phase).verdict;
    }
};

// Rank 0. table.txt (also on stdout), table.md, results.csv, runs.csv, results.json, chart.svg.
void print_table(FILE *out, const RunInfo &info, const std::vector<CaseResult> &results);
void write_outputs(const std::string &dir, const RunInfo &info, const std::vector<CaseResult> &results);
// The servers' operations (--server-ops; report_server_ops.cpp), rank 0: whether any were
// counted; a's over b's, both phases ("-" when not counted); server-ops.md and server-ops.csv.
bool server_ops_counted(const std::vector<CaseResult> &results);
std::string server_ops_ratio(const CaseResult &c, Driver a, Driver b);
void write_server_ops_markdown(FILE *f, const std::vector<CaseResult> &results);
void write_server_ops_csv(FILE *f, const std::vector<CaseResult> &results);
// "0.95 (0.88-1.02)": median and range of ratios; "-" when not measured.
std::string spread_str(const Spread &s);

} // namespace bench
