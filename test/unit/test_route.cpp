// route::decide: the per-operation route choice of collective transfers, as tables.
#include "collective/route.hpp"

#include "xorshift.hpp"

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

// The summary every rank's extent folds into (one MPI_Allreduce, rank order) decides the same
// route as the full exchange wherever it decides at all: checked on random tables of every kind
// (ranks in order, shuffled, overlapping, nested, empty, huge), every policy and limit.
// (`written_ends`: each rank's written end, when given; `failed`: the rank that failed to prepare;
// `bytes`: each rank's bytes, when given.)
mpiio::route::ExtentSummary summary_of(const std::vector<std::int64_t> &w,
                                       const std::vector<std::int64_t> &written_ends = {}, int failed = -1,
                                       const std::vector<std::int64_t> &bytes = {}) {
    using mpiio::route::ExtentSummary;
    ExtentSummary all;
    for (std::size_t r = 0; r < w.size() / 3; ++r) {
        ExtentSummary right = mpiio::route::summarize(w[3 * r], w[3 * r + 1], w[3 * r + 2],
                                                      static_cast<int>(r), static_cast<int>(r) == failed);
        if (!written_ends.empty())
            right.written_end = written_ends[r];
        if (!bytes.empty())
            right.bytes = bytes[r];
        if (r == 0)
            all = right;
        else {
            mpiio::route::combine(all, right);
            all = right;
        }
    }
    return all;
}

TEST(Route, SummaryDecidesAsTheFullExchangeDoes) {
    mpiio_test::XorShift next(0x9e3779b97f4a7c15ULL);
    const std::int64_t kFlags[] = {kPlain, kStrided, kNeedsView};
    const CollectiveRoute kPolicies[] = {CollectiveRoute::Auto, CollectiveRoute::Collective,
                                         CollectiveRoute::Independent, CollectiveRoute::Aggregate};
    int decided = 0, total = 0, ordered_decided = 0;
    for (int trial = 0; trial < 20000; ++trial) {
        const int nranks = 1 + static_cast<int>(next(9));
        const int kind = static_cast<int>(next(4));
        std::vector<std::int64_t> w;
        std::int64_t cursor = static_cast<std::int64_t>(next(100));
        for (int r = 0; r < nranks; ++r) {
            std::int64_t lo = 0, hi = 0;
            if (next(6) != 0) { // some ranks move nothing
                const auto len = static_cast<std::int64_t>(1 + next(kind == 3 ? INT64_MAX / 16 : 200));
                if (kind == 0) { // ascending blocks, sometimes touching
                    lo = cursor + static_cast<std::int64_t>(next(3));
                } else if (kind == 1) { // anywhere in a small range: interleaved and nested
                    lo = static_cast<std::int64_t>(next(400));
                } else { // ascending, then shuffled below
                    lo = cursor + static_cast<std::int64_t>(next(50));
                }
                hi = lo + len;
                cursor = hi;
            }
            w.insert(w.end(), {lo, hi, kFlags[next(3)]});
        }
        if (kind >= 2) { // shuffle ranks
            for (int r = nranks - 1; r > 0; --r) {
                const int j = static_cast<int>(next(static_cast<std::uint64_t>(r + 1)));
                for (int k = 0; k < 3; ++k)
                    std::swap(w[3 * r + k], w[3 * j + k]);
            }
        }
        const auto s = summary_of(w);
        for (CollectiveRoute policy : kPolicies)
            for (bool individual : {false, true})
                for (std::uint64_t limit : {std::uint64_t{1}, std::uint64_t{2}, kRead, std::uint64_t{65536}})
                    for (bool need_disjoint : {false, true}) {
                        ++total;
                        const auto full = decide(w, policy, individual, limit);
                        const auto quick =
                            mpiio::route::decide_from_summary(s, policy, individual, limit, need_disjoint);
                        if (!quick)
                            continue;
                        ++decided;
                        if (s.ordered)
                            ++ordered_decided;
                        ASSERT_EQ(quick->independent, full.independent) << "trial " << trial;
                        ASSERT_EQ(quick->all_contiguous, full.all_contiguous) << "trial " << trial;
                        ASSERT_EQ(quick->aggregate, full.aggregate) << "trial " << trial;
                        if (need_disjoint && full.independent) {
                            ASSERT_EQ(quick->disjoint, full.disjoint) << "trial " << trial;
                        }
                    }
    }
    // The summary must decide most cases on its own.
    EXPECT_GT(decided, total * 3 / 4);
    EXPECT_GT(ordered_decided, 0);
}

TEST(Route, SummaryOfAscendingExtentsNeedsNoFullExchange) {
    for (bool write : {false, true}) {
        const auto w =
            words({{0, 100, kPlain}, {100, 200, kStrided}, {0, 0, kNeedsView}, {250, 300, kPlain}});
        const auto d = mpiio::route::decide_from_summary(summary_of(w), CollectiveRoute::Auto, false,
                                                         write ? kWrite : kRead, write);
        ASSERT_TRUE(d.has_value());
        EXPECT_TRUE(d->independent);
        EXPECT_TRUE(d->disjoint);
        EXPECT_FALSE(d->all_contiguous);
    }
    // Certain overlap decides too: four ranks over the same range.
    const auto same = words({{0, 100, kStrided}, {0, 100, kStrided}, {0, 100, kStrided}, {0, 100, kStrided}});
    const auto write =
        mpiio::route::decide_from_summary(summary_of(same), CollectiveRoute::Auto, false, kWrite, true);
    ASSERT_TRUE(write.has_value());
    EXPECT_FALSE(write->independent);
    const auto read =
        mpiio::route::decide_from_summary(summary_of(same), CollectiveRoute::Auto, false, kRead, false);
    ASSERT_TRUE(read.has_value());
    EXPECT_TRUE(read->independent); // 400 bytes over 100, limit 4
}

// Extents that tile one range leave an MPI collective write no hole, so it needs no extension to
// the EOA first (collective_engine.cpp); any hole, overlap, strided extent or order against the
// rank keeps it.
// collective_route=aggregate: every transfer that needs no file view, unless the application asked
// for independent calls, whatever the extents (an aggregator orders overlapping pieces itself).
TEST(Route, AggregateTakesEveryTransferWithoutAView) {
    const auto disjoint = words({{0, 100, kPlain}, {100, 200, kStrided}, {300, 400, kPlain}});
    auto d = decide(disjoint, CollectiveRoute::Aggregate, false, kWrite);
    EXPECT_TRUE(d.aggregate);
    EXPECT_FALSE(d.independent);
    EXPECT_TRUE(d.disjoint);
    const auto interleaved = words({{0, 300, kStrided}, {100, 400, kStrided}});
    d = decide(interleaved, CollectiveRoute::Aggregate, false, kWrite);
    EXPECT_TRUE(d.aggregate);
    EXPECT_FALSE(d.disjoint);
    const auto certain = mpiio::route::decide_from_summary(summary_of(interleaved),
                                                           CollectiveRoute::Aggregate, false, kWrite, true);
    ASSERT_TRUE(certain) << "more bytes than their span: the summary knows they overlap";
    EXPECT_TRUE(certain->aggregate);
    EXPECT_FALSE(certain->disjoint);
    const auto descending = words({{200, 300, kPlain}, {0, 100, kPlain}});
    const auto unordered = mpiio::route::decide_from_summary(summary_of(descending),
                                                             CollectiveRoute::Aggregate, false, kWrite, true);
    ASSERT_TRUE(unordered) << "aggregation needs no full exchange";
    EXPECT_TRUE(unordered->aggregate);
    const auto read = mpiio::route::decide_from_summary(summary_of(descending), CollectiveRoute::Aggregate,
                                                        false, kRead, false);
    ASSERT_TRUE(read) << "reads need not know";
    EXPECT_TRUE(read->aggregate);
    d = decide(words({{0, 100, kPlain}, {100, 200, kNeedsView}}), CollectiveRoute::Aggregate, false, kWrite);
    EXPECT_FALSE(d.aggregate);
    EXPECT_FALSE(d.independent) << "a file view takes MPI collective I/O";
    d = decide(disjoint, CollectiveRoute::Aggregate, true, kWrite);
    EXPECT_FALSE(d.aggregate);
    EXPECT_TRUE(d.independent) << "the application asked for independent calls";
}

// collective_route=aggregate_interleaved (auto on CephFS): written contiguous blocks of at least a
// call's worth that ascend with the rank move rank by rank, unless the transfer moves the last
// one's range again; every read and any other write takes `aggregate`. The summary decides it
// alone; other policies pass unchanged.
TEST(Route, AggregateInterleavedLeavesLargeAscendingBlocksToTheirRanks) {
    using mpiio::route::policy_for;
    constexpr auto kPolicy = CollectiveRoute::AggregateInterleaved;
    constexpr std::int64_t kMinBlock = 64;
    struct Row {
        const char *what;
        std::vector<std::int64_t> w;
        CollectiveRoute expected;
    };
    const Row rows[] = {
        {"ascending blocks", words({{0, 100, kPlain}, {100, 200, kPlain}, {300, 400, kPlain}}),
         CollectiveRoute::Independent},
        {"a rank that moves nothing", words({{0, 100, kPlain}, {0, 0, kStrided}, {100, 164, kPlain}}),
         CollectiveRoute::Independent},
        {"one rank's block", words({{0, 0, kPlain}, {40, 140, kPlain}}), CollectiveRoute::Independent},
        {"a block shorter than a call's worth", words({{0, 100, kPlain}, {100, 163, kPlain}}),
         CollectiveRoute::Aggregate},
        {"descending blocks", words({{200, 300, kPlain}, {0, 100, kPlain}}), CollectiveRoute::Aggregate},
        {"ascending, one strided", words({{0, 100, kPlain}, {100, 200, kStrided}}),
         CollectiveRoute::Aggregate},
        {"interleaved", words({{0, 300, kStrided}, {100, 400, kStrided}}), CollectiveRoute::Aggregate},
        {"overlapping blocks", words({{0, 150, kPlain}, {100, 200, kPlain}}), CollectiveRoute::Aggregate},
        {"nothing to move", words({{0, 0, kPlain}, {0, 0, kPlain}}), CollectiveRoute::Aggregate},
        {"a part that needs a view", words({{0, 100, kPlain}, {100, 200, kNeedsView}}),
         CollectiveRoute::Aggregate},
    };
    for (const Row &row : rows) {
        SCOPED_TRACE(row.what);
        const auto s = summary_of(row.w);
        const CollectiveRoute policy = policy_for(s, kPolicy, kMinBlock, true, false);
        EXPECT_EQ(policy, row.expected);
        EXPECT_EQ(policy_for(s, kPolicy, kMinBlock, true, true), CollectiveRoute::Aggregate)
            << "a transfer of the last one's range aggregates (the aggregators keep it)";
        EXPECT_EQ(policy_for(s, kPolicy, kMinBlock, false, false), CollectiveRoute::Aggregate)
            << "reads aggregate (whole windows in file order)";
        EXPECT_EQ(policy_for(s, kPolicy, 0, true, false) == CollectiveRoute::Independent,
                  row.expected == CollectiveRoute::Independent ||
                      std::string(row.what).starts_with("a block shorter"));
        for (bool write :
             {false, true}) { // the route then taken: written blocks on their own, the rest aggregated
            const CollectiveRoute taken = policy_for(s, kPolicy, kMinBlock, write, false);
            const bool own = write && row.expected == CollectiveRoute::Independent;
            const auto d = mpiio::route::decide_from_summary(s, taken, false, write ? kWrite : kRead, write);
            ASSERT_TRUE(d.has_value());
            EXPECT_EQ(d->independent, own);
            EXPECT_EQ(d->aggregate, !own && s.all_capable);
        }
        for (CollectiveRoute other : {CollectiveRoute::Auto, CollectiveRoute::Collective,
                                      CollectiveRoute::Independent, CollectiveRoute::Aggregate})
            for (bool repeats : {false, true})
                for (bool write : {false, true})
                    EXPECT_EQ(policy_for(s, other, kMinBlock, write, repeats), other);
    }
}

TEST(Route, GaplessOnlyWhenTheExtentsTileOneRange) {
    using mpiio::route::gapless;
    EXPECT_TRUE(gapless(summary_of(words({{0, 100, kPlain}, {100, 200, kPlain}, {200, 300, kPlain}}))));
    EXPECT_TRUE(gapless(summary_of(words({{0, 100, kPlain}, {0, 0, kNeedsView}, {100, 150, kPlain}}))));
    EXPECT_TRUE(gapless(summary_of(words({{50, 60, kPlain}}))));                        // one rank: its range
    EXPECT_FALSE(gapless(summary_of(words({{0, 100, kPlain}, {101, 200, kPlain}}))));   // a hole
    EXPECT_FALSE(gapless(summary_of(words({{0, 100, kPlain}, {50, 200, kPlain}}))));    // overlap
    EXPECT_FALSE(gapless(summary_of(words({{100, 200, kPlain}, {0, 100, kPlain}}))));   // against the rank
    EXPECT_FALSE(gapless(summary_of(words({{0, 100, kStrided}, {100, 200, kPlain}})))); // holes inside
    EXPECT_FALSE(gapless(summary_of(words({{0, 0, kPlain}, {0, 0, kPlain}}))));         // nothing written
}

// Interleaved extents with holes of their own (2-D blocks tiling a dataset) still leave the range
// whole when the ranks' bytes add up to it: an MPI collective write then has no hole to read back.
TEST(Route, RangeCoveredOnlyWhenTheRanksBytesAddUpToIt) {
    using mpiio::route::covers_its_range;
    const auto blocks = words({{0, 300, kStrided}, {0, 0, kPlain}, {100, 400, kStrided}});
    EXPECT_TRUE(covers_its_range(summary_of(blocks, {}, -1, {200, 0, 200})));
    EXPECT_FALSE(covers_its_range(summary_of(blocks, {}, -1, {200, 0, 150})));     // a hole somewhere
    EXPECT_FALSE(covers_its_range(summary_of(blocks, {}, -1, {INT64_MAX, 0, 1}))); // saturated: unknown
    EXPECT_FALSE(covers_its_range(summary_of(words({{0, 0, kPlain}, {0, 0, kPlain}}), {}, -1, {0, 0})));
    EXPECT_TRUE(
        covers_its_range(summary_of(words({{0, 100, kPlain}, {100, 200, kPlain}}), {}, -1, {100, 100})));
}

// The written end is the highest of the ranks', whatever their extents: a rank that moves
// nothing in the transfer, or failed to prepare, may still have written past every other.
TEST(Route, WrittenEndIsTheHighestOfEveryRank) {
    const auto extents = words({{0, 100, kPlain}, {0, 0, kPlain}, {100, 200, kStrided}, {0, 0, kPlain}});
    for (int failed = -1; failed < 4; ++failed)
        EXPECT_EQ(summary_of(extents, {300, 9000, 200, 50}, failed).written_end, 9000)
            << "failed rank " << failed;
}

} // namespace
