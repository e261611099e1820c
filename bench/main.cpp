// h5bench_vfd: runs every case of the matrix through the built-in mpio driver, the mpiio plugin
// and raw MPI-IO, alternating the drivers round by round in one launch, and reports.
//
// Per case: build the pattern, fill the buffers (untimed), then warm-up + counted rounds; in
// each round every driver writes the whole file and reads it back (the order of the drivers
// rotates from round to round), the read is verified against the written buffers, and the file
// is deleted. The files of the first round are kept until the file check (mpio vs mpiio vs
// expected contents, raw vs expected) has run.
#include "buffers.hpp"
#include "kernel.hpp"
#include "options.hpp"
#include "results.hpp"
#include "verify.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

using namespace bench;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string timestamp() {
    std::time_t t = std::time(nullptr);
    char b[64];
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&t));
    return b;
}

bool mkdirs(const std::string &path) {
    std::string cur;
    for (size_t i = 0; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/') {
            if (!cur.empty() && mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
                return false;
        }
        if (i < path.size())
            cur += path[i];
    }
    return true;
}

std::string bcast_string(std::string s) {
    int n = static_cast<int>(s.size());
    BENCH_MPI(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD));
    s.resize(static_cast<size_t>(n));
    BENCH_MPI(MPI_Bcast(s.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD));
    return s;
}

void remove_file(const std::string &path) {
    if (rank() == 0)
        std::remove(path.c_str());
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

std::string case_file(const std::string &dir, const std::string &id, Driver d) {
    std::string name = id;
    std::replace(name.begin(), name.end(), '/', '.');
    return dir + "/" + name + "." + driver_name(d) + (d == Driver::Raw ? ".raw" : ".h5");
}

// Verifies that the plugin can be selected at all, with a clear message when it cannot.
void check_plugin_loads(const std::string &config) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    herr_t rc = 0;
    H5E_BEGIN_TRY {
        rc =
            H5Pset_fapl_mpiio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL, config.empty() ? nullptr : config.c_str());
    }
    H5E_END_TRY
    H5Pclose(fapl);
    if (rc < 0) {
        const char *pp = std::getenv("HDF5_PLUGIN_PATH");
        fatal(std::string("cannot select the mpiio driver (H5Pset_fapl_mpiio failed); HDF5_PLUGIN_PATH=") +
              (pp ? pp : "(unset)") + " must contain libh5fd_mpiio.so");
    }
}

std::string loadavg() {
    FILE *f = std::fopen("/proc/loadavg", "r");
    if (f == nullptr)
        return "";
    double a = 0, b = 0, c = 0;
    const int n = std::fscanf(f, "%lf %lf %lf", &a, &b, &c);
    std::fclose(f);
    if (n != 3)
        return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
    return buf;
}

RunInfo run_info(const Options &opt) {
    RunInfo info;
    info.load_start = loadavg();
    info.started = timestamp();
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    info.host = host;
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int len = 0;
    MPI_Get_library_version(lib, &len);
    info.mpi_library = std::string(lib, strnlen(lib, sizeof lib));
    if (size_t nl = info.mpi_library.find('\n'); nl != std::string::npos)
        info.mpi_library.resize(nl);
    while (!info.mpi_library.empty() && (info.mpi_library.back() == ',' || info.mpi_library.back() == ' '))
        info.mpi_library.pop_back();
    const char *io = std::getenv("OMPI_MCA_io");
    info.io_component = io ? io : "default (ompio)";
    if (const char *fc = std::getenv("OMPI_MCA_fcoll"))
        info.io_component += std::string(", fcoll=") + fc;
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    info.hdf5_version = std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
    const char *pp = std::getenv("HDF5_PLUGIN_PATH");
    info.plugin_path = pp ? pp : "";
    info.plugin_config = opt.plugin_config;
    info.size = size_name(opt.size);
    info.dir = opt.dir;
    info.label = opt.label;
    info.ranks = nranks();
    info.timesteps = opt.timesteps;
    info.reps = opt.reps;
    info.warmup = opt.warmup;
    return info;
}

// A command line that reruns one case with one driver (printed with failures).
std::string repro(const Options &opt, const std::string &id, const char *driver) {
    std::string io;
    if (const char *v = std::getenv("OMPI_MCA_io"))
        io = std::string(" --mca io ") + v;
    const char *pp = std::getenv("HDF5_PLUGIN_PATH");
    return "HDF5_PLUGIN_PATH=" + std::string(pp ? pp : "<plugin dir>") + " mpirun -n " +
           std::to_string(nranks()) + " --oversubscribe --bind-to none" + io + " h5bench_vfd --patterns " +
           id + " --drivers " + driver + " --size " + size_name(opt.size) + " --timesteps " +
           std::to_string(opt.timesteps) + " --reps 1 --warmup 0 --dir " + opt.dir +
           (opt.plugin_config.empty() ? "" : " --plugin-config '" + opt.plugin_config + "'");
}

std::string ms(double s) {
    char b[32];
    if (s >= 1)
        std::snprintf(b, sizeof b, "%.2fs", s);
    else
        std::snprintf(b, sizeof b, "%.1fms", s * 1e3);
    return b;
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    const bool root = rank() == 0;
    Options opt;
    int exit_code = 0;
    if (!parse_options(argc, argv, opt, exit_code)) {
        MPI_Finalize();
        return exit_code;
    }
    const auto t_start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
    };
    set_context("startup");
    RunInfo info = run_info(opt);
    const bool want_mpiio =
        std::find(opt.drivers.begin(), opt.drivers.end(), Driver::Mpiio) != opt.drivers.end();
    if (want_mpiio)
        check_plugin_loads(opt.plugin_config);

    // Working directory for the data files (unique per launch) and the output directory.
    std::string work;
    int ok = 1;
    if (root) {
        work = opt.dir + "/h5bench_vfd." + std::to_string(getpid());
        if (!mkdirs(work)) {
            std::fprintf(stderr, "h5bench_vfd: cannot create %s: %s\n", work.c_str(), std::strerror(errno));
            ok = 0;
        }
        if (!mkdirs(opt.out)) {
            std::fprintf(stderr, "h5bench_vfd: cannot create %s: %s\n", opt.out.c_str(),
                         std::strerror(errno));
            ok = 0;
        }
    }
    BENCH_MPI(MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (!ok) {
        MPI_Finalize();
        return 2;
    }
    work = bcast_string(work);

    if (root) {
        std::fprintf(stderr,
                     "h5bench_vfd: %zu cases x %zu drivers x (%d warm-up + %d reps), %d ranks, size %s, "
                     "%d time steps, io=%s, files in %s\n",
                     opt.cases.size(), opt.drivers.size(), opt.warmup, opt.reps, nranks(),
                     size_name(opt.size), opt.timesteps, info.io_component.c_str(), work.c_str());
    }

    std::vector<CaseResult> results;
    const int rounds = opt.warmup + opt.reps;
    for (size_t ci = 0; ci < opt.cases.size(); ++ci) {
        const double case_t0 = elapsed();
        const CaseSel &sel = opt.cases[ci];
        set_context(sel.pattern + "/" + sel.mode.name() + " setup");
        const CaseSpec c = build_case(sel.pattern, sel.mode, opt.size, opt.timesteps, rank(), nranks());
        CaseResult res;
        res.id = c.id;
        res.pattern = c.pattern;
        res.mode = c.mode.name();
        res.what = c.what;
        res.raw_note = c.raw_note;
        res.datasets = static_cast<int>(c.dsets.size());
        res.accesses = static_cast<int>(c.accesses.size());
        double mine = static_cast<double>(c.bytes_per_step()) * c.timesteps, all = 0;
        BENCH_MPI(MPI_Allreduce(&mine, &all, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        res.bytes = all;

        Buffers wbuf = make_write_buffers(c);
        Buffers rbuf = make_read_buffers(c);
        H5Kernel h5(c, opt.plugin_config);
        RawKernel raw(c);
        std::string kept[kNumDrivers];

        char tag[96];
        std::snprintf(tag, sizeof tag, "[%2zu/%zu %-17s]", ci + 1, opt.cases.size(), c.id.c_str());
        for (int round = 0; round < rounds; ++round) {
            const bool warm = round < opt.warmup;
            std::string line;
            const size_t nd = opt.drivers.size();
            for (size_t k = 0; k < nd; ++k) {
                const Driver d = opt.drivers[(k + static_cast<size_t>(round)) % nd]; // rotate the order
                DriverResult &dr = res.drv[static_cast<size_t>(d)];
                dr.ran = true;
                const std::string path = case_file(work, c.id, d);
                set_context(c.id + " " + driver_name(d) + (warm ? " warm-up" : " rep ") +
                                (warm ? "" : std::to_string(round - opt.warmup + 1)),
                            repro(opt, c.id, driver_name(d)));
                poison(rbuf);
                PhaseTimes w, r;
                uint64_t attr_bad = 0;
                if (d == Driver::Raw) {
                    w = raw.write(path, wbuf);
                    r = raw.read(path, rbuf);
                } else {
                    const bool probe = round == 0;
                    w = h5.write(d, path, wbuf, probe ? &dr.wprobe : nullptr, &dr.stats);
                    r = h5.read(d, path, rbuf, probe ? &dr.rprobe : nullptr, &dr.stats);
                    attr_bad = h5.attr_mismatches();
                }
                // Read-back verification (untimed).
                Mismatch mm = compare_buffers(c, wbuf, rbuf);
                uint64_t bad[2] = {mm.count, attr_bad}, bad_all[2] = {0, 0};
                BENCH_MPI(MPI_Allreduce(bad, bad_all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
                if (mm.count > 0 || attr_bad > 0) {
                    std::fprintf(stderr, "[rank %d] VERIFY FAILED %s %s %s: %llu bytes differ; first: %s%s\n",
                                 rank(), c.id.c_str(), driver_name(d), warm ? "warm-up" : "rep",
                                 (unsigned long long)mm.count, mm.first.c_str(),
                                 attr_bad
                                     ? (", " + std::to_string(attr_bad) + " attribute values wrong").c_str()
                                     : "");
                }
                if (bad_all[0] + bad_all[1] > 0) {
                    const std::string msg =
                        std::string(driver_name(d)) + ": read-back verification failed in " +
                        (warm ? "warm-up" : "rep " + std::to_string(round - opt.warmup + 1)) + " (" +
                        std::to_string(bad_all[0]) + " bytes, " + std::to_string(bad_all[1]) +
                        " attribute values wrong over all ranks)";
                    if (dr.failures.empty()) {
                        res.failures.push_back(msg);
                        res.failures.push_back("reproduce: " + repro(opt, c.id, driver_name(d)));
                    }
                    dr.failures.push_back(msg);
                }
                if (!warm) {
                    dr.wsec.push_back(w.seconds);
                    dr.rsec.push_back(r.seconds);
                    dr.wdata.push_back(w.data_seconds);
                    dr.rdata.push_back(r.data_seconds);
                }
                if (round == 0)
                    kept[static_cast<size_t>(d)] = path;
                else
                    remove_file(path);
                char part[128];
                std::snprintf(part, sizeof part, "%s%s W %s R %s%s", k ? " | " : "", driver_name(d),
                              ms(w.seconds).c_str(), ms(r.seconds).c_str(),
                              bad_all[0] + bad_all[1] ? " VERIFY-FAILED" : "");
                line += part;
            }
            if (round == 0) {
                // File-level check on the first round's files, then delete them.
                set_context(c.id + " file check");
                bool failed = false;
                res.check = check_files(c, kept[0], kept[1], kept[2], &raw, failed);
                if (root && failed) {
                    for (const std::string &p : res.check.problems)
                        res.failures.push_back("file check: " + p);
                    res.failures.push_back("reproduce: " + repro(opt, c.id, "mpio,mpiio,raw") +
                                           " --keep-files");
                }
                if (failed && root)
                    for (const std::string &p : res.check.problems)
                        std::fprintf(stderr, "FILE CHECK FAILED %s: %s\n", c.id.c_str(), p.c_str());
                if (!opt.keep_files)
                    for (const std::string &p : kept)
                        if (!p.empty())
                            remove_file(p);
                if (failed)
                    line += " | file check FAILED";
                else
                    line += " | files ok" + std::string(res.check.identical ? " (identical)" : "");
            }
            if (root)
                std::fprintf(
                    stderr, "%s %s %s\n", tag,
                    warm ? "warm-up "
                         : ("rep " + std::to_string(round - opt.warmup + 1) + "/" + std::to_string(opt.reps))
                               .c_str(),
                    line.c_str());
        }
        for (DriverResult &dr : res.drv) {
            dr.w = summarize(dr.wsec, dr.wdata, res.bytes);
            dr.r = summarize(dr.rsec, dr.rdata, res.bytes);
        }
        res.elapsed_s = elapsed() - case_t0;
        // Failures seen on rank 0 only (file check) are broadcast so every rank agrees.
        int failed = res.failed() ? 1 : 0;
        BENCH_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
        if (root) {
            auto r1 = [&](char p) {
                const double x = res.ratio(Driver::Mpiio, Driver::Mpio, p);
                return x > 0 ? std::to_string(x).substr(0, 4) : std::string("-");
            };
            std::fprintf(
                stderr, "%s done in %.1fs: %.2f MiB/phase, mpiio/mpio write %s read %s%s   [%.0fs elapsed]\n",
                tag, res.elapsed_s, res.bytes / kMiB, r1('w').c_str(), r1('r').c_str(),
                res.failed() ? "  ** FAILED **" : "", elapsed());
        }
        results.push_back(std::move(res));
        if (failed && opt.stop_on_failure)
            break;
    }
    if (root)
        rmdir(work.c_str());

    info.total_s = elapsed();
    info.load_end = loadavg();
    int failed_cases = 0;
    for (const CaseResult &r : results)
        failed_cases += r.failed() ? 1 : 0;
    if (root) {
        print_table(stdout, info, results);
        write_outputs(opt.out, info, results);
        std::printf("Results: %s/{table.txt,table.md,results.csv,runs.csv,results.json,chart.svg}\n",
                    opt.out.c_str());
        if (failed_cases > 0)
            std::fprintf(stderr, "\n*** h5bench_vfd: %d case(s) FAILED verification; see CHECKS above ***\n",
                         failed_cases);
        std::fflush(stdout);
    }
    BENCH_MPI(MPI_Bcast(&failed_cases, 1, MPI_INT, 0, MPI_COMM_WORLD));
    MPI_Finalize();
    return failed_cases > 0 ? 1 : 0;
}
