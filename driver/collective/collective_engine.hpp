// The collective engine (docs/decisions.md D12, D16): a collective transfer, which every rank makes
// once per operation (possibly with nothing to move), in three steps:
//
//   1. exchange (collective): each rank's extent, whether it is contiguous, whether its bytes can
//      move with independent calls, and its error (a failed preparation, or an earlier failed
//      write: failed_writes.hpp), folded into one MPI_Allreduce of a fixed size; only when that
//      cannot decide, an MPI_Allgather of every rank's extent (route.hpp). If any rank failed,
//      every rank throws here, before any byte moves;
//   2. route (local, identical everywhere): route::decide_from_summary / route::decide;
//   3. move: the independent route - each rank's request through the independent engine (writes
//      bridge holes only when no two ranks' extents overlap), then an MPI_Ibarrier that the file's
//      next transfer completes first; or the aggregating route (aggregate_route.cpp) - a few
//      aggregator ranks move every rank's bytes window by window, then one agreement; or the MPI
//      route - the file extended to the EOA when it grew (holes then read as zeros), one
//      MPI_File_{read,write}_at_all with the byte view when every rank is contiguous, else
//      set_view + *_all + view reset.
//
// The library's "rank 0 reads, the others receive" request skips all that: rank 0 reads through
// the independent engine and broadcasts.
#pragma once

#include "aggregate/aggregation.hpp"
#include "aggregate/window_cache.hpp"
#include "aggregate/write_behind.hpp"
#include "collective/route.hpp"
#include "common/mpi_handle.hpp"
#include "independent/independent_engine.hpp"
#include "io/failed_writes.hpp"
#include "io/file_extent.hpp"
#include "io/mpi_io.hpp"
#include "io/request.hpp"
#include "io/scratch_buffer.hpp"
#include "settings/config.hpp"
#include "settings/tuning.hpp"

#include <mpi.h>

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace mpiio {

// What a collective transfer needs of its file, bound once at open (the file owns every part).
struct CollectiveContext {
    MPI_Comm comm = MPI_COMM_NULL; // the file's communicator
    int rank = 0, size = 1;
    MPI_Info hints = MPI_INFO_NULL; // the hints in effect, for the MPI route's file views
    CollectiveRoute route = CollectiveRoute::Auto;
    // collective_route=aggregate_interleaved: the shortest block a rank writes on its own
    // (route::policy_for), what a call is worth on the storage (sieve_gap as it resolved it).
    std::size_t route_min_block = 0;
    unsigned read_overlap_limit = tuning::kReadOverlapLimit;
    bool host_copies = true;       // config host_copies
    bool read_only = false;        // writes are refused on every rank together
    bool sync_after_write = false; // the MPI-IO layer needs MPI_File_sync for visibility
    MpiIo *io = nullptr;
    IndependentEngine *independent = nullptr;
    FailedWrites *failed_writes = nullptr;
    FileExtent *extent = nullptr; // the MPI route extends the file to the EOA before it writes
    // The aggregating route's window: the most bytes an aggregator holds at once, whole stripe
    // units of the file (config staging_buffer rounded to the layout: aggregation::window_for).
    std::size_t aggregation_window = tuning::kStagingBuffer;
    // The most bytes an aggregator keeps of earlier transfers (config window_cache; 0: none), and
    // of deferred writes.
    std::size_t window_cache = tuning::kWindowCache;
    // Whether a rewrite of the bytes the last collective transfer moved is deferred (config
    // write_behind as the storage resolved it; write_behind.hpp).
    bool write_behind = false;
    // What decides how many ranks aggregate (aggregation::aggregator_count): config aggregators
    // (0: unset), the application's cb_nodes hint (0: none), the servers the stripes go round
    // (0: not a layout whose servers lock their stripes). Rank 0's at open, so every rank's.
    std::size_t aggregators_asked = 0;
    std::size_t cb_nodes = 0;
    std::size_t server_count = 0;
};

class CollectiveEngine {
public:
    CollectiveEngine() = default;
    CollectiveEngine(const CollectiveEngine &) = delete;
    CollectiveEngine &operator=(const CollectiveEngine &) = delete;

    // Local. For stats=summary: the aggregators chosen and their window ("not used" before the
    // file's first aggregated transfer).
    std::string describe_aggregation() const;

    // Local. The file's parts the engine works with; once, at open.
    void bind(const CollectiveContext &context) {
        ctx_ = context;
        window_cache_.set_limit(ctx_.host_copies ? ctx_.window_cache : 0); // (a copy is a CPU copy)
    }

    // Collective. `mine` is this rank's part (empty when `local_error` says its preparation failed:
    // the rank then joins with nothing and every rank fails). An error while moving fails this rank
    // at once; a failed write also fails every rank's next collective step on the file. Settles
    // first (a callback's later steps are not settled by the callback's entry).
    void transfer(IoRequest &mine, Direction dir, std::optional<Error> local_error);

    // Local (completes the barrier every rank posted). Waits until every rank has finished the
    // last collective write that took the independent route; a no-op when there is none. Every
    // callback, flush, truncate and close calls it first, and every collective step of a callback
    // before it posts its own barrier: HDF5 follows collective writes with
    // independent writes to the same bytes (a chunk filled collectively, then written by another
    // rank), which must not overtake them. (Inline: it runs before every callback, a file open's
    // metadata reads included, and almost always has nothing to wait for.)
    void settle() {
        if (pending_barrier_ != MPI_REQUEST_NULL)
            wait_for_barrier();
    }

    // Local. Before an independent call of this rank on file bytes [lo, hi) (`write`: a write)
    // while a deferred collective write is pending (write_behind.hpp): when the rank's own kept
    // bytes lie there, it writes them itself first, so that the call sees them; a write is noted,
    // so that the write-out never overwrites it with older bytes. A failed write throws here and
    // fails every rank's next collective step (failed_writes.hpp). (Inline: every independent call
    // asks, and almost never has anything to do.)
    void before_independent(haddr_t lo, haddr_t hi, bool write) {
        if (write_behind_.active())
            before_independent_slow(lo, hi, write);
    }
    // The same for a request: a write notes each of its segments (not the span between them).
    void before_independent(const IoRequest &request, bool write) {
        if (!write_behind_.active() || request.empty())
            return;
        before_independent_slow(request.lo(), request.end(), false);
        if (write)
            request.for_each_segment([&](haddr_t addr, const char *, std::size_t len) {
                write_behind_.note_independent_write(addr, addr + len);
            });
    }

    // Local. The file's MPI handle goes to the application (H5Fget_vfd_handle), which may read and
    // write through it, and sync it, without the driver seeing: this rank's own kept bytes of a
    // deferred write go to the file now (it sees its own writes through the handle), and from the
    // next collective step on (where every rank learns it) the file keeps no copies of windows and
    // defers no write; the other ranks' kept bytes reach the file at that step, or at H5Fflush.
    void hand_out_handle();

    // Collective (every rank, whether or not it holds anything: the same state everywhere). Writes
    // what a deferred collective write left in the aggregators' memory, leaving out the pieces of
    // ranks that wrote their own and every range an independent write touched since; a no-op when
    // nothing is pending. Flush, truncate and close call
    // it, and every collective transfer that does not continue the deferred one. If any rank
    // failed, every rank throws.
    void write_out_pending();

private:
    void wait_for_barrier();
    // A collective transfer's route and the facts of every rank's part it was decided on.
    struct Route {
        route::Decision decision;
        bool individual = false;
        bool no_holes = false;       // route::gapless() or route::covers_its_range() of the ranks' bytes
        std::int64_t lo = 0, hi = 0; // every rank's extents together (lo == hi: nothing moves)
        haddr_t unwritten_from = 0;  // no rank ever wrote at or past it (ExtentSummary::written_end)
        bool changed = false; // some rank changed or synced the file since the last aggregated transfer
        TransferShape shape;  // lo, hi and the bytes every rank moves together
    };

    Route exchange(const IoRequest &mine, Direction dir, std::optional<Error> local_error);
    void broadcast_read(IoRequest &mine, std::optional<Error> local_error);
    // `no_holes`: the ranks' bytes leave no hole in their range (route::gapless,
    // route::covers_its_range), so a write skips extend_to_eoa.
    void mpi_route(IoRequest &mine, Direction dir, bool all_contiguous, bool individual, bool no_holes);
    void independent_route(IoRequest &mine, Direction dir, bool disjoint, haddr_t unwritten_from);
    // aggregate_route.cpp. [lo, hi): every rank's extents together; no rank ever wrote at or past
    // `unwritten_from` (the aggregators' holes there are zeros, not read back). `shape`: the
    // transfer's (write_behind.hpp); `defer`: a write the aggregators keep instead of writing it.
    void aggregate_route(IoRequest &mine, Direction dir, std::uint64_t lo, std::uint64_t hi,
                         haddr_t unwritten_from, const TransferShape &shape, bool defer);
    // write_behind_route.cpp. Whether this write is deferred (the same answer on every rank).
    bool may_defer(const Route &r, Direction dir) const;
    void before_independent_slow(haddr_t lo, haddr_t hi, bool write);
    // Local. This rank writes its own part of the pending write itself (left out of the write-out).
    void write_own_runs(std::span<const Run> runs);
    // What a write-out of kept windows leaves out: the pieces of ranks with own_written[r] set
    // (empty: none), the ranges in `written_since` (ascending, merged); and the written end.
    struct WriteOut {
        std::vector<std::int64_t> own_written;
        std::vector<aggregation::Range> written_since;
        haddr_t unwritten_from = 0;
    };
    // Local. An aggregator writes one kept window / the given ones / all it keeps (then forgets
    // them); the first error, not agreed on.
    std::optional<Error> write_window(WriteBehind::Window &w, const WriteOut &out);
    std::optional<Error> write_windows(std::vector<WriteBehind::Window> &windows, const WriteOut &out);
    std::optional<Error> write_all_windows(const WriteOut &out);
    // Local (an aggregator, in a round of a deferred write). Keeps the round's window in place of
    // the earlier one (which is written first unless the new one holds all its bytes); false when
    // it could not be kept (then it is written as usual) or `error` got set.
    bool keep_deferred_window(std::uint64_t round, std::uint64_t window_lo, const char *window,
                              std::uint64_t span, std::span<const aggregation::Group> from,
                              std::span<const aggregation::Range> ranges, std::span<const int> rank_of,
                              haddr_t unwritten_from, std::optional<Error> &error);
    // Local, after a deferred write's rounds (before its agreement): an aggregator writes the
    // earlier windows the write did not replace, and, when the transfer failed, everything it
    // keeps (a failed transfer keeps nothing).
    void finish_deferred(bool aggregator, haddr_t unwritten_from, std::optional<Error> &error);
    // Local, after a deferred write's agreement, on a rank whose copy of its own part could not be
    // kept: it writes the part from the caller's buffer (after the agreement: no aggregator is
    // still writing an earlier window over it) and is left out of the write-out.
    void write_own_part_without_copy();
    // aggregate_route.cpp. An aggregator's receives of a write window whose ranks' pieces overlap.
    void receive_batches(char *window, std::uint64_t window_lo, std::uint64_t received,
                         const aggregation::WindowPieces &pieces);
    const std::vector<int> &aggregators();
    std::optional<Error> extend_to_eoa();
    void sync_after_collective_write(std::optional<Error> &error);

    void make_summary_reduction();

    CollectiveContext ctx_;

    MPI_Request pending_barrier_ = MPI_REQUEST_NULL;
    std::vector<std::int64_t> extents_; // every rank's words of the full exchange
    Datatype summary_type_;             // step 1's reduction (route::ExtentSummary)
    Op summary_op_;
    // The aggregating route's state: its ranks (found on first use) and the number of nodes they
    // were chosen from, and memory reused between transfers.
    std::vector<int> aggregators_;
    std::size_t nodes_ = 0;
    std::vector<aggregation::Segment> segments_;
    std::vector<Run> runs_;
    ScratchBuffer window_, packed_, staging_;
    std::size_t staging_bytes_ = 0; // what receive_batches staged in the current window
    // The aggregators' copies of earlier transfers, and this rank's MpiIo::changes() when the last
    // aggregated transfer ended: a count that moved since says the copies may be stale.
    WindowCache window_cache_;
    std::uint64_t changes_seen_ = 0;
    // The deferred write, and the shape of the last collective transfer when it was an aggregated
    // read or a deferred write (only a rewrite of those bytes is deferred).
    WriteBehind write_behind_;
    std::optional<TransferShape> previous_;
    // The range and bytes of the last collective transfer, whatever its route (route::policy_for:
    // under aggregate_interleaved a transfer of the same range aggregates).
    std::optional<TransferShape> last_shape_;
    // hand_out_handle() ran on this rank; some rank's did, as every rank learnt it (the route
    // summary): no copies, no deferred writes from then on.
    bool handle_out_ = false;
    bool copies_off_ = false;
};

} // namespace mpiio
