// See aggregation.hpp.
#include "aggregate/aggregation.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace mpiio::aggregation {

Plan make_plan(std::uint64_t lo, std::uint64_t hi, std::size_t aggregators, std::uint64_t window) {
    Plan p;
    p.aggregators = std::max<std::size_t>(aggregators, 1);
    p.window = std::max<std::uint64_t>(window, 1);
    if (hi <= lo)
        return p;
    // Rounds start on multiples of A windows, so that window k's owner is k mod A whatever the
    // range (window_for makes each window whole stripe units).
    const std::uint64_t per_round = p.aggregators * p.window;
    p.base = lo - lo % per_round;
    p.rounds = (hi - p.base + per_round - 1) / per_round;
    return p;
}

std::uint64_t window_for(std::uint64_t staging, std::uint64_t unit) {
    staging = std::max<std::uint64_t>(staging, 1);
    if (unit <= kPageUnit || unit > kLargestUnitWindow)
        return staging;
    return std::max(unit, staging - staging % unit);
}

std::size_t aggregator_count(std::size_t nodes, std::size_t ranks, std::size_t asked, std::size_t cb_nodes,
                             std::size_t server_count) {
    ranks = std::max<std::size_t>(ranks, 1);
    std::size_t count = asked != 0 ? asked : std::max<std::size_t>(nodes, 1);
    if (cb_nodes != 0)
        count = std::min(count, cb_nodes);
    count = std::min(count, ranks);
    if (asked == 0 && server_count > 0) {      // one writer per server at most, each with as many
        count = std::min(count, server_count); // servers as the next (the largest divisor)
        while (server_count % count != 0)
            --count;
    }
    return std::max<std::size_t>(count, 1);
}

std::vector<int> node_leaders(std::span<const std::uint64_t> host_key) {
    std::unordered_map<std::uint64_t, int> leader_of; // a host key -> its lowest rank
    std::vector<int> node_of(host_key.size());
    for (std::size_t r = 0; r < host_key.size(); ++r)
        node_of[r] = leader_of.try_emplace(host_key[r], static_cast<int>(r)).first->second;
    return node_of;
}

std::vector<int> choose_aggregators(std::span<const int> node_of, std::size_t count) {
    // Each node's ranks, in ascending order, nodes in the order of their lowest rank.
    // (node_of[r] is a rank no larger than r: a node is first met at its lowest rank.)
    std::vector<std::vector<int>> nodes;
    std::unordered_map<int, std::size_t> node_index; // a node's lowest rank -> its place in `nodes`
    for (std::size_t r = 0; r < node_of.size(); ++r) {
        const auto [at, first] = node_index.try_emplace(node_of[r], nodes.size());
        if (first)
            nodes.emplace_back();
        nodes[at->second].push_back(static_cast<int>(r));
    }
    if (nodes.empty())
        return {0};
    count = std::clamp<std::size_t>(count, 1, node_of.size());
    std::vector<int> chosen;
    if (count <= nodes.size()) {
        for (std::size_t i = 0; i < count; ++i)
            chosen.push_back(nodes[i * nodes.size() / count].front());
    } else {
        for (std::size_t depth = 0; chosen.size() < count; ++depth)
            for (std::size_t n = 0; n < nodes.size() && chosen.size() < count; ++n)
                if (depth < nodes[n].size())
                    chosen.push_back(nodes[n][depth]);
    }
    std::sort(chosen.begin(), chosen.end());
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

std::vector<Batch> cut_into_batches(const Plan &plan, std::span<const Segment> segments) {
    std::vector<Batch> batches;
    SegmentCursor cursor(segments);
    // Rounds a rank has no byte in are skipped: the cursor starts each at its next segment's round.
    while (!segments.empty() && plan.rounds > 0) {
        std::uint64_t next = UINT64_MAX;
        cursor.peek([&](std::uint64_t addr) { next = addr; });
        if (next == UINT64_MAX)
            break;
        const std::uint64_t round = (next - plan.base) / (plan.aggregators * plan.window);
        cursor.take_round(plan, round, [&](std::size_t owner, const Segment &piece) {
            if (batches.empty() || batches.back().round != round || batches.back().aggregator != owner)
                batches.push_back(Batch{owner, round, {}});
            append_grouped(batches.back().groups, piece);
        });
    }
    return batches;
}

void describe_batch(const Batch &batch, std::vector<std::int64_t> &words) {
    words.push_back(static_cast<std::int64_t>(batch.round));
    words.push_back(static_cast<std::int64_t>(batch.groups.size()));
    for (const Group &g : batch.groups)
        words.insert(words.end(), {static_cast<std::int64_t>(g.addr), static_cast<std::int64_t>(g.len),
                                   static_cast<std::int64_t>(g.stride), static_cast<std::int64_t>(g.count)});
}

std::vector<WindowPieces> windows_from(std::span<const SenderWords> senders) {
    // Every sender's batches, as (round, rank, its groups), then gathered round by round.
    struct Part {
        std::uint64_t round;
        int rank;
        std::span<const std::int64_t> group_words;
    };
    std::vector<Part> parts;
    for (const SenderWords &s : senders) {
        std::size_t at = 0;
        while (at < s.words.size()) {
            if (at + 2 > s.words.size())
                throw std::invalid_argument("aggregation: a batch header is cut short");
            const auto round = static_cast<std::uint64_t>(s.words[at]);
            const auto groups = static_cast<std::size_t>(s.words[at + 1]);
            at += 2;
            if (groups > (s.words.size() - at) / kGroupWords)
                throw std::invalid_argument("aggregation: a batch's groups are cut short");
            parts.push_back({round, s.rank, s.words.subspan(at, groups * kGroupWords)});
            at += groups * kGroupWords;
        }
    }
    std::stable_sort(parts.begin(), parts.end(),
                     [](const Part &a, const Part &b) { return a.round < b.round; });
    std::vector<WindowPieces> windows;
    for (const Part &p : parts) {
        if (windows.empty() || windows.back().round != p.round)
            windows.push_back(WindowPieces{p.round, {}, {}});
        WindowPieces &w = windows.back();
        w.senders.push_back({p.rank, w.groups.size(), p.group_words.size() / kGroupWords});
        for (std::size_t g = 0; g < p.group_words.size(); g += kGroupWords)
            w.groups.push_back({static_cast<std::uint64_t>(p.group_words[g]),
                                static_cast<std::uint64_t>(p.group_words[g + 1]),
                                static_cast<std::uint64_t>(p.group_words[g + 2]),
                                static_cast<std::uint64_t>(p.group_words[g + 3]), nullptr, 0});
    }
    return windows;
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
