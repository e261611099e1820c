// h5bench_vfd: runs every case of the matrix through the built-in mpio driver, the mpiio plugin,
// raw MPI-IO and the built-in driver again (the A/A control), and HDF5's subfiling driver when
// asked, alternating the drivers round by round in one launch; reruns the cases the parity test
// flags; reports (report.hpp).
//
// Verification, all untimed: every read of every driver in every round is compared with what
// was written (values and attributes). The first round's mpio and mpiio files are, right after
// their run and before they are deleted, read back by every rank through HDF5's sec2 driver (no
// MPI driver involved) with the same selections and compared the same way; rank 0 then tells
// from their sizes and a digest of every byte whether the two HDF5 files are identical
// (informational: elements no rank writes are left undefined by MPI-IO). A subfiled file is a
// stub plus subfiles that only the subfiling driver reads: its first-round read-back goes through
// the subfiling driver itself, independently, and rank 0 reports its files' sizes. A transfer the
// subfiling driver refuses (refusal.hpp) makes that phase "not supported" in the case. No file
// outlives its run: a file kept for later would hold its pages while the timed runs write theirs.
#include "buffers.hpp"
#include "fpp_kernel.hpp"
#include "kernel.hpp"
#include "options.hpp"
#include "report.hpp"
#include "server_ops.hpp"
#include "subfiling.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>

using namespace bench;

namespace {

// Everything a case needs while its rounds run (built once, untimed).
struct CaseRun {
    const Options &opt;
    const CaseSpec c;
    Buffers wbuf, rbuf;
    H5Kernel h5;
    RawKernel raw;
    FppKernel fpp;
    std::string work;
    CaseRun(const Options &o, const CaseSel &sel, const std::string &w, int timesteps)
        : opt(o), c(build_case(sel.pattern, sel.mode, o.size, timesteps, rank(), nranks())),
          wbuf(make_write_buffers(c)), rbuf(make_read_buffers(c)), h5(c, o.plugin_config), raw(c),
          fpp(c, raw.plans()), work(w) {}
};

std::string repro_command(const Options &opt, const std::string &case_id, const std::string &drivers,
                          int timesteps) {
    const char *pp = std::getenv("HDF5_PLUGIN_PATH");
    return "HDF5_PLUGIN_PATH=" + std::string(pp ? pp : "<plugin dir>") + " " + launcher() +
           " h5bench_vfd --patterns " + case_id + " --drivers " + drivers + " --size " + size_name(opt.size) +
           " --timesteps " + std::to_string(timesteps) + " --reps 1 --warmup 0 --dir " + opt.dir +
           (opt.plugin_config.empty() ? "" : " --plugin-config '" + opt.plugin_config + "'");
}

// Collective. Rank 0 removes the file driver `d` wrote (a subfiled file: the stub, its subfiles and
// its configuration file; fpp: every rank its own); everybody waits so no rank reuses the name too
// early.
void remove_driver_file(const std::string &path, Driver d) {
    if (d == Driver::Fpp)
        return FppKernel::remove(path);
    if (d != Driver::Subfiling)
        return remove_file(path);
    if (rank() == 0)
        for (const SubfiledFile &f : subfiled_files(path))
            std::remove(f.path.c_str());
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

std::string round_name(const Options &opt, int round) {
    return round < opt.warmup ? "warm-up" : "rep " + std::to_string(round - opt.warmup + 1);
}

// <work>/<case id with '/' -> '.'>.<driver>.h5 (.raw for raw MPI-IO and fpp, whose ranks add their
// own suffix).
std::string case_file(const std::string &work, std::string id, Driver d) {
    std::replace(id.begin(), id.end(), '/', '.');
    return work + "/" + id + "." + driver_name(d) + (is_hdf5(d) ? ".h5" : ".raw");
}

// Collective. The case's description, data bytes per phase and whether some dataset elements
// are never written (the ranks' selections do not overlap).
CaseResult describe(const CaseSpec &c) {
    CaseResult res;
    res.id = c.id;
    res.pattern = c.pattern;
    res.mode = c.mode.name();
    res.what = c.what;
    res.raw_note = c.raw_note;
    res.datasets = static_cast<int>(c.dsets.size());
    res.accesses = static_cast<int>(c.accesses.size());
    res.timesteps = c.timesteps;
    std::vector<double> mine(c.dsets.size() + 1, 0), all(mine.size(), 0); // bytes per dataset; last: total
    for (const Access &a : c.accesses)
        mine[static_cast<size_t>(a.dset)] += static_cast<double>(a.count * moved_bytes(a));
    mine.back() = static_cast<double>(c.bytes_per_step()) * c.timesteps;
    BENCH_MPI(MPI_Allreduce(mine.data(), all.data(), static_cast<int>(mine.size()), MPI_DOUBLE, MPI_SUM,
                            MPI_COMM_WORLD));
    res.bytes = all.back();
    for (size_t d = 0; d < c.dsets.size(); ++d)
        res.check.gaps |= all[d] < static_cast<double>(c.dsets[d].nelems() * c.dsets[d].esize());
    return res;
}

// Collective. Compares what was read into run.rbuf with what was written (and the attribute
// mismatches counted while reading); records a failure `what` with a reproducer. Returns the
// number of wrong bytes + values over all ranks.
uint64_t verify(CaseRun &run, CaseResult &res, std::vector<std::string> *driver_failures, uint64_t attr_bad,
                const std::string &what, const std::string &repro) {
    const Mismatch mm = compare_buffers(run.c, run.wbuf, run.rbuf);
    uint64_t bad[2] = {mm.count, attr_bad}, bad_all[2] = {0, 0};
    BENCH_MPI(MPI_Allreduce(bad, bad_all, 2, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    if (mm.count > 0 || attr_bad > 0)
        std::fprintf(
            stderr,
            "[rank %d] VERIFY FAILED %s %s: %llu bytes differ; first: %s; %llu attribute values wrong\n",
            rank(), run.c.id.c_str(), what.c_str(), (unsigned long long)mm.count, mm.first.c_str(),
            (unsigned long long)attr_bad);
    if (bad_all[0] + bad_all[1] == 0)
        return 0;
    const std::string msg = what + " (" + std::to_string(bad_all[0]) + " bytes, " +
                            std::to_string(bad_all[1]) + " attribute values wrong over all ranks)";
    if (driver_failures == nullptr || driver_failures->empty()) {
        res.failures.push_back(msg);
        res.failures.push_back("reproduce: " + repro);
    }
    if (driver_failures != nullptr)
        driver_failures->push_back(msg);
    return bad_all[0] + bad_all[1];
}

// Size and a digest of every byte of a file, read in 4 MiB pieces: a whole-file buffer of up to
// 512 MiB would take fresh pages right before a timed run. Not cryptographic: it tells two files
// written by cooperating drivers apart.
std::optional<uint64_t> digest_file(const std::string &path, uint64_t &size) {
    std::ifstream in(path, std::ios::binary);
    std::vector<char> buf(size_t(4) << 20);
    auto mix = [](uint64_t h, uint64_t w) {
        h ^= w * 0x9E3779B97F4A7C15ull;
        return ((h << 29) | (h >> 35)) * 0xBF58476D1CE4E5B9ull;
    };
    uint64_t h = 0x243F6A8885A308D3ull;
    size = 0;
    while (in) {
        in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
        const size_t n = static_cast<size_t>(in.gcount());
        for (size_t i = 0; i < n; i += 8) { // a short last word only in the last piece
            uint64_t w = 0;
            std::memcpy(&w, buf.data() + i, std::min<size_t>(8, n - i));
            h = mix(h, w);
        }
        size += n;
    }
    if (in.bad() || size == 0) // a read error, not the end of the file
        return std::nullopt;
    return mix(h, size);
}

// Collective, untimed. The first round's check of a file before it is deleted: an HDF5 file read
// back through sec2 by every rank (see the top of this file), then its size and digest (rank 0);
// the raw file's size. An fpp file is checked by its own read phase alone.
void check_first_round_file(CaseRun &run, CaseResult &res, Driver d, const std::string &path) {
    FileCheck &fc = res.check;
    if (d == Driver::Fpp)
        return;
    if (d != Driver::Raw) {
        const bool subfiled = d == Driver::Subfiling;
        const std::string what = std::string(driver_name(d)) + " file read back through " +
                                 (subfiled ? "subfiling, independently" : "sec2");
        set_context(run.c.id + " " + what);
        poison(run.rbuf);
        run.h5.read_back(d, path, run.rbuf);
        verify(run, res, nullptr, run.h5.attr_mismatches(), what,
               repro_command(run.opt, run.c.id, subfiled ? "subfiling" : "mpio,mpiio", run.c.timesteps));
    }
    if (rank() != 0)
        return;
    if (d == Driver::Subfiling) { // no digest: the bytes are spread over the stub and the subfiles
        const std::vector<SubfiledFile> files = subfiled_files(path);
        for (const SubfiledFile &f : files)
            fc.size_subfiling += f.bytes;
        fc.subfiling_files = describe_subfiled(files);
        return;
    }
    if (d == Driver::Raw) { // its contents were verified by its own read phase
        std::error_code ec;
        const uintmax_t n = std::filesystem::file_size(path, ec);
        fc.size_raw = ec ? 0 : n;
        return;
    }
    uint64_t size = 0;
    const std::optional<uint64_t> digest = digest_file(path, size);
    if (!digest)
        res.failures.push_back(std::string(driver_name(d)) + " file: cannot read " + path);
    (d == Driver::Mpiio ? fc.size_mpiio : fc.size_mpio) = size;
    (d == Driver::Mpiio ? fc.digest_mpiio : fc.digest_mpio) = digest;
}

// Rank 0, after the first round: whether the two HDF5 files were byte-identical.
void finish_file_check(FileCheck &fc) {
    fc.done = true;
    if (!fc.digest_mpio || !fc.digest_mpiio)
        return;
    fc.identical = fc.size_mpio == fc.size_mpiio && *fc.digest_mpio == *fc.digest_mpiio;
    if (fc.identical)
        fc.bytes_note = "identical";
    else if (fc.size_mpio == fc.size_mpiio)
        fc.bytes_note = "differ: same size " + std::to_string(fc.size_mpio) + ", other bytes";
    else
        fc.bytes_note = "differ: sizes " + std::to_string(fc.size_mpio) + "/" + std::to_string(fc.size_mpiio);
    if (!fc.identical && fc.gaps)
        fc.bytes_note += " (the datasets have never-written elements; MPI-IO leaves those bytes undefined)";
}

// Collective. Driver `d` writes the whole file at `path`, then reads it back (not when
// `skip_read`, or when the write was refused); HDF5 drivers fill the probes and statistics given
// (null: not asked). Returns the refusals (refusal.hpp) of the two phases.
struct Refusals {
    std::string write, read;
};
// With `ops`, the servers' operations of each phase are counted into ops->write and ops->read,
// outside the timed phases.
struct PhaseOps {
    const ServerOpsCounter &counter;
    ServerOps &write, &read;
};
Refusals write_then_read(CaseRun &run, Driver d, const std::string &path, PhaseTimes &w, PhaseTimes &r,
                         Probe *wprobe = nullptr, Probe *rprobe = nullptr, DriverStats *stats = nullptr,
                         bool skip_read = false, const PhaseOps *ops = nullptr) {
    Refusals out;
    auto counted = [&](bool write, auto &&phase) {
        if (ops != nullptr)
            ops->counter.start();
        phase();
        if (ops != nullptr)
            (write ? ops->write : ops->read) = ops->counter.stop();
    };
    if (d == Driver::Raw) {
        counted(true, [&] { w = run.raw.write(path, run.wbuf); });
        counted(false, [&] { r = run.raw.read(path, run.rbuf); });
        return out;
    }
    if (d == Driver::Fpp) {
        counted(true, [&] { w = run.fpp.write(path, run.wbuf); });
        out.write = run.fpp.refusal();
        if (out.write.empty())
            counted(false, [&] { r = run.fpp.read(path, run.rbuf); });
        return out;
    }
    counted(true, [&] { w = run.h5.write(d, path, run.wbuf, wprobe, stats); });
    out.write = run.h5.refusal();
    if (!skip_read && out.write.empty()) {
        counted(false, [&] { r = run.h5.read(d, path, run.rbuf, rprobe, stats); });
        out.read = run.h5.refusal();
    }
    return out;
}

std::string seconds_str(double s) {
    char b[32];
    std::snprintf(b, sizeof b, s >= 1 ? "%.2fs" : "%.1fms", s >= 1 ? s : s * 1e3);
    return b;
}

// Collective. One driver writes and reads the whole file once; returns the progress-line part. A
// phase the driver refused (refusal.hpp; the same in every round) is not run again: a refused
// write ends the driver's part in the case, after a refused read the driver only writes, and its
// file is verified by the first round's read-back alone.
std::string run_driver(CaseRun &run, CaseResult &res, Driver d, int round, bool check_files) {
    DriverResult &dr = res.drv[static_cast<size_t>(d)];
    dr.ran = true;
    const std::string name = driver_name(d);
    if (!dr.refused_write.empty())
        return name + " not supported";
    const std::string path = case_file(run.work, run.c.id, d);
    const std::string repro = repro_command(run.opt, run.c.id, name, run.c.timesteps);
    set_context(run.c.id + " " + name + " " + round_name(run.opt, round), repro);
    poison(run.rbuf);
    PhaseTimes w, r;
    const bool probe = round == 0; // how HDF5 did the I/O, and the servers' operations: asked once
    const ServerOpsCounter counter(check_files ? run.opt.server_ops : "");
    const PhaseOps ops{counter, dr.wops, dr.rops};
    const Refusals refused =
        write_then_read(run, d, path, w, r, probe ? &dr.wprobe : nullptr, probe ? &dr.rprobe : nullptr,
                        &dr.stats, !dr.refused_read.empty(), probe && counter.enabled() ? &ops : nullptr);
    dr.refused_write = dr.refused_write.empty() ? refused.write : dr.refused_write;
    dr.refused_read = dr.refused_read.empty() ? refused.read : dr.refused_read;
    const bool wrote = dr.refused_write.empty(), read = wrote && dr.refused_read.empty();
    const uint64_t bad =
        !read ? 0
              : verify(run, res, &dr.failures, !is_hdf5(d) ? 0 : run.h5.attr_mismatches(),
                       name + ": read-back verification failed in " + round_name(run.opt, round), repro);
    if (round >= run.opt.warmup && wrote) {
        dr.wsec.push_back(w.seconds);
        dr.wdata.push_back(w.data_seconds);
    }
    if (round >= run.opt.warmup && read) {
        dr.rsec.push_back(r.seconds);
        dr.rdata.push_back(r.data_seconds);
    }
    if (check_files && round == 0 && d != Driver::Mpio2 && wrote)
        check_first_round_file(run, res, d, path);
    remove_driver_file(path, d);
    return name + " W " + (wrote ? seconds_str(w.seconds) : "not supported") + " R " +
           (read ? seconds_str(r.seconds) : "not supported") + (bad ? " VERIFY-FAILED" : "");
}

// Collective. One untimed write + read of `run` (built at `steps` time steps) through driver `d`;
// the shorter of its two phases (0 when the driver refused one: nothing to scale on, refusal.hpp).
double calibration_phase(CaseRun &run, Driver d, int steps) {
    const std::string path = case_file(run.work, run.c.id, d) + ".calibration";
    set_context(run.c.id + " " + driver_name(d) + " calibration",
                repro_command(run.opt, run.c.id, driver_name(d), steps));
    PhaseTimes w, r;
    const Refusals refused = write_then_read(run, d, path, w, r);
    remove_driver_file(path, d);
    if (!refused.write.empty() || !refused.read.empty())
        return 0;
    return std::min(w.seconds, r.seconds);
}

// Collective. --min-phase: the time steps that make the reference driver's (the built-in one when
// it runs) shorter phase last about opt.min_phase_s, within kMaxStepFactor x --timesteps and
// kMaxPhaseBytes per phase. A phase is a fixed cost (create or open, close: 0.2 s per phase on a
// distributed file system) plus a cost per step, so a proportional guess from one run falls short
// wherever the fixed cost is large: a second run at the guessed steps fixes the line through both
// points, and the steps come from that line. Untimed runs at --timesteps: the slower of two counts
// (the second runs only when the first was short; OMPIO's collective phases are sometimes 10x
// shorter than usual, and a case scaled on such a run takes minutes). Every rank gets rank 0's
// answer.
int calibrated_timesteps(const Options &opt, const CaseSel &sel, const std::string &work) {
    const Driver d = std::find(opt.drivers.begin(), opt.drivers.end(), Driver::Mpio) != opt.drivers.end()
                         ? Driver::Mpio
                         : opt.drivers.front();
    const int first = opt.timesteps;
    double most = static_cast<double>(first) * kMaxStepFactor, shorter = 0;
    { // (the first point's buffers go before the second point's are made)
        CaseRun run(opt, sel, work, first);
        if (const double per_step_bytes = describe(run.c).bytes / first; per_step_bytes > 0)
            most = std::min(most, std::floor(kMaxPhaseBytes / per_step_bytes));
        for (int attempt = 0; attempt < 2 && shorter < opt.min_phase_s; ++attempt) { // long enough: done
            const double t = calibration_phase(run, d, first);
            if (t <= 0)
                return first; // refused: every rank sees the same refusal
            shorter = std::max(shorter, t);
        }
    }
    const auto bounded = [&](double steps) {
        return std::max(first, static_cast<int>(std::min(steps, most)));
    };
    const auto agreed = [](int steps) { // rank 0's rounding decides
        BENCH_MPI(MPI_Bcast(&steps, 1, MPI_INT, 0, MPI_COMM_WORLD));
        return steps;
    };
    const int guess = agreed(bounded(std::ceil(first * opt.min_phase_s / std::max(shorter, 1e-6))));
    if (guess == first)
        return first;
    CaseRun run(opt, sel, work, guess);
    const double second = calibration_phase(run, d, guess); // the line's second point
    const double per_step = (second - shorter) / (guess - first);
    if (second <= 0 || per_step <= 0) // noise: the proportional guess stands
        return guess;
    return agreed(bounded(std::ceil(guess + (opt.min_phase_s - second) / per_step)));
}

// Collective. Builds the case and its buffers (untimed; the calibration's buffers go before the
// larger case's are made), then runs warm-up + counted rounds: in each round every driver writes
// the whole file and reads it back, the order of the drivers rotating from round to round. Rank 0
// prints one progress line per round, prefixed with `tag`. `rerun_steps` > 0: a rerun at the
// first measurement's time steps, without the first round's file checks.
CaseResult run_case(const Options &options, const CaseSel &sel, const std::string &work,
                    const std::string &tag, int rerun_steps = 0) {
    const double t0 = MPI_Wtime();
    const bool check_files = rerun_steps == 0;
    set_context(sel.pattern + "/" + sel.mode.name() + " setup");
    Options opt = options;
    if (const int most = find_pattern(sel.pattern)->max_timesteps; most > 0)
        opt.timesteps = std::min(opt.timesteps, most);
    const int timesteps = rerun_steps > 0       ? rerun_steps
                          : opt.min_phase_s > 0 ? calibrated_timesteps(opt, sel, work)
                                                : opt.timesteps;
    CaseRun run(opt, sel, work, timesteps);
    CaseResult res = describe(run.c);
    const size_t nd = opt.drivers.size();
    for (int round = 0; round < opt.warmup + opt.reps; ++round) {
        std::string line;
        for (size_t k = 0; k < nd; ++k) // rotate the order
            line +=
                (k ? " | " : "") +
                run_driver(run, res, opt.drivers[(k + static_cast<size_t>(round)) % nd], round, check_files);
        if (rank() == 0) {
            std::fprintf(stderr, "%s %s%s %s\n", tag.c_str(), round_name(opt, round).c_str(),
                         round < opt.warmup ? "" : ("/" + std::to_string(opt.reps)).c_str(), line.c_str());
            if (round == 0 && check_files) {
                finish_file_check(res.check);
                std::fprintf(stderr, "%s first round's files %s\n", tag.c_str(),
                             res.failed()          ? "FAILED"
                             : res.check.identical ? "ok (identical)"
                                                   : "ok");
            }
        }
    }
    res.summarize();
    res.elapsed_s = MPI_Wtime() - t0;
    if (rank() == 0) {
        const DriverResult &sub = res.drv[static_cast<size_t>(Driver::Subfiling)];
        auto sub_ratio = [&](char p) {
            const bool refused = !sub.refused_write.empty() || (p == 'r' && !sub.refused_read.empty());
            return refused ? std::string("n/s") : spread_str(res.ratio(Driver::Mpiio, Driver::Subfiling, p));
        };
        std::fprintf(
            stderr,
            "%s done in %.1fs: %d time steps, %.2f MiB/phase, mpiio/mpio write %s %s read %s %s%s%s\n",
            tag.c_str(), res.elapsed_s, res.timesteps, res.bytes / kMiB,
            spread_str(res.ratio(Driver::Mpiio, Driver::Mpio, 'w')).c_str(), res.parity('w').verdict.c_str(),
            spread_str(res.ratio(Driver::Mpiio, Driver::Mpio, 'r')).c_str(), res.parity('r').verdict.c_str(),
            sub.ran ? (", mpiio/subfiling write " + sub_ratio('w') + " read " + sub_ratio('r')).c_str() : "",
            res.failed() ? "  ** FAILED **" : "");
    }
    return res;
}

// Collective. Every case in order, then the confirmation reruns; stops early only with
// --stop-on-failure.
std::vector<CaseResult> run_matrix(const Options &opt, const std::string &work) {
    std::vector<CaseResult> results;
    const double t0 = MPI_Wtime();
    auto failed_anywhere = [&](const CaseResult &r) { // the file check's failures are known on rank 0 only
        int failed = r.failed() ? 1 : 0;
        BENCH_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
        if (rank() == 0)
            std::fprintf(stderr, "    [%.0f s elapsed]\n", MPI_Wtime() - t0);
        return failed != 0;
    };
    for (size_t i = 0; i < opt.cases.size(); ++i) {
        char tag[96];
        std::snprintf(tag, sizeof tag, "[%2zu/%zu %-17s]", i + 1, opt.cases.size(),
                      (opt.cases[i].pattern + "/" + opt.cases[i].mode.name()).c_str());
        results.push_back(run_case(opt, opt.cases[i], work, tag));
        if (failed_anywhere(results.back()) && opt.stop_on_failure)
            return results;
    }
    // A row the parity test flags (by chance about one verdict in 30 with 5 repetitions: the exact
    // level is 8/252) is measured again, with its own A/A control, and the rerun's verdict is
    // published. Every rank computes the same verdicts: the times are maxima over ranks.
    const bool control =
        std::find(opt.drivers.begin(), opt.drivers.end(), Driver::Mpio2) != opt.drivers.end();
    for (size_t i = 0; i < results.size() && opt.confirm_reps > 0 && control; ++i) {
        CaseResult &r = results[i];
        if (!r.flagged('w') && !r.flagged('r'))
            continue;
        Options again = opt;
        again.reps = opt.confirm_reps;
        const std::string tag = "[rerun " + r.id + " (" +
                                (r.flagged('w') ? "write " + r.parity('w').verdict : "") +
                                (r.flagged('w') && r.flagged('r') ? ", " : "") +
                                (r.flagged('r') ? "read " + r.parity('r').verdict : "") + ")]";
        r.confirmation.push_back(run_case(again, opt.cases[i], work, tag, r.timesteps));
        r.failures.insert(r.failures.end(), r.confirmation[0].failures.begin(),
                          r.confirmation[0].failures.end());
        if (failed_anywhere(r) && opt.stop_on_failure)
            break;
    }
    return results;
}

} // namespace

int main(int argc, char **argv) {
    MpiSession mpi(argc, argv, thread_multiple_in_argv(argc, argv));
    Options opt;
    int exit_code = 0;
    if (!parse_options(argc, argv, opt, exit_code))
        return exit_code;
    const bool subfiling = has_driver(opt.drivers, Driver::Subfiling);
    if (const std::string why = subfiling ? subfiling_unusable(mpi.provided) : ""; !why.empty()) {
        if (rank() == 0) // every rank got the same thread level: every rank stops here
            std::fprintf(stderr, "h5bench_vfd: --drivers subfiling: %s\n", why.c_str());
        return 2;
    }
    const double t0 = MPI_Wtime();
    set_context("startup");
    RunInfo info; // the environment, and the options that shape the run
    collect_environment(info);
    info.size = size_name(opt.size), info.dir = opt.dir, info.label = opt.label,
    info.min_phase_s = opt.min_phase_s;
    info.timesteps = opt.timesteps, info.reps = opt.reps, info.warmup = opt.warmup;
    info.plugin_config = opt.plugin_config, info.confirm_reps = opt.confirm_reps;
    info.subfiling_config = subfiling ? subfiling_config_text() : "";
    if (std::find(opt.drivers.begin(), opt.drivers.end(), Driver::Mpiio) != opt.drivers.end())
        check_plugin_loads(opt.plugin_config);
    const std::string work = create_work_dir(opt.dir, opt.out);
    if (work.empty())
        return 2;
    if (rank() == 0)
        std::fprintf(
            stderr,
            "h5bench_vfd: %zu cases x %zu drivers x (%d warm-up + %d reps), %d ranks, size %s, %d time "
            "steps%s, io=%s, files in %s\n",
            opt.cases.size(), opt.drivers.size(), opt.warmup, opt.reps, nranks(), size_name(opt.size),
            opt.timesteps, opt.min_phase_s > 0 ? " or more (--min-phase)" : "", info.io_component.c_str(),
            work.c_str());
    const std::vector<CaseResult> results = run_matrix(opt, work);
    int failed = 0;
    for (const CaseResult &r : results)
        failed += r.failed() ? 1 : 0;
    BENCH_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
    if (rank() == 0) {
        rmdir(work.c_str());
        info.total_s = MPI_Wtime() - t0;
        info.load_end = loadavg();
        print_table(stdout, info, results);
        write_outputs(opt.out, info, results);
        std::printf("Results: %s/{table.txt,table.md,results.csv,runs.csv,results.json,chart.svg}\n",
                    opt.out.c_str());
        if (failed > 0)
            std::fprintf(stderr, "\n*** h5bench_vfd: %d case(s) FAILED verification; see CHECKS above ***\n",
                         failed);
        std::fflush(stdout);
    }
    return failed > 0 ? 1 : 0;
}
