// The aggregating route's plan (docs/decisions.md D20): a collective transfer whose bytes a few
// aggregator ranks move, one per node, so that the file sees few writers each making long calls
// (on shared storage every writer of a file costs the servers lock traffic and small calls).
//
// The file is cut into windows of `window` bytes, a whole number of the file's stripe units
// (window_for), and window k belongs to aggregator index k mod A by its file offset alone: the
// same owner at every transfer, so a stripe keeps its one writer from one time step to the next
// (ROMIO's Lustre driver deals its stripes the same way). A round is A consecutive windows
// starting at a multiple of A windows: in round r, aggregator index a owns
// [base + (r * A + a) * window, + window). Each round every rank sends (writes) or receives
// (reads) the pieces of its segments inside each window to or from its owner, who moves the
// window's bytes with its own calls. So an aggregator holds at most one window at a time, and
// every rank goes through the same rounds (the plan depends only on what every rank knows: the
// range, the layout and the aggregators).
//
// Pure and local: identical inputs give the identical plan on every rank.
#pragma once

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

namespace mpiio::aggregation {

// One contiguous stretch of a rank's transfer: `len` bytes at file address `addr`, memory `mem`.
struct Segment {
    std::uint64_t addr = 0;
    char *mem = nullptr;
    std::uint64_t len = 0;
};

struct Plan {
    std::size_t aggregators = 1; // A: how many ranks own windows (at least 1)
    std::uint64_t base = 0;      // round 0's first window starts here (a multiple of A windows)
    std::uint64_t window = 1;    // bytes per aggregator per round
    std::uint64_t rounds = 0;    // 0 when no rank moves a byte

    std::uint64_t round_lo(std::uint64_t round) const { return base + round * aggregators * window; }
    std::uint64_t round_hi(std::uint64_t round) const { return round_lo(round + 1); }
};

// The plan for the ranks' common range [lo, hi) (lo == hi: nothing moves).
Plan make_plan(std::uint64_t lo, std::uint64_t hi, std::size_t aggregators, std::uint64_t window);

// The most bytes a window may take to be one stripe unit (a unit above it, such as a 1 GiB Lustre
// stripe, is not worth an aggregator's memory: windows are then `staging` bytes).
inline constexpr std::uint64_t kLargestUnitWindow = std::uint64_t{64} << 20;

// A unit of at most a page is no lock unit: a local disk's or tmpfs's st_blksize says nothing of
// how the storage locks (and rounding a test's tiny staging buffer up to it would hide its rounds).
inline constexpr std::uint64_t kPageUnit = 4096;

// A window of whole stripe units: `staging` (config staging_buffer) rounded down to a multiple of
// `unit`, at least one unit when the unit is at most kLargestUnitWindow; `staging` when the unit
// is unknown (0), a page or less, or larger than kLargestUnitWindow.
std::uint64_t window_for(std::uint64_t staging, std::uint64_t unit);

// How many ranks aggregate, from what the open knows (every rank the same):
//   `nodes`, `ranks`       of the file's communicator;
//   `asked`                config aggregators (0: unset): that many, more than one per node too;
//   `cb_nodes`             the cb_nodes hint the application gave (0: none): a cap;
//   `server_count`         the servers the stripes go round, each locking its own (0: not such a
//                          layout): unasked, the count is then its largest divisor that fits, at
//                          most one writer per server and each with as many servers as the next
//                          (ROMIO's Lustre driver by default: one client per object storage target);
// otherwise one per node. At least 1, at most `ranks`.
std::size_t aggregator_count(std::size_t nodes, std::size_t ranks, std::size_t asked, std::size_t cb_nodes,
                             std::size_t server_count);

// A rank's segments, in ascending file order, handed out round by round: each round takes the
// parts of the segments that lie inside it (a segment crossing windows is split at their edges).
class SegmentCursor {
public:
    explicit SegmentCursor(std::span<const Segment> segments) : segments_(segments) {}

    // Local. Calls emit(aggregator index, Segment) for every part inside round `round`, in
    // ascending file order (so by ascending aggregator index), and moves past them. Rounds are
    // taken in increasing order.
    template <class Emit> void take_round(const Plan &plan, std::uint64_t round, Emit &&emit) {
        const std::uint64_t round_lo = plan.round_lo(round), round_hi = plan.round_hi(round);
        while (next_ < segments_.size()) {
            const Segment &s = segments_[next_];
            const std::uint64_t addr = s.addr + done_;
            if (addr >= round_hi)
                return;
            const std::size_t owner = static_cast<std::size_t>((addr - round_lo) / plan.window);
            const std::uint64_t window_end = round_lo + (owner + 1) * plan.window;
            const std::uint64_t len = std::min(s.len - done_, window_end - addr);
            emit(owner, Segment{addr, s.mem + done_, len});
            done_ += len;
            if (done_ == s.len) {
                ++next_;
                done_ = 0;
            }
        }
    }

    // Local. Calls at(address) with the address of the next byte not taken yet, if any.
    template <class At> void peek(At &&at) const {
        if (next_ < segments_.size())
            at(segments_[next_].addr + done_);
    }

private:
    std::span<const Segment> segments_;
    std::size_t next_ = 0;
    std::uint64_t done_ = 0; // bytes of segments_[next_] already taken
};

// Pieces of one length at one file stride and one memory stride, as one entry: what a rank tells
// an aggregator and what each builds a datatype from, so that a strided selection's pieces (an
// element each) cost a few words and one vector type per window, not a pair and a block each.
struct Group {
    std::uint64_t addr = 0;   // the first piece's file address
    std::uint64_t len = 0;    // each piece's length
    std::uint64_t stride = 0; // file distance from one piece to the next (count > 1: at least len)
    std::uint64_t count = 1;
    char *mem = nullptr; // the first piece's memory (the sender's side only)
    std::int64_t mem_stride = 0;

    std::uint64_t end() const { return addr + (count - 1) * stride + len; }
};
inline constexpr std::size_t kGroupWords = 4; // addr, len, stride, count

// Local. Appends `s` to `groups`, extending the last group when `s` continues its strides.
void append_grouped(std::vector<Group> &groups, const Segment &s);

// A rank's pieces of one window: what it sends its aggregator (a write) or receives from it.
struct Batch {
    std::size_t aggregator = 0; // the aggregator's index (window's owner)
    std::uint64_t round = 0;
    std::vector<Group> groups;
};

// Local. A rank's segments cut into the plan's windows, grouped by strides, in ascending round
// order (and, within a round, ascending aggregator index): windows it has no byte of have no batch.
std::vector<Batch> cut_into_batches(const Plan &plan, std::span<const Segment> segments);

// What a rank tells an aggregator once per transfer: for each of its batches for it, the round,
// the number of groups, then kGroupWords words per group. Appends to `words`.
void describe_batch(const Batch &batch, std::vector<std::int64_t> &words);

// An aggregator's view of one of its windows: every rank's groups in it, in ascending rank order.
struct WindowPieces {
    std::uint64_t round = 0;
    std::vector<Group> groups;
    struct Sender {
        int rank = 0;
        std::size_t first = 0, count = 0; // its groups: groups[first, first + count)
    };
    std::vector<Sender> senders;

    std::span<const Group> groups_of(const Sender &s) const { return {groups.data() + s.first, s.count}; }
    // The sender of each group, in order.
    std::vector<int> rank_of_groups() const {
        std::vector<int> rank_of(groups.size());
        for (const Sender &s : senders)
            std::fill_n(rank_of.begin() + static_cast<std::ptrdiff_t>(s.first), s.count, s.rank);
        return rank_of;
    }
};

// The words one rank sent (describe_batch's), with its rank.
struct SenderWords {
    int rank = 0;
    std::span<const std::int64_t> words;
};

// Local. The windows an aggregator received pieces of, in ascending round order, from every
// sender's words (given in ascending rank order). Throws std::invalid_argument on malformed words.
std::vector<WindowPieces> windows_from(std::span<const SenderWords> senders);

// Local. The node map choose_aggregators takes: for each rank, the lowest rank with the same
// host key (`host_key[r]`: a hash of rank r's MPI processor name, the host name under Open MPI
// and MPICH; ROMIO groups ranks into hosts by that name too).
std::vector<int> node_leaders(std::span<const std::uint64_t> host_key);

// Which ranks aggregate, `count` of them (`node_of[r]`: the lowest rank of rank r's node): with
// no more than the nodes, the lowest rank of nodes spread evenly over them; with more, every
// node's lowest rank, then every node's second lowest, and so on (nodes with ranks left). In
// ascending rank order.
std::vector<int> choose_aggregators(std::span<const int> node_of, std::size_t count);

// The byte ranges an aggregator's window must move, from the groups the ranks sent (any order,
// possibly overlapping): sorted, with touching and overlapping pieces merged.
struct Range {
    std::uint64_t lo = 0, hi = 0;
};
std::vector<Range> merge_pieces(std::span<const Group> groups);

} // namespace mpiio::aggregation
