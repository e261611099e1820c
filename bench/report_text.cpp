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

// "write cs1d/coll 0.91 (0.85-0.97)" for every ratio whose median is below the threshold.
std::vector<std::string> below_threshold(const std::vector<CaseResult> &results, int &entirely_below) {
    std::vector<std::string> out;
    entirely_below = 0;
    for (const CaseResult &c : results)
        for (char phase : {'w', 'r'}) {
            const RatioSpread r = c.paired_ratio(Driver::Mpiio, Driver::Mpio, phase);
            if (r.n == 0 || r.median >= kThreshold)
                continue;
            out.push_back(std::string(phase == 'w' ? "write " : "read ") + c.id + " " + ratio_spread_str(r));
            entirely_below += r.max < kThreshold ? 1 : 0;
        }
    return out;
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
        std::fprintf(out, "%-18s %8s %5s %7s  %-22s %-22s %-22s %-18s %-18s\n", "case", "MiB", "steps",
                     "mpio s", "mpio", "mpiio", "raw", "mpiio/mpio", "mpiio/raw");
        for (const CaseResult &c : results) {
            const Summary &m = phase == 'w' ? c.drv[0].w : c.drv[0].r;
            std::fprintf(out, "%-18s %8.2f %5d %7s  %-22s %-22s %-22s %-18s %-18s%s\n", c.id.c_str(),
                         c.bytes / kMiB, c.timesteps, c.drv[0].ran ? fmt("%.3f", m.median_s).c_str() : "-",
                         bw_cell(c.drv[0], phase).c_str(), bw_cell(c.drv[1], phase).c_str(),
                         bw_cell(c.drv[2], phase).c_str(),
                         ratio_spread_str(c.paired_ratio(Driver::Mpiio, Driver::Mpio, phase)).c_str(),
                         ratio_spread_str(c.paired_ratio(Driver::Mpiio, Driver::Raw, phase)).c_str(),
                         c.failed() ? "  FAILED" : "");
        }
    }
    int entirely = 0;
    const std::vector<std::string> low = below_threshold(results, entirely);
    std::fprintf(out, "\nmpiio/mpio below %.2f: %s\n", kThreshold, low.empty() ? "none" : "");
    for (const std::string &s : low)
        std::fprintf(out, "    %s\n", s.c_str());
    if (!low.empty())
        std::fprintf(out, "    (%d of %zu with the whole range below %.2f)\n", entirely, low.size(),
                     kThreshold);
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
        "parentheses (> 1: the plugin is faster). Load average (1/5/15 min) %s at start, %s at end. "
        "%s on %s, %.0f s.%s%s\n\n",
        layer_title(info).c_str(), short_library_name(info.mpi_library).c_str(), info.io_component.c_str(),
        info.hdf5_version.c_str(), info.ranks, std::thread::hardware_concurrency(), info.dir.c_str(),
        info.size.c_str(), steps_text(info).c_str(), info.warmup, info.reps, info.load_start.c_str(),
        info.load_end.c_str(), info.started.c_str(), info.host.c_str(), info.total_s,
        info.label.empty() ? "" : " ", info.label.c_str());
    std::fprintf(
        f,
        "| case | MiB | steps | mpio s (w/r) | write mpio | write mpiio | **write mpiio/mpio** | read mpio | "
        "read mpiio | **read mpiio/mpio** | mpiio/raw (w/r) | check |\n");
    std::fprintf(f, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
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
        std::fprintf(f, "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s |\n", c.id.c_str(),
                     bw(c.bytes / kMiB).c_str(), c.timesteps, secs.c_str(), med(0, 'w').c_str(),
                     med(1, 'w').c_str(), bold(rw).c_str(), med(0, 'r').c_str(), med(1, 'r').c_str(),
                     bold(rr).c_str(), ratio_str(c.ratio(Driver::Mpiio, Driver::Raw, 'w')).c_str(),
                     ratio_str(c.ratio(Driver::Mpiio, Driver::Raw, 'r')).c_str(), case_status(c).c_str());
    }
    int entirely = 0;
    const std::vector<std::string> low = below_threshold(results, entirely);
    if (low.empty()) {
        std::fprintf(f, "\nNo mpiio/mpio ratio below %.2f.\n", kThreshold);
    } else {
        std::fprintf(f, "\nmpiio/mpio below %.2f (median): ", kThreshold);
        for (size_t i = 0; i < low.size(); ++i)
            std::fprintf(f, "%s%s", i ? "; " : "", low[i].c_str());
        std::fprintf(f, ". %d of %zu with the whole range below %.2f.\n", entirely, low.size(), kThreshold);
    }
}

} // namespace bench
