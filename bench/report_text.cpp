// The human-readable tables: the terminal table (table.txt) and the Markdown table the README
// embeds (table.md), one per MPI-IO layer.
#include "environment.hpp"
#include "format.hpp"
#include "options.hpp"
#include "report.hpp"

#include <cstdio>
#include <thread>

namespace bench {

namespace {

constexpr double kThreshold = 0.95; // issue 10: no row below 0.95x the built-in driver

// The A/A control of a phase: the built-in driver's second run against its first.
RatioSpread control_ratio(const CaseResult &c, char phase) {
    return c.paired_ratio(Driver::Mpio2, Driver::Mpio, phase);
}

// Ratios below the threshold, and how many of them the A/A control explains.
struct BelowThreshold {
    std::vector<std::string> rows;           // "write cs1d/coll 0.91 (0.85-0.97), A/A 0.98 (0.90-1.05)"
    int entirely_below = 0;                  // whose whole range is below the threshold
    int below_control = 0;                   // whose median is below the A/A control's lowest repetition
    int control_rows = 0, control_below = 0; // A/A ratios measured, and those below the threshold
};

BelowThreshold below_threshold(const std::vector<CaseResult> &results) {
    BelowThreshold out;
    for (const CaseResult &c : results)
        for (char phase : {'w', 'r'}) {
            const RatioSpread aa = control_ratio(c, phase);
            if (aa.n > 0) {
                ++out.control_rows;
                out.control_below += aa.median < kThreshold ? 1 : 0;
            }
            const RatioSpread r = c.paired_ratio(Driver::Mpiio, Driver::Mpio, phase);
            if (r.n == 0 || r.median >= kThreshold)
                continue;
            out.rows.push_back(std::string(phase == 'w' ? "write " : "read ") + c.id + " " +
                               ratio_spread_str(r) +
                               (aa.n > 0 ? ", A/A " + ratio_spread_str(aa) : std::string()));
            out.entirely_below += r.max < kThreshold ? 1 : 0;
            out.below_control += aa.n > 0 && r.median < aa.min ? 1 : 0;
        }
    return out;
}

// "3 of 9 with the whole range below 0.95; 2 below the lowest repetition of their A/A control.
// The built-in driver against itself (A/A, mpio2/mpio): 7 of 58 ratios below 0.95 by median."
// (the A/A parts only when the control ran).
std::string below_threshold_counts(const BelowThreshold &b) {
    std::string s;
    if (!b.rows.empty())
        s = std::to_string(b.entirely_below) + " of " + std::to_string(b.rows.size()) +
            " with the whole range below " + fmt("%.2f", kThreshold) +
            (b.control_rows > 0 ? "; " + std::to_string(b.below_control) +
                                      " below the lowest repetition of their A/A control. "
                                : std::string(". "));
    if (b.control_rows > 0)
        s += "The built-in driver against itself (A/A, mpio2/mpio): " + std::to_string(b.control_below) +
             " of " + std::to_string(b.control_rows) + " ratios below " + fmt("%.2f", kThreshold) +
             " by median.";
    return s;
}

void print_checks(FILE *out, const std::vector<CaseResult> &results) {
    std::fprintf(out, "\nCHECKS\n");
    for (const CaseResult &c : results) {
        std::fprintf(out, "%-18s %s", c.id.c_str(), case_status(c).c_str());
        if (c.check.done && !c.check.identical && !c.check.bytes_note.empty())
            std::fprintf(out, " (%s)", c.check.bytes_note.c_str());
        std::fprintf(out, "\n");
        size_t shown = 0, hidden = 0;
        for (const std::string &f : c.failures) {
            if (f.rfind("reproduce:", 0) == 0 || shown < 8) {
                std::fprintf(out, "    %s\n", f.c_str());
                ++shown;
            } else {
                ++hidden;
            }
        }
        if (hidden > 0)
            std::fprintf(out, "    ... and %zu more (results.json has all)\n", hidden);
    }
}

// "3 time steps", or how --min-phase chose them.
std::string steps_text(const RunInfo &info) {
    if (info.min_phase_s <= 0)
        return std::to_string(info.timesteps) + " time steps";
    return "time steps per case (column steps) raised from " + std::to_string(info.timesteps) +
           " until the built-in driver's shorter phase lasts about " + fmt("%.2g", info.min_phase_s) +
           " s (at most " + std::to_string(kMaxStepFactor) + "x and " + fmt("%.0f", kMaxPhaseBytes / kMiB) +
           " MiB per phase)";
}

} // namespace

void print_table(FILE *out, const RunInfo &info, const std::vector<CaseResult> &results) {
    std::fprintf(out, "\nh5bench_vfd: %s (io=%s), %d ranks, size=%s, %s, %d reps (+%d warm-up), dir %s\n",
                 layer_title(info).c_str(), info.io_component.c_str(), info.ranks, info.size.c_str(),
                 steps_text(info).c_str(), info.reps, info.warmup, info.dir.c_str());
    std::fprintf(out,
                 "Load average (1/5/15 min) at start %s, at end %s (%u cores): other processes compete with "
                 "the benchmark when these exceed the core count (its own ranks add about one per rank).\n",
                 info.load_start.c_str(), info.load_end.c_str(), std::thread::hardware_concurrency());
    std::fprintf(out,
                 "Bandwidth in MiB/s of data bytes per phase (whole file: create/open .. close, max over "
                 "ranks): median [min-max].\n");
    std::fprintf(out,
                 "Ratios: median over the repetitions of the per-repetition bandwidth ratio (range): > 1 "
                 "means the plugin is faster.\n");
    for (char phase : {'w', 'r'}) {
        std::fprintf(out, "\n%s\n", phase == 'w' ? "WRITE" : "READ");
        std::fprintf(out, "%-18s %8s %5s %7s  %-22s %-22s %-22s %-18s %-18s %-18s\n", "case", "MiB", "steps",
                     "mpio s", "mpio", "mpiio", "raw", "mpiio/mpio", "mpiio/raw", "A/A mpio2/mpio");
        for (const CaseResult &c : results) {
            const Summary &m = phase == 'w' ? c.drv[0].w : c.drv[0].r;
            std::fprintf(out, "%-18s %8.2f %5d %7s  %-22s %-22s %-22s %-18s %-18s %-18s%s\n", c.id.c_str(),
                         c.bytes / kMiB, c.timesteps, c.drv[0].ran ? fmt("%.3f", m.median_s).c_str() : "-",
                         bw_cell(c.drv[0], phase).c_str(), bw_cell(c.drv[1], phase).c_str(),
                         bw_cell(c.drv[2], phase).c_str(),
                         ratio_spread_str(c.paired_ratio(Driver::Mpiio, Driver::Mpio, phase)).c_str(),
                         ratio_spread_str(c.paired_ratio(Driver::Mpiio, Driver::Raw, phase)).c_str(),
                         ratio_spread_str(control_ratio(c, phase)).c_str(), c.failed() ? "  FAILED" : "");
        }
    }
    const BelowThreshold low = below_threshold(results);
    std::fprintf(out, "\nmpiio/mpio below %.2f: %s\n", kThreshold, low.rows.empty() ? "none" : "");
    for (const std::string &s : low.rows)
        std::fprintf(out, "    %s\n", s.c_str());
    const std::string counts = below_threshold_counts(low);
    if (!counts.empty())
        std::fprintf(out, "    (%s)\n", counts.c_str());
    print_checks(out, results);
    std::fprintf(out,
                 "\nraw = MPI-IO with an equivalent file view and no HDF5 metadata (no superblock, object "
                 "headers, B-trees or attributes).\n");
    int failed = 0;
    for (const CaseResult &c : results)
        failed += c.failed() ? 1 : 0;
    std::fprintf(out, "Total %.0f s. %s\n", info.total_s,
                 failed ? (std::to_string(failed) + " case(s) FAILED").c_str() : "All cases verified.");
}

void write_markdown_table(FILE *f, const RunInfo &info, const std::vector<CaseResult> &results) {
    std::fprintf(
        f,
        "**%s** (%s, io=%s), HDF5 %s, %d ranks on %u cores, files in %s, size %s, %s. "
        "Every driver ran %d warm-up + %d counted repetitions, alternating with the others in "
        "rotating order. Bandwidth: median MiB/s of data bytes over the phase (create/open to close, "
        "slowest rank). **mpiio/mpio**: median of the per-repetition ratios, their range in "
        "parentheses (> 1: the plugin is faster). **A/A mpio2/mpio**: the built-in driver run a second "
        "time in every round against its first run, the same statistic: how far two identical drivers "
        "land apart here. Load average (1/5/15 min) %s at start, %s at end. "
        "%s on %s, %.0f s.%s%s\n\n",
        layer_title(info).c_str(), short_library_name(info.mpi_library).c_str(), info.io_component.c_str(),
        info.hdf5_version.c_str(), info.ranks, std::thread::hardware_concurrency(), info.dir.c_str(),
        info.size.c_str(), steps_text(info).c_str(), info.warmup, info.reps, info.load_start.c_str(),
        info.load_end.c_str(), info.started.c_str(), info.host.c_str(), info.total_s,
        info.label.empty() ? "" : " ", info.label.c_str());
    std::fprintf(
        f,
        "| case | MiB | steps | mpio s (w/r) | write mpio | write mpiio | **write mpiio/mpio** | read mpio | "
        "read mpiio | **read mpiio/mpio** | mpiio/raw (w/r) | A/A mpio2/mpio (w / r) | check |\n");
    std::fprintf(f, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
    for (const CaseResult &c : results) {
        auto med = [&](int d, char p) {
            const DriverResult &r = c.drv[static_cast<size_t>(d)];
            return r.ran ? bw(p == 'w' ? r.w.median_bw : r.r.median_bw) : std::string("-");
        };
        const DriverResult &mpio = c.drv[0];
        const std::string secs =
            mpio.ran ? fmt("%.2f", mpio.w.median_s) + " / " + fmt("%.2f", mpio.r.median_s) : std::string("-");
        const RatioSpread rw = c.paired_ratio(Driver::Mpiio, Driver::Mpio, 'w');
        const RatioSpread rr = c.paired_ratio(Driver::Mpiio, Driver::Mpio, 'r');
        auto bold = [](const RatioSpread &r) {
            return r.n == 0 ? std::string("-")
                            : "**" + ratio_str(r.median) + "** (" + ratio_str(r.min) + "-" +
                                  ratio_str(r.max) + ")";
        };
        std::fprintf(f, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s / %s | %s |\n",
                     c.id.c_str(), bw(c.bytes / kMiB).c_str(), c.timesteps, secs.c_str(), med(0, 'w').c_str(),
                     med(1, 'w').c_str(), bold(rw).c_str(), med(0, 'r').c_str(), med(1, 'r').c_str(),
                     bold(rr).c_str(), ratio_str(c.ratio(Driver::Mpiio, Driver::Raw, 'w')).c_str(),
                     ratio_str(c.ratio(Driver::Mpiio, Driver::Raw, 'r')).c_str(),
                     ratio_spread_str(control_ratio(c, 'w')).c_str(),
                     ratio_spread_str(control_ratio(c, 'r')).c_str(), case_status(c).c_str());
    }
    const BelowThreshold low = below_threshold(results);
    if (low.rows.empty()) {
        std::fprintf(f, "\nNo mpiio/mpio ratio below %.2f. %s\n", kThreshold,
                     below_threshold_counts(low).c_str());
    } else {
        std::fprintf(f, "\nmpiio/mpio below %.2f (median): ", kThreshold);
        for (size_t i = 0; i < low.rows.size(); ++i)
            std::fprintf(f, "%s%s", i ? "; " : "", low.rows[i].c_str());
        std::fprintf(f, ". %s\n", below_threshold_counts(low).c_str());
    }
}

} // namespace bench
