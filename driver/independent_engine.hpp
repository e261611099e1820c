// The independent engine (ARCHITECTURE.md D16): the only place that decides and performs a rank's
// own I/O - an independent transfer, and each rank's part of a collective transfer on the
// independent route. It never changes the shared handle's file view (a collective call), so any
// rank may call it alone. Strategies (independent_plan.hpp decides, this file carries out):
//
//   Direct      one MPI call: the file side is one range;
//   SieveTyped  short blocks dense enough to sieve: the extent read into one buffer, the selected
//               bytes copied by MPI's datatype engine, and for a write the extent written back;
//   Staged      everything else: segments in ascending file order, a group at a time through the
//               staging buffer: long segments straight from/to memory, holes bridged where the
//               cost model says so, unbridged small writes as one call through the rank's own view.
//
// Writes bridge holes (read them back and rewrite them unchanged) only when the caller says no
// other rank writes inside the request's extent meanwhile (`may_bridge`).
#pragma once

#include "independent_plan.hpp"
#include "mpi_io.hpp"
#include "request.hpp"
#include "scratch_buffer.hpp"

#include <optional>
#include <vector>

namespace mpiio {

class IndependentEngine {
public:
    IndependentEngine() = default;
    IndependentEngine(const IndependentEngine &) = delete;
    IndependentEngine &operator=(const IndependentEngine &) = delete;

    // Local. The MPI-IO choke point and the limits (from the file's configuration); once, at open.
    void bind(MpiIo *io, const IndependentLimits &limits);

    // Local. Moves the request's bytes with independent calls. Reads past the end of the file read
    // zeros; a failed or short write throws (the caller remembers it: failed_writes.hpp).
    void move(IoRequest &request, Direction dir, bool may_bridge);

    // Local. Drops buffers beyond the staging buffer's size after an operation that needed them.
    void trim();

private:
    void direct(IoRequest &request, Direction dir);
    void sieve_typed(IoRequest &request, Direction dir);
    void staged(IoRequest &request, Direction dir, bool may_bridge);
    void add_segment(haddr_t addr, char *memory, std::size_t len, Direction dir, bool may_bridge);
    void flush_group(Direction dir, bool may_bridge);
    void run_group_calls(const std::vector<GroupCall> &calls, Direction dir);
    template <Direction D>
    bool starts_new_call(haddr_t prev_end, bool prev_direct, haddr_t addr, std::size_t len) const;
    template <Direction D> void stream_segments(const IoRequest &request, bool may_bridge);
    void write_stretch();
    void view_write(const GroupCall &call);

    MpiIo *io_ = nullptr;
    IndependentLimits limits_;
    ScratchBuffer staging_, packed_;    // reused between operations (no fresh pages each time)
    std::vector<PlannedSegment> group_; // the staged group being collected
    std::vector<char *> group_memory_;  // its segments' memory
    std::optional<bool> view_usable_;   // asked once per write that could use it
    bool stretch_by_stretch_ = false;   // this write goes stretch by stretch, without a plan
    bool regular_runs_ = false;         // this write's file runs are regular (a view is an hvector)
    std::vector<int> view_lengths_;     // a view write's block lengths and offsets
    std::vector<MPI_Aint> view_offsets_;
};

} // namespace mpiio
