#include "route.hpp"

#include <algorithm>
#include <climits>
#include <utility>
#include <vector>

namespace mpiio::route {
namespace {

// True when the non-empty ranges of `words` do not overlap. Ranks usually own ascending blocks,
// which one pass confirms; any other order is sorted first.
bool ranges_disjoint(std::span<const std::int64_t> words) {
    bool ascending = true;
    std::int64_t prev_hi = INT64_MIN;
    for (std::size_t i = 0; i + kWords <= words.size(); i += kWords) {
        if (words[i] == words[i + 1])
            continue;
        if (words[i] < prev_hi) {
            ascending = false;
            break;
        }
        prev_hi = words[i + 1];
    }
    if (ascending)
        return true;
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges;
    for (std::size_t i = 0; i + kWords <= words.size(); i += kWords)
        if (words[i] != words[i + 1])
            ranges.emplace_back(words[i], words[i + 1]);
    std::sort(ranges.begin(), ranges.end());
    for (std::size_t k = 1; k < ranges.size(); ++k)
        if (ranges[k].first < ranges[k - 1].second)
            return false;
    return true;
}

} // namespace

Decision decide(std::span<const std::int64_t> words, CollectiveRoute policy, bool individual_io) {
    Decision d;
    bool all_capable = true;
    for (std::size_t i = 0; i + kWords <= words.size(); i += kWords) {
        const std::int64_t flags = words[i + 2];
        const bool empty = words[i] == words[i + 1];
        all_capable = all_capable && (empty || (flags & kIndependentCapable) != 0);
        d.all_contiguous = d.all_contiguous && (empty || (flags & kContiguous) != 0);
    }
    d.disjoint = ranges_disjoint(words);
    const bool wanted = individual_io || policy == CollectiveRoute::Independent ||
                        (policy == CollectiveRoute::Auto && d.disjoint);
    d.independent = wanted && all_capable;
    return d;
}

} // namespace mpiio::route
