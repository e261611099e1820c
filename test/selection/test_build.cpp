// The large-count constructors, exercised with a tiny split size so every splitting branch runs
// (the production split is 2^30, which no test can allocate arrays for).
#include "flatten.hpp"

#include "selection/mpi_build.hpp"

#include <gtest/gtest.h>

namespace {

using namespace seltest;
namespace sel = mpiio::selection;

std::vector<ByteRun> runs_of(mpiio::Datatype t) {
    EXPECT_EQ(MPI_Type_commit(t.ptr()), MPI_SUCCESS);
    std::vector<ByteRun> r;
    EXPECT_TRUE(flatten(t.get(), 1, 0, r));
    MPI_Count lb = 0, extent = 0;
    MPI_Type_get_true_extent_x(t.get(), &lb, &extent);
    // MPI's own packing order must agree with the constructor tree.
    if (lb == 0) {
        EXPECT_EQ(packed_runs(t.get(), 1, extent), r);
    }
    return r;
}

TEST(SelectionBuild, ContiguousBytesSplits) {
    for (MPI_Count n : {1, 3, 4, 5, 16, 17, 23}) {
        auto r = runs_of(sel::contiguous_bytes(n, 4));
        ASSERT_EQ(r.size(), 1u);
        EXPECT_EQ(r[0], (ByteRun{0, n}));
    }
}

TEST(SelectionBuild, HvectorSplits) {
    mpiio::Datatype inner = sel::contiguous_bytes(2);
    for (MPI_Count n : {1, 4, 5, 9, 12, 13}) {
        auto r = runs_of(sel::hvector_any(n, 5, inner.get(), 4));
        ASSERT_EQ(r.size(), static_cast<std::size_t>(n));
        for (MPI_Count i = 0; i < n; ++i)
            EXPECT_EQ(r[i], (ByteRun{5 * i, 2}));
    }
}

TEST(SelectionBuild, RunsTypeCutsLongRunsAndGroupsManyRuns) {
    // Every flavour: regular (hvector), equal lengths (hindexed_block), mixed (hindexed), out of
    // order, long runs cut at 4, more than 4 runs grouped, nested groups.
    const std::vector<std::vector<std::pair<MPI_Aint, MPI_Count>>> cases = {
        {{0, 2}, {10, 2}, {20, 2}},
        {{3, 2}, {10, 2}, {30, 2}},
        {{0, 1}, {10, 9}, {30, 2}},
        {{30, 2}, {0, 3}, {10, 1}},
        {{0, 11}, {20, 4}, {40, 13}},
        {{0, 1},
         {2, 1},
         {4, 1},
         {6, 1},
         {8, 1},
         {10, 1},
         {12, 1},
         {14, 1},
         {16, 1},
         {18, 1},
         {20, 1},
         {22, 1},
         {24, 1},
         {26, 1},
         {28, 1},
         {30, 1},
         {32, 1},
         {34, 3}},
        {{50, 3}, {0, 1}, {10, 17}, {40, 2}, {45, 1}},
    };
    for (const auto &c : cases) {
        std::vector<MPI_Aint> d;
        std::vector<MPI_Count> l;
        std::vector<ByteRun> want;
        for (auto [x, y] : c) {
            d.push_back(x);
            l.push_back(y);
            push_run(want, x, y);
        }
        EXPECT_EQ(runs_of(sel::runs_type(d, l, 4)), want) << describe(want);
        EXPECT_EQ(runs_of(sel::runs_type(d, l)), want) << describe(want);
    }
}

TEST(SelectionBuild, StructGroups) {
    std::vector<int> count;
    std::vector<MPI_Aint> disp;
    std::vector<MPI_Datatype> type;
    std::vector<ByteRun> want;
    for (int i = 0; i < 37; ++i) {
        count.push_back(1 + i % 3);
        disp.push_back(7 * i);
        type.push_back(MPI_BYTE);
        push_run(want, 7 * i, 1 + i % 3);
    }
    EXPECT_EQ(runs_of(sel::struct_any(count, disp, type, 3)), want);
}

} // namespace
