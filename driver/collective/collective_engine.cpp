// See collective_engine.hpp for the steps.
#include "collective/collective_engine.hpp"

#include "collective/route.hpp"
#include "hdf5/hdf5_internals.hpp"

#include <algorithm>
#include <array>

namespace mpiio {
namespace {

// MPI's user-function signature: inout[i] = in[i] o inout[i], `in` holding the lower ranks.
void combine_summaries(void *in, void *inout, int *count, MPI_Datatype *) {
    const auto *left = static_cast<const route::ExtentSummary *>(in);
    auto *right = static_cast<route::ExtentSummary *>(inout);
    for (int i = 0; i < *count; ++i)
        route::combine(left[i], right[i]);
}

// The MPI route's request of a rank with nothing to move (or whose part failed).
const MpiDescription kNothing{};

} // namespace

// Local. The datatype of route::ExtentSummary and its non-commutative reduction (MPI applies it in
// rank order, which the "ascending with the rank" test needs), made on the file's first collective
// transfer and freed with the file.
void CollectiveEngine::make_summary_reduction() {
    static_assert(sizeof(route::ExtentSummary) == route::kSummaryWords * sizeof(std::int64_t));
    check_mpi(MPI_Type_contiguous(route::kSummaryWords, MPI_INT64_T, summary_type_.out()),
              "MPI_Type_contiguous");
    check_mpi(MPI_Type_commit(summary_type_.ptr()), "MPI_Type_commit");
    check_mpi(MPI_Op_create(combine_summaries, 0 /* not commutative */, summary_op_.out()), "MPI_Op_create");
}

void CollectiveEngine::wait_for_barrier() {
    check_mpi(MPI_Wait(&pending_barrier_, MPI_STATUS_IGNORE), "MPI_Wait (barrier after a collective write)");
}

// Collective. Step 1 and 2: the summary reduction (the error agreement rides on it), the full
// exchange only when the summary cannot decide.
CollectiveEngine::Route CollectiveEngine::exchange(const IoRequest &mine, Direction dir,
                                                   std::optional<Error> local_error) {
    Route r;
    r.individual = hdf5_internals::collective_opt() != H5FD_MPIO_COLLECTIVE_IO;
    const std::uint64_t limit = dir == Direction::Read ? ctx_.read_overlap_limit : 1;
    const bool need_disjoint = dir == Direction::Write;
    std::int64_t flags = 0;
    if (mine.file_contiguous())
        flags |= route::kContiguous;
    if (!mine.needs_view())
        flags |= route::kIndependentCapable;
    const auto lo = static_cast<std::int64_t>(mine.empty() ? 0 : mine.lo());
    const auto hi = static_cast<std::int64_t>(mine.empty() ? 0 : mine.end());
    local_error = ctx_.failed_writes->with(std::move(local_error));
    route::ExtentSummary summary = route::summarize(lo, hi, flags, ctx_.rank, local_error.has_value());
    summary.written_end = static_cast<std::int64_t>(ctx_.io->written_end());
    summary.changed = ctx_.io->changes() != changes_seen_ ? 1 : 0;
    summary.bytes = static_cast<std::int64_t>(mine.bytes());
    summary.handle_out = handle_out_ ? 1 : 0;
    if (!summary_op_)
        make_summary_reduction(); // before the call: every rank needs it, none may skip the call
    route::ExtentSummary all;
    check_mpi(MPI_Allreduce(&summary, &all, 1, summary_type_.get(), summary_op_.get(), ctx_.comm),
              "MPI_Allreduce (route summary and error agreement)");
    ctx_.io->count_collective_call();
    summary = all;
    if (summary.handle_out != 0 && !copies_off_) {
        copies_off_ = true;
        window_cache_.set_limit(0);
    }
    if (summary.changed != 0)
        window_cache_.clear();
    if (summary.failed_rank != INT64_MAX)
        raise_agreed_failure(ctx_.comm, static_cast<int>(summary.failed_rank), local_error);
    r.no_holes = route::gapless(summary) || route::covers_its_range(summary);
    r.unwritten_from = static_cast<haddr_t>(summary.written_end);
    r.changed = summary.changed != 0;
    if (summary.any) {
        r.lo = summary.min_lo;
        r.hi = summary.max_hi;
    }
    r.shape = TransferShape{r.lo, r.hi, summary.bytes};
    const bool repeats_last = last_shape_ == r.shape; // (the summary's: the same on every rank)
    last_shape_ = r.shape;
    const CollectiveRoute policy =
        route::policy_for(summary, ctx_.route, static_cast<std::int64_t>(ctx_.route_min_block),
                          dir == Direction::Write, repeats_last);
    if (auto d = route::decide_from_summary(summary, policy, r.individual, limit, need_disjoint)) {
        r.decision = *d;
        return r;
    }
    const std::array<std::int64_t, route::kWords> words{lo, hi, flags};
    extents_.resize(route::kWords * static_cast<std::size_t>(ctx_.size));
    check_mpi(MPI_Allgather(words.data(), route::kWords, MPI_INT64_T, extents_.data(), route::kWords,
                            MPI_INT64_T, ctx_.comm),
              "MPI_Allgather (route extents)");
    ctx_.io->count_collective_call();
    r.decision = route::decide(extents_, policy, r.individual, limit);
    return r;
}

void CollectiveEngine::transfer(IoRequest &mine, Direction dir, std::optional<Error> local_error) {
    ctx_.io->count_collective_transfer();
    // A callback of several collective steps (a multi-chunk plan) posts a barrier per step: each
    // step completes the last one's before it posts its own (settle), and its error is this rank's.
    if (!local_error)
        local_error = capture([&] { settle(); });
    if (!local_error && dir == Direction::Write && ctx_.read_only)
        local_error = Error(ErrorKind::Config, "write to a file opened read-only");
    if (local_error)
        mine = IoRequest{};
    if (dir == Direction::Read && hdf5_internals::collective_opt() == H5FD_MPIO_COLLECTIVE_IO &&
        hdf5_internals::rank0_bcast()) {
        previous_.reset();
        write_out_pending(); // (rank 0 reads the file alone)
        broadcast_read(mine, std::move(local_error));
        return;
    }
    Route r = exchange(mine, dir, std::move(local_error));
    const bool defer = may_defer(r, dir);
    if (write_behind_.active()) {
        // Only a read or a deferred rewrite of the same bytes, with no rank's write in between,
        // leaves the deferred write where it is; anything else sees the file with it written. So
        // does MPI's atomic mode (H5Fset_mpi_atomicity reaches the MPI handle without the driver:
        // the first collective step after it writes everything out, and defers nothing), and the
        // file's handle in the application's hands.
        bool atomic = true; // (the same on every rank: the atomicity is set collectively)
        (void)capture([&] { atomic = ctx_.io->atomic(); });
        const bool continues = r.decision.aggregate && !r.changed && !atomic && !copies_off_ &&
                               r.shape == write_behind_.shape() && (dir == Direction::Read || defer);
        if (!continues) {
            const auto pending_end = static_cast<haddr_t>(write_behind_.shape().hi);
            write_out_pending();
            r.unwritten_from = std::max(r.unwritten_from, pending_end);
        }
    }
    previous_.reset();
    if (r.decision.aggregate) {
        ctx_.io->count_route(RouteTaken::Aggregated);
        aggregate_route(mine, dir, static_cast<std::uint64_t>(r.lo), static_cast<std::uint64_t>(r.hi),
                        r.unwritten_from, r.shape, defer);
        return;
    }
    if (!r.decision.independent) {
        ctx_.io->count_route(RouteTaken::Mpi);
        mpi_route(mine, dir, r.decision.all_contiguous, r.individual, r.no_holes);
        return;
    }
    ctx_.io->count_route(RouteTaken::Independent);
    independent_route(mine, dir, r.decision.disjoint, r.unwritten_from);
}

// Collective. The library's "rank 0 reads, the others receive" request: it asks for it when every
// rank reads all of a small contiguous dataset (H5D__mpio_opt_possible), and the built-in driver
// honours it in read, read_vector and read_selection. It also decides correctness past the
// physical EOF: there a collective MPI-IO read (ROMIO and OMPIO alike) can report a full count and
// leave stale bytes, where rank 0's independent read reports the short count that gets zeroed.
void CollectiveEngine::broadcast_read(IoRequest &mine, std::optional<Error> local_error) {
    if (!local_error && ctx_.rank == 0)
        local_error = capture([&] {
            if (mine.needs_view())
                throw Error(ErrorKind::Unsupported, "rank-0 broadcast read of a non-contiguous file range");
            ctx_.independent->move(mine, Direction::Read, true);
        });
    const MpiDescription *d = &kNothing;
    if (!local_error)
        local_error = capture([&] { d = &mine.mpi(); });
    agree(ctx_.comm, ctx_.failed_writes->with(std::move(local_error)));
    check_mpi(MPI_Bcast(d->memory.base, d->memory.count, d->memory.type, 0, ctx_.comm), "MPI_Bcast (data)");
    ctx_.io->count_broadcast_read(ctx_.rank != 0 ? mine.bytes() : 0);
}

// Collective. MPI collective I/O of every rank's request; a rank whose part failed joins every
// call with nothing and throws at the end.
void CollectiveEngine::mpi_route(IoRequest &mine, Direction dir, bool all_contiguous, bool individual,
                                 bool no_holes) {
    MpiIo &io = *ctx_.io;
    const MpiDescription *d = &kNothing;
    std::optional<Error> local = capture([&] { d = &mine.mpi(); });
    if (local)
        d = &kNothing;
    auto keep_first = [&](std::optional<Error> e) {
        if (!local)
            local = std::move(e);
    };
    if (dir == Direction::Write && !no_holes) // (no hole: nothing the layer could read back)
        keep_first(extend_to_eoa());
    const bool view = !all_contiguous;
    if (view)
        keep_first(capture([&] { io.set_view(d->view_disp, d->file_type, ctx_.hints); }));
    const MPI_Offset offset = view ? 0 : d->view_disp;
    const MemoryBuffer &memory = local ? kNothing.memory : d->memory;
    if (dir == Direction::Read)
        keep_first(capture([&] { io.shared_read(offset, memory, individual); }));
    else
        keep_first(capture([&] { io.shared_write(offset, memory, individual, mine.end()); }));
    if (view)
        keep_first(capture([&] { io.reset_view(ctx_.hints); }));
    if (dir == Direction::Write && !individual)
        sync_after_collective_write(local);
    if (local) {
        if (dir == Direction::Write)
            ctx_.failed_writes->remember(*local);
        throw *local;
    }
    if (dir == Direction::Read)
        mine.copy_duplicates(!ctx_.host_copies);
}

// Collective (the barrier). Each rank moves its own request; reads may read across holes (they
// only read; a read wholly at or past `unwritten_from` is zeros without a call), writes rewrite
// holes only inside disjoint extents (those at or past `unwritten_from` as zeros, without reading
// them back).
void CollectiveEngine::independent_route(IoRequest &mine, Direction dir, bool disjoint,
                                         haddr_t unwritten_from) {
    MpiIo &io = *ctx_.io;
    if (dir == Direction::Read) {
        ctx_.independent->move(mine, dir, true, unwritten_from);
        return;
    }
    std::optional<Error> error =
        capture([&] { ctx_.independent->move(mine, dir, disjoint, unwritten_from); });
    // (every rank is here: the sync's call matches)
    sync_after_collective_write(error);
    // Posted on every rank, failed or not, once its own bytes are written (see settle(); the
    // transfer settled the last one first: a request overwritten here would never complete).
    if (pending_barrier_ != MPI_REQUEST_NULL)
        throw Error(ErrorKind::Internal, "a collective write's barrier posted before the last one completed");
    check_mpi(MPI_Ibarrier(ctx_.comm, &pending_barrier_), "MPI_Ibarrier (after a collective write)");
    io.count_collective_call();
    if (error) {
        ctx_.failed_writes->remember(*error);
        throw *error;
    }
}

// Collective (every rank of a collective write calls it, on every route). Where the MPI-IO layer
// says writes are not visible to other ranks until synced, MPI_File_sync; its error becomes
// `error` unless that already holds one.
void CollectiveEngine::sync_after_collective_write(std::optional<Error> &error) {
    if (!ctx_.sync_after_write)
        return;
    std::optional<Error> sync_error = capture([&] { ctx_.io->sync(); });
    if (!error)
        error = std::move(sync_error);
    ctx_.io->count_collective_call();
}

// Collective. Before an MPI collective write with holes: extends the file to the EOA when the EOA
// lies past the size every rank knows, so that the MPI-IO layer's read-modify-write of holes reads
// zeros (and not whatever its uninitialised collective buffer held) and never copies process
// memory into the file. A write whose extents tile one range (route::gapless), or whose bytes add up
// to the range they lie in (route::covers_its_range: 2-D blocks tiling a dataset), leaves the layer
// no hole to read and skips it: on shared storage each resize costs a round of the servers' locks
// (and on an erasure-coded volume reads of the stripe at the old end).
// Needs no communication to decide: EOA, known_size and the summary are the same on every rank.
// Without an agreement of its own: the transfer that follows is collective too, and a rank that
// failed here fails it. Returns this rank's error instead of throwing (it still joins).
std::optional<Error> CollectiveEngine::extend_to_eoa() {
    FileExtent &x = *ctx_.extent;
    if (x.eoa <= x.known_size || ctx_.read_only)
        return std::nullopt;
    MpiIo &io = *ctx_.io;
    std::optional<Error> error =
        capture([&] { io.set_size(static_cast<MPI_Offset>(x.eoa), "MPI_File_set_size (extend to EOA)"); });
    io.count_collective_call();
    x.known_size = x.eoa;
    if (!error)
        io.set_eof(std::max(io.eof(), x.eoa));
    return error;
}

} // namespace mpiio
