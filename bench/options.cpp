#include "options.hpp"

#include <getopt.h>

#include <cstdio>
#include <cstdlib>

namespace bench {

namespace {

const char *const kUsage =
    "usage: mpirun -n <ranks> h5bench_vfd [options]\n"
    "\n"
    "h5bench-style kernels through the built-in mpio driver, the mpiio plugin and raw MPI-IO (and\n"
    "HDF5's subfiling driver when asked), alternating in one launch; reports median/min/max\n"
    "bandwidth, the ratios mpiio/mpio and mpiio/raw (mpiio/subfiling) and each row's parity test\n"
    "against the A/A control, verifies every read and checks the mpio and mpiio files.\n"
    "\n"
    "  --patterns LIST   comma list of PATTERN or PATTERN/MODE, 'default' (the default matrix)\n"
    "                    or 'all' (every pattern in every mode of the default matrix)\n"
    "  --modes LIST      modes for entries given without /MODE (default: each pattern's defaults)\n"
    "                    coll = collective data + metadata, ind = independent data + metadata,\n"
    "                    cd = collective data + independent metadata, cm = the reverse\n"
    "  --size S          tiny | small | medium (default) | large (1 Mi particles per rank)\n"
    "  --timesteps N     time steps per file (default 3; h5bench uses 5)\n"
    "  --min-phase S     per case, raise the time steps until the built-in driver's shorter\n"
    "                    phase lasts about S seconds (untimed calibration runs at --timesteps and\n"
    "                    at a first guess: a fixed cost per phase plus a cost per step; at most 8x\n"
    "                    --timesteps and 512 MiB per phase; default 0: --timesteps for every case)\n"
    "  --reps N          counted repetitions per driver (default 5, at least 5 recommended)\n"
    "  --warmup N        discarded warm-up repetitions (default 1)\n"
    "  --confirm-reps N  repetitions of the rerun that confirms a row the parity test flags\n"
    "                    (default 2 x --reps; 0: no reruns, the first verdict stands)\n"
    "  --drivers LIST    subset of mpio,mpiio,raw,mpio2,subfiling,fpp (default the first four;\n"
    "                    mpio2 runs the built-in driver a second time: the A/A control column\n"
    "                    mpio2/mpio; subfiling is HDF5's subfiling driver in its default\n"
    "                    configuration, as h5bench selects it: column mpiio/subfiling; MPI is then\n"
    "                    initialised with MPI_THREAD_MULTIPLE, which it needs; fpp is the ceiling:\n"
    "                    the same bytes, each rank in a file of its own with pwrite/pread, column\n"
    "                    mpiio/fpp)\n"
    "  --dir DIR         where data files go (default /dev/shm)\n"
    "  --out DIR         where results.csv/json, runs.csv, table.txt/md, chart.svg go\n"
    "                    (default ./bench-results)\n"
    "  --plugin-config S config string for the mpiio driver (default: none)\n"
    "  --label TEXT      free text recorded in the results (machine, load, ...)\n"
    "  --server-ops CMD  count the storage servers' operations in each driver's first write and\n"
    "                    read of a case: rank 0 runs 'CMD profile-start' before and 'CMD\n"
    "                    profile-counts' (\"<operation> <count>\" lines) after the phase, outside\n"
    "                    the timing (scripts/dfs.sh gives such a command: MPIIO_DFS_CTL)\n"
    "  --stop-on-failure stop at the first verification failure (default: finish the matrix,\n"
    "                    exit non-zero)\n"
    "  --thread-multiple initialise MPI with MPI_THREAD_MULTIPLE, as a run with subfiling does\n"
    "                    (to tell what the thread level alone changes; default: MPI_Init)\n"
    "  --list            list the patterns and exit\n"
    "\n"
    "The MPI-IO layer is chosen by the launcher: Open MPI mpirun --mca io ompio|romio321;\n"
    "MPICH uses its ROMIO.\n";

const option kLongOpts[] = {{"patterns", required_argument, nullptr, 'p'},
                            {"modes", required_argument, nullptr, 'm'},
                            {"size", required_argument, nullptr, 's'},
                            {"timesteps", required_argument, nullptr, 't'},
                            {"min-phase", required_argument, nullptr, 'M'},
                            {"reps", required_argument, nullptr, 'r'},
                            {"warmup", required_argument, nullptr, 'w'},
                            {"confirm-reps", required_argument, nullptr, 'C'},
                            {"drivers", required_argument, nullptr, 'd'},
                            {"dir", required_argument, nullptr, 'D'},
                            {"out", required_argument, nullptr, 'o'},
                            {"plugin-config", required_argument, nullptr, 'c'},
                            {"label", required_argument, nullptr, 'l'},
                            {"server-ops", required_argument, nullptr, 'O'},
                            {"stop-on-failure", no_argument, nullptr, 'S'},
                            {"thread-multiple", no_argument, nullptr, 'T'},
                            {"list", no_argument, nullptr, 'L'},
                            {"help", no_argument, nullptr, 'h'},
                            {nullptr, 0, nullptr, 0}};

// The options main needs before MPI_Init, read as parse_options will read them: getopt_long over
// a copy of argv (it reorders what it scans), the last --drivers that parses.
struct EarlyOptions {
    std::vector<Driver> drivers = Options{}.drivers;
    bool thread_multiple = false;
};
EarlyOptions scan_early(int argc, char **argv) {
    std::vector<char *> args(argv, argv + argc);
    args.push_back(nullptr);
    EarlyOptions e;
    std::vector<Driver> given;
    opterr = 0;
    optind = 1;
    for (int c; (c = getopt_long(argc, args.data(), "h", kLongOpts, nullptr)) != -1;) {
        if (c == 'd' && parse_drivers(optarg, given))
            e.drivers = given;
        e.thread_multiple |= c == 'T';
    }
    optind = 1;
    return e;
}

} // namespace

std::vector<Driver> drivers_in_argv(int argc, char **argv) { return scan_early(argc, argv).drivers; }

bool thread_multiple_in_argv(int argc, char **argv) {
    const EarlyOptions e = scan_early(argc, argv);
    return e.thread_multiple || has_driver(e.drivers, Driver::Subfiling);
}

bool parse_options(int argc, char **argv, Options &opt, int &exit_code) {
    const bool root = rank() == 0;
    std::string patterns = "default", modes;
    auto fail = [&](const std::string &msg) {
        if (root)
            std::fprintf(stderr, "h5bench_vfd: %s (see --help)\n", msg.c_str());
        exit_code = 2;
        return false;
    };
    opterr = 0;
    optind = 1;
    for (int c; (c = getopt_long(argc, argv, "h", kLongOpts, nullptr)) != -1;) {
        const char *v = optarg;
        if (c == 'p' || c == 'm')
            (c == 'p' ? patterns : modes) = v;
        else if (c == 'D' || c == 'o' || c == 'c' || c == 'l' || c == 'O')
            (c == 'D'   ? opt.dir
             : c == 'o' ? opt.out
             : c == 'c' ? opt.plugin_config
             : c == 'l' ? opt.label
                        : opt.server_ops) = v;
        else if (c == 'S')
            opt.stop_on_failure = true;
        else if (c == 'T')
            opt.thread_multiple = true;
        else if (c == 's' && !parse_size(v, opt.size))
            return fail("--size must be tiny, small, medium or large");
        else if (c == 't' && !parse_int(v, opt.timesteps, 1))
            return fail("--timesteps needs an integer >= 1");
        else if (c == 'M' && !parse_number(v, opt.min_phase_s, 0, 60))
            return fail("--min-phase needs seconds between 0 and 60");
        else if (c == 'r' && !parse_int(v, opt.reps, 1))
            return fail("--reps needs an integer >= 1");
        else if (c == 'w' && !parse_int(v, opt.warmup, 0))
            return fail("--warmup needs an integer >= 0");
        else if (c == 'C' && !parse_int(v, opt.confirm_reps, 0))
            return fail("--confirm-reps needs an integer >= 0");
        else if (c == 'd' && !parse_drivers(v, opt.drivers))
            return fail(std::string("--drivers: not a list of mpio,mpiio,raw,mpio2,subfiling,fpp: ") + v);
        else if (c == '?')
            return fail(std::string("unknown option or missing value: ") + argv[optind - 1]);
        else if (c == 'L' || c == 'h') {
            if (root)
                std::printf(c == 'h' ? "%s" : "%-12s %-14s %s\n", c == 'h' ? kUsage : "pattern",
                            "default modes", "description");
            for (const PatternInfo &p : pattern_table())
                if (root && c == 'L')
                    std::printf("%-12s %-14s %s%s\n", p.name, p.in_default ? p.default_modes : "-", p.what,
                                p.in_default ? "" : " (not in the default matrix)");
            exit_code = 0;
            return false;
        }
    }
    if (optind < argc)
        return fail(std::string("unexpected argument ") + argv[optind]);
    if (opt.confirm_reps < 0)
        opt.confirm_reps = 2 * opt.reps;

    std::vector<Mode> mode_override;
    for (const std::string &m : split(modes, ',')) {
        Mode md;
        if (!parse_mode(m, md))
            return fail("unknown mode " + m);
        mode_override.push_back(md);
    }
    auto add = [&](const PatternInfo &p, const std::vector<Mode> &ms) -> bool {
        for (const Mode &m : ms) {
            if (("," + std::string(p.allowed_modes) + ",").find("," + m.name() + ",") == std::string::npos)
                return fail(std::string("pattern ") + p.name + " does not support mode " + m.name() +
                            " (allowed: " + p.allowed_modes + ")");
            opt.cases.push_back({p.name, m});
        }
        return true;
    };
    auto defaults = [&](const PatternInfo &p) {
        std::vector<Mode> ms = mode_override;
        for (const std::string &s :
             mode_override.empty() ? split(p.default_modes, ',') : std::vector<std::string>{})
            parse_mode(s, ms.emplace_back());
        return ms;
    };
    for (const std::string &entry : split(patterns, ',')) {
        if (entry == "default" || entry == "all") {
            for (const PatternInfo &p : pattern_table())
                if ((p.in_default || entry == "all") && !add(p, defaults(p)))
                    return false;
            continue;
        }
        const size_t slash = entry.find('/');
        const PatternInfo *p = find_pattern(entry.substr(0, slash));
        Mode m;
        if (p == nullptr)
            return fail("unknown pattern " + entry.substr(0, slash) + " (see --list)");
        if (slash != std::string::npos && !parse_mode(entry.substr(slash + 1), m))
            return fail("unknown mode in " + entry);
        if (!add(*p, slash == std::string::npos ? defaults(*p) : std::vector<Mode>{m}))
            return false;
    }
    if (opt.cases.empty())
        return fail("no cases selected");
    return true;
}

} // namespace bench
