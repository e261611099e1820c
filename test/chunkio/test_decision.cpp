// The collective chunk I/O decision as tables: no MPI, no HDF5.
#include "decision.hpp"

#include <gtest/gtest.h>

namespace {

using mpiio::chunkio::ChunkIo;
using mpiio::chunkio::ChunkUse;
using mpiio::chunkio::Gather;
using mpiio::chunkio::Knobs;
using mpiio::chunkio::Mode;
using mpiio::chunkio::Plan;

TEST(ChunkDecision, WhatToGather) {
    EXPECT_EQ(what_to_gather(Knobs{Mode::Linked, 0, 60}), Gather::Nothing);
    EXPECT_EQ(what_to_gather(Knobs{Mode::Linked, 50, 60}), Gather::Nothing); // explicit choice wins
    EXPECT_EQ(what_to_gather(Knobs{Mode::Multi, 0, 60}), Gather::PerChunkRankCount);
    EXPECT_EQ(what_to_gather(Knobs{Mode::Default, 0, 60}), Gather::Nothing); // library default: linked
    EXPECT_EQ(what_to_gather(Knobs{Mode::Default, 3, 60}), Gather::TotalCount);
}

TEST(ChunkDecision, ThresholdOnAverageChunksPerRank) {
    struct Row {
        unsigned threshold;
        std::uint64_t total;
        int ranks;
        bool linked;
    };
    const Row rows[] = {
        {0, 0, 4, true},        {1, 0, 4, false},          {1, 4, 4, true},   {2, 7, 4, false}, // 7/4 = 1 < 2
        {2, 8, 4, true},        {10, 39, 4, false},        {10, 40, 4, true}, {5, 5, 1, true},
        {1000, 65536, 4, true}, {100000, 65536, 4, false},
    };
    for (const Row &r : rows)
        EXPECT_EQ(linked_by_threshold(Knobs{Mode::Default, r.threshold, 60}, r.total, r.ranks), r.linked)
            << "threshold " << r.threshold << " total " << r.total << " ranks " << r.ranks;
}

TEST(ChunkDecision, RatioMakesChunksCollectiveOrIndependent) {
    const std::vector<ChunkUse> chunks = {{100, 1}, {200, 2}, {300, 3}, {400, 4}};
    struct Row {
        unsigned ratio;
        int ranks;
        std::vector<ChunkIo> expect;
    };
    const auto C = ChunkIo::Collective, I = ChunkIo::Independent;
    const Row rows[] = {
        {0, 4, {C, C, C, C}},   // ratio 0: every chunk collective
        {60, 4, {I, I, C, C}},  // threshold 4*60/100 = 2: collective when more than 2 ranks
        {50, 4, {I, I, C, C}},  // threshold 2
        {25, 4, {I, C, C, C}},  // threshold 1: more than max(1, 1) = 1 rank
        {1, 4, {I, C, C, C}},   // threshold 0, but never collective for a single rank
        {100, 4, {I, I, I, I}}, // threshold 4: nobody exceeds all ranks
    };
    for (const Row &r : rows) {
        const Plan plan = multi_chunk_plan(Knobs{Mode::Multi, 0, r.ratio}, chunks, r.ranks);
        EXPECT_EQ(plan.kind, Plan::Kind::Multi);
        EXPECT_EQ(plan.per_chunk, r.expect) << "ratio " << r.ratio << " ranks " << r.ranks;
    }
}

TEST(ChunkDecision, OneRankNeverCollectiveUnlessRatioZero) {
    const std::vector<ChunkUse> chunks = {{10, 1}, {20, 1}};
    EXPECT_EQ(multi_chunk_plan(Knobs{Mode::Multi, 0, 60}, chunks, 1).per_chunk,
              (std::vector<ChunkIo>{ChunkIo::Independent, ChunkIo::Independent}));
    EXPECT_EQ(multi_chunk_plan(Knobs{Mode::Multi, 0, 0}, chunks, 1).per_chunk,
              (std::vector<ChunkIo>{ChunkIo::Collective, ChunkIo::Collective}));
}

TEST(ChunkDecision, EmptyChunkListGivesEmptyPlan) {
    EXPECT_TRUE(multi_chunk_plan(Knobs{Mode::Multi, 0, 60}, {}, 4).per_chunk.empty());
}

} // namespace
