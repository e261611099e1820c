// Server operations per phase: what the storage's servers handled while one driver wrote or read a
// case's file, counted by an outside command (scripts/dfs.sh's controls: `<ctl> profile-start`
// clears the servers' counters, `<ctl> profile-counts` prints "<FOP> <count>" lines). Counts do not
// depend on the machine's noise: they tell the load a driver puts on a shared file system, which
// every other user of it pays too.
#pragma once

#include <cstdint>
#include <map>
#include <string>

namespace bench {

// Operations by kind, summed over the servers. A kind is a category of the file system's
// operation names (GlusterFS's FOPs): reads (READ), writes (WRITE), locks (LK: byte-range locks
// the clients asked for; INODELK, FINODELK, ENTRYLK, FENTRYLK: the ones the servers' translators
// take per update), metadata (everything else: LOOKUP, OPEN, CREATE, FSTAT, FLUSH, FXATTROP, ...).
struct ServerOps {
    bool counted = false;
    uint64_t reads = 0, writes = 0, locks = 0, metadata = 0;
    std::map<std::string, uint64_t> by_fop; // every operation name as the servers reported it
    uint64_t total() const { return reads + writes + locks + metadata; }
    void add(const std::string &fop, uint64_t n);
};

// Counts around phases through `ctl` ("" disables it: every call is then a no-op and nothing is
// counted). Both calls are collective (a barrier, rank 0 runs the command, a barrier), so no
// rank's operations spill into another phase's count; they stay outside the timed phases.
class ServerOpsCounter {
public:
    explicit ServerOpsCounter(std::string ctl) : ctl_(std::move(ctl)) {}
    bool enabled() const { return !ctl_.empty(); }
    void start() const;
    // The operations since start(), on rank 0 (other ranks get an uncounted ServerOps). A command
    // that fails ends the program with a message: a table with silently missing counts would
    // read as zero load.
    ServerOps stop() const;

private:
    std::string ctl_;
};

} // namespace bench
