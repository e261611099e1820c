// h5bench_vfd: runs every case of the matrix through the built-in mpio driver, the mpiio plugin
// and raw MPI-IO, alternating the drivers round by round in one launch, and reports (see
// case_runner.hpp for what one case does, report.hpp for the outputs).
#include "case_runner.hpp"
#include "environment.hpp"
#include "options.hpp"
#include "report.hpp"
#include "workdir.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

using namespace bench;

namespace {

// MPI_Init / MPI_Finalize for the whole program.
struct MpiSession {
    MpiSession(int &argc, char **&argv) { MPI_Init(&argc, &argv); }
    ~MpiSession() { MPI_Finalize(); }
    MpiSession(const MpiSession &) = delete;
    MpiSession &operator=(const MpiSession &) = delete;
};

bool wants(const Options &opt, Driver d) {
    return std::find(opt.drivers.begin(), opt.drivers.end(), d) != opt.drivers.end();
}

void announce(const Options &opt, const RunInfo &info, const std::string &work) {
    if (rank() == 0)
        std::fprintf(stderr,
                     "h5bench_vfd: %zu cases x %zu drivers x (%d warm-up + %d reps), %d ranks, size %s, "
                     "%d time steps%s, io=%s, files in %s\n",
                     opt.cases.size(), opt.drivers.size(), opt.warmup, opt.reps, nranks(),
                     size_name(opt.size), opt.timesteps, opt.min_phase_s > 0 ? " or more (--min-phase)" : "",
                     info.io_component.c_str(), work.c_str());
}

// Collective. Every case in order; stops early only with --stop-on-failure.
std::vector<CaseResult> run_matrix(const Options &opt, const std::string &work) {
    std::vector<CaseResult> results;
    const double t0 = MPI_Wtime();
    for (size_t i = 0; i < opt.cases.size(); ++i) {
        const CaseSel &sel = opt.cases[i];
        char tag[96];
        std::snprintf(tag, sizeof tag, "[%2zu/%zu %-17s]", i + 1, opt.cases.size(),
                      (sel.pattern + "/" + sel.mode.name()).c_str());
        results.push_back(run_case(opt, sel, work, tag));
        // The file check's failures are known on rank 0 only: everybody follows rank 0.
        int failed = results.back().failed() ? 1 : 0;
        BENCH_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
        if (rank() == 0)
            std::fprintf(stderr, "    [%.0f s elapsed]\n", MPI_Wtime() - t0);
        if (failed && opt.stop_on_failure)
            break;
    }
    return results;
}

// Rank 0. Table on stdout, files in --out. Returns the number of failed cases (on every rank).
int report(const Options &opt, RunInfo &info, const std::vector<CaseResult> &results, double seconds) {
    info.total_s = seconds;
    info.load_end = loadavg();
    int failed = 0;
    for (const CaseResult &r : results)
        failed += r.failed() ? 1 : 0;
    if (rank() == 0) {
        print_table(stdout, info, results);
        write_outputs(opt.out, info, results);
        std::printf("Results: %s/{table.txt,table.md,results.csv,runs.csv,results.json,chart.svg}\n",
                    opt.out.c_str());
        if (failed > 0)
            std::fprintf(stderr, "\n*** h5bench_vfd: %d case(s) FAILED verification; see CHECKS above ***\n",
                         failed);
        std::fflush(stdout);
    }
    BENCH_MPI(MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD));
    return failed;
}

} // namespace

int main(int argc, char **argv) {
    MpiSession mpi(argc, argv);
    Options opt;
    int exit_code = 0;
    if (!parse_options(argc, argv, opt, exit_code))
        return exit_code;
    const double t0 = MPI_Wtime();
    set_context("startup");
    RunInfo info = collect_run_info(opt);
    if (wants(opt, Driver::Mpiio))
        check_plugin_loads(opt.plugin_config);
    const std::string work = create_work_dir(opt.dir, opt.out);
    if (work.empty())
        return 2;
    announce(opt, info, work);
    const std::vector<CaseResult> results = run_matrix(opt, work);
    if (rank() == 0)
        rmdir(work.c_str());
    const int failed = report(opt, info, results, MPI_Wtime() - t0);
    return failed > 0 ? 1 : 0;
}
