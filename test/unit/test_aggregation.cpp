// The aggregating route's plan (aggregate/aggregation.hpp): windows, rounds, how a rank's segments
// are cut between aggregators, which ranks aggregate, and the runs an aggregator moves.
#include "aggregate/aggregation.hpp"

#include "xorshift.hpp"

#include <gtest/gtest.h>

#include <map>
#include <vector>

namespace {

using namespace mpiio::aggregation;

struct Taken {
    std::uint64_t round;
    std::size_t owner;
    Segment piece;
};

std::vector<Taken> take_all(const Plan &plan, const std::vector<Segment> &segments) {
    SegmentCursor cursor(segments);
    std::vector<Taken> taken;
    for (std::uint64_t r = 0; r < plan.rounds; ++r)
        cursor.take_round(plan, r, [&](std::size_t owner, const Segment &s) {
            taken.push_back({r, owner, s});
        });
    return taken;
}

TEST(Aggregation, PlanCoversTheRangeFromAWindowBoundary) {
    const Plan p = make_plan(1000, 5000, 2, 1024);
    EXPECT_EQ(p.base, 0u);
    EXPECT_EQ(p.rounds, 3u); // 2 windows of 1 KiB per round up to 5000
    EXPECT_EQ(p.round_lo(1), 2048u);
    EXPECT_EQ(make_plan(7, 7, 4, 1024).rounds, 0u) << "nothing moves: no round";
    EXPECT_EQ(make_plan(0, 1, 0, 0).aggregators, 1u);
}

TEST(Aggregation, SegmentsAreCutAtWindowEdges) {
    const Plan p = make_plan(0, 4096, 2, 1024);
    char memory[4096];
    const std::vector<Segment> segments{{100, memory, 1000}, {1500, memory + 1000, 2000}};
    const auto taken = take_all(p, segments);
    ASSERT_EQ(taken.size(), 5u);
    // [100, 1100): window 0 of round 0 to 1024, then window 1.
    EXPECT_EQ(taken[0].round, 0u);
    EXPECT_EQ(taken[0].owner, 0u);
    EXPECT_EQ(taken[0].piece.addr, 100u);
    EXPECT_EQ(taken[0].piece.len, 924u);
    EXPECT_EQ(taken[1].owner, 1u);
    EXPECT_EQ(taken[1].piece.addr, 1024u);
    EXPECT_EQ(taken[1].piece.mem, memory + 924);
    // [1500, 3500): the rest of window 1, then round 1's window 0 ([2048, 3072)), then its window 1.
    EXPECT_EQ(taken[2].piece.addr, 1500u);
    EXPECT_EQ(taken[2].piece.len, 548u);
    EXPECT_EQ(taken[2].piece.mem, memory + 1000);
    EXPECT_EQ(taken[3].round, 1u);
    EXPECT_EQ(taken[3].owner, 0u);
    EXPECT_EQ(taken[3].piece.len, 1024u);
    EXPECT_EQ(taken[4].round, 1u);
    EXPECT_EQ(taken[4].owner, 1u);
    EXPECT_EQ(taken[4].piece.addr, 3072u);
    EXPECT_EQ(taken[4].piece.len, 428u);
}

// Every byte of every segment is handed out exactly once, in order, to the aggregator whose window
// holds it, for random segments, window sizes and aggregator counts.
TEST(Aggregation, EveryByteGoesToTheWindowThatHoldsIt) {
    mpiio_test::XorShift next(0x2545f4914f6cdd1dULL);
    static char memory[1 << 16];
    for (int trial = 0; trial < 2000; ++trial) {
        std::vector<Segment> segments;
        std::uint64_t at = next(5000), used = 0;
        const int n = static_cast<int>(next(20));
        for (int i = 0; i < n; ++i) {
            const std::uint64_t len = 1 + next(3000);
            if (used + len > sizeof memory)
                break;
            segments.push_back({at, memory + used, len});
            used += len;
            at += len + next(3) * next(2000);
        }
        const std::uint64_t lo = segments.empty() ? 0 : segments.front().addr;
        const std::uint64_t hi = segments.empty() ? 0 : segments.back().addr + segments.back().len;
        const Plan p = make_plan(lo, hi, 1 + next(5), 1 + next(4096));
        const auto taken = take_all(p, segments);
        std::uint64_t total = 0;
        std::size_t s = 0;
        std::uint64_t done = 0;
        for (const Taken &t : taken) {
            ASSERT_LT(t.owner, p.aggregators);
            const std::uint64_t window_lo = p.round_lo(t.round) + t.owner * p.window;
            ASSERT_GE(t.piece.addr, window_lo) << "trial " << trial;
            ASSERT_LE(t.piece.addr + t.piece.len, window_lo + p.window) << "trial " << trial;
            // In order: the next bytes of the current segment.
            ASSERT_LT(s, segments.size());
            ASSERT_EQ(t.piece.addr, segments[s].addr + done) << "trial " << trial;
            ASSERT_EQ(t.piece.mem, segments[s].mem + done) << "trial " << trial;
            done += t.piece.len;
            total += t.piece.len;
            if (done == segments[s].len) {
                ++s;
                done = 0;
            }
        }
        EXPECT_EQ(total, used) << "trial " << trial;
        EXPECT_EQ(s, segments.size()) << "trial " << trial;
    }
}

// A window's owner is its index in the file modulo the aggregators, whatever range a transfer
// covers: two time steps that move different ranges give a stripe the same writer.
TEST(Aggregation, AWindowsOwnerIsFixedByItsFileOffset) {
    mpiio_test::XorShift next(0x9e3779b97f4a7c15ULL);
    static char memory[1 << 16];
    for (int trial = 0; trial < 2000; ++trial) {
        const std::uint64_t window = 1 + next(4096), lo = next(1 << 20), len = 1 + next(sizeof memory);
        const std::size_t aggregators = 1 + next(7);
        const Plan p = make_plan(lo, lo + len, aggregators, window);
        ASSERT_EQ(p.base % (aggregators * window), 0u) << "rounds start at a multiple of A windows";
        const std::vector<Segment> segments{{lo, memory, len}};
        for (const Taken &t : take_all(p, segments))
            ASSERT_EQ(t.owner, (t.piece.addr / window) % aggregators)
                << "trial " << trial << ": window " << t.piece.addr / window << " of " << aggregators;
    }
}

TEST(Aggregation, WindowsAreWholeStripeUnits) {
    struct Row {
        std::uint64_t staging, unit, window;
    };
    constexpr std::uint64_t K = 1024, M = 1024 * K;
    for (const Row &row : std::vector<Row>{
             {4 * M, 0, 4 * M},       // no unit known: the staging buffer
             {4 * M, 4096, 4 * M},    // a page: a multiple already
             {4 * M, M, 4 * M},       // Lustre's 1 MiB stripes
             {4 * M, 3 * M, 3 * M},   // rounded down to whole units
             {4 * M, 16 * M, 16 * M}, // a GPFS block larger than the buffer: one unit
             {4 * M, 64 * M, 64 * M}, // the largest unit a window takes
             {4 * M, 128 * M, 4 * M}, // larger: not worth an aggregator's memory
             {256, 65536, 65536},     // a tiny buffer still writes whole units
             {256, 4096, 256},        // a page is no lock unit (local disks, tmpfs)
             {5000, 1, 5000},         // nor is a byte
         }) {
        SCOPED_TRACE(testing::Message() << "staging " << row.staging << ", unit " << row.unit);
        EXPECT_EQ(window_for(row.staging, row.unit), row.window);
    }
}

TEST(Aggregation, AggregatorCountFollowsNodesHintsAndServers) {
    struct Row {
        std::size_t nodes, ranks, asked, cb_nodes, servers, count;
        const char *why;
    };
    for (const Row &row : std::vector<Row>{
             {1, 4, 0, 0, 0, 1, "one node: one aggregator"},
             {4, 64, 0, 0, 0, 4, "one per node"},
             {4, 64, 0, 2, 0, 2, "cb_nodes caps it"},
             {4, 64, 0, 8, 0, 4, "cb_nodes above the nodes: one per node"},
             {4, 64, 8, 0, 0, 8, "asked: more than one per node"},
             {4, 64, 8, 3, 0, 3, "cb_nodes caps what was asked"},
             {4, 3, 8, 0, 0, 3, "at most the ranks"},
             {100, 6400, 0, 0, 8, 8, "100 nodes over 8 servers: one writer per server"},
             {6, 48, 0, 0, 8, 4, "6 nodes over 8 servers: the largest divisor of 8"},
             {3, 12, 0, 0, 1, 1, "one server: one writer"},
             {16, 64, 0, 4, 8, 4, "cb_nodes first, then the divisor rule"},
             {16, 64, 12, 0, 8, 12, "asked wins over the servers' rule"},
             {0, 0, 0, 0, 0, 1, "never none"},
         }) {
        SCOPED_TRACE(row.why);
        EXPECT_EQ(aggregator_count(row.nodes, row.ranks, row.asked, row.cb_nodes, row.servers), row.count);
    }
}

TEST(Aggregation, AggregatorsSpreadOverTheNodes) {
    // node_of[r]: the lowest rank of rank r's node. Ranks by node (0-3, 4-7) and round robin.
    const std::vector<int> by_node{0, 0, 0, 0, 4, 4, 4, 4};
    const std::vector<int> round_robin{0, 1, 0, 1, 0, 1, 0, 1};
    EXPECT_EQ(choose_aggregators(by_node, 2), (std::vector<int>{0, 4}));
    EXPECT_EQ(choose_aggregators(by_node, 1), (std::vector<int>{0}));
    EXPECT_EQ(choose_aggregators(by_node, 4), (std::vector<int>{0, 1, 4, 5})) << "then each node's next rank";
    EXPECT_EQ(choose_aggregators(by_node, 3), (std::vector<int>{0, 1, 4}));
    EXPECT_EQ(choose_aggregators(round_robin, 2), (std::vector<int>{0, 1}));
    EXPECT_EQ(choose_aggregators(round_robin, 4), (std::vector<int>{0, 1, 2, 3}));
    EXPECT_EQ(choose_aggregators(by_node, 99), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}))
        << "at most every rank";
    const std::vector<int> four_nodes{0, 1, 2, 3, 0, 1, 2, 3};
    EXPECT_EQ(choose_aggregators(four_nodes, 2), (std::vector<int>{0, 2}))
        << "spread, not the first two nodes";
    EXPECT_EQ(choose_aggregators(std::vector<int>{}, 3), (std::vector<int>{0}));
}

// The node map from the ranks' host keys: each rank's lowest rank of the same host, whatever the
// order the hosts' ranks come in.
TEST(Aggregation, NodesAreTheRanksOfOneHost) {
    EXPECT_EQ(node_leaders(std::vector<std::uint64_t>{7, 7, 9, 9}), (std::vector<int>{0, 0, 2, 2}));
    EXPECT_EQ(node_leaders(std::vector<std::uint64_t>{7, 9, 7, 9}), (std::vector<int>{0, 1, 0, 1}));
    EXPECT_EQ(node_leaders(std::vector<std::uint64_t>{5, 5, 5}), (std::vector<int>{0, 0, 0}));
    EXPECT_TRUE(node_leaders(std::vector<std::uint64_t>{}).empty());
}

// A rank's batches: one per window it has bytes in (none for the windows between), each with its
// pieces grouped; every byte of every segment in exactly one batch, the batch of its window.
TEST(Aggregation, BatchesAreTheWindowsARankHasBytesIn) {
    const Plan p = make_plan(0, 1 << 20, 2, 1024); // rounds of 2 KiB
    static char memory[8192];
    // 100 bytes in window 0, then 8 strided pieces of 16 bytes in window 3, then window 1000.
    std::vector<Segment> segments{{10, memory, 100}};
    for (int k = 0; k < 8; ++k)
        segments.push_back({3 * 1024 + 64 * static_cast<std::uint64_t>(k), memory + 100 + 16 * k, 16});
    segments.push_back({1000 * 1024 + 5, memory + 300, 50});
    const std::vector<Batch> batches = cut_into_batches(p, segments);
    ASSERT_EQ(batches.size(), 3u);
    EXPECT_EQ(batches[0].round, 0u);
    EXPECT_EQ(batches[0].aggregator, 0u);
    EXPECT_EQ(batches[1].round, 1u); // window 3: round 1, aggregator 1
    EXPECT_EQ(batches[1].aggregator, 1u);
    ASSERT_EQ(batches[1].groups.size(), 1u) << "the strided pieces are one group";
    EXPECT_EQ(batches[1].groups[0].count, 8u);
    EXPECT_EQ(batches[1].groups[0].stride, 64u);
    EXPECT_EQ(batches[2].round, 500u) << "the 496 rounds between have no batch";
    EXPECT_EQ(batches[2].aggregator, 0u);

    mpiio_test::XorShift next(0x51ed2701f3a5c9b7ULL);
    for (int trial = 0; trial < 500; ++trial) {
        std::vector<Segment> random;
        std::uint64_t at = next(5000), used = 0;
        for (int i = 0, n = static_cast<int>(1 + next(20)); i < n; ++i) {
            const std::uint64_t len = 1 + next(300);
            if (used + len > sizeof memory)
                break;
            random.push_back({at, memory + used, len});
            used += len;
            at += len + next(4) * next(3000);
        }
        const Plan q = make_plan(random.front().addr, random.back().addr + random.back().len, 1 + next(4),
                                 1 + next(2048));
        std::uint64_t total = 0, last_round = 0;
        for (const Batch &b : cut_into_batches(q, random)) {
            ASSERT_GE(b.round, last_round) << "ascending rounds";
            last_round = b.round;
            for (const Group &g : b.groups) {
                const std::uint64_t window_lo = q.round_lo(b.round) + b.aggregator * q.window;
                ASSERT_GE(g.addr, window_lo);
                ASSERT_LE(g.end(), window_lo + q.window);
                total += g.count * g.len;
            }
        }
        EXPECT_EQ(total, used) << "trial " << trial;
    }
}

// What a rank tells an aggregator, read back on the aggregator's side: the windows in round
// order, each with its senders in rank order and their groups.
TEST(Aggregation, AggregatorsReadTheBatchesBack) {
    const Batch a0{0, 0, {{0, 10, 0, 1}}}, a5{0, 5, {{100, 4, 8, 3}, {200, 1, 0, 1}}},
        b5{0, 5, {{150, 2, 0, 1}}};
    std::vector<std::int64_t> rank1, rank3;
    describe_batch(a0, rank1);
    describe_batch(a5, rank1);
    describe_batch(b5, rank3);
    const std::vector<SenderWords> senders{{1, rank1}, {3, rank3}};
    const std::vector<WindowPieces> windows = windows_from(senders);
    ASSERT_EQ(windows.size(), 2u);
    EXPECT_EQ(windows[0].round, 0u);
    ASSERT_EQ(windows[0].senders.size(), 1u);
    EXPECT_EQ(windows[0].senders[0].rank, 1);
    EXPECT_EQ(windows[1].round, 5u);
    ASSERT_EQ(windows[1].senders.size(), 2u);
    EXPECT_EQ(windows[1].senders[0].rank, 1);
    EXPECT_EQ(windows[1].groups_of(windows[1].senders[0]).size(), 2u);
    EXPECT_EQ(windows[1].groups_of(windows[1].senders[0])[0].count, 3u);
    EXPECT_EQ(windows[1].senders[1].rank, 3);
    EXPECT_EQ(windows[1].groups_of(windows[1].senders[1])[0].addr, 150u);
    EXPECT_EQ(windows[1].rank_of_groups(), (std::vector<int>{1, 1, 3}));
    const std::vector<std::int64_t> cut{5, 2, 100, 4, 8};
    const std::vector<SenderWords> bad{{0, cut}};
    EXPECT_THROW(windows_from(bad), std::invalid_argument);
}

TEST(Aggregation, PiecesMergeIntoSortedRuns) {
    // (address, length, stride, count) groups from several ranks: out of order, touching,
    // overlapping (reads), strided.
    const std::vector<Group> groups{{300, 50, 0, 1}, {0, 100, 0, 1}, {100, 20, 0, 1},  {200, 10, 0, 1},
                                    {205, 50, 0, 1}, {400, 0, 0, 1}, {500, 10, 20, 3}, {600, 10, 10, 2}};
    const auto runs = merge_pieces(groups);
    ASSERT_EQ(runs.size(), 7u);
    EXPECT_EQ(runs[0].lo, 0u);
    EXPECT_EQ(runs[0].hi, 120u);
    EXPECT_EQ(runs[1].lo, 200u);
    EXPECT_EQ(runs[1].hi, 255u);
    EXPECT_EQ(runs[2].lo, 300u);
    EXPECT_EQ(runs[2].hi, 350u);
    EXPECT_EQ(runs[3].lo, 500u); // 500, 520, 540: three pieces of 10
    EXPECT_EQ(runs[3].hi, 510u);
    EXPECT_EQ(runs[5].lo, 540u);
    EXPECT_EQ(runs[6].lo, 600u); // touching pieces: one range
    EXPECT_EQ(runs[6].hi, 620u);
}

// Pieces of one length at one file and one memory stride become one group; anything else starts a
// new one. Every piece is in exactly one group, at its place.
TEST(Aggregation, StridedPiecesGroup) {
    char m[1000];
    std::vector<Group> g;
    for (int k = 0; k < 5; ++k) // every other 4-byte element, memory packed
        append_grouped(g, Segment{100 + 8 * static_cast<std::uint64_t>(k), m + 4 * k, 4});
    append_grouped(g, Segment{141, m + 20, 4}); // file stride breaks
    append_grouped(g, Segment{150, m + 30, 8}); // length breaks
    append_grouped(g, Segment{158, m + 38, 8}); // touching: a group of stride == len
    ASSERT_EQ(g.size(), 3u);
    EXPECT_EQ(g[0].addr, 100u);
    EXPECT_EQ(g[0].count, 5u);
    EXPECT_EQ(g[0].stride, 8u);
    EXPECT_EQ(g[0].mem_stride, 4);
    EXPECT_EQ(g[0].end(), 136u);
    EXPECT_EQ(g[1].addr, 141u);
    EXPECT_EQ(g[1].count, 1u);
    EXPECT_EQ(g[2].count, 2u);
    EXPECT_EQ(g[2].stride, 8u);
    EXPECT_EQ(g[2].end(), 166u);
}

} // namespace
