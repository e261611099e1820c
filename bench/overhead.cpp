// h5bench_vfd_overhead: per-operation overhead of the drivers, measured in alternating
// repetitions; prints a table and writes overhead.md / overhead.csv / overhead-parity.csv.
//
// Many tiny data calls on a contiguous dataset, through the built-in mpio driver, the mpiio
// plugin, a raw MPI_File_{write,read}_at(_all) loop for reference, and the built-in driver again
// (mpio2, the A/A control). Every call moves `bytes` bytes per rank; rank r's piece of call i sits
// at element i * P + r, so the pieces of one call are adjacent in the file. Then H5Fopen + H5Fclose
// pairs of a small file (raw: MPI_File_open + close). Each row's mpiio/mpio ratios are tested
// against mpio2/mpio (stats.hpp, the matrix's parity test); flagged rows are measured again.
//
//   mpirun -n 4 h5bench_vfd_overhead [--ops auto|N] [--bytes 8] [--reps 7] [--warmup 1]
//                                    [--confirm-reps N] [--drivers mpio,mpiio,raw,mpio2]
//                                    [--dir /dev/shm] [--out DIR] [--plugin-config S] [--label TEXT]
#include "common.hpp"
#include "stats.hpp"

#include <getopt.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

using namespace bench;

namespace {

struct OpLoopSpec {
    int ops = 2000;         // timed calls per loop
    int bytes = 8;          // per rank per call (a multiple of 8)
    std::string config;     // mpiio driver config string
    bool collective = true; // collective transfers (H5FD_MPIO_COLLECTIVE, MPI_File_*_all), or independent
};

// Microseconds per call (slowest rank) of one write loop and one read loop over the same file,
// and the number of values the read loop got wrong (over all ranks).
struct OpLoopTimes {
    double write_us = 0, read_us = 0;
    uint64_t wrong = 0;
};

constexpr int kWarmupOps = 16;

// The value of word k of rank r's piece in call i (distinct for every word of the file).
uint64_t word(int i, int r, int k, int words) {
    return (static_cast<uint64_t>(i) * 1000003ULL + static_cast<uint64_t>(r)) * static_cast<uint64_t>(words) +
           static_cast<uint64_t>(k) + 1;
}

double max_over_ranks(double v) {
    double out = 0;
    BENCH_MPI(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return out;
}

uint64_t sum_over_ranks(uint64_t v) {
    uint64_t out = 0;
    BENCH_MPI(MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    return out;
}

// Collective. `call(i)` for i in [0, n), started together on every rank; microseconds per call
// on the slowest rank.
template <class Call> double timed_loop(int n, Call call) {
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = MPI_Wtime();
    for (int i = 0; i < n; ++i)
        call(i);
    return max_over_ranks(MPI_Wtime() - t0) * 1e6 / n;
}

// Collective. Untimed warm-up calls of `call` (first-call effects), then the timed loop.
template <class Call> double warmed_timed_loop(int n, Call call) {
    for (int i = 0; i < std::min(kWarmupOps, n); ++i)
        call(i);
    return timed_loop(n, call);
}

// Collective. Untimed warm-up writes, then `ops` writes and `ops` reads, each loop timed.
template <class Write, class Read> void time_calls(int ops, Write write, Read read, OpLoopTimes &out) {
    out.write_us = warmed_timed_loop(ops, write);
    out.read_us = timed_loop(ops, read);
}

// The words this rank writes in every call, call after call.
std::vector<uint64_t> make_values(const OpLoopSpec &s) {
    const int words = s.bytes / 8;
    std::vector<uint64_t> v(static_cast<size_t>(s.ops) * static_cast<size_t>(words));
    for (int i = 0; i < s.ops; ++i)
        for (int k = 0; k < words; ++k)
            v[static_cast<size_t>(i) * words + k] = word(i, rank(), k, words);
    return v;
}

uint64_t count_wrong(const std::vector<uint64_t> &expected, const std::vector<uint64_t> &got) {
    uint64_t bad = 0;
    for (size_t i = 0; i < expected.size(); ++i)
        bad += expected[i] != got[i] ? 1 : 0;
    return bad;
}

// HDF5 handles of one loop, closed in reverse order whatever happens.
struct H5Loop {
    hid_t fapl = -1, file = -1, dcpl = -1, fspace = -1, dset = -1, mspace = -1, dxpl = -1;
    std::vector<hid_t> sels; // one file selection per call, built before the clock starts
    ~H5Loop() {
        for (hid_t s : sels)
            H5Sclose(s);
        using Close = herr_t (*)(hid_t);
        const std::pair<hid_t, Close> handles[] = {{dxpl, H5Pclose},   {mspace, H5Sclose}, {dset, H5Dclose},
                                                   {fspace, H5Sclose}, {dcpl, H5Pclose},   {file, H5Fclose},
                                                   {fapl, H5Pclose}};
        for (const auto &[id, close] : handles)
            if (id >= 0)
                close(id);
    }
};

double run_h5_open_close_loop(Driver d, const std::string &path, int cycles, const std::string &config) {
    double us = 0;
    {
        H5Loop h;
        h.fapl = driver_fapl(d, config);
        h.file = BENCH_H5(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, h.fapl));
        const hsize_t n = 1024;
        h.fspace = BENCH_H5(H5Screate_simple(1, &n, nullptr));
        h.dset = BENCH_H5(
            H5Dcreate2(h.file, "data", H5T_NATIVE_UINT64, h.fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        BENCH_H5(H5Dclose(h.dset));
        h.dset = -1;
        BENCH_H5(H5Fclose(h.file));
        h.file = -1;
        us = warmed_timed_loop(cycles, [&](int) {
            const hid_t file = BENCH_H5(H5Fopen(path.c_str(), H5F_ACC_RDWR, h.fapl));
            BENCH_H5(H5Fclose(file));
        });
    }
    remove_file(path);
    return us;
}

double run_raw_open_close_loop(const std::string &path, int cycles) {
    const double us = warmed_timed_loop(cycles, [&](int) {
        MPI_File fh = MPI_FILE_NULL;
        BENCH_MPI(
            MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        BENCH_MPI(MPI_File_close(&fh));
    });
    remove_file(path);
    return us;
}

OpLoopTimes run_h5_op_loop(Driver d, const std::string &path, const OpLoopSpec &s) {
    const int words = s.bytes / 8, P = nranks(), R = rank();
    const std::vector<uint64_t> values = make_values(s);
    std::vector<uint64_t> got(values.size(), 0);
    OpLoopTimes out;
    {
        H5Loop h;
        h.fapl = driver_fapl(d, s.config);
        BENCH_H5(H5Pset_all_coll_metadata_ops(h.fapl, true));
        BENCH_H5(H5Pset_coll_metadata_write(h.fapl, true));
        h.file = BENCH_H5(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, h.fapl));
        const hsize_t total = static_cast<hsize_t>(s.ops) * P * words, piece = static_cast<hsize_t>(words);
        h.fspace = BENCH_H5(H5Screate_simple(1, &total, nullptr));
        h.dcpl = BENCH_H5(H5Pcreate(H5P_DATASET_CREATE));
        BENCH_H5(H5Pset_alloc_time(h.dcpl, H5D_ALLOC_TIME_EARLY));
        BENCH_H5(H5Pset_fill_time(h.dcpl, H5D_FILL_TIME_NEVER));
        h.dset = BENCH_H5(
            H5Dcreate2(h.file, "ops", H5T_NATIVE_UINT64, h.fspace, H5P_DEFAULT, h.dcpl, H5P_DEFAULT));
        h.mspace = BENCH_H5(H5Screate_simple(1, &piece, nullptr));
        h.dxpl = BENCH_H5(H5Pcreate(H5P_DATASET_XFER));
        BENCH_H5(H5Pset_dxpl_mpio(h.dxpl, s.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
        for (int i = 0; i < s.ops; ++i) {
            const hsize_t start = (static_cast<hsize_t>(i) * P + R) * words;
            h.sels.push_back(BENCH_H5(H5Scopy(h.fspace)));
            BENCH_H5(H5Sselect_hyperslab(h.sels.back(), H5S_SELECT_SET, &start, nullptr, &piece, nullptr));
        }
        time_calls(
            s.ops,
            [&](int i) {
                BENCH_H5(H5Dwrite(h.dset, H5T_NATIVE_UINT64, h.mspace, h.sels[static_cast<size_t>(i)], h.dxpl,
                                  &values[static_cast<size_t>(i) * words]));
            },
            [&](int i) {
                BENCH_H5(H5Dread(h.dset, H5T_NATIVE_UINT64, h.mspace, h.sels[static_cast<size_t>(i)], h.dxpl,
                                 &got[static_cast<size_t>(i) * words]));
            },
            out);
    }
    out.wrong = sum_over_ranks(count_wrong(values, got));
    remove_file(path);
    return out;
}

OpLoopTimes run_raw_op_loop(const std::string &path, const OpLoopSpec &s) {
    const int words = s.bytes / 8, P = nranks(), R = rank();
    const std::vector<uint64_t> values = make_values(s);
    std::vector<uint64_t> got(values.size(), 0);
    auto offset = [&](int i) { return static_cast<MPI_Offset>((static_cast<int64_t>(i) * P + R) * s.bytes); };
    OpLoopTimes out;
    MPI_File fh = MPI_FILE_NULL;
    BENCH_MPI(
        MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Status st;
    const auto write = s.collective ? MPI_File_write_at_all : MPI_File_write_at;
    const auto read = s.collective ? MPI_File_read_at_all : MPI_File_read_at;
    time_calls(
        s.ops,
        [&](int i) {
            BENCH_MPI(
                write(fh, offset(i), &values[static_cast<size_t>(i) * words], words, MPI_UINT64_T, &st));
        },
        [&](int i) {
            BENCH_MPI(read(fh, offset(i), &got[static_cast<size_t>(i) * words], words, MPI_UINT64_T, &st));
        },
        out);
    BENCH_MPI(MPI_File_close(&fh));
    out.wrong = sum_over_ranks(count_wrong(values, got));
    remove_file(path);
    return out;
}

struct OverheadOptions {
    OpLoopSpec spec{.ops = 0, .bytes = 8, .config = {}}; // ops 0: calibrate (--ops auto)
    int reps = 7, warmup = 1;
    int confirm_reps = -1; // -1: 2 x reps
    std::vector<Driver> drivers = {Driver::Mpio, Driver::Mpiio, Driver::Raw, Driver::Mpio2};
    std::string dir = "/dev/shm", out = "overhead-results", label;
};

const char *kUsage =
    "usage: mpirun -n <ranks> h5bench_vfd_overhead [options]\n"
    "\n"
    "Per-operation overhead: --ops tiny H5Dwrite (then H5Dread) calls of --bytes bytes per rank on a\n"
    "contiguous dataset, collective then independent, through the built-in mpio driver, the mpiio\n"
    "plugin and the built-in driver again (mpio2, the A/A control), and raw MPI_File_write_at_all /\n"
    "read_at_all (independent: write_at / read_at) loops for reference; then 200 H5Fopen + H5Fclose\n"
    "pairs of a small file (raw: MPI_File_open + close). Microseconds per call or pair (slowest rank),\n"
    "median and range over alternating repetitions, and each row's parity test of mpiio/mpio against\n"
    "mpio2/mpio. Every value read back is checked.\n"
    "\n"
    "  --ops N|auto      timed calls per loop (default auto: as many as take about 0.5 s through\n"
    "                    the first driver, 500-5000, measured once before the repetitions)\n"
    "  --bytes B         bytes per rank per call, a multiple of 8 (default 8)\n"
    "  --reps N          counted repetitions per driver (default 7)\n"
    "  --warmup N        discarded repetitions (default 1)\n"
    "  --confirm-reps N  repetitions of the rerun of the rows the parity test flags (default 2 x\n"
    "                    --reps; 0: no reruns, the first verdict stands)\n"
    "  --drivers LIST    subset of mpio,mpiio,raw,mpio2 (default all four; verdicts need mpio,\n"
    "                    mpiio and mpio2)\n"
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
    static const option longopts[] = {{"ops", required_argument, nullptr, 'o'},
                                      {"bytes", required_argument, nullptr, 'b'},
                                      {"reps", required_argument, nullptr, 'r'},
                                      {"warmup", required_argument, nullptr, 'w'},
                                      {"confirm-reps", required_argument, nullptr, 'C'},
                                      {"drivers", required_argument, nullptr, 'd'},
                                      {"dir", required_argument, nullptr, 'D'},
                                      {"out", required_argument, nullptr, 'O'},
                                      {"plugin-config", required_argument, nullptr, 'c'},
                                      {"label", required_argument, nullptr, 'l'},
                                      {"help", no_argument, nullptr, 'h'},
                                      {nullptr, 0, nullptr, 0}};
    opterr = 0;
    for (int c; (c = getopt_long(argc, argv, "h", longopts, nullptr)) != -1;) {
        if (c == 'o' && std::string(optarg) == "auto")
            o.spec.ops = 0;
        else if (c == 'o' && !parse_int(optarg, o.spec.ops, 1))
            return fail("--ops needs an integer >= 1 or auto");
        else if (c == 'b' && (!parse_int(optarg, o.spec.bytes, 8) || o.spec.bytes % 8 != 0))
            return fail("--bytes needs a multiple of 8");
        else if (c == 'r' && !parse_int(optarg, o.reps, 1))
            return fail("--reps needs an integer >= 1");
        else if (c == 'w' && !parse_int(optarg, o.warmup, 0))
            return fail("--warmup needs an integer >= 0");
        else if (c == 'C' && !parse_int(optarg, o.confirm_reps, 0))
            return fail("--confirm-reps needs an integer >= 0");
        else if (c == 'd' && (!parse_drivers(optarg, o.drivers) || has_driver(o.drivers, Driver::Subfiling) ||
                              has_driver(o.drivers, Driver::Fpp)))
            // (subfiling and fpp are h5bench_vfd's only: subfiling needs MPI_THREAD_MULTIPLE from the
            // start, and a file per process has no HDF5 operations to time)
            return fail(std::string("--drivers: not a list of mpio,mpiio,raw,mpio2: ") + optarg);
        else if (c == 'D')
            o.dir = optarg;
        else if (c == 'O')
            o.out = optarg;
        else if (c == 'c')
            o.spec.config = optarg;
        else if (c == 'l')
            o.label = optarg;
        else if (c == 'h' || c == '?') {
            if (c == '?')
                return fail(std::string("unknown option or missing value: ") + argv[optind - 1]);
            if (rank() == 0)
                std::printf("%s", kUsage);
            exit_code = 0;
            return false;
        }
    }
    return optind == argc || fail(std::string("unexpected argument ") + argv[optind]);
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
    uint64_t wrong[kNumDrivers] = {};
    bool rerun[kRows] = {}; // the row's samples come from the rerun of a flagged row
};

// Collective. Warm-up + `reps` counted rounds, the drivers' order rotating each round; every driver
// runs its collective loops, then its independent ones, then its open + close cycles.
Samples measure(const OverheadOptions &o, const std::string &work, int reps) {
    Samples s;
    const size_t nd = o.drivers.size();
    for (int round = 0; round < o.warmup + reps; ++round) {
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

int confirm_reps(const OverheadOptions &o) { return o.confirm_reps < 0 ? 2 * o.reps : o.confirm_reps; }

std::string rerun_note(const OverheadOptions &o) {
    return confirm_reps(o) > 0 ? "a flagged row is measured again with " + std::to_string(confirm_reps(o)) +
                                     " repetitions and reports that rerun, marked (rerun)"
                               : "no reruns: a first verdict stands";
}

std::string us_cell(const Spread &s) {
    return s.n ? fmt("%.1f", s.median) + " (" + fmt("%.1f", s.min) + "-" + fmt("%.1f", s.max) + ")" : "-";
}

// Per round mpio_us / other_us: `other`'s call rate relative to the built-in driver's (mpiio: the
// plugin's; mpio2: the A/A control's).
std::vector<double> rate_ratios(const Samples &s, int row, Driver other) {
    const std::vector<double> &a = s.us[row][static_cast<size_t>(Driver::Mpio)];
    const std::vector<double> &b = s.us[row][static_cast<size_t>(other)];
    std::vector<double> r;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i)
        if (a[i] > 0 && b[i] > 0)
            r.push_back(a[i] / b[i]);
    return r;
}

// A row's parity verdict: the call-rate ratios mpiio/mpio against mpio2/mpio (stats.hpp).
// Without an A/A control: p = 1, "~" (rate_ratios is empty).
Parity row_parity(const Samples &s, int row) {
    return parity_of_ratios(rate_ratios(s, row, Driver::Mpiio), rate_ratios(s, row, Driver::Mpio2));
}

bool has_control(const Samples &s) { return !rate_ratios(s, kOpenCloseRow, Driver::Mpio2).empty(); }

std::string ratio_cell(const Spread &q) {
    return q.n ? ratio_str(q.median) + " (" + ratio_str(q.min) + "-" + ratio_str(q.max) + ")" : "-";
}

std::string verdict_cell(const Samples &s, int row) {
    if (!has_control(s))
        return "-";
    const Parity v = row_parity(s, row);
    return v.verdict + " (" + fmt("%.3g", v.p) + ")" + (s.rerun[row] ? " (rerun)" : "");
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
        "plugin is faster); **A/A**: the same for mpio2, the built-in driver again. **parity**: the exact "
        "two-sided Mann-Whitney test of the mpiio/mpio ratios against the mpio2/mpio ones (alpha 0.05): "
        "below / above = measurably slower / faster than the built-in driver against itself, ~ = not "
        "distinguishable; %s. Measured %s; load average %s at start, %s at end.%s%s\n\n",
        layer_title(info).c_str(), short_library_name(info.mpi_library).c_str(), info.io_component.c_str(),
        info.hdf5_version.c_str(), info.ranks, sysconf(_SC_NPROCESSORS_ONLN), o.dir.c_str(), o.spec.ops,
        o.spec.bytes, kOpenCloseCycles, o.warmup, o.reps, rerun_note(o).c_str(), info.started.c_str(),
        info.load_start.c_str(), info.load_end.c_str(), o.label.empty() ? "" : " ", o.label.c_str());
    std::fprintf(f, "| operation | mpio µs/call | mpiio µs/call | mpiio - mpio µs | **mpiio/mpio** | A/A | "
                    "parity (p) | raw MPI-IO µs/call |\n|---|--:|--:|--:|--:|--:|---|--:|\n");
    int below = 0;
    for (int row = 0; row < kRows; ++row) {
        const Spread m = spread(s.us[row][0]), p = spread(s.us[row][1]), r = spread(s.us[row][2]);
        const Spread q = spread(rate_ratios(s, row, Driver::Mpiio));
        below += has_control(s) && row_parity(s, row).verdict == "below" ? 1 : 0;
        std::fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", kRowNames[row], us_cell(m).c_str(),
                     us_cell(p).c_str(), m.n && p.n ? fmt("%+.1f", p.median - m.median).c_str() : "-",
                     q.n ? ("**" + ratio_cell(q) + "**").c_str() : "-",
                     ratio_cell(spread(rate_ratios(s, row, Driver::Mpio2))).c_str(),
                     verdict_cell(s, row).c_str(), us_cell(r).c_str());
    }
    if (has_control(s))
        std::fprintf(f, "\nRows measurably below the A/A control: %d of %d.\n", below, kRows);
}

// One line per row: the reported ratios, the A/A control's, and the verdict (scripts/bench_summary.sh
// marks the README's overhead table from it).
void write_parity_csv(FILE *f, const Samples &s) {
    std::fprintf(f,
                 "mode,operation,ratio_median,ratio_min,ratio_max,aa_median,aa_min,aa_max,p,verdict,rerun\n");
    for (int row = 0; row < kRows; ++row) {
        const Spread q = spread(rate_ratios(s, row, Driver::Mpiio)),
                     a = spread(rate_ratios(s, row, Driver::Mpio2));
        const Parity v = row_parity(s, row);
        std::fprintf(f, "%s,%s,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.4g,%s,%d\n", kRowCsv[row][0], kRowCsv[row][1],
                     q.median, q.min, q.max, a.median, a.min, a.max, v.p, v.verdict.c_str(),
                     s.rerun[row] ? 1 : 0);
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
    if (has_control(s))
        write_file(o.out, "overhead-parity.csv", [&](FILE *f) { write_parity_csv(f, s); });
    else // no verdicts: none of an earlier run into this directory may stand beside these numbers
        std::remove((o.out + "/overhead-parity.csv").c_str());
}

// Collective. The rows whose first verdict differs from the A/A control are measured again
// (every driver, --confirm-reps rounds) and report that rerun; the others keep their first
// samples. Every rank decides alike: the times are maxima over ranks.
Samples confirm_flagged(const OverheadOptions &o, const std::string &work, Samples first) {
    if (!has_control(first) || confirm_reps(o) == 0)
        return first;
    std::vector<int> flagged;
    for (int row = 0; row < kRows; ++row)
        if (row_parity(first, row).verdict != "~")
            flagged.push_back(row);
    if (flagged.empty())
        return first;
    if (rank() == 0)
        std::fprintf(stderr,
                     "[overhead] %zu row(s) differ from the A/A control: %d more repetitions decide\n",
                     flagged.size(), confirm_reps(o));
    const Samples again = measure(o, work, confirm_reps(o));
    for (int row : flagged) {
        for (int d = 0; d < kNumDrivers; ++d)
            first.us[row][d] = again.us[row][d];
        first.rerun[row] = true;
    }
    for (int d = 0; d < kNumDrivers; ++d)
        first.wrong[d] += again.wrong[d];
    return first;
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
    const Samples s = confirm_flagged(o, work, measure(o, work, o.reps));
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
