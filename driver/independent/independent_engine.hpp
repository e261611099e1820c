// The independent engine (docs/decisions.md D16): the only place that decides and performs a rank's
// own I/O - an independent transfer, and each rank's part of a collective transfer on the
// independent route. It never changes the shared handle's file view (a collective call), so any
// rank may call it alone. Strategies (independent_plan.hpp decides; independent_engine.cpp carries
// out OneCall and RunByRun, sieve.cpp, staged.cpp and view_write.cpp the others):
//
//   OneCall     one MPI call: the file side is one range;
//   SieveTyped  short blocks dense enough to sieve: the extent read into one buffer, the selected
//               bytes copied by MPI's datatype engine, and for a write the extent written back;
//   Staged      everything else: segments in ascending file order, a group at a time through the
//               staging buffer: long segments straight from/to memory, holes bridged where the
//               cost model says so, unbridged small writes as one call through the rank's own view;
//   RunByRun    host_copies=off: a call per run, straight between the caller's memory and the file.
//
// Writes bridge holes (read them back and rewrite them unchanged) only when the caller says no
// other rank writes inside the request's extent meanwhile (`may_bridge`).
//
// The rank's own handle (view writes) is a second MPI_File_open of the file on this rank, with
// the MPI-IO layer's side files. Raw data opens it: a time step's strided writes repeat the view
// write for as long as the file is open. The library's metadata (IoRequest::metadata: the
// metadata cache's collective flush, a few short pieces per rank, at a flush or close) never
// does: a call per piece at explicit offsets, as the built-in driver's independent metadata
// writes, costs less than the open; it goes through the view only when raw data has opened it.
#pragma once

#include "independent/independent_plan.hpp"
#include "io/mpi_io.hpp"
#include "io/request.hpp"
#include "io/scratch_buffer.hpp"

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
    // zeros; a failed or short write throws (the caller remembers it: failed_writes.hpp). A write's
    // holes at or past `unwritten_from` (bytes no rank of the file ever wrote: a collective
    // transfer's summary knows it, a rank alone does not) are zeros: bridged without reading them
    // back (on a network file system a read is a round trip; appending time steps reads nothing),
    // and a read wholly there is zeros without a call.
    void move(IoRequest &request, Direction dir, bool may_bridge, haddr_t unwritten_from = HADDR_MAX);

    // Local. Drops buffers beyond the staging buffer's size after an operation that needed them.
    void trim();

private:
    // One staged operation's mode: decided when it starts and passed down its calls.
    struct StagedOperation {
        Direction dir = Direction::Read;
        bool may_bridge = false;
        bool regular_runs = false;       // the file runs are regular (a view of them is an hvector)
        bool may_open_view = true;       // raw data may open the rank's own handle, metadata not
        bool stretch_by_stretch = false; // a write that may neither bridge nor use a view: no plan
        std::optional<bool> view_usable; // asked once, when a plan first wants a view write
    };

    // independent_engine.cpp
    void one_call(IoRequest &request, Direction dir);
    void read_back(haddr_t addr, char *buffer, std::size_t len);
    haddr_t zeros_from() const;
    bool reads_only_zeros(const IoRequest &request) const;
    void run_by_run(const IoRequest &request, Direction dir);
    // sieve.cpp
    void sieve_typed(IoRequest &request, Direction dir);
    // staged.cpp
    void staged(IoRequest &request, Direction dir, bool may_bridge);
    template <Direction D>
    bool starts_new_call(haddr_t prev_end, bool prev_own_call, haddr_t addr, std::size_t len) const;
    template <Direction D> void stream_segments(const IoRequest &request, StagedOperation &op);
    void add_segment(haddr_t addr, char *memory, std::size_t len, StagedOperation &op);
    void flush_group(StagedOperation &op);
    void run_group_calls(const std::vector<GroupCall> &calls, Direction dir);
    void write_stretch();
    // view_write.cpp
    void view_write(const GroupCall &call);

    MpiIo *io_ = nullptr;
    IndependentLimits limits_;
    haddr_t unwritten_from_ = HADDR_MAX; // the operation's (move)
    // Memory reused between operations (no fresh pages each time).
    ScratchBuffer staging_, packed_;
    std::vector<PlannedSegment> group_; // the staged group being collected
    std::vector<char *> group_memory_;  // its segments' memory
    std::vector<int> view_lengths_;     // a view write's block lengths and offsets
    std::vector<MPI_Aint> view_offsets_;
};

} // namespace mpiio
