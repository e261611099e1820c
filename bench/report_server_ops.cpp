// The servers' operations of a run (--server-ops), rank 0: server-ops.md (the table the published
// pages show beside the times) and server-ops.csv (every operation name per driver and phase).
#include "report.hpp"

#include <cstdio>

namespace bench {

namespace {

const Driver kCounted[] = {Driver::Mpio, Driver::Mpiio, Driver::Raw, Driver::Mpio2};

const ServerOps &ops_of(const CaseResult &c, Driver d, char p) {
    const DriverResult &r = c.drv[static_cast<size_t>(d)];
    return p == 'w' ? r.wops : r.rops;
}

// Both phases of a driver, 0 when it was not counted.
uint64_t both_phases(const CaseResult &c, Driver d) {
    return ops_of(c, d, 'w').total() + ops_of(c, d, 'r').total();
}

std::string count_cell(const CaseResult &c, Driver d, char p) {
    const ServerOps &o = ops_of(c, d, p);
    return o.counted ? std::to_string(o.total()) : "-";
}

// "reads / writes / locks / metadata" over both phases.
std::string kinds_cell(const CaseResult &c, Driver d) {
    const ServerOps &w = ops_of(c, d, 'w'), &r = ops_of(c, d, 'r');
    if (!w.counted)
        return "-";
    return std::to_string(w.reads + r.reads) + " / " + std::to_string(w.writes + r.writes) + " / " +
           std::to_string(w.locks + r.locks) + " / " + std::to_string(w.metadata + r.metadata);
}

} // namespace

bool server_ops_counted(const std::vector<CaseResult> &results) {
    for (const CaseResult &c : results)
        if (c.drv[static_cast<size_t>(Driver::Mpio)].wops.counted)
            return true;
    return false;
}

std::string server_ops_ratio(const CaseResult &c, Driver a, Driver b) {
    const uint64_t x = both_phases(c, a), y = both_phases(c, b);
    if (!ops_of(c, a, 'w').counted || !ops_of(c, b, 'w').counted || y == 0)
        return "-";
    return fmt("%.2f", static_cast<double>(x) / static_cast<double>(y));
}

void write_server_ops_markdown(FILE *f, const std::vector<CaseResult> &results) {
    std::fprintf(
        f, "Operations the storage servers handled (summed over the servers, from their own counters), in "
           "each driver's first write and read of the case (the warm-up round; counters cleared before a "
           "phase and read after it, outside the timing). **mpiio/mpio**: the plugin's operations over "
           "the built-in driver's, both phases (< 1: lighter on the servers); **A/A**: the built-in driver's "
           "second run over its first. Kinds, both phases: reads / writes / locks (byte-range locks and "
           "the servers' own per-update locks) / metadata (lookups, opens, stats, attribute updates, "
           "...).\n\n"
           "| case | write mpio | write mpiio | write raw | read mpio | read mpiio | read raw | "
           "**mpiio/mpio** | A/A mpio2/mpio | mpio kinds | mpiio kinds |\n"
           "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n");
    for (const CaseResult &c : results)
        std::fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | **%s** | %s | %s | %s |\n", c.id.c_str(),
                     count_cell(c, Driver::Mpio, 'w').c_str(), count_cell(c, Driver::Mpiio, 'w').c_str(),
                     count_cell(c, Driver::Raw, 'w').c_str(), count_cell(c, Driver::Mpio, 'r').c_str(),
                     count_cell(c, Driver::Mpiio, 'r').c_str(), count_cell(c, Driver::Raw, 'r').c_str(),
                     server_ops_ratio(c, Driver::Mpiio, Driver::Mpio).c_str(),
                     server_ops_ratio(c, Driver::Mpio2, Driver::Mpio).c_str(),
                     kinds_cell(c, Driver::Mpio).c_str(), kinds_cell(c, Driver::Mpiio).c_str());
}

void write_server_ops_csv(FILE *f, const std::vector<CaseResult> &results) {
    std::fprintf(f, "case,driver,phase,reads,writes,locks,metadata,total,operations\n");
    for (const CaseResult &c : results)
        for (Driver d : kCounted)
            for (char p : {'w', 'r'}) {
                const ServerOps &o = ops_of(c, d, p);
                if (!o.counted)
                    continue;
                std::string each; // "FSTAT=4;WRITE=12"
                for (const auto &[fop, n] : o.by_fop)
                    each += (each.empty() ? "" : ";") + fop + "=" + std::to_string(n);
                std::fprintf(f, "%s,%s,%s,%llu,%llu,%llu,%llu,%llu,%s\n", c.id.c_str(), driver_name(d),
                             p == 'w' ? "write" : "read", (unsigned long long)o.reads,
                             (unsigned long long)o.writes, (unsigned long long)o.locks,
                             (unsigned long long)o.metadata, (unsigned long long)o.total(), each.c_str());
            }
}

} // namespace bench
