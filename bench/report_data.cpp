// Machine-readable results: results.csv (one row per case, phase and driver), runs.csv (every
// counted repetition) and results.json (everything, with the run's environment).
#include "format.hpp"
#include "report.hpp"

#include <thread>

namespace bench {

namespace {

const char *const kNames[kNumDrivers] = {"mpio", "mpiio", "raw", "mpio2"};

void json_samples(FILE *f, const char *key, const std::vector<double> &v) {
    std::fprintf(f, "\"%s\": [", key);
    for (size_t i = 0; i < v.size(); ++i)
        std::fprintf(f, "%s%s", i ? ", " : "", json_num(v[i]).c_str());
    std::fprintf(f, "]");
}

void json_summary(FILE *f, const Summary &s, const std::vector<double> &sec, const std::vector<double> &data,
                  const Probe &probe) {
    std::fprintf(f, "{\"reps\": %d, \"median_s\": %s, \"min_s\": %s, \"max_s\": %s, ", s.n,
                 json_num(s.median_s).c_str(), json_num(s.min_s).c_str(), json_num(s.max_s).c_str());
    std::fprintf(f,
                 "\"median_MiBps\": %s, \"min_MiBps\": %s, \"max_MiBps\": %s, \"median_data_call_s\": %s, ",
                 json_num(s.median_bw).c_str(), json_num(s.min_bw).c_str(), json_num(s.max_bw).c_str(),
                 json_num(s.median_data_s).c_str());
    json_samples(f, "samples_s", sec);
    std::fprintf(f, ", ");
    json_samples(f, "data_call_samples_s", data);
    std::fprintf(f, ", \"hdf5_io\": %s}", json_str(probe.describe()).c_str());
}

void json_stats(FILE *f, const H5FD_mpiio_stats_t &s) {
    std::fprintf(f, "{");
#define BENCH_JSON_FIELD(type, field, description)                                                           \
    BENCH_IF_COUNTER(type, std::fprintf(f, "\"%s\": %llu, ", #field, (unsigned long long)s.field))
    H5FD_MPIIO_STATS_FIELDS(BENCH_JSON_FIELD)
#undef BENCH_JSON_FIELD
    std::fprintf(f, "\"max_seconds_in_mpi_io\": %s}", json_num(s.seconds_in_mpi_io).c_str());
}

std::string json_ratio(const RatioSpread &r) {
    return "{\"median\": " + json_num(r.median) + ", \"min\": " + json_num(r.min) +
           ", \"max\": " + json_num(r.max) + ", \"pairs\": " + std::to_string(r.n) + "}";
}

void json_info(FILE *f, const RunInfo &info) {
    std::fprintf(
        f,
        "  \"info\": {\"started\": %s, \"host\": %s, \"ranks\": %d, \"mpi_library\": %s, "
        "\"io_layer\": %s, \"io_component\": %s, \"hdf5\": %s, \"plugin_path\": %s, "
        "\"plugin_config\": %s, \"size\": %s, \"timesteps\": %d, \"min_phase_s\": %s, \"reps\": %d, "
        "\"warmup\": %d, "
        "\"dir\": %s, \"label\": %s, \"total_s\": %s, \"loadavg_start\": %s, \"loadavg_end\": %s, "
        "\"cores\": %u,\n    \"notes\": [\"bandwidth = data bytes of all ranks / phase time; phase = "
        "create/open .. close after a barrier, max over ranks\", \"ratios = median (and range) of "
        "the per-repetition bandwidth ratios\", \"raw = MPI-IO with an equivalent file view, no HDF5 "
        "metadata\"]},\n",
        json_str(info.started).c_str(), json_str(info.host).c_str(), info.ranks,
        json_str(info.mpi_library).c_str(), json_str(info.io_layer).c_str(),
        json_str(info.io_component).c_str(), json_str(info.hdf5_version).c_str(),
        json_str(info.plugin_path).c_str(), json_str(info.plugin_config).c_str(), json_str(info.size).c_str(),
        info.timesteps, json_num(info.min_phase_s).c_str(), info.reps, info.warmup,
        json_str(info.dir).c_str(), json_str(info.label).c_str(), json_num(info.total_s).c_str(),
        json_str(info.load_start).c_str(), json_str(info.load_end).c_str(),
        std::thread::hardware_concurrency());
}

void json_case(FILE *f, const CaseResult &c) {
    std::fprintf(f,
                 "    {\"case\": %s, \"pattern\": %s, \"mode\": %s, \"what\": %s, \"raw_note\": %s, "
                 "\"timesteps\": %d, \"bytes_per_phase\": %.0f, \"datasets_per_step\": %d, "
                 "\"data_calls_per_step\": %d, "
                 "\"status\": %s, \"elapsed_s\": %s,\n",
                 json_str(c.id).c_str(), json_str(c.pattern).c_str(), json_str(c.mode).c_str(),
                 json_str(c.what).c_str(), json_str(c.raw_note).c_str(), c.timesteps, c.bytes, c.datasets,
                 c.accesses, json_str(c.failed() ? "FAILED" : "ok").c_str(), json_num(c.elapsed_s).c_str());
    std::fprintf(f, "     \"failures\": [");
    for (size_t k = 0; k < c.failures.size(); ++k)
        std::fprintf(f, "%s%s", k ? ", " : "", json_str(c.failures[k]).c_str());
    std::fprintf(f,
                 "],\n     \"files\": {\"hdf5_bytes\": %s, \"size_mpio\": %llu, \"size_mpiio\": %llu, "
                 "\"size_raw\": %llu},\n",
                 json_str(c.check.bytes_note).c_str(), (unsigned long long)c.check.size_mpio,
                 (unsigned long long)c.check.size_mpiio, (unsigned long long)c.check.size_raw);
    std::fprintf(f,
                 "     \"ratios\": {\"write\": {\"mpiio_over_mpio\": %s, \"mpiio_over_raw\": %s}, "
                 "\"read\": {\"mpiio_over_mpio\": %s, \"mpiio_over_raw\": %s}, "
                 "\"control\": {\"write_mpio2_over_mpio\": %s, \"read_mpio2_over_mpio\": %s}},\n",
                 json_ratio(c.paired_ratio(Driver::Mpiio, Driver::Mpio, 'w')).c_str(),
                 json_ratio(c.paired_ratio(Driver::Mpiio, Driver::Raw, 'w')).c_str(),
                 json_ratio(c.paired_ratio(Driver::Mpiio, Driver::Mpio, 'r')).c_str(),
                 json_ratio(c.paired_ratio(Driver::Mpiio, Driver::Raw, 'r')).c_str(),
                 json_ratio(c.paired_ratio(Driver::Mpio2, Driver::Mpio, 'w')).c_str(),
                 json_ratio(c.paired_ratio(Driver::Mpio2, Driver::Mpio, 'r')).c_str());
    std::fprintf(f, "     \"drivers\": {");
    bool first = true;
    for (int d = 0; d < kNumDrivers; ++d) {
        const DriverResult &r = c.drv[static_cast<size_t>(d)];
        if (!r.ran)
            continue;
        std::fprintf(f, "%s\n       %s: {\"write\": ", first ? "" : ",", json_str(kNames[d]).c_str());
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
    std::fprintf(f, "}}");
}

} // namespace

void write_results_csv(FILE *f, const std::vector<CaseResult> &results) {
    std::fprintf(f, "case,pattern,mode,phase,driver,bytes,reps,median_s,min_s,max_s,median_MiBps,min_MiBps,"
                    "max_MiBps,median_data_call_s,mpiio_over_this,mpiio_over_this_min,mpiio_over_this_max,"
                    "status,files,timesteps\n");
    for (const CaseResult &c : results)
        for (char phase : {'w', 'r'})
            for (int d = 0; d < kNumDrivers; ++d) {
                const DriverResult &r = c.drv[static_cast<size_t>(d)];
                if (!r.ran)
                    continue;
                const Summary &s = phase == 'w' ? r.w : r.r;
                const RatioSpread ratio = c.paired_ratio(Driver::Mpiio, static_cast<Driver>(d), phase);
                std::fprintf(
                    f, "%s,%s,%s,%s,%s,%.0f,%d,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.4f,%.4f,%.4f,%s,%s,%d\n",
                    c.id.c_str(), c.pattern.c_str(), c.mode.c_str(), phase == 'w' ? "write" : "read",
                    kNames[d], c.bytes, s.n, s.median_s, s.min_s, s.max_s, s.median_bw, s.min_bw, s.max_bw,
                    s.median_data_s, ratio.median, ratio.min, ratio.max, c.failed() ? "FAILED" : "ok",
                    csv_str(c.check.bytes_note).c_str(), c.timesteps);
            }
}

void write_runs_csv(FILE *f, const std::vector<CaseResult> &results) {
    std::fprintf(f, "case,driver,phase,rep,seconds,data_call_seconds,MiBps\n");
    for (const CaseResult &c : results)
        for (int d = 0; d < kNumDrivers; ++d) {
            const DriverResult &r = c.drv[static_cast<size_t>(d)];
            for (size_t i = 0; i < r.wsec.size(); ++i)
                std::fprintf(f, "%s,%s,write,%zu,%.6g,%.6g,%.6g\n", c.id.c_str(), kNames[d], i, r.wsec[i],
                             r.wdata[i], c.bytes / kMiB / r.wsec[i]);
            for (size_t i = 0; i < r.rsec.size(); ++i)
                std::fprintf(f, "%s,%s,read,%zu,%.6g,%.6g,%.6g\n", c.id.c_str(), kNames[d], i, r.rsec[i],
                             r.rdata[i], c.bytes / kMiB / r.rsec[i]);
        }
}

void write_results_json(FILE *f, const RunInfo &info, const std::vector<CaseResult> &results) {
    std::fprintf(f, "{\n");
    json_info(f, info);
    std::fprintf(f, "  \"cases\": [\n");
    for (size_t i = 0; i < results.size(); ++i) {
        json_case(f, results[i]);
        std::fprintf(f, "%s\n", i + 1 < results.size() ? "," : "");
    }
    std::fprintf(f, "  ]\n}\n");
}

} // namespace bench
