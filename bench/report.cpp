// The writers of a run's results (all local, rank 0): terminal table, Markdown table, CSV, JSON
// and the SVG chart.
#include "report.hpp"

#include "options.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <thread>
#include <utility>

namespace bench {

namespace {

const Driver kAll[kNumDrivers] = {Driver::Mpio,  Driver::Mpiio,     Driver::Raw,
                                  Driver::Mpio2, Driver::Subfiling, Driver::Fpp};
const char *phase_name(char p) { return p == 'w' ? "write" : "read"; }

// Bandwidth with 3 significant digits; "-" when not measured.
std::string bw(double v) { return v <= 0 ? "-" : fmt(v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2f", v); }

std::string json_num(double v) { return std::isfinite(v) ? fmt("%.6g", v) : "null"; }

std::string json_str(const std::string &s) {
    std::string o = "\"";
    for (char ch : s) {
        if (ch == '"' || ch == '\\')
            o += std::string("\\") + ch;
        else if (static_cast<unsigned char>(ch) < 0x20)
            o += fmt("\\u%04.0f", static_cast<unsigned char>(ch));
        else
            o += ch;
    }
    return o + "\"";
}

std::string csv_str(const std::string &s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string o = "\"";
    for (char ch : s)
        o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return o + "\"";
}

const DriverResult &drv(const CaseResult &c, Driver d) { return c.drv[static_cast<size_t>(d)]; }
const Summary &phase_of(const DriverResult &d, char p) { return p == 'w' ? d.w : d.r; }

// "ok", "ok, files identical", "ok, bytes differ" or "FAILED".
std::string case_status(const CaseResult &c) {
    if (c.failed())
        return "FAILED";
    if (!c.check.done || c.check.bytes_note.empty())
        return "ok";
    return c.check.identical ? "ok, files identical" : "ok, bytes differ";
}

// The published verdict of a phase, "(rerun)" when a rerun decided it.
std::string verdict_cell(const CaseResult &c, char p) {
    return c.drv[0].ran && drv(c, Driver::Mpio2).ran ? c.verdict(p) + (c.rerun(p) ? " (rerun)" : "") : "-";
}

// ---- the subfiling driver's columns, present only when a case ran it ----

// A run with subfiling initialises MPI with MPI_THREAD_MULTIPLE (so may --thread-multiple), which
// can change every driver's cost: said in the tables' heading lines.
const char *thread_text(const RunInfo &info) {
    return info.thread_level == "multiple" ? " MPI initialised with MPI_THREAD_MULTIPLE for every driver."
                                           : "";
}

// `s` padded with blanks to `width` columns (a UTF-8 character is one column: the marks ↑ ↓).
std::string pad(const std::string &s, size_t width) {
    size_t cols = 0;
    for (unsigned char ch : s)
        cols += (ch & 0xC0) != 0x80 ? 1 : 0;
    return s + std::string(width > cols ? width - cols : 0, ' ');
}

// Whether any case ran driver `d` (the optional drivers' columns appear only then).
bool any_ran(const std::vector<CaseResult> &results, Driver d) {
    return std::any_of(results.begin(), results.end(), [d](const CaseResult &c) { return drv(c, d).ran; });
}

// Why the driver did not run phase p of the case ("" when it ran or was not selected).
std::string refused(const DriverResult &r, char p) {
    if (p == 'w' || !r.refused_write.empty())
        return r.refused_write;
    return r.refused_read;
}

// "↑" / "↓": mpiio/subfiling measurably above / below the A/A control; "" otherwise.
std::string subfiling_mark(const CaseResult &c, char p) {
    if (!c.drv[0].ran || !drv(c, Driver::Mpio2).ran)
        return "";
    const std::string v = c.parity_against(Driver::Subfiling, p).verdict;
    return v == "above" ? "↑" : v == "below" ? "↓" : "";
}

// mpiio/d of phase p for an optional driver: "0.95 (0.88-1.02)", "-" where the case did not run
// it, "n/s" where it refused the phase.
std::string optional_ratio(const CaseResult &c, Driver d, char p) {
    if (!drv(c, d).ran)
        return "-";
    if (!refused(drv(c, d), p).empty())
        return "n/s";
    return spread_str(c.ratio(Driver::Mpiio, d, p));
}

// mpiio/subfiling of phase p, with its mark.
std::string subfiling_ratio(const CaseResult &c, char p) {
    const std::string r = optional_ratio(c, Driver::Subfiling, p);
    return r == "-" || r == "n/s" ? r : r + subfiling_mark(c, p);
}

// ---- the file-per-process ceiling's columns (fpp_kernel.hpp), present only when a case ran it ----

// mpiio/fpp of phase p (< 1: the shared file is slower than a file per rank). No verdict: a
// ceiling is not a rival.
std::string fpp_ratio(const CaseResult &c, char p) { return optional_ratio(c, Driver::Fpp, p); }

const char kFppNote[] =
    "fpp: the ceiling, the same ranks writing and reading the same bytes each in a file of its "
    "own with pwrite/pread (one call per access and time step, fsync before close); "
    "mpiio/fpp < 1: the shared file is that much slower. n/s: compressed cases (the "
    "library packs every rank's chunks: no file per process holds the same bytes).";

// The lines under a table of a run with subfiling: its configuration, the verdict counts, the
// cases it does not support and why, and what a subfiled file was made of.
std::string subfiling_notes(const RunInfo &info, const std::vector<CaseResult> &results, const char *bullet) {
    std::string s = std::string(bullet) + "Subfiling: " + info.subfiling_config +
                    ". mpiio/subfiling is tested against the same A/A control (first measurement, no "
                    "rerun): ↑ / ↓ measurably faster / slower.";
    int n[2] = {0, 0};
    std::string nots, files;
    for (const CaseResult &c : results) {
        const DriverResult &r = drv(c, Driver::Subfiling);
        for (char p : {'w', 'r'}) {
            const std::string m = subfiling_mark(c, p);
            n[0] += m == "↑" ? 1 : 0;
            n[1] += m == "↓" ? 1 : 0;
        }
        if (!r.refused_write.empty() || !r.refused_read.empty())
            nots += std::string(nots.empty() ? "" : "; ") + c.id + " " +
                    (r.refused_write.empty() ? "read (" + r.refused_read + ")"
                                             : "write and read (" + r.refused_write + ")");
        if (files.empty() && !c.check.subfiling_files.empty())
            files = c.id + ": " + c.check.subfiling_files;
    }
    s += " The plugin ahead in " + std::to_string(n[0]) + ", behind in " + std::to_string(n[1]) +
         " directions.\n" + bullet + "Not supported by subfiling (n/s): " + (nots.empty() ? "none" : nots) +
         ".\n" + bullet +
         "A subfiled file is a stub plus subfiles plus a configuration file, removed after each run; its "
         "reads were verified through the subfiling driver itself (no other driver reads it); " +
         (files.empty() ? std::string("none was written") : "for instance " + files) + ".\n";
    return s;
}

// "3 time steps", or how --min-phase chose them; patterns with fewer steps of their own named.
std::string steps_text(const RunInfo &info, const std::vector<CaseResult> &results) {
    std::string own;
    for (const PatternInfo &p : pattern_table())
        if (p.max_timesteps > 0 && p.max_timesteps < info.timesteps &&
            std::any_of(results.begin(), results.end(),
                        [&](const CaseResult &c) { return c.pattern == p.name; }))
            own += (own.empty() ? " (" : ", ") + std::string(p.name) + ": " + std::to_string(p.max_timesteps);
    own += own.empty() ? "" : ")";
    if (info.min_phase_s <= 0)
        return std::to_string(info.timesteps) + " time steps" + own;
    return "time steps per case (column steps) raised from " + std::to_string(info.timesteps) + own +
           " until the built-in driver's shorter phase lasts about " + fmt("%.2g", info.min_phase_s) +
           " s (at most " + std::to_string(kMaxStepFactor) + "x and " + fmt("%.0f", kMaxPhaseBytes / kMiB) +
           " MiB per phase)";
}

// Under each table: the parity test's count per direction and the rows measurably below.
std::string parity_summary(const RunInfo &info, const std::vector<CaseResult> &results) {
    std::string s =
        "Parity test (mpiio/mpio against the A/A control, exact two-sided Mann-Whitney, alpha 0.05):";
    std::vector<std::string> below;
    int flagged = 0, changed = 0, tested = 0;
    for (char p : {'w', 'r'}) {
        int n[3] = {0, 0, 0}; // below, above, ~
        for (const CaseResult &c : results) {
            if (verdict_cell(c, p) == "-")
                continue;
            ++tested;
            const std::string v = c.verdict(p);
            ++n[v == "below" ? 0 : v == "above" ? 1 : 2];
            flagged += c.flagged(p) ? 1 : 0;
            changed += c.rerun(p) && v != c.parity(p).verdict ? 1 : 0;
            if (v == "below")
                below.push_back(std::string(phase_name(p)) + " " + c.id + " " +
                                spread_str(c.ratio(Driver::Mpiio, Driver::Mpio, p)) + ", A/A " +
                                spread_str(c.ratio(Driver::Mpio2, Driver::Mpio, p)));
        }
        s += std::string(p == 'w' ? " write " : "; read ") + std::to_string(n[0]) + " below, " +
             std::to_string(n[1]) + " above, " + std::to_string(n[2]) + " ~";
    }
    if (tested == 0)
        return "Parity test: not run (it needs the drivers mpio, mpiio and mpio2).";
    s += ". " + std::to_string(flagged) + " verdicts flagged by the first measurement" +
         (info.confirm_reps > 0 ? ", rerun with " + std::to_string(info.confirm_reps) +
                                      " repetitions: " + std::to_string(changed) + " changed by the rerun"
                                : " (no reruns: --confirm-reps 0)") +
         ".";
    if (!below.empty()) {
        s += " Measurably below:";
        for (size_t i = 0; i < below.size(); ++i)
            s += (i ? "; " : " ") + below[i];
        s += ".";
    }
    return s;
}

void print_checks(FILE *out, const std::vector<CaseResult> &results) {
    std::fprintf(out, "\nCHECKS\n");
    for (const CaseResult &c : results) {
        std::fprintf(out, "%-18s %s", c.id.c_str(), case_status(c).c_str());
        if (c.check.done && !c.check.identical && !c.check.bytes_note.empty())
            std::fprintf(out, " (%s)", c.check.bytes_note.c_str());
        std::fprintf(out, "\n");
        const DriverResult &sf = drv(c, Driver::Subfiling);
        if (!c.check.subfiling_files.empty())
            std::fprintf(out, "    subfiling file: %s\n", c.check.subfiling_files.c_str());
        for (char p : {'w', 'r'})
            if (const std::string why = refused(sf, p); !why.empty())
                std::fprintf(out, "    subfiling %s: not supported (%s)\n", phase_name(p), why.c_str());
        size_t shown = 0;
        for (const std::string &f : c.failures)
            if (f.rfind("reproduce:", 0) == 0 || shown++ < 8)
                std::fprintf(out, "    %s\n", f.c_str());
        if (shown > 8)
            std::fprintf(out, "    ... and %zu more (results.json has all)\n", shown - 8);
    }
}

// How the table's flagged rows were confirmed.
std::string rerun_text(const RunInfo &info) {
    if (info.confirm_reps <= 0)
        return "flagged rows were not measured again (--confirm-reps 0): a first verdict stands";
    return "a flagged row was measured again (" + std::to_string(info.confirm_reps) +
           " repetitions, its own A/A control) and shows that rerun's verdict, marked (rerun)";
}

void write_markdown_table(FILE *f, const RunInfo &info, const std::vector<CaseResult> &results) {
    std::fprintf(
        f,
        "**%s** (%s, io=%s), HDF5 %s, %d ranks on %u cores, files in %s, size %s, %s. Every driver ran %d "
        "warm-up + %d counted repetitions, alternating with the others in rotating order. Bandwidth: median "
        "MiB/s of data bytes over the phase (create/open to close, slowest rank). **mpiio/mpio**: median of "
        "the per-repetition ratios, their range in parentheses (> 1: the plugin is faster). **A/A "
        "mpio2/mpio**: the built-in driver run a second time in every round against its first run, the same "
        "statistic: how far two identical drivers land apart here. **parity**: exact two-sided Mann-Whitney "
        "test of the per-repetition log(mpiio/mpio) against log(mpio2/mpio), alpha 0.05: below / above = "
        "measurably slower / faster than the A/A control, ~ = not distinguishable; %s. Load "
        "average (1/5/15 min) %s at start, %s at end. %s on %s, %.0f s.%s%s%s\n\n",
        layer_title(info).c_str(), short_library_name(info.mpi_library).c_str(), info.io_component.c_str(),
        info.hdf5_version.c_str(), info.ranks, std::thread::hardware_concurrency(), info.dir.c_str(),
        info.size.c_str(), steps_text(info, results).c_str(), info.warmup, info.reps,
        rerun_text(info).c_str(), info.load_start.c_str(), info.load_end.c_str(), info.started.c_str(),
        info.host.c_str(), info.total_s, thread_text(info), info.label.empty() ? "" : " ",
        info.label.c_str());
    const bool sf = any_ran(results, Driver::Subfiling); // its two columns follow read mpiio/mpio
    const bool ops = server_ops_counted(results);        // its two columns follow the parity
    const bool fpp = any_ran(results, Driver::Fpp);      // its two columns follow mpiio/raw
    std::fprintf(
        f,
        "| case | MiB | steps | mpio s (w/r) | write mpio | write mpiio | **write mpiio/mpio** | read "
        "mpio | read mpiio | **read mpiio/mpio** |%s mpiio/raw (w/r) |%s A/A mpio2/mpio (w / r) | "
        "parity (w / r) |%s check |\n|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|%s--:|%s--:|---|%s---|\n",
        sf ? " subfiling (w / r) | **mpiio/subfiling** (w / r) |" : "",
        fpp ? " fpp (w / r) | **mpiio/fpp** (w / r) |" : "",
        ops ? " server ops mpiio/mpio | server ops A/A |" : "", sf ? "--:|--:|" : "", fpp ? "--:|--:|" : "",
        ops ? "--:|--:|" : "");
    for (const CaseResult &c : results) {
        const DriverResult &mpio = c.drv[0], &mpiio = c.drv[1];
        auto med = [](const DriverResult &r, char p) { return r.ran ? bw(phase_of(r, p).median_bw) : "-"; };
        auto bold = [&](char p) {
            const Spread r = c.ratio(Driver::Mpiio, Driver::Mpio, p);
            return r.n == 0 ? "-"
                            : "**" + ratio_str(r.median) + "** (" + ratio_str(r.min) + "-" +
                                  ratio_str(r.max) + ")";
        };
        // An optional driver's bandwidth: "n/s" where it refused the phase.
        auto optional_bw = [&](Driver d, char p) {
            return refused(drv(c, d), p).empty() ? med(drv(c, d), p) : "n/s";
        };
        auto sub_bw = [&](char p) { return optional_bw(Driver::Subfiling, p); };
        const std::string sub_cells = !sf ? ""
                                          : " " + sub_bw('w') + " / " + sub_bw('r') + " | " +
                                                subfiling_ratio(c, 'w') + " / " + subfiling_ratio(c, 'r') +
                                                " |";
        const std::string ops_cells = !ops ? ""
                                           : " " + server_ops_ratio(c, Driver::Mpiio, Driver::Mpio) + " | " +
                                                 server_ops_ratio(c, Driver::Mpio2, Driver::Mpio) + " |";
        auto fpp_bw = [&](char p) { return optional_bw(Driver::Fpp, p); };
        const std::string fpp_cells = !fpp ? ""
                                           : " " + fpp_bw('w') + " / " + fpp_bw('r') + " | " +
                                                 fpp_ratio(c, 'w') + " / " + fpp_ratio(c, 'r') + " |";
        std::fprintf(
            f,
            "| %s | %s | %d | %s | %s | %s | %s | %s | %s | %s |%s %s / %s |%s %s / %s | %s / %s |%s %s |\n",
            c.id.c_str(), bw(c.bytes / kMiB).c_str(), c.timesteps,
            mpio.ran ? (fmt("%.2f", mpio.w.median_s) + " / " + fmt("%.2f", mpio.r.median_s)).c_str() : "-",
            med(mpio, 'w').c_str(), med(mpiio, 'w').c_str(), bold('w').c_str(), med(mpio, 'r').c_str(),
            med(mpiio, 'r').c_str(), bold('r').c_str(), sub_cells.c_str(),
            ratio_str(c.ratio(Driver::Mpiio, Driver::Raw, 'w').median).c_str(),
            ratio_str(c.ratio(Driver::Mpiio, Driver::Raw, 'r').median).c_str(), fpp_cells.c_str(),
            spread_str(c.ratio(Driver::Mpio2, Driver::Mpio, 'w')).c_str(),
            spread_str(c.ratio(Driver::Mpio2, Driver::Mpio, 'r')).c_str(), verdict_cell(c, 'w').c_str(),
            verdict_cell(c, 'r').c_str(), ops_cells.c_str(), case_status(c).c_str());
    }
    std::fprintf(f, "\n%s\n", parity_summary(info, results).c_str());
    if (ops)
        std::fprintf(
            f, "\nServer ops: the storage servers' operations, both phases, of the plugin over the built-in "
               "driver's (< 1: lighter on the servers); server-ops.md has the counts.\n");
    if (sf)
        std::fprintf(f, "\n%s", subfiling_notes(info, results, "- ").c_str());
    if (fpp)
        std::fprintf(f, "\n%s\n", kFppNote);
}

// A subfiling row's parity columns hold mpiio/subfiling's verdict against the A/A control (first
// measurement only), every other row mpiio/mpio's; a phase subfiling refused has status "not
// supported" and no samples.
void write_results_csv(FILE *f, const std::vector<CaseResult> &results) {
    std::fprintf(f, "case,pattern,mode,phase,driver,bytes,reps,median_s,min_s,max_s,median_MiBps,min_MiBps,"
                    "max_MiBps,median_data_call_s,mpiio_over_this,mpiio_over_this_min,mpiio_over_this_max,"
                    "status,files,timesteps,parity_p,parity_first,parity_rerun_p,parity_rerun,parity\n");
    for (const CaseResult &c : results)
        for (char p : {'w', 'r'}) {
            const Parity first = c.parity(p), again = c.rerun(p) ? c.confirmation[0].parity(p) : Parity{};
            for (Driver d : kAll) {
                const Summary &s = phase_of(drv(c, d), p);
                const Spread ratio = c.ratio(Driver::Mpiio, d, p);
                const bool sub = d == Driver::Subfiling, rerun = c.rerun(p) && !sub;
                const Parity own = sub ? c.parity_against(d, p) : first;
                const char *status = c.failed()                      ? "FAILED"
                                     : refused(drv(c, d), p).empty() ? "ok"
                                                                     : "not supported";
                if (drv(c, d).ran)
                    std::fprintf(
                        f,
                        "%s,%s,%s,%s,%s,%.0f,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4f,%.4f,%.4f,%s,%s,%d,"
                        "%.4g,%s,%s,%s,%s\n",
                        c.id.c_str(), c.pattern.c_str(), c.mode.c_str(), phase_name(p), driver_name(d),
                        c.bytes, s.n, s.median_s, s.min_s, s.max_s, s.median_bw, s.min_bw, s.max_bw,
                        s.median_data_s, ratio.median, ratio.min, ratio.max, status,
                        csv_str(sub ? c.check.subfiling_files : c.check.bytes_note).c_str(), c.timesteps,
                        own.p, own.verdict.c_str(), rerun ? fmt("%.4g", again.p).c_str() : "",
                        rerun ? again.verdict.c_str() : "", sub ? own.verdict.c_str() : c.verdict(p).c_str());
            }
        }
}

void write_runs_csv(FILE *f, const std::vector<CaseResult> &results) {
    std::fprintf(f, "case,driver,phase,rep,seconds,data_call_seconds,MiBps,measurement\n");
    for (const CaseResult &first : results)
        for (const CaseResult *c : {&first, first.confirmation.empty() ? nullptr : &first.confirmation[0]})
            for (Driver d : kAll)
                for (char p : {'w', 'r'}) {
                    if (c == nullptr)
                        continue;
                    const DriverResult &r = drv(*c, d);
                    const std::vector<double> &sec = p == 'w' ? r.wsec : r.rsec,
                                              &data = p == 'w' ? r.wdata : r.rdata;
                    for (size_t i = 0; i < sec.size(); ++i)
                        std::fprintf(f, "%s,%s,%s,%zu,%.6g,%.6g,%.6g,%s\n", c->id.c_str(), driver_name(d),
                                     phase_name(p), i, sec[i], data[i], c->bytes / kMiB / sec[i],
                                     c == &first ? "first" : "rerun");
                }
}

std::string json_spread(const Spread &r) {
    return "{\"median\": " + json_num(r.median) + ", \"min\": " + json_num(r.min) +
           ", \"max\": " + json_num(r.max) + ", \"pairs\": " + std::to_string(r.n) + "}";
}

std::string json_parity(const CaseResult &c, char p) {
    const Parity first = c.parity(p);
    std::string s = "{\"first\": {\"p\": " + json_num(first.p) + ", \"verdict\": " + json_str(first.verdict) +
                    "}, \"rerun\": ";
    if (c.rerun(p)) {
        const CaseResult &again = c.confirmation[0];
        s += "{\"p\": " + json_num(again.parity(p).p) +
             ", \"verdict\": " + json_str(again.parity(p).verdict) +
             ", \"mpiio_over_mpio\": " + json_spread(again.ratio(Driver::Mpiio, Driver::Mpio, p)) +
             ", \"mpio2_over_mpio\": " + json_spread(again.ratio(Driver::Mpio2, Driver::Mpio, p)) + "}";
    } else {
        s += "null";
    }
    return s + ", \"verdict\": " + json_str(c.verdict(p)) + "}";
}

void json_phase(FILE *f, const DriverResult &r, char p) {
    const Summary &s = phase_of(r, p);
    std::fprintf(f,
                 "{\"reps\": %d, \"median_s\": %s, \"min_s\": %s, \"max_s\": %s, \"median_MiBps\": %s, "
                 "\"min_MiBps\": %s, \"max_MiBps\": %s, \"median_data_call_s\": %s, ",
                 s.n, json_num(s.median_s).c_str(), json_num(s.min_s).c_str(), json_num(s.max_s).c_str(),
                 json_num(s.median_bw).c_str(), json_num(s.min_bw).c_str(), json_num(s.max_bw).c_str(),
                 json_num(s.median_data_s).c_str());
    for (const auto *v : {p == 'w' ? &r.wsec : &r.rsec, p == 'w' ? &r.wdata : &r.rdata}) {
        std::fprintf(f, "\"%s\": [", v == &r.wsec || v == &r.rsec ? "samples_s" : "data_call_samples_s");
        for (size_t i = 0; i < v->size(); ++i)
            std::fprintf(f, "%s%s", i ? ", " : "", json_num((*v)[i]).c_str());
        std::fprintf(f, "], ");
    }
    std::fprintf(f, "\"hdf5_io\": %s}", json_str((p == 'w' ? r.wprobe : r.rprobe).describe()).c_str());
}

// The counters (the time in MPI-IO is measured only with stats=summary, which the benchmark does
// not set: it measures the driver as users run it).
void json_stats(FILE *f, const H5FD_mpiio_stats_t &s) {
    const char *separator = "{";
#define BENCH_JSON_FIELD(type, field, description)                                                           \
    BENCH_IF_COUNTER(type, std::fprintf(f, "%s\"%s\": %llu", std::exchange(separator, ", "), #field,         \
                                        (unsigned long long)s.field))
    H5FD_MPIIO_STATS_FIELDS(BENCH_JSON_FIELD)
#undef BENCH_JSON_FIELD
    std::fprintf(f, "}");
}

void write_results_json(FILE *f, const RunInfo &info, const std::vector<CaseResult> &results) {
    std::fprintf(
        f,
        "{\n  \"info\": {\"started\": %s, \"host\": %s, \"ranks\": %d, \"mpi_library\": %s, \"io_layer\": "
        "%s, "
        "\"io_component\": %s, \"hdf5\": %s, \"plugin_path\": %s, \"plugin_config\": %s, \"size\": %s, "
        "\"timesteps\": %d, \"min_phase_s\": %s, \"reps\": %d, \"warmup\": %d, \"confirm_reps\": %d, "
        "\"dir\": %s, "
        "\"label\": %s, \"total_s\": %s, \"loadavg_start\": %s, \"loadavg_end\": %s, \"cores\": %u, "
        "\"mpi_thread_level\": %s,%s\n    \"notes\": "
        "[\"bandwidth = data bytes of all ranks / phase time; phase = create/open .. close after a barrier, "
        "max "
        "over ranks\", \"ratios = median (and range) of the per-repetition bandwidth ratios\", \"raw = "
        "MPI-IO "
        "with an equivalent file view, no HDF5 metadata\", \"parity = exact two-sided Mann-Whitney test of "
        "the "
        "per-repetition log(mpiio/mpio) against log(mpio2/mpio) at alpha 0.05; a flagged verdict is replaced "
        "by "
        "that of a rerun with confirm_reps repetitions\"]},\n  \"cases\": [\n",
        json_str(info.started).c_str(), json_str(info.host).c_str(), info.ranks,
        json_str(info.mpi_library).c_str(), json_str(info.io_layer).c_str(),
        json_str(info.io_component).c_str(), json_str(info.hdf5_version).c_str(),
        json_str(info.plugin_path).c_str(), json_str(info.plugin_config).c_str(), json_str(info.size).c_str(),
        info.timesteps, json_num(info.min_phase_s).c_str(), info.reps, info.warmup, info.confirm_reps,
        json_str(info.dir).c_str(), json_str(info.label).c_str(), json_num(info.total_s).c_str(),
        json_str(info.load_start).c_str(), json_str(info.load_end).c_str(),
        std::thread::hardware_concurrency(), json_str(info.thread_level).c_str(),
        info.subfiling_config.empty()
            ? ""
            : (" \"subfiling_config\": " + json_str(info.subfiling_config) + ",").c_str());
    for (size_t i = 0; i < results.size(); ++i) {
        const CaseResult &c = results[i];
        std::fprintf(f,
                     "    {\"case\": %s, \"pattern\": %s, \"mode\": %s, \"what\": %s, \"raw_note\": %s, "
                     "\"timesteps\": "
                     "%d, \"bytes_per_phase\": %.0f, \"datasets_per_step\": %d, \"data_calls_per_step\": %d, "
                     "\"status\": %s, \"elapsed_s\": %s,\n     \"failures\": [",
                     json_str(c.id).c_str(), json_str(c.pattern).c_str(), json_str(c.mode).c_str(),
                     json_str(c.what).c_str(), json_str(c.raw_note).c_str(), c.timesteps, c.bytes, c.datasets,
                     c.accesses, json_str(c.failed() ? "FAILED" : "ok").c_str(),
                     json_num(c.elapsed_s).c_str());
        for (size_t k = 0; k < c.failures.size(); ++k)
            std::fprintf(f, "%s%s", k ? ", " : "", json_str(c.failures[k]).c_str());
        const bool sub = drv(c, Driver::Subfiling).ran;
        std::fprintf(f,
                     "],\n     \"files\": {\"hdf5_bytes\": %s, \"size_mpio\": %llu, \"size_mpiio\": %llu, "
                     "\"size_raw\": %llu%s},\n     \"ratios\": {",
                     json_str(c.check.bytes_note).c_str(), (unsigned long long)c.check.size_mpio,
                     (unsigned long long)c.check.size_mpiio, (unsigned long long)c.check.size_raw,
                     !sub ? ""
                          : (", \"size_subfiling\": " + std::to_string(c.check.size_subfiling) +
                             ", \"subfiling_files\": " + json_str(c.check.subfiling_files))
                                .c_str());
        const bool own = drv(c, Driver::Fpp).ran;
        for (char p : {'w', 'r'})
            std::fprintf(
                f, "\"%s\": {\"mpiio_over_mpio\": %s, \"mpiio_over_raw\": %s%s%s}, ", phase_name(p),
                json_spread(c.ratio(Driver::Mpiio, Driver::Mpio, p)).c_str(),
                json_spread(c.ratio(Driver::Mpiio, Driver::Raw, p)).c_str(),
                !own ? ""
                     : (", \"mpiio_over_fpp\": " + json_spread(c.ratio(Driver::Mpiio, Driver::Fpp, p)))
                           .c_str(),
                !sub ? ""
                     : (", \"mpiio_over_subfiling\": " +
                        json_spread(c.ratio(Driver::Mpiio, Driver::Subfiling, p)) +
                        ", \"parity_mpiio_over_subfiling\": {\"p\": " +
                        json_num(c.parity_against(Driver::Subfiling, p).p) +
                        ", \"verdict\": " + json_str(c.parity_against(Driver::Subfiling, p).verdict) + "}")
                           .c_str());
        std::fprintf(
            f,
            "\"control\": {\"write_mpio2_over_mpio\": %s, \"read_mpio2_over_mpio\": %s}},\n     \"parity\": "
            "{\"write\": %s, \"read\": %s},\n     \"drivers\": {",
            json_spread(c.ratio(Driver::Mpio2, Driver::Mpio, 'w')).c_str(),
            json_spread(c.ratio(Driver::Mpio2, Driver::Mpio, 'r')).c_str(), json_parity(c, 'w').c_str(),
            json_parity(c, 'r').c_str());
        bool first = true;
        for (Driver d : kAll) {
            const DriverResult &r = drv(c, d);
            if (!r.ran)
                continue;
            std::fprintf(f, "%s\n       %s: {\"write\": ", first ? "" : ",",
                         json_str(driver_name(d)).c_str());
            first = false;
            json_phase(f, r, 'w');
            std::fprintf(f, ",\n         \"read\": ");
            json_phase(f, r, 'r');
            if (d == Driver::Subfiling || d == Driver::Fpp)
                std::fprintf(f, ",\n         \"not_supported\": {\"write\": %s, \"read\": %s}",
                             json_str(refused(r, 'w')).c_str(), json_str(refused(r, 'r')).c_str());
            if (r.stats.valid) {
                std::fprintf(f, ",\n         \"driver_stats_write\": ");
                json_stats(f, r.stats.write);
                std::fprintf(f, ",\n         \"driver_stats_read\": ");
                json_stats(f, r.stats.read);
            }
            std::fprintf(f, "}");
        }
        std::fprintf(f, "}}%s\n", i + 1 < results.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
}

std::string esc(const std::string &s) {
    std::string o;
    for (char c : s)
        o += c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '&' ? "&amp;" : std::string(1, c);
    return o;
}

// chart.svg: per case, the median bandwidth of mpio / mpiio / raw (bars, log scale) with min-max
// whiskers, write and read side by side, and the mpiio/mpio ratio next to each panel. The A/A
// control is in the tables, not in the chart.
void write_chart(FILE *f, const RunInfo &info, const std::vector<CaseResult> &results) {
    const char *const colors[4] = {"#4C72B0", "#DD8452", "#8C8C8C", "#55A868"};
    const char *const names[4] = {"mpio (built-in)", "mpiio (plugin)", "raw MPI-IO", "subfiling"};
    const Driver drawn[4] = {Driver::Mpio, Driver::Mpiio, Driver::Raw, Driver::Subfiling};
    const int bars = any_ran(results, Driver::Subfiling) ? 4 : 3; // subfiling's bar only where it ran
    double lo = 1e300, hi = 0;
    for (const CaseResult &c : results)
        for (const DriverResult &d : c.drv)
            for (const Summary *s : {&d.w, &d.r})
                if (d.ran) {
                    lo = s->min_bw > 0 ? std::min(lo, s->min_bw) : lo;
                    hi = std::max(hi, s->max_bw);
                }
    if (hi <= 0)
        lo = 1, hi = 10;
    const double llo = std::floor(std::log10(lo)), lhi = std::ceil(std::log10(hi));
    const int label_w = 150, panel_w = 400, ratio_w = 70, gap = 30, top = 78, bar = 6,
              row_h = bars * bar + 10;
    const int width = label_w + 2 * (panel_w + ratio_w) + gap + 20,
              rows_h = static_cast<int>(results.size()) * row_h;
    const int height = top + rows_h + 60;
    auto x0 = [&](int panel) { return label_w + panel * (panel_w + ratio_w + gap); };
    auto xpos = [&](int panel, double v) {
        return x0(panel) + (std::log10(std::max(v, std::pow(10.0, llo))) - llo) / (lhi - llo) * panel_w;
    };
    std::fprintf(
        f,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" "
        "font-size=\"11\">\n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n<text x=\"10\" y=\"20\" "
        "font-size=\"14\" font-weight=\"bold\">h5bench-style kernels: built-in mpio vs mpiio plugin vs raw "
        "MPI-IO</text>\n<text x=\"10\" y=\"37\">%d ranks, io=%s, HDF5 %s, size %s, %d%s time steps, median "
        "of %d reps with min-max whiskers, %s, %s, load avg %s</text>\n",
        width, height, info.ranks, esc(info.io_component).c_str(), esc(info.hdf5_version).c_str(),
        esc(info.size).c_str(), info.timesteps, info.min_phase_s > 0 ? "+" : "", info.reps,
        esc(info.dir).c_str(), esc(info.started).c_str(), esc(info.load_start).c_str());
    for (int d = 0; d < bars; ++d)
        std::fprintf(f,
                     "<rect x=\"%d\" y=\"46\" width=\"12\" height=\"10\" fill=\"%s\"/><text x=\"%d\" "
                     "y=\"55\">%s</text>\n",
                     10 + 130 * d, colors[d], 26 + 130 * d, names[d]);
    std::fprintf(
        f, "<text x=\"%d\" y=\"55\">number = mpiio/mpio median bandwidth (&gt;1: plugin faster)</text>\n",
        10 + 130 * bars);
    for (int panel = 0; panel < 2; ++panel) {
        std::fprintf(f, "<text x=\"%d\" y=\"%d\" font-weight=\"bold\">%s bandwidth, MiB/s (log)</text>\n",
                     x0(panel), top - 6, panel == 0 ? "Write" : "Read");
        std::fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#333\">mpiio/mpio</text>\n", x0(panel) + panel_w + 8,
                     top - 6);
        for (double e = llo; e <= lhi + 1e-9; e += 1)
            for (int m : {1, 2, 5}) {
                const double v = m * std::pow(10.0, e), x = xpos(panel, v);
                if (std::log10(v) > lhi + 1e-9)
                    break;
                std::fprintf(
                    f,
                    "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" stroke-width=\"1\"/>\n",
                    x, top, x, top + rows_h, m == 1 ? "#bbbbbb" : "#eeeeee");
                if (m == 1 || (lhi - llo) <= 3)
                    std::fprintf(f,
                                 "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%g</text>\n",
                                 x, top + rows_h + 14, v);
            }
    }
    for (size_t i = 0; i < results.size(); ++i) {
        const CaseResult &c = results[i];
        const int y = top + static_cast<int>(i) * row_h;
        if (i % 2 == 1)
            std::fprintf(
                f, "<rect x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f7f7f7\" opacity=\"0.6\"/>\n",
                y, width, row_h);
        std::fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\"%s>%s%s</text>\n", label_w - 8,
                     y + row_h / 2 + 4, c.failed() ? " fill=\"#c00000\"" : "", esc(c.id).c_str(),
                     c.failed() ? " FAILED" : "");
        for (int panel = 0; panel < 2; ++panel) {
            const char p = panel == 0 ? 'w' : 'r';
            for (int d = 0; d < bars; ++d) {
                const DriverResult &r = drv(c, drawn[d]);
                if (!r.ran || !refused(r, p).empty())
                    continue;
                const Summary &s = phase_of(r, p);
                const int by = y + 4 + d * bar;
                const double xb = xpos(panel, std::pow(10.0, llo)), xm = xpos(panel, s.median_bw);
                const double xa = xpos(panel, s.min_bw), xz = xpos(panel, s.max_bw),
                             ym = by + (bar - 1) / 2.0;
                std::fprintf(
                    f,
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s %s: median "
                    "%.1f MiB/s (min %.1f, max %.1f)</title></rect>\n<path d=\"M%.1f %.1f H%.1f M%.1f %.1f "
                    "V%.1f M%.1f %.1f V%.1f\" stroke=\"#222\" stroke-width=\"0.8\" fill=\"none\"/>\n",
                    xb, by, std::max(0.5, xm - xb), bar - 1, colors[d], esc(c.id).c_str(), names[d],
                    s.median_bw, s.min_bw, s.max_bw, xa, ym, xz, xa, ym - 2, ym + 2, xz, ym - 2, ym + 2);
            }
            const double ratio = c.ratio(Driver::Mpiio, Driver::Mpio, p).median;
            if (ratio > 0)
                std::fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"%s\" font-weight=\"bold\">%.2f</text>\n",
                             x0(panel) + panel_w + 14, y + row_h / 2 + 4,
                             ratio < 0.9   ? "#c00000"
                             : ratio > 1.1 ? "#007000"
                                           : "#333333",
                             ratio);
        }
    }
    std::fprintf(
        f,
        "<text x=\"10\" y=\"%d\" fill=\"#555\">Bandwidth = data bytes of all ranks / phase time (create or "
        "open .. close, max over ranks). raw has no HDF5 metadata.</text>\n</svg>\n",
        height - 12);
}

} // namespace

void CaseResult::summarize() {
    for (DriverResult &d : drv)
        for (char p : {'w', 'r'}) {
            const std::vector<double> &sec = p == 'w' ? d.wsec : d.rsec;
            std::vector<double> bws;
            for (double t : sec)
                bws.push_back(t > 0 ? bytes / kMiB / t : 0);
            const Spread t = spread(sec), b = spread(bws);
            (p == 'w' ? d.w : d.r) = Summary{t.n,      t.median, t.min, t.max,
                                             b.median, b.min,    b.max, median(p == 'w' ? d.wdata : d.rdata)};
        }
}

std::vector<double> CaseResult::log_ratios(Driver a, Driver b, char phase) const {
    const DriverResult &x = drv[static_cast<size_t>(a)], &y = drv[static_cast<size_t>(b)];
    std::vector<double> out;
    if (!x.ran || !y.ran)
        return out;
    const std::vector<double> &tx = phase == 'w' ? x.wsec : x.rsec, &ty = phase == 'w' ? y.wsec : y.rsec;
    for (size_t i = 0; i < tx.size() && i < ty.size(); ++i)
        if (tx[i] > 0 && ty[i] > 0)
            out.push_back(std::log(ty[i] / tx[i])); // same bytes: bandwidth ratio a/b = time b / time a
    return out;
}

Spread CaseResult::ratio(Driver a, Driver b, char phase) const {
    std::vector<double> r = log_ratios(a, b, phase);
    for (double &v : r)
        v = std::exp(v);
    return spread(r);
}

std::string spread_str(const Spread &r) {
    return r.n == 0 ? "-" : ratio_str(r.median) + " (" + ratio_str(r.min) + "-" + ratio_str(r.max) + ")";
}

void print_table(FILE *out, const RunInfo &info, const std::vector<CaseResult> &results) {
    std::fprintf(
        out,
        "\nh5bench_vfd: %s (io=%s), %d ranks, size=%s, %s, %d reps (+%d warm-up), dir %s\nLoad average "
        "(1/5/15 min) at start %s, at end %s (%u cores): other processes compete with the benchmark when "
        "these exceed the core count (its own ranks add about one per rank).\nBandwidth in MiB/s of data "
        "bytes per phase (whole file: create/open .. close, max over ranks): median [min-max].\nRatios: "
        "median "
        "over the repetitions of the per-repetition bandwidth ratio (range): > 1 means the plugin is faster. "
        "parity: the test against the A/A control (first p-value; (rerun): the rerun's verdict).%s\n",
        layer_title(info).c_str(), info.io_component.c_str(), info.ranks, info.size.c_str(),
        steps_text(info, results).c_str(), info.reps, info.warmup, info.dir.c_str(), info.load_start.c_str(),
        info.load_end.c_str(), std::thread::hardware_concurrency(), thread_text(info));
    const bool sf = any_ran(results, Driver::Subfiling),
               fpp = any_ran(results, Driver::Fpp); // after mpiio/raw

    char sub_head[64] = "", fpp_head[64] = "";
    if (sf)
        std::snprintf(sub_head, sizeof sub_head, "%-22s %-23s ", "subfiling", "mpiio/subfiling");
    if (fpp)
        std::snprintf(fpp_head, sizeof fpp_head, "%-22s %-18s ", "fpp", "mpiio/fpp");
    for (char p : {'w', 'r'}) {
        std::fprintf(out, "\n%s\n%-18s %8s %5s %7s  %-22s %-22s %-22s %-18s %-18s %s%s%-18s %s\n",
                     p == 'w' ? "WRITE" : "READ", "case", "MiB", "steps", "mpio s", "mpio", "mpiio", "raw",
                     "mpiio/mpio", "mpiio/raw", sub_head, fpp_head, "A/A mpio2/mpio", "parity");
        for (const CaseResult &c : results) {
            auto cell = [&](Driver d) {
                const Summary &s = phase_of(drv(c, d), p);
                if (!refused(drv(c, d), p).empty())
                    return std::string("not supported");
                return drv(c, d).ran ? bw(s.median_bw) + " [" + bw(s.min_bw) + "-" + bw(s.max_bw) + "]" : "-";
            };
            const std::string sub =
                sf ? pad(cell(Driver::Subfiling), 23) + pad(subfiling_ratio(c, p), 24) : "";
            const std::string own = fpp ? pad(cell(Driver::Fpp), 23) + pad(fpp_ratio(c, p), 19) : "";
            std::fprintf(out, "%-18s %8.2f %5d %7s  %-22s %-22s %-22s %-18s %-18s %s%s%-18s %s (p %.3f)%s\n",
                         c.id.c_str(), c.bytes / kMiB, c.timesteps,
                         c.drv[0].ran ? fmt("%.3f", phase_of(c.drv[0], p).median_s).c_str() : "-",
                         cell(Driver::Mpio).c_str(), cell(Driver::Mpiio).c_str(), cell(Driver::Raw).c_str(),
                         spread_str(c.ratio(Driver::Mpiio, Driver::Mpio, p)).c_str(),
                         spread_str(c.ratio(Driver::Mpiio, Driver::Raw, p)).c_str(), sub.c_str(), own.c_str(),
                         spread_str(c.ratio(Driver::Mpio2, Driver::Mpio, p)).c_str(),
                         verdict_cell(c, p).c_str(), c.parity(p).p, c.failed() ? "  FAILED" : "");
        }
    }
    std::fprintf(out, "\n%s\n", parity_summary(info, results).c_str());
    if (sf)
        std::fprintf(out, "%s", subfiling_notes(info, results, "").c_str());
    if (fpp)
        std::fprintf(out, "%s\n", kFppNote);

    if (server_ops_counted(results)) {
        std::fprintf(out, "\n");
        write_server_ops_markdown(out, results);
    }
    print_checks(out, results);
    int failed = 0;
    for (const CaseResult &c : results)
        failed += c.failed() ? 1 : 0;
    std::fprintf(
        out,
        "\nraw = MPI-IO with an equivalent file view and no HDF5 metadata (no superblock, object headers, "
        "B-trees or attributes).\nTotal %.0f s. %s\n",
        info.total_s, failed ? (std::to_string(failed) + " case(s) FAILED").c_str() : "All cases verified.");
}

void write_outputs(const std::string &dir, const RunInfo &info, const std::vector<CaseResult> &results) {
    const std::pair<const char *, void (*)(FILE *, const RunInfo &, const std::vector<CaseResult> &)>
        files[] = {
            {"results.csv",
             [](FILE *f, const RunInfo &, const std::vector<CaseResult> &r) { write_results_csv(f, r); }},
            {"runs.csv",
             [](FILE *f, const RunInfo &, const std::vector<CaseResult> &r) { write_runs_csv(f, r); }},
            {"results.json", write_results_json},
            {"table.txt", print_table},
            {"table.md", write_markdown_table},
            {"chart.svg", write_chart},
            {"server-ops.md", [](FILE *f, const RunInfo &,
                                 const std::vector<CaseResult> &r) { write_server_ops_markdown(f, r); }},
            {"server-ops.csv",
             [](FILE *f, const RunInfo &, const std::vector<CaseResult> &r) { write_server_ops_csv(f, r); }}};
    for (const auto &[name, write] : files) {
        if (std::string(name).rfind("server-ops", 0) == 0 && !server_ops_counted(results))
            continue;
        const std::string path = dir + "/" + name;
        FILE *f = std::fopen(path.c_str(), "w");
        if (f == nullptr) {
            std::fprintf(stderr, "h5bench_vfd: cannot write %s\n", path.c_str());
            continue;
        }
        write(f, info, results);
        std::fclose(f);
    }
}

} // namespace bench
