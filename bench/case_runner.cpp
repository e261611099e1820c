#include "case_runner.hpp"

#include "buffers.hpp"
#include "environment.hpp"
#include "kernel.hpp"
#include "verify.hpp"
#include "workdir.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace bench {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

std::string seconds_str(double s) {
    char b[32];
    if (s >= 1)
        std::snprintf(b, sizeof b, "%.2fs", s);
    else
        std::snprintf(b, sizeof b, "%.1fms", s * 1e3);
    return b;
}

// Everything a case needs while its rounds run (built once, untimed).
struct CaseRun {
    const Options &opt;
    const CaseSpec c;
    Buffers wbuf, rbuf;
    H5Kernel h5;
    RawKernel raw;
    std::string work;
    CaseRun(const Options &o, const CaseSel &sel, const std::string &w, int timesteps)
        : opt(o), c(build_case(sel.pattern, sel.mode, o.size, timesteps, rank(), nranks())),
          wbuf(make_write_buffers(c)), rbuf(make_read_buffers(c)), h5(c, o.plugin_config), raw(c), work(w) {}
};

CaseResult describe(const CaseSpec &c) {
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
    res.timesteps = c.timesteps;
    return res;
}

std::string round_name(const Options &opt, int round) {
    return round < opt.warmup ? "warm-up" : "rep " + std::to_string(round - opt.warmup + 1);
}

// Collective. Compares what the driver read back with what was written (and, for HDF5, the
// attributes); records a failure with a reproducer. Returns the number of wrong bytes + values
// over all ranks.
uint64_t verify_read_back(CaseRun &run, CaseResult &res, DriverResult &dr, Driver d, int round,
                          uint64_t attr_bad) {
    const Mismatch mm = compare_buffers(run.c, run.wbuf, run.rbuf);
    uint64_t bad[2] = {mm.count, attr_bad}, bad_all[2] = {0, 0};
    BENCH_MPI(MPI_Allreduce(bad, bad_all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (mm.count > 0 || attr_bad > 0)
        std::fprintf(stderr, "[rank %d] VERIFY FAILED %s %s %s: %llu bytes differ; first: %s%s\n", rank(),
                     run.c.id.c_str(), driver_name(d), round_name(run.opt, round).c_str(),
                     (unsigned long long)mm.count, mm.first.c_str(),
                     attr_bad ? (", " + std::to_string(attr_bad) + " attribute values wrong").c_str() : "");
    if (bad_all[0] + bad_all[1] == 0)
        return 0;
    const std::string msg = std::string(driver_name(d)) + ": read-back verification failed in " +
                            round_name(run.opt, round) + " (" + std::to_string(bad_all[0]) + " bytes, " +
                            std::to_string(bad_all[1]) + " attribute values wrong over all ranks)";
    if (dr.failures.empty()) {
        res.failures.push_back(msg);
        res.failures.push_back("reproduce: " +
                               repro_command(run.opt, run.c.id, driver_name(d), run.c.timesteps));
    }
    dr.failures.push_back(msg);
    return bad_all[0] + bad_all[1];
}

// Collective. Driver `d` writes the whole file at `path`, then reads it back; HDF5 drivers fill
// the probes and statistics given (null: not asked).
void write_then_read(CaseRun &run, Driver d, const std::string &path, PhaseTimes &w, PhaseTimes &r,
                     Probe *wprobe = nullptr, Probe *rprobe = nullptr, DriverStats *stats = nullptr) {
    if (d == Driver::Raw) {
        w = run.raw.write(path, run.wbuf);
        r = run.raw.read(path, run.rbuf);
    } else {
        w = run.h5.write(d, path, run.wbuf, wprobe, stats);
        r = run.h5.read(d, path, run.rbuf, rprobe, stats);
    }
}

// Collective. The file-level check of one driver's first-round file (verify.hpp), made before the
// file is deleted; a problem fails the case with a command that reproduces it.
void check_first_round_file(CaseRun &run, CaseResult &res, Driver d, const std::string &path) {
    set_context(run.c.id + " " + driver_name(d) + " file check");
    const size_t before = res.check.problems.size();
    bool failed = false;
    check_file(res.check, run.c, d, path, run.raw, failed);
    if (rank() != 0 || !failed)
        return;
    for (size_t i = before; i < res.check.problems.size(); ++i) {
        res.failures.push_back("file check: " + res.check.problems[i]);
        std::fprintf(stderr, "FILE CHECK FAILED %s: %s\n", run.c.id.c_str(), res.check.problems[i].c_str());
    }
    if (before == 0)
        res.failures.push_back(
            "reproduce: " + repro_command(run.opt, run.c.id, "mpio,mpiio,raw", run.c.timesteps) +
            " --keep-files");
}

// Rank 0, after the first round: whether the two HDF5 files were byte-identical; the progress-line
// part.
std::string finish_file_check(FileCheck &fc) {
    compare_hdf5_files(fc);
    if (!fc.problems.empty())
        return "file check FAILED";
    return "files ok" + std::string(fc.identical ? " (identical)" : "");
}

// Collective. One driver writes and reads the whole file once; returns the progress-line part.
std::string run_driver(CaseRun &run, CaseResult &res, Driver d, int round) {
    DriverResult &dr = res.drv[static_cast<size_t>(d)];
    dr.ran = true;
    const bool warm = round < run.opt.warmup;
    const std::string path = case_file(run.work, run.c.id, d);
    set_context(run.c.id + " " + driver_name(d) + " " + round_name(run.opt, round),
                repro_command(run.opt, run.c.id, driver_name(d), run.c.timesteps));
    poison(run.rbuf);
    PhaseTimes w, r;
    const bool probe = round == 0; // how HDF5 did the I/O, asked once
    write_then_read(run, d, path, w, r, probe ? &dr.wprobe : nullptr, probe ? &dr.rprobe : nullptr,
                    &dr.stats);
    const uint64_t attr_bad = d == Driver::Raw ? 0 : run.h5.attr_mismatches();
    const uint64_t bad = verify_read_back(run, res, dr, d, round, attr_bad); // untimed
    if (!warm) {
        dr.wsec.push_back(w.seconds);
        dr.rsec.push_back(r.seconds);
        dr.wdata.push_back(w.data_seconds);
        dr.rdata.push_back(r.data_seconds);
    }
    const bool checked = round == 0 && d != Driver::Mpio2;
    if (checked)
        check_first_round_file(run, res, d, path); // untimed
    if (checked && run.opt.keep_files)
        set_aside(path);
    else
        remove_file(path); // no file outlives its run: see verify.hpp
    return std::string(driver_name(d)) + " W " + seconds_str(w.seconds) + " R " + seconds_str(r.seconds) +
           (bad ? " VERIFY-FAILED" : "");
}

// Collective. --min-phase: two untimed write + read runs of the case at --timesteps through the
// reference driver (the built-in one when it runs), and the time steps that make its shorter phase
// last about opt.min_phase_s, within kMaxStepFactor x --timesteps and kMaxPhaseBytes per phase.
// The slower run counts (the second runs only when the first was short): OMPIO's collective
// phases are sometimes 10x shorter than usual, and a case scaled on such a run takes minutes.
// Every rank gets rank 0's answer.
int calibrated_timesteps(CaseRun &run, const CaseResult &res) {
    const Options &opt = run.opt;
    const Driver d = std::find(opt.drivers.begin(), opt.drivers.end(), Driver::Mpio) != opt.drivers.end()
                         ? Driver::Mpio
                         : opt.drivers.front();
    const std::string path = case_file(run.work, run.c.id, d) + ".calibration";
    set_context(run.c.id + " " + driver_name(d) + " calibration",
                repro_command(opt, run.c.id, driver_name(d), opt.timesteps));
    double shorter = 0;
    for (int attempt = 0; attempt < 2 && shorter < opt.min_phase_s; ++attempt) { // long enough: done
        PhaseTimes w, r;
        write_then_read(run, d, path, w, r);
        remove_file(path);
        shorter = std::max(shorter, std::min(w.seconds, r.seconds));
    }
    shorter = std::max(shorter, 1e-6);
    const double per_step_bytes = res.bytes / opt.timesteps;
    double steps = std::ceil(opt.timesteps * opt.min_phase_s / shorter);
    steps = std::min(steps, static_cast<double>(opt.timesteps) * kMaxStepFactor);
    if (per_step_bytes > 0)
        steps = std::min(steps, std::floor(kMaxPhaseBytes / per_step_bytes));
    int chosen = std::max(opt.timesteps, static_cast<int>(steps));
    BENCH_MPI(MPI_Bcast(&chosen, 1, MPI_INT, 0, MPI_COMM_WORLD)); // rank 0's rounding decides
    return chosen;
}

} // namespace

CaseResult run_case(const Options &opt, const CaseSel &sel, const std::string &work, const std::string &tag) {
    const double t0 = MPI_Wtime();
    set_context(sel.pattern + "/" + sel.mode.name() + " setup");
    std::optional<CaseRun> calibrating;
    int timesteps = opt.timesteps;
    if (opt.min_phase_s > 0) {
        calibrating.emplace(opt, sel, work, opt.timesteps);
        timesteps = calibrated_timesteps(*calibrating, describe(calibrating->c));
        calibrating.reset(); // its buffers go before the larger case's are made
    }
    CaseRun run(opt, sel, work, timesteps);
    CaseResult res = describe(run.c);
    const size_t nd = opt.drivers.size();
    for (int round = 0; round < opt.warmup + opt.reps; ++round) {
        std::string line;
        for (size_t k = 0; k < nd; ++k) {
            const Driver d = opt.drivers[(k + static_cast<size_t>(round)) % nd]; // rotate the order
            line += (k ? " | " : "") + run_driver(run, res, d, round);
        }
        if (rank() == 0) {
            const std::string which = round < opt.warmup ? "warm-up"
                                                         : "rep " + std::to_string(round - opt.warmup + 1) +
                                                               "/" + std::to_string(opt.reps);
            std::fprintf(stderr, "%s %s %s\n", tag.c_str(), which.c_str(), line.c_str());
            if (round == 0)
                std::fprintf(stderr, "%s first round's %s\n", tag.c_str(),
                             finish_file_check(res.check).c_str());
        }
    }
    for (DriverResult &dr : res.drv) {
        dr.w = summarize(dr.wsec, dr.wdata, res.bytes);
        dr.r = summarize(dr.rsec, dr.rdata, res.bytes);
    }
    res.elapsed_s = MPI_Wtime() - t0;
    if (rank() == 0) {
        auto r2 = [&](char p) {
            const RatioSpread x = res.paired_ratio(Driver::Mpiio, Driver::Mpio, p);
            char b[64];
            if (x.n == 0)
                return std::string("-");
            std::snprintf(b, sizeof b, "%.2f (%.2f-%.2f)", x.median, x.min, x.max);
            return std::string(b);
        };
        std::fprintf(stderr,
                     "%s done in %.1fs: %d time steps, %.2f MiB/phase, mpiio/mpio write %s read %s%s\n",
                     tag.c_str(), res.elapsed_s, res.timesteps, res.bytes / kMiB, r2('w').c_str(),
                     r2('r').c_str(), res.failed() ? "  ** FAILED **" : "");
    }
    return res;
}

} // namespace bench
