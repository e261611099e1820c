// Terminal table, Markdown table, CSV and JSON writers.
#include "results.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <thread>

namespace bench {

void write_chart(const std::string &path, const RunInfo &info, const std::vector<CaseResult> &results);

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

double median_of(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

std::string fmt(const char *f, double v) {
    char b[64];
    std::snprintf(b, sizeof b, f, v);
    return b;
}

// Bandwidth with 3 significant digits.
std::string bw(double v) {
    if (v <= 0)
        return "-";
    if (v >= 100)
        return fmt("%.0f", v);
    if (v >= 10)
        return fmt("%.1f", v);
    return fmt("%.2f", v);
}

std::string ratio_str(double r) { return r > 0 ? fmt("%.2f", r) : "-"; }

std::string cell(const DriverResult &d, char phase) {
    if (!d.ran)
        return "-";
    const Summary &s = phase == 'w' ? d.w : d.r;
    return bw(s.median_bw) + " [" + bw(s.min_bw) + "-" + bw(s.max_bw) + "]";
}

std::string status(const CaseResult &c) {
    if (c.failed())
        return "FAILED";
    std::string s = "ok";
    if (c.check.done && !c.check.bytes_note.empty())
        s += c.check.identical ? ", files identical" : ", bytes differ";
    return s;
}

std::string json_str(const std::string &s) {
    std::string o = "\"";
    for (char ch : s) {
        switch (ch) {
        case '"':
            o += "\\\"";
            break;
        case '\\':
            o += "\\\\";
            break;
        case '\n':
            o += "\\n";
            break;
        case '\t':
            o += "\\t";
            break;
        default:
            if (static_cast<unsigned char>(ch) < 0x20)
                o += fmt("\\u%04.0f", static_cast<double>(static_cast<unsigned char>(ch)));
            else
                o += ch;
        }
    }
    return o + "\"";
}

std::string json_num(double v) {
    if (!std::isfinite(v))
        return "null";
    char b[64];
    std::snprintf(b, sizeof b, "%.6g", v);
    return b;
}

std::string csv_str(const std::string &s) {
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string o = "\"";
    for (char ch : s)
        o += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return o + "\"";
}

void json_summary(FILE *f, const Summary &s, const std::vector<double> &sec, const std::vector<double> &data,
                  const Probe &probe) {
    std::fprintf(f, "{\"reps\": %d, \"median_s\": %s, \"min_s\": %s, \"max_s\": %s, ", s.n,
                 json_num(s.median_s).c_str(), json_num(s.min_s).c_str(), json_num(s.max_s).c_str());
    std::fprintf(f,
                 "\"median_MiBps\": %s, \"min_MiBps\": %s, \"max_MiBps\": %s, \"median_data_call_s\": %s, ",
                 json_num(s.median_bw).c_str(), json_num(s.min_bw).c_str(), json_num(s.max_bw).c_str(),
                 json_num(s.median_data_s).c_str());
    std::fprintf(f, "\"samples_s\": [");
    for (size_t i = 0; i < sec.size(); ++i)
        std::fprintf(f, "%s%s", i ? ", " : "", json_num(sec[i]).c_str());
    std::fprintf(f, "], \"data_call_samples_s\": [");
    for (size_t i = 0; i < data.size(); ++i)
        std::fprintf(f, "%s%s", i ? ", " : "", json_num(data[i]).c_str());
    std::fprintf(f, "], \"hdf5_io\": %s}", json_str(probe.describe()).c_str());
}

void json_stats(FILE *f, const H5FD_mpiio_stats_t &s) {
    std::fprintf(f, "{");
#define BENCH_JSON_FIELD(field) std::fprintf(f, "\"%s\": %llu, ", #field, (unsigned long long)s.field);
    BENCH_MPIIO_STATS_U64(BENCH_JSON_FIELD)
#undef BENCH_JSON_FIELD
    std::fprintf(f, "\"max_seconds_in_mpi_io\": %s}", json_num(s.seconds_in_mpi_io).c_str());
}

} // namespace

Summary summarize(const std::vector<double> &seconds, const std::vector<double> &data_seconds, double bytes) {
    Summary s;
    s.n = static_cast<int>(seconds.size());
    if (seconds.empty())
        return s;
    std::vector<double> bws;
    for (double t : seconds)
        bws.push_back(t > 0 ? bytes / kMiB / t : 0);
    s.median_s = median_of(seconds);
    s.min_s = *std::min_element(seconds.begin(), seconds.end());
    s.max_s = *std::max_element(seconds.begin(), seconds.end());
    s.median_bw = median_of(bws);
    s.min_bw = *std::min_element(bws.begin(), bws.end());
    s.max_bw = *std::max_element(bws.begin(), bws.end());
    s.median_data_s = median_of(data_seconds);
    return s;
}

double CaseResult::ratio(Driver a, Driver b, char phase) const {
    const DriverResult &x = drv[static_cast<size_t>(a)], &y = drv[static_cast<size_t>(b)];
    if (!x.ran || !y.ran)
        return 0;
    const double bx = phase == 'w' ? x.w.median_bw : x.r.median_bw;
    const double by = phase == 'w' ? y.w.median_bw : y.r.median_bw;
    return by > 0 ? bx / by : 0;
}

void print_table(FILE *out, const RunInfo &info, const std::vector<CaseResult> &results) {
    std::fprintf(out,
                 "\nh5bench_vfd: %d ranks, io=%s, size=%s, %d time steps, %d reps (+%d warm-up), dir %s\n",
                 info.ranks, info.io_component.c_str(), info.size.c_str(), info.timesteps, info.reps,
                 info.warmup, info.dir.c_str());
    std::fprintf(
        out,
        "Load average (1/5/15 min) at start %s, at end %s (%u cores): other processes compete with the "
        "benchmark when these exceed the core count (its own ranks add about one per rank).\n",
        info.load_start.c_str(), info.load_end.c_str(), std::thread::hardware_concurrency());
    std::fprintf(out,
                 "Bandwidth in MiB/s of data bytes per phase (whole file: create/open .. close, max over "
                 "ranks): median [min-max].\n");
    std::fprintf(
        out, "Ratios are median bandwidth of mpiio divided by mpio / raw: > 1 means the plugin is faster.\n");
    for (char phase : {'w', 'r'}) {
        std::fprintf(out, "\n%s\n", phase == 'w' ? "WRITE" : "READ");
        std::fprintf(out, "%-18s %8s  %-22s %-22s %-22s %10s %9s\n", "case", "MiB", "mpio", "mpiio", "raw",
                     "mpiio/mpio", "mpiio/raw");
        for (const CaseResult &c : results) {
            std::fprintf(
                out, "%-18s %8.2f  %-22s %-22s %-22s %10s %9s%s\n", c.id.c_str(), c.bytes / kMiB,
                cell(c.drv[0], phase).c_str(), cell(c.drv[1], phase).c_str(), cell(c.drv[2], phase).c_str(),
                ratio_str(c.ratio(Driver::Mpiio, Driver::Mpio, phase)).c_str(),
                ratio_str(c.ratio(Driver::Mpiio, Driver::Raw, phase)).c_str(), c.failed() ? "  FAILED" : "");
        }
    }
    std::fprintf(out, "\nCHECKS\n");
    for (const CaseResult &c : results) {
        std::fprintf(out, "%-18s %s", c.id.c_str(), status(c).c_str());
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
    std::fprintf(out,
                 "\nraw = MPI-IO with an equivalent file view and no HDF5 metadata (no superblock, object "
                 "headers, B-trees or attributes).\n");
    int failed = 0;
    for (const CaseResult &c : results)
        failed += c.failed() ? 1 : 0;
    std::fprintf(out, "Total %.0f s. %s\n", info.total_s,
                 failed ? (std::to_string(failed) + " case(s) FAILED").c_str() : "All cases verified.");
}

void write_outputs(const std::string &dir, const RunInfo &info, const std::vector<CaseResult> &results) {
    const char *names[kNumDrivers] = {"mpio", "mpiio", "raw"};
    // results.csv: one row per case, driver and phase.
    if (FILE *f = std::fopen((dir + "/results.csv").c_str(), "w")) {
        std::fprintf(f,
                     "case,pattern,mode,phase,driver,bytes,reps,median_s,min_s,max_s,median_MiBps,min_MiBps,"
                     "max_MiBps,median_data_call_s,mpiio_over_this,status,files\n");
        for (const CaseResult &c : results)
            for (char phase : {'w', 'r'})
                for (int d = 0; d < kNumDrivers; ++d) {
                    const DriverResult &r = c.drv[static_cast<size_t>(d)];
                    if (!r.ran)
                        continue;
                    const Summary &s = phase == 'w' ? r.w : r.r;
                    const double ratio = c.ratio(Driver::Mpiio, static_cast<Driver>(d), phase);
                    std::fprintf(f, "%s,%s,%s,%s,%s,%.0f,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4f,%s,%s\n",
                                 c.id.c_str(), c.pattern.c_str(), c.mode.c_str(),
                                 phase == 'w' ? "write" : "read", names[d], c.bytes, s.n, s.median_s, s.min_s,
                                 s.max_s, s.median_bw, s.min_bw, s.max_bw, s.median_data_s, ratio,
                                 c.failed() ? "FAILED" : "ok", csv_str(c.check.bytes_note).c_str());
                }
        std::fclose(f);
    }
    // runs.csv: every counted repetition.
    if (FILE *f = std::fopen((dir + "/runs.csv").c_str(), "w")) {
        std::fprintf(f, "case,driver,phase,rep,seconds,data_call_seconds,MiBps\n");
        for (const CaseResult &c : results)
            for (int d = 0; d < kNumDrivers; ++d) {
                const DriverResult &r = c.drv[static_cast<size_t>(d)];
                for (size_t i = 0; i < r.wsec.size(); ++i)
                    std::fprintf(f, "%s,%s,write,%zu,%.6g,%.6g,%.6g\n", c.id.c_str(), names[d], i, r.wsec[i],
                                 r.wdata[i], c.bytes / kMiB / r.wsec[i]);
                for (size_t i = 0; i < r.rsec.size(); ++i)
                    std::fprintf(f, "%s,%s,read,%zu,%.6g,%.6g,%.6g\n", c.id.c_str(), names[d], i, r.rsec[i],
                                 r.rdata[i], c.bytes / kMiB / r.rsec[i]);
            }
        std::fclose(f);
    }
    // results.json: everything.
    if (FILE *f = std::fopen((dir + "/results.json").c_str(), "w")) {
        std::fprintf(
            f,
            "{\n  \"info\": {\"started\": %s, \"host\": %s, \"ranks\": %d, \"mpi_library\": %s, "
            "\"io_component\": %s, \"hdf5\": %s, \"plugin_path\": %s, \"plugin_config\": %s, "
            "\"size\": %s, \"timesteps\": %d, \"reps\": %d, \"warmup\": %d, \"dir\": %s, "
            "\"label\": %s, \"total_s\": %s, \"loadavg_start\": %s, \"loadavg_end\": %s, \"cores\": %u,\n    "
            "\"notes\": [\"bandwidth = data bytes of all ranks / "
            "phase time; phase = create/open .. close after a barrier, max over ranks\", \"raw = MPI-IO "
            "with an equivalent file view, no HDF5 metadata\"]},\n  \"cases\": [\n",
            json_str(info.started).c_str(), json_str(info.host).c_str(), info.ranks,
            json_str(info.mpi_library).c_str(), json_str(info.io_component).c_str(),
            json_str(info.hdf5_version).c_str(), json_str(info.plugin_path).c_str(),
            json_str(info.plugin_config).c_str(), json_str(info.size).c_str(), info.timesteps, info.reps,
            info.warmup, json_str(info.dir).c_str(), json_str(info.label).c_str(),
            json_num(info.total_s).c_str(), json_str(info.load_start).c_str(),
            json_str(info.load_end).c_str(), std::thread::hardware_concurrency());
        for (size_t i = 0; i < results.size(); ++i) {
            const CaseResult &c = results[i];
            std::fprintf(f,
                         "    {\"case\": %s, \"pattern\": %s, \"mode\": %s, \"what\": %s, \"raw_note\": %s, "
                         "\"bytes_per_phase\": %.0f, \"datasets_per_step\": %d, \"data_calls_per_step\": %d, "
                         "\"status\": %s, \"elapsed_s\": %s,\n",
                         json_str(c.id).c_str(), json_str(c.pattern).c_str(), json_str(c.mode).c_str(),
                         json_str(c.what).c_str(), json_str(c.raw_note).c_str(), c.bytes, c.datasets,
                         c.accesses, json_str(c.failed() ? "FAILED" : "ok").c_str(),
                         json_num(c.elapsed_s).c_str());
            std::fprintf(f, "     \"failures\": [");
            for (size_t k = 0; k < c.failures.size(); ++k)
                std::fprintf(f, "%s%s", k ? ", " : "", json_str(c.failures[k]).c_str());
            std::fprintf(
                f,
                "],\n     \"files\": {\"hdf5_bytes\": %s, \"size_mpio\": %llu, \"size_mpiio\": %llu, "
                "\"size_raw\": %llu},\n",
                json_str(c.check.bytes_note).c_str(), (unsigned long long)c.check.size_mpio,
                (unsigned long long)c.check.size_mpiio, (unsigned long long)c.check.size_raw);
            std::fprintf(f,
                         "     \"ratios\": {\"write\": {\"mpiio_over_mpio\": %s, \"mpiio_over_raw\": %s}, "
                         "\"read\": {\"mpiio_over_mpio\": %s, \"mpiio_over_raw\": %s}},\n",
                         json_num(c.ratio(Driver::Mpiio, Driver::Mpio, 'w')).c_str(),
                         json_num(c.ratio(Driver::Mpiio, Driver::Raw, 'w')).c_str(),
                         json_num(c.ratio(Driver::Mpiio, Driver::Mpio, 'r')).c_str(),
                         json_num(c.ratio(Driver::Mpiio, Driver::Raw, 'r')).c_str());
            std::fprintf(f, "     \"drivers\": {");
            bool first = true;
            for (int d = 0; d < kNumDrivers; ++d) {
                const DriverResult &r = c.drv[static_cast<size_t>(d)];
                if (!r.ran)
                    continue;
                std::fprintf(f, "%s\n       %s: {\"write\": ", first ? "" : ",", json_str(names[d]).c_str());
                first = false;
                json_summary(f, r.w, r.wsec, r.wdata, r.wprobe);
                std::fprintf(f, ",\n         \"read\": ");
                json_summary(f, r.r, r.rsec, r.rdata, r.rprobe);
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
        std::fclose(f);
    }
    // table.txt: the terminal table.
    if (FILE *f = std::fopen((dir + "/table.txt").c_str(), "w")) {
        print_table(f, info, results);
        std::fclose(f);
    }
    // table.md: for the README.
    if (FILE *f = std::fopen((dir + "/table.md").c_str(), "w")) {
        std::fprintf(f,
                     "%d ranks, Open MPI io=%s, HDF5 %s, size %s, %d time steps, median of %d repetitions "
                     "(+%d warm-up), files in %s. Started %s on %s; load average %s at start, %s at end (%u "
                     "cores).%s%s\n\n",
                     info.ranks, info.io_component.c_str(), info.hdf5_version.c_str(), info.size.c_str(),
                     info.timesteps, info.reps, info.warmup, info.dir.c_str(), info.started.c_str(),
                     info.host.c_str(), info.load_start.c_str(), info.load_end.c_str(),
                     std::thread::hardware_concurrency(), info.label.empty() ? "" : " ", info.label.c_str());
        std::fprintf(f,
                     "| case | MiB | write mpio | write mpiio | write raw | **w mpiio/mpio** | w mpiio/raw | "
                     "read mpio | read mpiio | read raw | **r mpiio/mpio** | r mpiio/raw | check |\n");
        std::fprintf(f, "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|\n");
        for (const CaseResult &c : results) {
            auto med = [&](int d, char p) {
                const DriverResult &r = c.drv[static_cast<size_t>(d)];
                return r.ran ? bw(p == 'w' ? r.w.median_bw : r.r.median_bw) : std::string("-");
            };
            std::fprintf(f, "| %s | %.2f | %s | %s | %s | **%s** | %s | %s | %s | %s | **%s** | %s | %s |\n",
                         c.id.c_str(), c.bytes / kMiB, med(0, 'w').c_str(), med(1, 'w').c_str(),
                         med(2, 'w').c_str(), ratio_str(c.ratio(Driver::Mpiio, Driver::Mpio, 'w')).c_str(),
                         ratio_str(c.ratio(Driver::Mpiio, Driver::Raw, 'w')).c_str(), med(0, 'r').c_str(),
                         med(1, 'r').c_str(), med(2, 'r').c_str(),
                         ratio_str(c.ratio(Driver::Mpiio, Driver::Mpio, 'r')).c_str(),
                         ratio_str(c.ratio(Driver::Mpiio, Driver::Raw, 'r')).c_str(), status(c).c_str());
        }
        std::fclose(f);
    }
    write_chart(dir + "/chart.svg", info, results);
}

} // namespace bench
