// When the collective engine defers a write and when it writes it (write_behind.hpp holds the
// state and says what MPI's rules still promise).
#include "collective/collective_engine.hpp"

#include <algorithm>
#include <array>

namespace mpiio {
namespace {

// The error of a write-out, saying which write it was (the caller's H5Dwrite returned long ago).
Error deferred_write_error(const Error &e) {
    return Error(e.kind(),
                 std::string("writing the bytes of an earlier collective write the aggregators kept "
                             "(write_behind) failed: ") +
                     e.what(),
                 e.where());
}

} // namespace

// A rewrite of exactly the bytes the last collective transfer moved, when that was an aggregated
// read or a deferred write: the library's read-merge-write of a compound dataset's records, once
// per field. Not in MPI's atomic mode (another rank's read must see each write at once), nor where
// the MPI-IO layer needs a sync after every collective write for visibility, nor when the bytes
// would not fit the aggregators' memory for copies (window_cache).
bool CollectiveEngine::may_defer(const Route &r, Direction dir) const {
    if (!ctx_.write_behind || copies_off_ || dir != Direction::Write || !r.decision.aggregate ||
        ctx_.sync_after_write || !ctx_.host_copies || r.shape.bytes <= 0 ||
        static_cast<std::uint64_t>(r.shape.bytes) > ctx_.window_cache)
        return false;
    if (!previous_ || *previous_ != r.shape)
        return false;
    bool atomic = true; // (the same on every rank: H5Fset_mpi_atomicity is collective)
    (void)capture([&] { atomic = ctx_.io->atomic(); });
    return !atomic;
}

void CollectiveEngine::hand_out_handle() {
    handle_out_ = true;
    if (write_behind_.active())
        before_independent_slow(static_cast<haddr_t>(write_behind_.shape().lo),
                                static_cast<haddr_t>(write_behind_.shape().hi), false);
}

void CollectiveEngine::before_independent_slow(haddr_t lo, haddr_t hi, bool write) {
    if (write_behind_.own_waiting_in(lo, hi))
        write_own_runs(write_behind_.own_runs());
    if (write)
        write_behind_.note_independent_write(lo, hi);
}

// No bridging of holes: other ranks may be writing there now.
void CollectiveEngine::write_own_runs(std::span<const Run> runs) {
    IoRequest request = IoRequest::runs(runs);
    ctx_.failed_writes->run([&] { ctx_.independent->move(request, Direction::Write, false); });
    write_behind_.mark_own_written();
}

std::optional<Error> CollectiveEngine::write_window(WriteBehind::Window &w, const WriteOut &out) {
    std::optional<Error> error = capture([&] {
        bool partial = false;
        const std::vector<Run> runs =
            WriteBehind::write_out_runs(w, out.own_written, out.written_since, partial);
        if (runs.empty())
            return;
        IoRequest request = IoRequest::runs(runs);
        // A bridged hole is read back and rewritten: never where bytes were left out (they may be
        // newer than what this rank could read back).
        ctx_.independent->move(request, Direction::Write, !partial, out.unwritten_from);
    });
    if (error)
        return deferred_write_error(*error);
    return std::nullopt;
}

// Every window, whatever one of them gives (the first error is the one reported).
std::optional<Error> CollectiveEngine::write_windows(std::vector<WriteBehind::Window> &windows,
                                                     const WriteOut &out) {
    std::optional<Error> error;
    for (WriteBehind::Window &w : windows) {
        std::optional<Error> e = write_window(w, out);
        if (!error)
            error = std::move(e);
    }
    return error;
}

std::optional<Error> CollectiveEngine::write_all_windows(const WriteOut &out) {
    std::optional<Error> error = write_windows(write_behind_.windows(), out);
    write_behind_.drop_windows();
    return error;
}

bool CollectiveEngine::keep_deferred_window(std::uint64_t round, std::uint64_t window_lo, const char *window,
                                            std::uint64_t span, std::span<const aggregation::Group> from,
                                            std::span<const aggregation::Range> ranges,
                                            std::span<const int> rank_of, haddr_t unwritten_from,
                                            std::optional<Error> &error) {
    if (WriteBehind::Window *earlier = write_behind_.window(round)) {
        if (WriteBehind::covers(ranges, earlier->ranges)) {
            std::uint64_t replaced = 0;
            for (const aggregation::Range &r : earlier->ranges)
                replaced += r.hi - r.lo;
            ctx_.io->count_replaced_window(replaced);
        } else { // (no rank wrote since the last aggregated transfer: transfer() checked)
            error = write_window(*earlier, WriteOut{{}, {}, unwritten_from});
        }
        write_behind_.drop(round);
        if (error)
            return false;
    }
    if (!write_behind_.keep_window(round, window_lo, window, span, from, rank_of, ctx_.window_cache))
        return false;
    ctx_.io->count_kept_window();
    return true;
}

void CollectiveEngine::finish_deferred(bool aggregator, haddr_t unwritten_from, std::optional<Error> &error) {
    if (!aggregator)
        return;
    const WriteOut out{{}, {}, unwritten_from};
    std::vector<WriteBehind::Window> unkept = write_behind_.take_unkept();
    std::optional<Error> e = write_windows(unkept, out);
    if (!error)
        error = std::move(e);
    if (error) { // a failed transfer keeps nothing: what it holds goes to the file now, if it can
        e = write_all_windows(out);
        if (!error)
            error = std::move(e);
    }
}

void CollectiveEngine::write_own_part_without_copy() {
    std::vector<Run> runs;
    for (const aggregation::Segment &s : segments_)
        if (s.len > 0)
            runs.push_back(Run{s.addr, static_cast<std::size_t>(s.len), s.mem});
    if (!runs.empty())
        write_own_runs(runs);
}

void CollectiveEngine::write_out_pending() {
    if (!write_behind_.active())
        return;
    // Which ranks put their own pieces in the file, the ranges independent writes touched since
    // (both left out), and the file's written end (the holes of a window past it are zeros).
    const std::span<const aggregation::Range> mine_written = write_behind_.written_ranges();
    const std::array<std::int64_t, 3> mine{write_behind_.own_written() ? 1 : 0,
                                           static_cast<std::int64_t>(ctx_.io->written_end()),
                                           static_cast<std::int64_t>(2 * mine_written.size())};
    const auto ranks = static_cast<std::size_t>(ctx_.size);
    std::vector<std::int64_t> all(3 * ranks);
    check_mpi(MPI_Allgather(mine.data(), 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, ctx_.comm),
              "MPI_Allgather (write-behind)");
    ctx_.io->count_collective_call();
    WriteOut out;
    out.own_written.resize(ranks);
    std::vector<int> counts(ranks), displacements(ranks);
    int words = 0;
    for (std::size_t r = 0; r < ranks; ++r) {
        out.own_written[r] = all[3 * r];
        out.unwritten_from = std::max(out.unwritten_from, static_cast<haddr_t>(all[3 * r + 1]));
        counts[r] = static_cast<int>(all[3 * r + 2]);
        displacements[r] = words;
        words += counts[r];
    }
    if (words > 0) { // (rare: independent writes into the kept range since)
        std::vector<std::int64_t> mine_words, every(static_cast<std::size_t>(words));
        for (const aggregation::Range &r : mine_written)
            mine_words.insert(mine_words.end(),
                              {static_cast<std::int64_t>(r.lo), static_cast<std::int64_t>(r.hi)});
        check_mpi(MPI_Allgatherv(mine_words.data(), static_cast<int>(mine_words.size()), MPI_INT64_T,
                                 every.data(), counts.data(), displacements.data(), MPI_INT64_T, ctx_.comm),
                  "MPI_Allgatherv (write-behind)");
        ctx_.io->count_collective_call();
        std::vector<aggregation::Group> pieces;
        for (std::size_t w = 0; w + 1 < every.size(); w += 2)
            pieces.push_back({static_cast<std::uint64_t>(every[w]),
                              static_cast<std::uint64_t>(every[w + 1] - every[w]), 0, 1, nullptr, 0});
        out.written_since = aggregation::merge_pieces(pieces);
    }
    std::optional<Error> error = write_all_windows(out);
    write_behind_.clear();
    previous_.reset();
    agree(ctx_.comm, error);
    ctx_.io->count_collective_call();
}

} // namespace mpiio
