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
                          CollectiveRoute::Auto, false);
    EXPECT_TRUE(d.independent);
    EXPECT_TRUE(d.disjoint);
    EXPECT_TRUE(d.all_contiguous);
}

TEST(Route, TouchingRangesAreDisjoint) {
    EXPECT_TRUE(decide(words({{0, 10, kPlain}, {10, 20, kPlain}}), CollectiveRoute::Auto, false).disjoint);
}

TEST(Route, RanksInAnyOrderAreSorted) {
    const auto d = decide(words({{200, 300, kStrided}, {0, 100, kPlain}, {100, 200, kPlain}}),
                          CollectiveRoute::Auto, false);
    EXPECT_TRUE(d.disjoint);
    EXPECT_TRUE(d.independent);
    EXPECT_FALSE(d.all_contiguous);
}

TEST(Route, InterleavedRangesUseMpiCollectiveIo) {
    // two ranks owning alternate blocks: their extents overlap
    const auto d = decide(words({{0, 90, kStrided}, {10, 100, kStrided}}), CollectiveRoute::Auto, false);
    EXPECT_FALSE(d.disjoint);
    EXPECT_FALSE(d.independent);
}

TEST(Route, OverlapFoundAfterSorting) {
    EXPECT_FALSE(
        decide(words({{50, 60, kPlain}, {0, 10, kPlain}, {5, 20, kPlain}}), CollectiveRoute::Auto, false)
            .disjoint);
}

TEST(Route, EmptyRanksTakeNoPart) {
    const auto d = decide(words({{0, 0, 0}, {0, 100, kPlain}, {0, 0, kNeedsView}, {100, 200, kPlain}}),
                          CollectiveRoute::Auto, false);
    EXPECT_TRUE(d.disjoint);
    EXPECT_TRUE(d.independent);
    EXPECT_TRUE(d.all_contiguous);
    EXPECT_TRUE(decide(words({{0, 0, 0}, {0, 0, 0}}), CollectiveRoute::Auto, false).independent);
}

TEST(Route, ForcedCollectiveAlwaysUsesMpi) {
    EXPECT_FALSE(
        decide(words({{0, 10, kPlain}, {10, 20, kPlain}}), CollectiveRoute::Collective, false).independent);
}

TEST(Route, ForcedIndependentEvenWhenInterleaved) {
    const auto d =
        decide(words({{0, 90, kStrided}, {10, 100, kStrided}}), CollectiveRoute::Independent, false);
    EXPECT_TRUE(d.independent);
    EXPECT_FALSE(d.disjoint); // so writes must not bridge holes
}

TEST(Route, IndividualIoOptionMeansIndependent) {
    EXPECT_TRUE(decide(words({{0, 90, kStrided}, {10, 100, kStrided}}), CollectiveRoute::Collective, true)
                    .independent);
}

TEST(Route, ARankThatNeedsAFileViewForcesMpi) {
    for (CollectiveRoute policy : {CollectiveRoute::Auto, CollectiveRoute::Independent}) {
        const auto d = decide(words({{0, 10, kPlain}, {10, 20, kNeedsView}}), policy, true);
        EXPECT_FALSE(d.independent);
        EXPECT_FALSE(d.all_contiguous);
    }
}

TEST(Route, OneRank) {
    EXPECT_TRUE(decide(words({{0, 10, kStrided}}), CollectiveRoute::Auto, false).independent);
}

} // namespace
