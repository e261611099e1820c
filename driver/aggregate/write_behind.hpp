// Write-behind on the aggregating route (config write_behind, docs/decisions.md D22). A collective
// write of the very bytes the file's last collective transfer moved - the library reads a
// compound dataset's records back and writes them whole again for every field it writes, so a
// time step of an 8-field dataset writes every record 8 times - is kept by its aggregators in
// memory instead of being written, and written once, at the next collective step that is not
// another read or rewrite of the same bytes, or at the file's flush, truncate or close. Reads of
// the same bytes meanwhile are answered from the aggregators' copies.
//
// What MPI promises still holds (its nonatomic mode; atomic mode turns this off):
//   - a rank sees its own writes: every rank keeps a copy of its own part, and puts it in the file
//     itself before any independent call of its own touches that range (own_waiting_in); the
//     aggregators then leave that rank's pieces out of the write-out (write_out_runs);
//   - a later independent write is never overwritten by older collective bytes: every rank notes
//     the ranges its independent writes touch inside the pending write's range, and the write-out
//     leaves those out too, bridging no hole;
//   - other ranks' bytes are visible after a flush or close (MPI's sync and close), as they are
//     after the next collective transfer of the file.
// A failed write-out fails that collective step, flush or close on every rank (one agreement).
//
// This class holds the state; the collective engine decides when (collective_engine.cpp,
// write_behind_route.cpp). Every function here is local.
#pragma once

#include "aggregate/aggregation.hpp"
#include "io/request.hpp"
#include "io/scratch_buffer.hpp"

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace mpiio {

// What tells one collective transfer's bytes from another's on every rank alike: the ranks'
// common range and the bytes they move together (route::ExtentSummary).
struct TransferShape {
    std::int64_t lo = 0, hi = 0, bytes = 0;
    bool operator==(const TransferShape &) const = default;
};

class WriteBehind {
public:
    // One aggregator window of a deferred write: its bytes from `lo` on, the pieces every rank
    // sent into it (rank_of[i]: whose groups[i] is), and their merged ranges.
    struct Window {
        std::uint64_t round = 0; // the aggregating route's round it belongs to
        std::uint64_t lo = 0;    // bytes[0] is the file byte at `lo`
        FileBytes bytes;         // (at lo's offset within a page: scratch_buffer.hpp)
        std::vector<aggregation::Group> groups;
        std::vector<int> rank_of;
        std::vector<aggregation::Range> ranges;
        bool kept_this_transfer = false;
    };

    // --- the same on every rank ---
    bool active() const { return shape_.has_value(); }
    const TransferShape &shape() const { return *shape_; }
    // A deferred write of `shape` is now pending (again): this rank's own bytes wait for it.
    void start(const TransferShape &shape) {
        shape_ = shape;
        own_written_ = false;
        written_ranges_.clear();
    }
    // Forgets everything (after the write-out).
    void clear() noexcept;

    // --- this rank's own part ---
    // Copies this rank's segments of the deferred write (ascending); false (nothing kept) without
    // the memory. Never throws: every rank must reach the transfer's collective calls.
    bool keep_own(std::span<const aggregation::Segment> segments) noexcept;
    // Whether this rank's own bytes of the pending write are still only in an aggregator's memory
    // and [lo, hi) touches their range (an independent call must put them in the file first).
    bool own_waiting_in(std::uint64_t lo, std::uint64_t hi) const;
    // Whether [lo, hi) touches the pending write's range (every rank's pieces together).
    bool touches_pending(std::uint64_t lo, std::uint64_t hi) const {
        return shape_ && lo < static_cast<std::uint64_t>(shape_->hi) &&
               static_cast<std::uint64_t>(shape_->lo) < hi;
    }
    // Notes an independent write of this rank over [lo, hi) (clipped to the pending range): the
    // write-out must not overwrite it.
    void note_independent_write(std::uint64_t lo, std::uint64_t hi);
    std::span<const aggregation::Range> written_ranges() const { return written_ranges_; }
    // The runs of this rank's own copy (valid until the next keep_own or clear).
    std::span<const Run> own_runs() const { return own_runs_; }
    void mark_own_written() { own_written_ = true; }
    bool own_written() const { return own_written_; }

    // --- an aggregator's windows ---
    // Keeps round `round`'s window: `span` bytes from file byte `lo`, and the pieces sent into it
    // (`rank_of[i]`: the rank that sent groups[i]). False (nothing kept) when the windows would
    // pass `limit` bytes or the memory is not there.
    bool keep_window(std::uint64_t round, std::uint64_t lo, const char *bytes, std::uint64_t span,
                     std::span<const aggregation::Group> groups, std::span<const int> rank_of,
                     std::size_t limit) noexcept;
    // The window kept for `round`, or null.
    Window *window(std::uint64_t round);
    const Window *window(std::uint64_t round) const { return const_cast<WriteBehind *>(this)->window(round); }
    // Drops round `round`'s window (replaced by a write of at least its bytes).
    void drop(std::uint64_t round);
    // Copies every run's bytes from round `round`'s window; false (nothing copied) unless that
    // window holds them all. `runs`: ascending, not overlapping.
    bool serve(std::uint64_t round, std::span<const Run> runs) const;
    std::vector<Window> &windows() { return windows_; }
    void drop_windows() {
        windows_.clear();
        window_bytes_ = 0;
    }
    // Takes out the windows no round of the current transfer kept (an earlier write's it did not
    // replace).
    std::vector<Window> take_unkept();
    void begin_transfer() {
        for (Window &w : windows_)
            w.kept_this_transfer = false;
    }

    // The runs a write-out of `w` moves: its ranges, without the pieces of ranks that already put
    // their own in the file (`own_written[r]`, empty: none) and without `written_since` (ranges
    // independent writes touched since, ascending, merged). The runs point into w.bytes; `partial`
    // says whether anything was left out (then no hole may be bridged: it may hold newer bytes).
    static std::vector<Run> write_out_runs(Window &w, std::span<const std::int64_t> own_written,
                                           std::span<const aggregation::Range> written_since, bool &partial);

    // Whether `outer` (ascending ranges) holds every byte of `inner`.
    static bool covers(std::span<const aggregation::Range> outer, std::span<const aggregation::Range> inner);

private:
    std::optional<TransferShape> shape_;
    std::vector<char> own_bytes_;
    std::vector<Run> own_runs_;
    std::uint64_t own_lo_ = 0, own_hi_ = 0;
    bool own_written_ = false;
    std::vector<aggregation::Range> written_ranges_; // this rank's independent writes since start()
    std::vector<Window> windows_;                    // ascending rounds
    std::vector<Window>::iterator find_round(std::uint64_t round);
    std::size_t window_bytes_ = 0;
};

} // namespace mpiio
