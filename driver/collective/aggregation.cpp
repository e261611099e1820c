// See aggregation.hpp.
#include "collective/aggregation.hpp"

#include <algorithm>

namespace mpiio::aggregation {

Plan make_plan(std::uint64_t lo, std::uint64_t hi, std::size_t aggregators, std::uint64_t window) {
    Plan p;
    p.aggregators = std::max<std::size_t>(aggregators, 1);
    p.window = std::max<std::uint64_t>(window, 1);
    if (hi <= lo)
        return p;
    // Windows start on multiples of their size: on striped storage an aggregator's window then
    // covers whole stripes whenever the window is a multiple of the stripe.
    p.base = lo - lo % p.window;
    const std::uint64_t per_round = p.aggregators * p.window;
    p.rounds = (hi - p.base + per_round - 1) / per_round;
    return p;
}

std::vector<int> choose_aggregators(std::span<const int> node_leader, std::size_t limit) {
    std::vector<int> leaders;
    for (std::size_t r = 0; r < node_leader.size(); ++r)
        if (node_leader[r])
            leaders.push_back(static_cast<int>(r));
    if (leaders.empty())
        leaders.push_back(0);
    if (limit == 0 || leaders.size() <= limit)
        return leaders;
    std::vector<int> chosen;
    for (std::size_t i = 0; i < limit; ++i)
        chosen.push_back(leaders[i * leaders.size() / limit]);
    return chosen;
}

void append_grouped(std::vector<Group> &groups, const Segment &s) {
    if (!groups.empty()) {
        Group &g = groups.back();
        if (s.len == g.len && s.addr > g.addr) {
            if (g.count == 1 && s.addr - g.addr >= g.len) { // the second piece sets the strides
                g.stride = s.addr - g.addr;
                g.mem_stride = s.mem - g.mem;
                g.count = 2;
                return;
            }
            if (g.count > 1 && s.addr == g.addr + g.count * g.stride &&
                s.mem == g.mem + static_cast<std::int64_t>(g.count) * g.mem_stride) {
                ++g.count;
                return;
            }
        }
    }
    groups.push_back(Group{s.addr, s.len, 0, 1, s.mem, 0});
}

std::vector<Range> merge_pieces(std::span<const Group> groups) {
    std::vector<Range> ranges;
    for (const Group &g : groups) {
        if (g.len == 0)
            continue;
        if (g.count == 1 || g.stride == g.len) { // touching pieces: one range
            ranges.push_back({g.addr, g.end()});
            continue;
        }
        for (std::uint64_t k = 0; k < g.count; ++k)
            ranges.push_back({g.addr + k * g.stride, g.addr + k * g.stride + g.len});
    }
    std::sort(ranges.begin(), ranges.end(), [](const Range &a, const Range &b) { return a.lo < b.lo; });
    std::vector<Range> merged;
    for (const Range &r : ranges) {
        if (!merged.empty() && r.lo <= merged.back().hi)
            merged.back().hi = std::max(merged.back().hi, r.hi);
        else
            merged.push_back(r);
    }
    return merged;
}

} // namespace mpiio::aggregation
