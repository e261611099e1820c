#include "options.hpp"

#include <cstdio>
#include <cstdlib>
#include <sstream>

namespace bench {

namespace {

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep))
        if (!item.empty())
            out.push_back(item);
    return out;
}

void usage() {
    std::printf(
        "usage: mpirun -n <ranks> h5bench_vfd [options]\n"
        "\n"
        "h5bench-style kernels through the built-in mpio driver, the mpiio plugin and raw MPI-IO,\n"
        "alternating in one launch; reports median/min/max bandwidth and the ratios mpiio/mpio and\n"
        "mpiio/raw, verifies every read and compares the mpio and mpiio files.\n"
        "\n"
        "  --patterns LIST   comma list of PATTERN or PATTERN/MODE, 'default' (the default matrix)\n"
        "                    or 'all' (every pattern in every mode of the default matrix)\n"
        "  --modes LIST      modes for entries given without /MODE (default: each pattern's defaults)\n"
        "                    coll = collective data + metadata, ind = independent data + metadata,\n"
        "                    cd = collective data + independent metadata, cm = the reverse\n"
        "  --size S          tiny | small | medium (default) | large (1 Mi particles per rank)\n"
        "  --timesteps N     time steps per file (default 3; h5bench uses 5)\n"
        "  --min-phase S     per case, raise the time steps until the built-in driver's shorter\n"
        "                    phase lasts about S seconds (two untimed calibration runs; at most 8x\n"
        "                    --timesteps and 512 MiB per phase; default 0: --timesteps for every case)\n"
        "  --reps N          counted repetitions per driver (default 5, at least 5 recommended)\n"
        "  --warmup N        discarded warm-up repetitions (default 1)\n"
        "  --drivers LIST    subset of mpio,mpiio,raw,mpio2 (default all four; mpio2 runs the\n"
        "                    built-in driver a second time: the A/A control column mpio2/mpio)\n"
        "  --dir DIR         where data files go (default /dev/shm)\n"
        "  --out DIR         where results.csv/json, runs.csv, table.txt/md, chart.svg go\n"
        "                    (default ./bench-results)\n"
        "  --plugin-config S config string for the mpiio driver (default: none)\n"
        "  --label TEXT      free text recorded in the results (machine, load, ...)\n"
        "  --stop-on-failure stop at the first verification failure (default: finish the matrix,\n"
        "                    exit non-zero)\n"
        "  --keep-files      keep the first round's checked files of each case (they then hold\n"
        "                    memory while the later rounds run: for debugging, not timing)\n"
        "  --list            list the patterns and exit\n"
        "\n"
        "The MPI-IO layer is chosen by the launcher: Open MPI mpirun --mca io ompio|romio321;\n"
        "MPICH uses its ROMIO.\n");
}

void list_patterns() {
    std::printf("%-12s %-14s %s\n", "pattern", "default modes", "description");
    for (const PatternInfo &p : pattern_table())
        std::printf("%-12s %-14s %s%s\n", p.name, p.in_default ? p.default_modes : "-", p.what,
                    p.in_default ? "" : " (not in the default matrix)");
}

bool to_int(const std::string &s, int &v, int min) {
    char *end = nullptr;
    const long x = std::strtol(s.c_str(), &end, 10);
    if (end == s.c_str() || *end != '\0' || x < min)
        return false;
    v = static_cast<int>(x);
    return true;
}

} // namespace

bool parse_options(int argc, char **argv, Options &opt, int &exit_code) {
    const bool root = rank() == 0;
    std::string patterns = "default", modes;
    auto fail = [&](const std::string &msg) {
        if (root)
            std::fprintf(stderr, "h5bench_vfd: %s (see --help)\n", msg.c_str());
        exit_code = 2;
        return false;
    };
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto value = [&](std::string &dst) {
            if (i + 1 >= argc)
                return false;
            dst = argv[++i];
            return true;
        };
        std::string v;
        if (a == "-h" || a == "--help") {
            if (root)
                usage();
            exit_code = 0;
            return false;
        } else if (a == "--list") {
            if (root)
                list_patterns();
            exit_code = 0;
            return false;
        } else if (a == "--patterns") {
            if (!value(patterns))
                return fail("--patterns needs a value");
        } else if (a == "--modes") {
            if (!value(modes))
                return fail("--modes needs a value");
        } else if (a == "--size") {
            if (!value(v) || !parse_size(v, opt.size))
                return fail("--size must be tiny, small, medium or large");
        } else if (a == "--timesteps") {
            if (!value(v) || !to_int(v, opt.timesteps, 1))
                return fail("--timesteps needs an integer >= 1");
        } else if (a == "--min-phase") {
            if (!value(v))
                return fail("--min-phase needs a value");
            char *end = nullptr;
            opt.min_phase_s = std::strtod(v.c_str(), &end);
            if (end == v.c_str() || *end != '\0' || !(opt.min_phase_s >= 0 && opt.min_phase_s <= 60))
                return fail("--min-phase needs seconds between 0 and 60");
        } else if (a == "--reps") {
            if (!value(v) || !to_int(v, opt.reps, 1))
                return fail("--reps needs an integer >= 1");
        } else if (a == "--warmup") {
            if (!value(v) || !to_int(v, opt.warmup, 0))
                return fail("--warmup needs an integer >= 0");
        } else if (a == "--drivers") {
            if (!value(v))
                return fail("--drivers needs a value");
            opt.drivers.clear();
            for (const std::string &d : split(v, ',')) {
                if (d == "mpio")
                    opt.drivers.push_back(Driver::Mpio);
                else if (d == "mpiio")
                    opt.drivers.push_back(Driver::Mpiio);
                else if (d == "raw")
                    opt.drivers.push_back(Driver::Raw);
                else if (d == "mpio2")
                    opt.drivers.push_back(Driver::Mpio2);
                else
                    return fail("unknown driver " + d);
            }
            if (opt.drivers.empty())
                return fail("--drivers is empty");
        } else if (a == "--dir") {
            if (!value(opt.dir))
                return fail("--dir needs a value");
        } else if (a == "--out") {
            if (!value(opt.out))
                return fail("--out needs a value");
        } else if (a == "--plugin-config") {
            if (!value(opt.plugin_config))
                return fail("--plugin-config needs a value");
        } else if (a == "--label") {
            if (!value(opt.label))
                return fail("--label needs a value");
        } else if (a == "--stop-on-failure") {
            opt.stop_on_failure = true;
        } else if (a == "--keep-files") {
            opt.keep_files = true;
        } else {
            return fail("unknown option " + a);
        }
    }

    std::vector<Mode> mode_override;
    for (const std::string &m : split(modes, ',')) {
        Mode md;
        if (!parse_mode(m, md))
            return fail("unknown mode " + m);
        mode_override.push_back(md);
    }
    auto allowed = [](const PatternInfo &p, const Mode &m) {
        for (const std::string &s : split(p.allowed_modes, ','))
            if (s == m.name())
                return true;
        return false;
    };
    auto add = [&](const PatternInfo &p, const std::vector<Mode> &ms) -> bool {
        for (const Mode &m : ms) {
            if (!allowed(p, m))
                return fail(std::string("pattern ") + p.name + " does not support mode " + m.name() +
                            " (allowed: " + p.allowed_modes + ")");
            opt.cases.push_back({p.name, m});
        }
        return true;
    };
    auto defaults = [&](const PatternInfo &p) {
        if (!mode_override.empty())
            return mode_override;
        std::vector<Mode> ms;
        for (const std::string &s : split(p.default_modes, ',')) {
            Mode m;
            parse_mode(s, m);
            ms.push_back(m);
        }
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
        const std::string name = entry.substr(0, slash);
        const PatternInfo *p = find_pattern(name);
        if (p == nullptr)
            return fail("unknown pattern " + name + " (see --list)");
        if (slash == std::string::npos) {
            if (!add(*p, defaults(*p)))
                return false;
        } else {
            Mode m;
            if (!parse_mode(entry.substr(slash + 1), m))
                return fail("unknown mode in " + entry);
            if (!add(*p, {m}))
                return false;
        }
    }
    if (opt.cases.empty())
        return fail("no cases selected");
    return true;
}

} // namespace bench
