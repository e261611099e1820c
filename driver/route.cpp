#include "route.hpp"

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
    return d;
}

} // namespace mpiio::route
