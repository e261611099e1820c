#include "collective/route.hpp"

#include <algorithm>
#include <climits>
#include <utility>
#include <vector>

namespace mpiio::route {
namespace {

struct Overlap {
    bool disjoint = true;     // no two non-empty ranges overlap (touching is fine)
    bool within_limit = true; // their lengths add up to at most `limit` times their union's
};

// The non-empty ranges of `words`, sorted.
std::vector<std::pair<std::int64_t, std::int64_t>> sorted_ranges(std::span<const std::int64_t> words) {
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (std::size_t i = 0; i + kWords <= words.size(); i += kWords)
        if (words[i] != words[i + 1])
            ranges.emplace_back(words[i], words[i + 1]);
    std::sort(ranges.begin(), ranges.end());
    return ranges;
}

// How the ranks' ranges lie. Ranks usually own ascending blocks, which one pass confirms; any
// other order is sorted first. The sums are exact: 128 bits hold any number of 63-bit lengths an
// MPI job can gather.
Overlap measure_overlap(std::span<const std::int64_t> words, std::uint64_t limit) {
    std::int64_t prev_hi = INT64_MIN;
    bool ascending = true;
    for (std::size_t i = 0; i + kWords <= words.size() && ascending; i += kWords) {
        if (words[i] == words[i + 1])
            continue;
        ascending = words[i] >= prev_hi;
        prev_hi = words[i + 1];
    }
    if (ascending)
        return {};
    Overlap o;
    unsigned __int128 total = 0, covered = 0;
    std::int64_t union_lo = 0, union_hi = INT64_MIN;
    for (const auto &[lo, hi] : sorted_ranges(words)) {
        total += static_cast<std::uint64_t>(hi - lo);
        if (lo < union_hi) {
            o.disjoint = false;
            union_hi = std::max(union_hi, hi);
            continue;
        }
        if (union_hi != INT64_MIN)
            covered += static_cast<std::uint64_t>(union_hi - union_lo);
        union_lo = lo;
        union_hi = hi;
    }
    covered += static_cast<std::uint64_t>(union_hi - union_lo);
    o.within_limit = total <= covered * limit;
    return o;
}

} // namespace

Decision decide(std::span<const std::int64_t> words, CollectiveRoute policy, bool individual_io,
                std::uint64_t overlap_limit) {
    Decision d;
    bool all_capable = true;
    for (std::size_t i = 0; i + kWords <= words.size(); i += kWords) {
        const std::int64_t flags = words[i + 2];
        const bool empty = words[i] == words[i + 1];
        all_capable = all_capable && (empty || (flags & kIndependentCapable) != 0);
        d.all_contiguous = d.all_contiguous && (empty || (flags & kContiguous) != 0);
    }
    const Overlap overlap = measure_overlap(words, overlap_limit);
    d.disjoint = overlap.disjoint;
    const bool wanted = individual_io || policy == CollectiveRoute::Independent ||
                        (policy == CollectiveRoute::Auto && overlap.within_limit);
    d.independent = wanted && all_capable;
    d.aggregate = policy == CollectiveRoute::Aggregate && !individual_io && all_capable;
    return d;
}

ExtentSummary summarize(std::int64_t lo, std::int64_t hi, std::int64_t flags, int rank, bool failed) {
    ExtentSummary s;
    s.failed_rank = failed ? rank : INT64_MAX;
    if (failed || lo == hi)
        return s;
    s.any = 1;
    s.first_lo = s.min_lo = lo;
    s.last_hi = s.max_hi = hi;
    s.total = s.longest = s.shortest = hi - lo;
    s.all_contiguous = (flags & kContiguous) != 0;
    s.all_capable = (flags & kIndependentCapable) != 0;
    return s;
}

void combine(const ExtentSummary &left, ExtentSummary &right) {
    ExtentSummary out;
    out.failed_rank = std::min(left.failed_rank, right.failed_rank);
    out.written_end = std::max(left.written_end, right.written_end);
    out.changed = std::max(left.changed, right.changed);
    out.handle_out = std::max(left.handle_out, right.handle_out);
    out.bytes = left.bytes > INT64_MAX - right.bytes ? INT64_MAX : left.bytes + right.bytes;
    out.all_contiguous = left.all_contiguous & right.all_contiguous;
    out.all_capable = left.all_capable & right.all_capable;
    if (!left.any || !right.any) {
        const ExtentSummary &only = left.any ? left : right;
        out.any = only.any;
        out.ordered = only.ordered;
        out.first_lo = only.first_lo;
        out.last_hi = only.last_hi;
        out.min_lo = only.min_lo;
        out.max_hi = only.max_hi;
        out.total = only.total;
        out.longest = only.longest;
        out.shortest = only.shortest;
        right = out;
        return;
    }
    out.any = 1;
    out.ordered = left.ordered && right.ordered && left.last_hi <= right.first_lo;
    out.first_lo = left.first_lo;
    out.last_hi = right.last_hi;
    out.min_lo = std::min(left.min_lo, right.min_lo);
    out.max_hi = std::max(left.max_hi, right.max_hi);
    out.total = left.total > INT64_MAX - right.total ? INT64_MAX : left.total + right.total;
    out.longest = std::max(left.longest, right.longest);
    out.shortest = std::min(left.shortest, right.shortest);
    right = out;
}

CollectiveRoute policy_for(const ExtentSummary &s, CollectiveRoute policy, std::int64_t min_block, bool write,
                           bool repeats_last) {
    if (policy != CollectiveRoute::AggregateInterleaved)
        return policy;
    const bool blocks =
        write && !repeats_last && s.any && s.ordered && s.all_contiguous && s.shortest >= min_block;
    return blocks ? CollectiveRoute::Independent : CollectiveRoute::Aggregate;
}

bool gapless(const ExtentSummary &s) {
    return s.any && s.ordered && s.all_contiguous && s.total == s.last_hi - s.first_lo;
}

bool covers_its_range(const ExtentSummary &s) {
    return s.any && s.bytes != INT64_MAX && s.bytes == s.max_hi - s.min_lo;
}

// Extents that do not ascend with the rank can still be told apart from their sums: more bytes in
// all than the range they lie in means two of them overlap (so: not disjoint, and for writes no
// independent route); more than `limit` times that range means more than `limit` times the range
// they cover; at most `limit` times the longest extent means at most `limit` times the range they
// cover (which is at least the longest). Between those bounds only the full exchange can tell.
std::optional<Decision> decide_from_summary(const ExtentSummary &s, CollectiveRoute policy,
                                            bool individual_io, std::uint64_t overlap_limit,
                                            bool need_disjoint) {
    Decision d;
    d.all_contiguous = s.all_contiguous != 0;
    const bool all_capable = s.all_capable != 0;
    if (policy == CollectiveRoute::Aggregate && !individual_io) {
        // aggregated whatever the extents (`disjoint` goes unused), or MPI collective I/O where a
        // rank needs a file view
        d.aggregate = all_capable;
        d.disjoint = !s.any || s.ordered;
        return d;
    }
    if (!s.any || s.ordered) { // what decide() finds for ascending extents
        d.disjoint = true;
        d.independent = all_capable && (individual_io || policy != CollectiveRoute::Collective);
        return d;
    }
    const auto span = static_cast<unsigned __int128>(s.max_hi - s.min_lo);
    const auto total = static_cast<unsigned __int128>(static_cast<std::uint64_t>(s.total));
    const bool overlap_certain = total > span;
    d.disjoint = false;
    const bool forced = individual_io || policy == CollectiveRoute::Independent;
    if (!all_capable || (policy == CollectiveRoute::Collective && !individual_io)) {
        d.independent = false; // the MPI route whatever the extents: `disjoint` goes unused
        return d;
    }
    if (forced) { // the independent route; writes need to know whether holes may be bridged
        d.independent = true;
        if (!need_disjoint || overlap_certain)
            return d;
        return std::nullopt;
    }
    // Auto: the independent route when the extents add up to at most `limit` times their cover.
    if (total > span * overlap_limit) {
        d.independent = false;
        return d;
    }
    const bool saturated = s.total == INT64_MAX; // the true sum may be larger: no lower bound from it
    if (!saturated &&
        total <= static_cast<unsigned __int128>(static_cast<std::uint64_t>(s.longest)) * overlap_limit) {
        d.independent = true;
        if (!need_disjoint || overlap_certain)
            return d;
    }
    return std::nullopt;
}

} // namespace mpiio::route
