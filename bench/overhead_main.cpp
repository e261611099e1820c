// h5bench_vfd_overhead: per-operation overhead of the drivers (see overhead.hpp), measured in
// alternating repetitions; prints a table and writes overhead.md / overhead.csv.
//
//   mpirun -n 4 h5bench_vfd_overhead [--ops auto|N] [--bytes 8] [--reps 7] [--warmup 1]
//                                    [--drivers mpio,mpiio,raw] [--dir /dev/shm] [--out DIR]
//                                    [--plugin-config S] [--label TEXT]
#include "environment.hpp"
#include "format.hpp"
#include "overhead.hpp"
#include "workdir.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

using namespace bench;

namespace {

struct MpiSession {
    MpiSession(int &argc, char **&argv) { MPI_Init(&argc, &argv); }
    ~MpiSession() { MPI_Finalize(); }
    MpiSession(const MpiSession &) = delete;
    MpiSession &operator=(const MpiSession &) = delete;
};

struct OverheadOptions {
    OpLoopSpec spec{.ops = 0, .bytes = 8, .config = {}}; // ops 0: calibrate (--ops auto)
    int reps = 7, warmup = 1;
    std::vector<Driver> drivers = {Driver::Mpio, Driver::Mpiio, Driver::Raw};
    std::string dir = "/dev/shm", out = "overhead-results", label;
};

const char *kUsage =
    "usage: mpirun -n <ranks> h5bench_vfd_overhead [options]\n"
    "\n"
    "Per-operation overhead: --ops tiny H5Dwrite (then H5Dread) calls of --bytes bytes per rank on a\n"
    "contiguous dataset, collective then independent, through the built-in mpio driver and the mpiio\n"
    "plugin, and raw MPI_File_write_at_all / read_at_all (independent: write_at / read_at) loops for\n"
    "reference; then 200 H5Fopen + H5Fclose pairs of a small file (raw: MPI_File_open + close).\n"
    "Microseconds per call or pair (slowest rank), median and range over alternating repetitions.\n"
    "Every value read back is checked.\n"
    "\n"
    "  --ops N|auto      timed calls per loop (default auto: as many as take about 0.5 s through\n"
    "                    the first driver, 500-5000, measured once before the repetitions)\n"
    "  --bytes B         bytes per rank per call, a multiple of 8 (default 8)\n"
    "  --reps N          counted repetitions per driver (default 7)\n"
    "  --warmup N        discarded repetitions (default 1)\n"
    "  --drivers LIST    subset of mpio,mpiio,raw (default all three)\n"
    "  --dir DIR         where the files go (default /dev/shm)\n"
    "  --out DIR         where overhead.md / overhead.csv go (default ./overhead-results)\n"
    "  --plugin-config S config string for the mpiio driver\n"
    "  --label TEXT      note recorded with the results\n";

// Collective (every rank parses the same argv). Returns false when the program should exit.
bool parse(int argc, char **argv, OverheadOptions &o, int &exit_code) {
    auto fail = [&](const std::string &msg) {
        if (rank() == 0)
            std::fprintf(stderr, "h5bench_vfd_overhead: %s (see --help)\n", msg.c_str());
        exit_code = 2;
        return false;
    };
    auto to_int = [](const char *s, int &v, int min) {
        char *end = nullptr;
        const long x = std::strtol(s, &end, 10);
        if (end == s || *end != '\0' || x < min || x > 100000000)
            return false;
        v = static_cast<int>(x);
        return true;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "-h" || a == "--help") {
            if (rank() == 0)
                std::printf("%s", kUsage);
            exit_code = 0;
            return false;
        }
        if (i + 1 >= argc)
            return fail("unknown option or missing value: " + a);
        const char *v = argv[++i];
        if (a == "--ops") {
            if (std::string(v) == "auto")
                o.spec.ops = 0;
            else if (!to_int(v, o.spec.ops, 1))
                return fail("--ops needs an integer >= 1 or auto");
        } else if (a == "--bytes") {
            if (!to_int(v, o.spec.bytes, 8) || o.spec.bytes % 8 != 0)
                return fail("--bytes needs a multiple of 8");
        } else if (a == "--reps") {
            if (!to_int(v, o.reps, 1))
                return fail("--reps needs an integer >= 1");
        } else if (a == "--warmup") {
            if (!to_int(v, o.warmup, 0))
                return fail("--warmup needs an integer >= 0");
        } else if (a == "--drivers") {
            o.drivers.clear();
            std::stringstream ss(v);
            std::string d;
            while (std::getline(ss, d, ','))
                if (d == "mpio" || d == "mpiio" || d == "raw")
                    o.drivers.push_back(d == "mpio"    ? Driver::Mpio
                                        : d == "mpiio" ? Driver::Mpiio
                                                       : Driver::Raw);
                else
                    return fail("unknown driver " + d);
            if (o.drivers.empty())
                return fail("--drivers is empty");
        } else if (a == "--dir") {
            o.dir = v;
        } else if (a == "--out") {
            o.out = v;
        } else if (a == "--plugin-config") {
            o.spec.config = v;
        } else if (a == "--label") {
            o.label = v;
        } else {
            return fail("unknown option " + a);
        }
    }
    return true;
}

// Collective. --ops auto: a short loop through the first driver gives the time per call; the
// repetitions then use as many calls as take about 0.5 s (500-5000, a multiple of 100), so a
// slow MPI layer or a loaded machine does not stretch the run to hours. Every rank gets the same
// number (the loop times are maxima over ranks).
int calibrate_ops(const OverheadOptions &o, const std::string &work) {
    constexpr double kTargetUs = 0.5e6;
    OpLoopSpec probe = o.spec;
    probe.ops = 100;
    const Driver d = o.drivers.front();
    const std::string path = work + "/calibrate." + driver_name(d);
    set_context("overhead calibration");
    const OpLoopTimes t = d == Driver::Raw ? run_raw_op_loop(path, probe) : run_h5_op_loop(d, path, probe);
    const double us = std::max(std::min(t.write_us, t.read_us), 1.0); // the less disturbed loop
    const int ops = static_cast<int>(kTargetUs / us / 100) * 100;
    return std::clamp(ops, 500, 5000);
}

constexpr int kModes = 2; // 0 = collective, 1 = independent transfers
const char *const kModeNames[kModes] = {"collective", "independent"};
constexpr int kOpenCloseCycles = 200; // per repetition: about 0.2 s at 1 ms per pair

// The rows of the table: the data calls per transfer mode and operation, then the file cycle.
constexpr int kRows = 2 * kModes + 1;
constexpr int kOpenCloseRow = 2 * kModes;
int data_row(int mode, int op) { return 2 * mode + op; } // op 0 = write, 1 = read
const char *const kRowNames[kRows] = {"collective H5Dwrite", "collective H5Dread", "independent H5Dwrite",
                                      "independent H5Dread", "H5Fopen + H5Fclose"};
// overhead.csv's mode and operation columns of each row
const char *const kRowCsv[kRows][2] = {{"collective", "write"},
                                       {"collective", "read"},
                                       {"independent", "write"},
                                       {"independent", "read"},
                                       {"file", "open_close"}};

// Microseconds per call (per open + close pair in the last row) of every counted repetition, per
// row and driver.
struct Samples {
    std::vector<double> us[kRows][kNumDrivers];
    uint64_t wrong[kNumDrivers] = {0, 0, 0};
};

// Collective. Warm-up + counted rounds, the drivers' order rotating each round; every driver runs
// its collective loops, then its independent ones, then its open + close cycles.
Samples measure(const OverheadOptions &o, const std::string &work) {
    Samples s;
    const size_t nd = o.drivers.size();
    for (int round = 0; round < o.warmup + o.reps; ++round) {
        std::string line;
        for (size_t k = 0; k < nd; ++k) {
            const Driver d = o.drivers[(k + static_cast<size_t>(round)) % nd];
            const std::string path = work + "/ops." + driver_name(d) + (d == Driver::Raw ? ".raw" : ".h5");
            const size_t di = static_cast<size_t>(d);
            line += std::string(k ? " | " : "") + driver_name(d);
            for (int mode = 0; mode < kModes; ++mode) {
                OpLoopSpec spec = o.spec;
                spec.collective = mode == 0;
                set_context(std::string("overhead ") + driver_name(d) + " " + kModeNames[mode] + " round " +
                            std::to_string(round));
                const OpLoopTimes t =
                    d == Driver::Raw ? run_raw_op_loop(path, spec) : run_h5_op_loop(d, path, spec);
                s.wrong[di] += t.wrong;
                if (round >= o.warmup) {
                    s.us[data_row(mode, 0)][di].push_back(t.write_us);
                    s.us[data_row(mode, 1)][di].push_back(t.read_us);
                }
                line += std::string(mode ? ", ind" : " coll") + " W " + fmt("%.1f", t.write_us) + " R " +
                        fmt("%.1f", t.read_us) + (t.wrong ? " WRONG DATA" : "");
            }
            set_context(std::string("overhead ") + driver_name(d) + " open + close round " +
                        std::to_string(round));
            const double open_us = d == Driver::Raw
                                       ? run_raw_open_close_loop(path, kOpenCloseCycles)
                                       : run_h5_open_close_loop(d, path, kOpenCloseCycles, o.spec.config);
            if (round >= o.warmup)
                s.us[kOpenCloseRow][di].push_back(open_us);
            line += ", open+close " + fmt("%.0f", open_us) + " us";
        }
        if (rank() == 0)
            std::fprintf(stderr, "[overhead] %s %s\n",
                         round < o.warmup ? "warm-up"
                                          : ("rep " + std::to_string(round - o.warmup + 1)).c_str(),
                         line.c_str());
    }
    return s;
}

struct Stat {
    int n = 0;
    double median = 0, min = 0, max = 0;
};

Stat stat_of(std::vector<double> v) {
    Stat s;
    if (v.empty())
        return s;
    std::sort(v.begin(), v.end());
    s.n = static_cast<int>(v.size());
    s.median = s.n % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
    s.min = v.front();
    s.max = v.back();
    return s;
}

std::string us_cell(const Stat &s) {
    return s.n ? fmt("%.1f", s.median) + " (" + fmt("%.1f", s.min) + "-" + fmt("%.1f", s.max) + ")" : "-";
}

// Per round mpio_us / mpiio_us: the plugin's call rate relative to the built-in driver's.
Stat rate_ratio(const Samples &s, int row) {
    const std::vector<double> &a = s.us[row][0], &b = s.us[row][1];
    std::vector<double> r;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (b[i] > 0)
            r.push_back(a[i] / b[i]);
    return stat_of(r);
}

void write_markdown(FILE *f, const OverheadOptions &o, const RunInfo &info, const Samples &s) {
    std::fprintf(
        f,
        "**%s** (%s, io=%s), HDF5 %s, %d ranks on %ld cores, files in %s: %d calls of %d bytes per "
        "rank on a contiguous dataset per loop, collective then independent, then %d H5Fopen + H5Fclose "
        "pairs of a file holding one dataset (raw: MPI_File_open + MPI_File_close); %d warm-up + %d "
        "counted repetitions alternating between the drivers. Microseconds per call or pair (slowest "
        "rank): median (min-max). "
        "**mpiio/mpio**: the plugin's call rate over the built-in driver's, per repetition (> 1: the "
        "plugin is faster). Load average %s at start, %s at end.%s%s\n\n",
        layer_title(info).c_str(), short_library_name(info.mpi_library).c_str(), info.io_component.c_str(),
        info.hdf5_version.c_str(), info.ranks, sysconf(_SC_NPROCESSORS_ONLN), o.dir.c_str(), o.spec.ops,
        o.spec.bytes, kOpenCloseCycles, o.warmup, o.reps, info.load_start.c_str(), info.load_end.c_str(),
        o.label.empty() ? "" : " ", o.label.c_str());
    std::fprintf(f,
                 "| operation | mpio µs/call | mpiio µs/call | mpiio - mpio µs | **mpiio/mpio** | raw MPI-IO "
                 "µs/call |\n|---|--:|--:|--:|--:|--:|\n");
    for (int row = 0; row < kRows; ++row) {
        const Stat m = stat_of(s.us[row][0]), p = stat_of(s.us[row][1]), r = stat_of(s.us[row][2]);
        const Stat q = rate_ratio(s, row);
        std::fprintf(
            f, "| %s | %s | %s | %s | %s | %s |\n", kRowNames[row], us_cell(m).c_str(), us_cell(p).c_str(),
            m.n && p.n ? fmt("%+.1f", p.median - m.median).c_str() : "-",
            q.n ? ("**" + ratio_str(q.median) + "** (" + ratio_str(q.min) + "-" + ratio_str(q.max) + ")")
                      .c_str()
                : "-",
            us_cell(r).c_str());
    }
}

void write_csv(FILE *f, const Samples &s) {
    std::fprintf(f, "driver,mode,operation,rep,us_per_call\n");
    for (int row = 0; row < kRows; ++row)
        for (int d = 0; d < kNumDrivers; ++d)
            for (size_t i = 0; i < s.us[row][d].size(); ++i)
                std::fprintf(f, "%s,%s,%s,%zu,%.3f\n", driver_name(static_cast<Driver>(d)), kRowCsv[row][0],
                             kRowCsv[row][1], i, s.us[row][d][i]);
}

// Rank 0. Calls write(file) on <out>/<name>.
template <class Fn> void write_file(const std::string &out, const char *name, Fn &&write) {
    const std::string path = out + "/" + name;
    FILE *f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        std::fprintf(stderr, "h5bench_vfd_overhead: cannot write %s\n", path.c_str());
        return;
    }
    write(f);
    std::fclose(f);
}

// Rank 0. Table on stdout, overhead.md and overhead.csv in --out.
void report(const OverheadOptions &o, const RunInfo &info, const Samples &s) {
    if (rank() != 0)
        return;
    write_markdown(stdout, o, info, s);
    write_file(o.out, "overhead.md", [&](FILE *f) { write_markdown(f, o, info, s); });
    write_file(o.out, "overhead.csv", [&](FILE *f) { write_csv(f, s); });
}

} // namespace

int main(int argc, char **argv) {
    MpiSession mpi(argc, argv);
    OverheadOptions o;
    int exit_code = 0;
    if (!parse(argc, argv, o, exit_code))
        return exit_code;
    set_context("overhead startup");
    RunInfo info;
    collect_environment(info);
    if (std::find(o.drivers.begin(), o.drivers.end(), Driver::Mpiio) != o.drivers.end())
        check_plugin_loads(o.spec.config);
    const std::string work = create_work_dir(o.dir, o.out);
    if (work.empty())
        return 2;
    if (o.spec.ops == 0)
        o.spec.ops = calibrate_ops(o, work);
    if (rank() == 0)
        std::fprintf(
            stderr,
            "h5bench_vfd_overhead: %d calls x %d bytes per rank, %d warm-up + %d reps, io=%s, files in %s\n",
            o.spec.ops, o.spec.bytes, o.warmup, o.reps, info.io_component.c_str(), work.c_str());
    const Samples s = measure(o, work);
    if (rank() == 0)
        rmdir(work.c_str());
    info.load_end = loadavg();
    report(o, info, s);
    uint64_t wrong = 0;
    for (uint64_t w : s.wrong)
        wrong += w;
    if (wrong > 0 && rank() == 0)
        std::fprintf(stderr, "*** h5bench_vfd_overhead: %llu values read back wrong ***\n",
                     (unsigned long long)wrong);
    return wrong > 0 ? 1 : 0;
}
