// Edge cases: empty selections, scalar and null spaces, single elements, zero-size blocks, 1-D to
// 8-D (and 32-D), shapes that fold to contiguous, selection offsets, duplicate and reversed
// points, mismatched sizes, odd and huge element sizes.
#include "oracle.hpp"
#include "random_selection.hpp"

#include <gtest/gtest.h>

#include <array>
#include <numeric>

namespace {

using namespace seltest;
namespace sel = mpiio::selection;

Hid simple(std::vector<hsize_t> dims) {
    return Hid(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
}

void hyperslab(hid_t s, std::vector<hsize_t> start, std::vector<hsize_t> stride, std::vector<hsize_t> count,
               std::vector<hsize_t> block, H5S_seloper_t op = H5S_SELECT_SET) {
    ASSERT_GE(H5Sselect_hyperslab(s, op, start.data(), stride.empty() ? nullptr : stride.data(), count.data(),
                                  block.empty() ? nullptr : block.data()),
              0);
}

void points(hid_t s, const std::vector<hsize_t> &coords) {
    const int rank = H5Sget_simple_extent_ndims(s);
    ASSERT_GE(H5Sselect_elements(s, H5S_SELECT_SET, coords.size() / rank, coords.data()), 0);
}

// build_type + check_single, returning the spec for shape assertions.
sel::TypeSpec single(hid_t s, std::size_t elem) {
    sel::TypeSpec spec = sel::build_type(s, elem);
    EXPECT_EQ(check_single(s, elem, spec), "");
    return spec;
}

sel::TypePair pair(hid_t f, hid_t m, std::size_t elem) {
    sel::TypePair p = sel::build_piece_pair(f, m, elem);
    EXPECT_EQ(check_pair(f, m, elem, p), "");
    return p;
}

TEST(SelectionEdge, EmptySelections) {
    Hid s = simple({10, 10});
    H5Sselect_none(s);
    sel::TypeSpec spec = single(s, 4);
    EXPECT_TRUE(spec.empty());
    EXPECT_EQ(spec.count, 0);
    EXPECT_EQ(spec.type, MPI_BYTE);
    Hid m = simple({3});
    H5Sselect_none(m);
    EXPECT_TRUE(pair(s, m, 4).file.empty());
    EXPECT_TRUE(pair(s, H5S_BLOCK, 4).mem.empty());

    Hid null_space(H5Screate(H5S_NULL));
    EXPECT_TRUE(sel::build_type(null_space, 8).empty());
    EXPECT_TRUE(sel::build_piece_pair(null_space, H5S_BLOCK, 8).file.empty());
}

TEST(SelectionEdge, ZeroSizedBlocksSelectNothing) {
    Hid s = simple({20, 20});
    // A zero count or zero block: HDF5 either refuses it or selects nothing; both are fine, but a
    // built type must then be empty.
    hsize_t start[2] = {1, 1}, stride[2] = {2, 2}, count[2] = {3, 0}, block[2] = {1, 1};
    if (H5Sselect_hyperslab(s, H5S_SELECT_SET, start, stride, count, block) >= 0) {
        EXPECT_TRUE(single(s, 4).empty());
    }
    hsize_t count2[2] = {3, 3}, block2[2] = {0, 1};
    H5E_BEGIN_TRY { // a zero block may be rejected
        if (H5Sselect_hyperslab(s, H5S_SELECT_SET, start, stride, count2, block2) >= 0) {
            EXPECT_TRUE(single(s, 4).empty());
        }
    }
    H5E_END_TRY
}

TEST(SelectionEdge, ScalarSpace) {
    Hid s(H5Screate(H5S_SCALAR));
    sel::TypeSpec spec = single(s, 12);
    EXPECT_EQ(spec.bytes, 12);
    EXPECT_EQ(spec.shape, sel::TypeShape::Contiguous);
    Hid m = simple({5});
    hyperslab(m, {3}, {}, {1}, {});
    sel::TypePair p = pair(s, m, 12);
    EXPECT_EQ(p.mem.offset, 36);
}

TEST(SelectionEdge, SingleElementInEveryRank) {
    for (int rank = 1; rank <= 8; ++rank) {
        std::vector<hsize_t> dims(rank, 3), start(rank, 1), one(rank, 1), coords(rank, 2);
        Hid s = simple(dims);
        hyperslab(s, start, {}, one, {});
        sel::TypeSpec spec = single(s, 8);
        EXPECT_EQ(spec.shape, sel::TypeShape::Contiguous);
        EXPECT_EQ(spec.bytes, 8);
        Hid p = simple(dims);
        points(p, coords);
        EXPECT_EQ(single(p, 8).shape, sel::TypeShape::Contiguous);
        pair(s, p, 8);
        pair(p, s, 8);
    }
}

TEST(SelectionEdge, AllAndFoldingInOneToEightDimensions) {
    for (int rank = 1; rank <= 8; ++rank) {
        std::vector<hsize_t> dims(rank, 4);
        Hid all = simple(dims);
        sel::TypeSpec spec = single(all, 3);
        EXPECT_EQ(spec.shape, sel::TypeShape::Contiguous);
        EXPECT_EQ(spec.type, MPI_BYTE);
        // Rows 1..2 of the slowest dimension, everything else full: contiguous.
        Hid rows = simple(dims);
        std::vector<hsize_t> start(rank, 0), count(rank, 1), block(dims);
        start[0] = 1;
        block[0] = 2;
        hyperslab(rows, start, {}, count, block);
        spec = single(rows, 3);
        EXPECT_EQ(spec.shape, sel::TypeShape::Contiguous) << "rank " << rank;
        // Every other element of the fastest dimension: one vector level however high the rank.
        Hid strided = simple(dims);
        std::vector<hsize_t> stride(rank, 1), cnt(dims), blk(rank, 1);
        stride[rank - 1] = 2;
        cnt[rank - 1] = 2;
        hyperslab(strided, std::vector<hsize_t>(rank, 0), stride, cnt, blk);
        spec = single(strided, 3);
        EXPECT_EQ(spec.shape, sel::TypeShape::Vector);
        // Same selection, element by element in memory: a packed buffer.
        pair(strided, H5S_BLOCK, 3);
        EXPECT_EQ(pair(strided, strided, 3).mem.shape, sel::TypeShape::Vector);
    }
}

TEST(SelectionEdge, MaximumRank) {
    std::vector<hsize_t> dims(H5S_MAX_RANK, 2);
    Hid s = simple(dims);
    single(s, 1);
    std::vector<hsize_t> start(H5S_MAX_RANK, 0), stride(H5S_MAX_RANK, 1), count(H5S_MAX_RANK, 1),
        block(H5S_MAX_RANK, 1);
    start[0] = 1;
    count[5] = 2;
    block[31] = 2;
    hyperslab(s, start, stride, count, block);
    single(s, 2);
    pair(s, H5S_BLOCK, 2);
}

TEST(SelectionEdge, SelectionOffsetsAreHonoured) {
    const hssize_t shift[2] = {2, -1};
    Hid reg = simple({10, 12});
    hyperslab(reg, {1, 3}, {3, 2}, {2, 3}, {2, 1});
    ASSERT_GE(H5Soffset_simple(reg, shift), 0);
    single(reg, 4);
    Hid irr = simple({10, 12});
    hyperslab(irr, {1, 3}, {3, 2}, {2, 3}, {2, 1});
    hyperslab(irr, {0, 0}, {}, {1, 1}, {1, 1}, H5S_SELECT_OR);
    ASSERT_GE(H5Soffset_simple(irr, std::array<hssize_t, 2>{1, 1}.data()), 0);
    single(irr, 4);
    Hid pts = simple({10, 12});
    points(pts, {5, 5, 0, 1, 3, 3});
    ASSERT_GE(H5Soffset_simple(pts, shift), 0);
    single(pts, 4);
    pair(reg, H5S_BLOCK, 4);
    pair(irr, H5S_BLOCK, 4);
    Hid three = simple({4, 6});
    hyperslab(three, {1, 0}, {1, 2}, {1, 3}, {1, 1});
    ASSERT_GE(H5Soffset_simple(three, std::array<hssize_t, 2>{2, 1}.data()), 0);
    pair(pts, three, 4);
    pair(three, pts, 4);
}

TEST(SelectionEdge, IrregularThatIsRegularTakesTheVectorPath) {
    Hid s = simple({16, 16});
    hyperslab(s, {0, 0}, {}, {1, 1}, {4, 16});
    hyperslab(s, {4, 0}, {}, {1, 1}, {4, 16}, H5S_SELECT_OR);
    EXPECT_GT(H5Sis_regular_hyperslab(s), 0);
    EXPECT_EQ(single(s, 2).shape, sel::TypeShape::Contiguous);
    Hid t = simple({16, 16});
    hyperslab(t, {0, 0}, {}, {1, 1}, {4, 4});
    hyperslab(t, {8, 8}, {}, {1, 1}, {4, 4}, H5S_SELECT_OR);
    EXPECT_EQ(H5Sis_regular_hyperslab(t), 0);
    EXPECT_EQ(single(t, 2).shape, sel::TypeShape::Indexed);
}

TEST(SelectionEdge, AdjacentPointsMerge) {
    Hid s = simple({100});
    points(s, {10, 11, 12, 13, 50, 51});
    sel::TypeSpec spec = single(s, 4);
    EXPECT_EQ(spec.blocks, 2u);
}

TEST(SelectionEdge, ReversedPointsArePermuted) {
    Hid f = simple({8, 8});
    points(f, {7, 7, 5, 0, 3, 4, 3, 3, 0, 0});
    sel::TypePair p = pair(f, H5S_BLOCK, 8);
    EXPECT_TRUE(p.file.monotonic);
    EXPECT_FALSE(p.mem.monotonic);
    Hid m = simple({2, 5});
    hyperslab(m, {0, 0}, {1, 2}, {2, 3}, {1, 1}); // 6 elements...
    hyperslab(m, {1, 0}, {}, {1, 1}, {1, 1}, H5S_SELECT_XOR);
    ASSERT_EQ(H5Sget_select_npoints(m), 5);
    pair(f, m, 8);
    Hid mp = simple({30});
    points(mp, {29, 0, 15, 7, 8});
    pair(f, mp, 8);
    // Ascending file points pair with out-of-order memory points without sorting anything.
    Hid fa = simple({100});
    points(fa, {1, 5, 9, 20, 21});
    sel::TypePair q = pair(fa, mp, 8);
    EXPECT_TRUE(q.file.monotonic);
    EXPECT_FALSE(q.mem.monotonic);
}

// A file point named twice keeps its last occurrence (serial HDF5's result for a write: the last
// value wins): the file type holds each element once, paired with the memory of its last
// occurrence, and the earlier occurrence's memory is listed as a copy a read makes afterwards.
TEST(SelectionEdge, DuplicateFilePointsKeepTheLastDuplicateMemoryPointsAreAccepted) {
    Hid f = simple({10});
    points(f, {3, 1, 3}); // memory (packed) elements 0, 1, 2
    sel::TypePair d = sel::build_piece_pair(f, H5S_BLOCK, 4);
    EXPECT_TRUE(d.file.monotonic);
    EXPECT_EQ(d.file.bytes, 8);
    EXPECT_EQ(d.mem.bytes, 8);
    std::vector<seltest::ByteRun> file_runs, mem_runs;
    EXPECT_EQ(seltest::spec_runs(d.file, 0, file_runs), "");
    EXPECT_EQ(seltest::spec_runs(d.mem, 0, mem_runs), "");
    EXPECT_EQ(file_runs, (std::vector<seltest::ByteRun>{{4, 4}, {12, 4}}))
        << "file elements 1 and 3, once each";
    EXPECT_EQ(mem_runs, (std::vector<seltest::ByteRun>{{4, 8}}))
        << "element 1, then element 3 from its last occurrence";
    ASSERT_TRUE(d.duplicates);
    ASSERT_EQ(d.duplicates->size(), 1u);
    EXPECT_EQ((*d.duplicates)[0].from, 8);
    EXPECT_EQ((*d.duplicates)[0].to, 0);
    EXPECT_EQ((*d.duplicates)[0].len, 4);
    Hid m = simple({10});
    points(m, {2, 2, 2});
    Hid g = simple({10});
    points(g, {1, 4, 7});
    sel::TypePair p = pair(g, m, 4);
    EXPECT_EQ(p.mem.bytes, 12);
    EXPECT_FALSE(p.duplicates);
}

TEST(SelectionEdge, MismatchedCountsThrow) {
    Hid f = simple({10});
    Hid m = simple({9});
    try {
        sel::build_piece_pair(f, m, 4);
        ADD_FAILURE() << "mismatch accepted";
    } catch (const mpiio::Error &e) {
        EXPECT_EQ(e.kind(), mpiio::ErrorKind::Selection);
    }
}

TEST(SelectionEdge, ElementSizes) {
    for (std::size_t elem : {std::size_t{1}, std::size_t{3}, std::size_t{7}, std::size_t{16},
                             std::size_t{1000}, std::size_t{1} << 20}) {
        Hid s = simple({6, 7});
        hyperslab(s, {1, 1}, {2, 3}, {2, 2}, {1, 2});
        single(s, elem);
        Hid p = simple({6, 7});
        points(p, {5, 6, 0, 0, 2, 3});
        pair(p, H5S_BLOCK, elem);
        pair(s, H5S_BLOCK, elem);
    }
}

} // namespace

namespace {

// Thousands of out-of-order points take the radix sort (small inputs use std::stable_sort): one
// case with a small offset range (one pass), one over a 2^43-byte range (four passes).
TEST(SelectionEdge, ManyUnsortedPointsAreSortedAndPermuted) {
    Gen g(99);
    Hid small = simple({300, 300});
    select_random_points(g, small, 20000, false);
    Hid mem = simple({200, 120});
    hyperslab(mem, {0, 0}, {2, 1}, {100, 1}, {1, 100}, H5S_SELECT_SET);
    ASSERT_EQ(H5Sget_select_npoints(mem), 10000);
    Hid small_half = simple({300, 300});
    select_random_points(g, small_half, 10000, false);
    pair(small_half, mem, 3);
    pair(small, H5S_BLOCK, 1);
    Hid wide = simple({hsize_t{1} << 20, hsize_t{1} << 20});
    select_random_points(g, wide, 6000, false);
    sel::TypePair p = sel::build_piece_pair(wide, H5S_BLOCK, 8);
    EXPECT_EQ(check_pair(wide, H5S_BLOCK, 8, p), "");
}

} // namespace
