// route::decide: the per-operation route choice of collective transfers, as tables.
#include "route.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using mpiio::CollectiveRoute;
using mpiio::route::decide;
using mpiio::route::kContiguous;
using mpiio::route::kIndependentCapable;

constexpr std::int64_t kPlain = kContiguous | kIndependentCapable;
constexpr std::int64_t kStrided = kIndependentCapable; // non-contiguous, movable independently
constexpr std::int64_t kNeedsView = 0;                 // the library's non-contiguous file type
constexpr std::uint64_t kWrite = 1;                    // writes take disjoint extents only
constexpr std::uint64_t kRead = 4;                     // reads: read_overlap_limit's default

struct Rank {
    std::int64_t lo, hi, flags;
};

std::vector<std::int64_t> words(std::initializer_list<Rank> ranks) {
    std::vector<std::int64_t> w;
    for (const Rank &r : ranks)
        w.insert(w.end(), {r.lo, r.hi, r.flags});
    return w;
}

TEST(Route, DisjointBlocksGoIndependentUnderAuto) {
    const auto d = decide(words({{0, 100, kPlain}, {100, 200, kPlain}, {200, 300, kPlain}}),
                          CollectiveRoute::Auto, false, kWrite);
    EXPECT_TRUE(d.independent);
    EXPECT_TRUE(d.disjoint);
    EXPECT_TRUE(d.all_contiguous);
}

TEST(Route, TouchingRangesAreDisjoint) {
    EXPECT_TRUE(
        decide(words({{0, 10, kPlain}, {10, 20, kPlain}}), CollectiveRoute::Auto, false, kWrite).disjoint);
}

TEST(Route, RanksInAnyOrderAreSorted) {
    const auto d = decide(words({{200, 300, kStrided}, {0, 100, kPlain}, {100, 200, kPlain}}),
                          CollectiveRoute::Auto, false, kWrite);
    EXPECT_TRUE(d.disjoint);
    EXPECT_TRUE(d.independent);
    EXPECT_FALSE(d.all_contiguous);
}

TEST(Route, InterleavedRangesUseMpiCollectiveIo) {
    // two ranks owning alternate blocks: their extents overlap
    const auto d =
        decide(words({{0, 90, kStrided}, {10, 100, kStrided}}), CollectiveRoute::Auto, false, kWrite);
    EXPECT_FALSE(d.disjoint);
    EXPECT_FALSE(d.independent);
}

TEST(Route, OverlapFoundAfterSorting) {
    EXPECT_FALSE(decide(words({{50, 60, kPlain}, {0, 10, kPlain}, {5, 20, kPlain}}), CollectiveRoute::Auto,
                        false, kWrite)
                     .disjoint);
}

TEST(Route, EmptyRanksTakeNoPart) {
    const auto d = decide(words({{0, 0, 0}, {0, 100, kPlain}, {0, 0, kNeedsView}, {100, 200, kPlain}}),
                          CollectiveRoute::Auto, false, kWrite);
    EXPECT_TRUE(d.disjoint);
    EXPECT_TRUE(d.independent);
    EXPECT_TRUE(d.all_contiguous);
    EXPECT_TRUE(decide(words({{0, 0, 0}, {0, 0, 0}}), CollectiveRoute::Auto, false, kWrite).independent);
}

TEST(Route, ForcedCollectiveAlwaysUsesMpi) {
    EXPECT_FALSE(
        decide(words({{0, 10, kPlain}, {10, 20, kPlain}}), CollectiveRoute::Collective, false, kWrite)
            .independent);
}

TEST(Route, ForcedIndependentEvenWhenInterleaved) {
    const auto d =
        decide(words({{0, 90, kStrided}, {10, 100, kStrided}}), CollectiveRoute::Independent, false, kWrite);
    EXPECT_TRUE(d.independent);
    EXPECT_FALSE(d.disjoint); // so writes must not bridge holes
}

TEST(Route, IndividualIoOptionMeansIndependent) {
    EXPECT_TRUE(
        decide(words({{0, 90, kStrided}, {10, 100, kStrided}}), CollectiveRoute::Collective, true, kWrite)
            .independent);
}

TEST(Route, ARankThatNeedsAFileViewForcesMpi) {
    for (CollectiveRoute policy : {CollectiveRoute::Auto, CollectiveRoute::Independent}) {
        const auto d = decide(words({{0, 10, kPlain}, {10, 20, kNeedsView}}), policy, true, kWrite);
        EXPECT_FALSE(d.independent);
        EXPECT_FALSE(d.all_contiguous);
    }
}

// Reads: overlapping extents still go rank by rank while the extents add up to at most the limit
// times the range they cover together; each rank then reads only inside its own extent.
TEST(Route, ReadsOfInterleavedRangesGoIndependentWithinTheLimit) {
    const auto two = words({{0, 90, kStrided}, {10, 100, kStrided}}); // 180 bytes over 100
    EXPECT_TRUE(decide(two, CollectiveRoute::Auto, false, kRead).independent);
    EXPECT_FALSE(decide(two, CollectiveRoute::Auto, false, kRead).disjoint);
    EXPECT_FALSE(decide(two, CollectiveRoute::Auto, false, 1).independent);
    EXPECT_TRUE(decide(two, CollectiveRoute::Auto, false, 2).independent);
    EXPECT_FALSE(decide(two, CollectiveRoute::Collective, false, kRead).independent);
}

TEST(Route, ReadsOverTheLimitUseMpiCollectiveIo) {
    // five ranks each reading all of [0, 100): 500 bytes over 100
    const auto all = words(
        {{0, 100, kStrided}, {0, 100, kStrided}, {0, 100, kStrided}, {0, 100, kStrided}, {0, 100, kStrided}});
    EXPECT_FALSE(decide(all, CollectiveRoute::Auto, false, kRead).independent);
    EXPECT_TRUE(decide(all, CollectiveRoute::Auto, false, 5).independent);
}

TEST(Route, OverlapIsMeasuredAgainstTheCoveredRangeNotTheSpan) {
    // two overlapping pairs far apart: 4 x 100 bytes over 2 x 150 covered (not over 10150)
    const auto pairs =
        words({{0, 100, kStrided}, {10000, 10100, kStrided}, {50, 150, kStrided}, {10050, 10150, kStrided}});
    EXPECT_FALSE(decide(pairs, CollectiveRoute::Auto, false, 1).independent);
    EXPECT_TRUE(decide(pairs, CollectiveRoute::Auto, false, 2).independent); // 400 <= 2 x 300
    const auto nested = words({{0, 1000, kStrided}, {10, 20, kStrided}, {30, 40, kStrided}});
    EXPECT_FALSE(decide(nested, CollectiveRoute::Auto, false, 1).independent); // 1020 > 1000
    EXPECT_TRUE(decide(nested, CollectiveRoute::Auto, false, 2).independent);  // 1020 <= 2000
}

TEST(Route, HugeRangesDoNotOverflowTheSum) {
    constexpr std::int64_t kBig = INT64_MAX / 2;
    const auto huge = words({{0, kBig, kStrided}, {1, kBig + 1, kStrided}, {2, kBig + 2, kStrided}});
    EXPECT_FALSE(decide(huge, CollectiveRoute::Auto, false, 2).independent);
    EXPECT_TRUE(decide(huge, CollectiveRoute::Auto, false, 3).independent);
    EXPECT_TRUE(decide(huge, CollectiveRoute::Auto, false, 65536).independent);
    // five ranks each over all of [0, INT64_MAX): the sum passes 2^64, and is still 5x the range
    const auto all = words({{0, INT64_MAX, kStrided},
                            {0, INT64_MAX, kStrided},
                            {0, INT64_MAX, kStrided},
                            {0, INT64_MAX, kStrided},
                            {0, INT64_MAX, kStrided}});
    EXPECT_FALSE(decide(all, CollectiveRoute::Auto, false, 3).independent);
    EXPECT_FALSE(decide(all, CollectiveRoute::Auto, false, 4).independent);
    EXPECT_TRUE(decide(all, CollectiveRoute::Auto, false, 5).independent);
}

TEST(Route, OneRank) {
    EXPECT_TRUE(decide(words({{0, 10, kStrided}}), CollectiveRoute::Auto, false, kWrite).independent);
}

} // namespace
