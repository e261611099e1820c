// The file-per-process ceiling: the same ranks writing and reading the same bytes as the other
// drivers, each rank into a file of its own with POSIX calls (pwrite/pread, one call per access
// and time step, fsync before close). No shared file, no locks between clients, no MPI-IO layer:
// what the storage gives when nobody shares a file, the ceiling a shared-file driver is measured
// against on shared storage (column mpiio/fpp).
#pragma once

#include "kernel.hpp"

#include <string>
#include <vector>

namespace bench {

class FppKernel {
public:
    // Local: takes the raw kernel's plans (what memory each access moves), built collectively.
    FppKernel(const CaseSpec &c, const std::vector<RawPlan> &plans);
    // Collective (a barrier before the phase, the times' reduction after it). Rank r uses the file
    // `path`.r; a case the ceiling does not cover (compressed chunks: no rank's bytes are its own
    // before the library packs them) is not run and refusal() says why.
    PhaseTimes write(const std::string &path, Buffers &buf) { return run(true, path, buf); }
    PhaseTimes read(const std::string &path, Buffers &buf) { return run(false, path, buf); }
    const std::string &refusal() const { return refusal_; }
    // Collective. Every rank removes its own file, then waits for the others.
    static void remove(const std::string &path);
    static std::string own_file(const std::string &path); // `path`.<rank>

private:
    PhaseTimes run(bool write, const std::string &path, Buffers &buf);
    const CaseSpec &c_;
    const std::vector<RawPlan> &plans_;
    std::string refusal_;
    std::vector<unsigned char> stage_; // the access's bytes packed, where memory is not contiguous
};

} // namespace bench
