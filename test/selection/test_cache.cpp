// TypeCache: the same selection shape at another position (a time-step loop) reuses the committed
// type; LRU and block budget evict; handed-out types outlive eviction and clear().
#include "oracle.hpp"
#include "random_selection.hpp"

#include <gtest/gtest.h>

namespace {

using namespace seltest;
namespace sel = mpiio::selection;

Hid simple(std::vector<hsize_t> dims) {
    return Hid(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
}

Hid regular(hsize_t row0, hsize_t col0) {
    Hid s = simple({64, 64});
    hsize_t start[2] = {row0, col0}, stride[2] = {2, 3}, count[2] = {10, 8}, block[2] = {1, 2};
    H5Sselect_hyperslab(s, H5S_SELECT_SET, start, stride, count, block);
    return s;
}

Hid irregular(hsize_t shift) {
    Hid s = simple({1000});
    hsize_t a[1] = {shift}, b[1] = {shift + 10}, c[1] = {shift + 17}, one[1] = {1}, blk[1] = {3};
    H5Sselect_hyperslab(s, H5S_SELECT_SET, a, nullptr, one, blk);
    H5Sselect_hyperslab(s, H5S_SELECT_OR, b, nullptr, one, blk);
    H5Sselect_hyperslab(s, H5S_SELECT_OR, c, nullptr, one, one);
    return s;
}

TEST(SelectionCache, TimeStepLoopReusesTheType) {
    sel::TypeCache cache;
    MPI_Datatype first = MPI_DATATYPE_NULL;
    for (hsize_t step = 0; step < 10; ++step) {
        Hid s = regular(step, step % 3);
        sel::TypeSpec spec = sel::build_type(s, 8, &cache);
        EXPECT_EQ(check_single(s, 8, spec), "");
        if (step == 0)
            first = spec.type;
        EXPECT_EQ(spec.type, first);
        EXPECT_EQ(spec.offset, static_cast<MPI_Aint>((step * 64 + step % 3) * 8));
    }
    EXPECT_EQ(cache.stats().misses, 1u);
    EXPECT_EQ(cache.stats().hits, 9u);
    // Another element size with the same byte shape is another shape.
    Hid s = regular(0, 0);
    EXPECT_NE(sel::build_type(s, 4, &cache).type, first);
}

TEST(SelectionCache, IrregularAndPointPatternsAreCachedByRelativeRuns) {
    sel::TypeCache cache;
    Hid a = irregular(5), b = irregular(500);
    sel::TypeSpec sa = sel::build_type(a, 2, &cache), sb = sel::build_type(b, 2, &cache);
    EXPECT_EQ(sa.type, sb.type);
    EXPECT_EQ(check_single(a, 2, sa), "");
    EXPECT_EQ(check_single(b, 2, sb), "");
    Hid c = irregular(5);
    hsize_t d[1] = {900}, one[1] = {1};
    H5Sselect_hyperslab(c, H5S_SELECT_OR, d, nullptr, one, one);
    EXPECT_NE(sel::build_type(c, 2, &cache).type, sa.type);
    EXPECT_EQ(cache.stats().hits, 1u);
}

TEST(SelectionCache, LruEvictsAndTypesOutliveTheCache) {
    sel::TypeCache cache(2);
    std::vector<sel::TypeSpec> specs;
    for (hsize_t shift : {0, 1, 2})
        for (int k = 0; k < 3; ++k) {
            Hid s = simple({100});
            hsize_t start[1] = {shift}, stride[1] = {static_cast<hsize_t>(2 + k)}, count[1] = {10},
                    one[1] = {1};
            H5Sselect_hyperslab(s, H5S_SELECT_SET, start, stride, count, one);
            specs.push_back(sel::build_type(s, 1, &cache));
        }
    // Three shapes cycling through a 2-entry LRU: every lookup misses.
    EXPECT_EQ(cache.stats().hits, 0u);
    EXPECT_EQ(cache.stats().entries, 2u);
    EXPECT_GE(cache.stats().evictions, 7u);
    cache.clear();
    for (const sel::TypeSpec &spec : specs) {
        MPI_Count size = 0;
        EXPECT_EQ(MPI_Type_size_x(spec.type, &size), MPI_SUCCESS);
        EXPECT_EQ(size, 10);
    }
}

TEST(SelectionCache, BlockBudgetKeepsHugeTypesOut) {
    sel::TypeCache cache(8, 100);
    Hid s = simple({1000});
    Gen g(7);
    select_random_points(g, s, 200, false);
    sel::TypeSpec spec = sel::build_type(s, 4, &cache);
    EXPECT_GT(spec.blocks, 100u);
    EXPECT_EQ(cache.stats().entries, 0u);
    EXPECT_EQ(check_single(s, 4, spec), "");
}

} // namespace
