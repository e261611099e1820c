// Selections whose byte sizes or displacements exceed 2^31 (and counts beyond INT_MAX): built and
// sized without allocating any buffer. Types with few runs are flattened completely; the rest are
// checked on size, extents and a prefix of their runs against HDF5's sequence list.
#include "oracle.hpp"
#include "random_selection.hpp"

#include <gtest/gtest.h>

namespace {

using namespace seltest;
namespace sel = mpiio::selection;

constexpr std::int64_t G = std::int64_t{1} << 30;

Hid simple(std::vector<hsize_t> dims) {
    return Hid(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
}

MPI_Count type_size(const sel::TypeSpec &s) {
    MPI_Count size = 0;
    MPI_Type_size_x(s.type, &size);
    return size * s.count;
}

// Size/extent/flags and the first `prefix` runs against HDF5.
void check_prefix(hid_t space, std::size_t elem, const sel::TypeSpec &spec, std::size_t prefix) {
    std::vector<ByteRun> got;
    EXPECT_EQ(spec_runs(spec, 0, got, prefix), "");
    std::vector<ByteRun> want = hdf5_runs(space, elem, prefix);
    ASSERT_GE(got.size(), std::min(prefix, want.size()));
    got.resize(std::min(got.size(), want.size()));
    // The last run of a prefix may be cut differently; compare all but it.
    if (!got.empty()) {
        got.pop_back();
        want.resize(got.size());
    }
    EXPECT_EQ(got, want) << describe(got) << " vs " << describe(want);
}

TEST(SelectionBig, AllOfMoreThanTwoGiB) {
    Hid s = simple({(hsize_t{1} << 31) + 5});
    sel::TypeSpec spec = sel::build_type(s, 4);
    EXPECT_EQ(spec.bytes, ((std::int64_t{1} << 31) + 5) * 4);
    EXPECT_EQ(type_size(spec), spec.bytes);
    EXPECT_EQ(spec.shape, sel::TypeShape::Contiguous);
    EXPECT_NE(spec.type, MPI_BYTE);
    EXPECT_EQ(check_single(s, 4, spec), "");
}

TEST(SelectionBig, ContiguousRowsBeyondTwoGiBAtAnOffset) {
    Hid s = simple({hsize_t{1} << 16, hsize_t{1} << 16});
    hsize_t start[2] = {100, 0}, count[2] = {1, 1}, block[2] = {hsize_t{1} << 15, hsize_t{1} << 16};
    ASSERT_GE(H5Sselect_hyperslab(s, H5S_SELECT_SET, start, nullptr, count, block), 0);
    sel::TypeSpec spec = sel::build_type(s, 4);
    EXPECT_EQ(spec.shape, sel::TypeShape::Contiguous);
    EXPECT_EQ(spec.offset, 100 * (std::int64_t{1} << 18));
    EXPECT_EQ(spec.bytes, std::int64_t{1} << 33);
    EXPECT_EQ(check_single(s, 4, spec), "");
}

TEST(SelectionBig, ColumnOfATerabyteDataspace) {
    // 2^20 x 2^20 doubles (8 TiB extent): one column, 4096 rows with stride 256.
    Hid s = simple({hsize_t{1} << 20, hsize_t{1} << 20});
    hsize_t start[2] = {3, 7}, stride[2] = {256, 1}, count[2] = {4096, 1}, block[2] = {1, 2};
    ASSERT_GE(H5Sselect_hyperslab(s, H5S_SELECT_SET, start, stride, count, block), 0);
    sel::TypeSpec spec = sel::build_type(s, 8);
    EXPECT_EQ(spec.shape, sel::TypeShape::Vector);
    EXPECT_EQ(spec.bytes, 4096 * 16);
    EXPECT_EQ(spec.span, std::int64_t{4095} * 256 * (std::int64_t{1} << 23) + 16);
    EXPECT_EQ(check_single(s, 8, spec), "");
    sel::TypePair p = sel::build_piece_pair(s, H5S_BLOCK, 8);
    EXPECT_EQ(check_pair(s, H5S_BLOCK, 8, p), "");
}

TEST(SelectionBig, MoreThanIntMaxBlocksInOneDimension) {
    // 2^32 - 1 single bytes with stride 2: the vector count itself exceeds INT_MAX.
    Hid s = simple({hsize_t{1} << 33});
    hsize_t start[1] = {1}, stride[1] = {2}, count[1] = {(hsize_t{1} << 32) - 1}, block[1] = {1};
    ASSERT_GE(H5Sselect_hyperslab(s, H5S_SELECT_SET, start, stride, count, block), 0);
    sel::TypeSpec spec = sel::build_type(s, 1);
    EXPECT_EQ(spec.shape, sel::TypeShape::Vector);
    EXPECT_EQ(spec.bytes, (std::int64_t{1} << 32) - 1);
    EXPECT_EQ(type_size(spec), spec.bytes);
    EXPECT_EQ(spec.offset, 1);
    EXPECT_EQ(spec.span, (std::int64_t{1} << 33) - 3);
    check_prefix(s, 1, spec, 1000);
}

TEST(SelectionBig, IrregularWithDisplacementsBeyondFourGiB) {
    Hid s = simple({hsize_t{1} << 34});
    hsize_t a[1] = {(hsize_t{1} << 33) + 3}, b[1] = {(hsize_t{1} << 34) - 100}, c[1] = {12345}, one[1] = {1},
            blk[1] = {7}, stride[1] = {11}, cnt[1] = {50};
    ASSERT_GE(H5Sselect_hyperslab(s, H5S_SELECT_SET, a, stride, cnt, blk), 0);
    ASSERT_GE(H5Sselect_hyperslab(s, H5S_SELECT_OR, b, nullptr, one, blk), 0);
    ASSERT_GE(H5Sselect_hyperslab(s, H5S_SELECT_OR, c, nullptr, one, blk), 0);
    ASSERT_EQ(H5Sis_regular_hyperslab(s), 0);
    sel::TypeSpec spec = sel::build_type(s, 2);
    EXPECT_EQ(spec.shape, sel::TypeShape::Indexed);
    EXPECT_EQ(check_single(s, 2, spec), "");
    EXPECT_EQ(check_pair(s, H5S_BLOCK, 2, sel::build_piece_pair(s, H5S_BLOCK, 2)), "");
}

TEST(SelectionBig, RunLongerThanTheSplitSize) {
    // One run of 2 GiB + 10 bytes and a small one: hindexed needs its long run cut.
    Hid s = simple({hsize_t{1} << 32});
    hsize_t a[1] = {5}, one[1] = {1}, blk[1] = {(hsize_t{1} << 31) + 10}, b[1] = {(hsize_t{1} << 31) + 100},
            blk2[1] = {3};
    ASSERT_GE(H5Sselect_hyperslab(s, H5S_SELECT_SET, a, nullptr, one, blk), 0);
    ASSERT_GE(H5Sselect_hyperslab(s, H5S_SELECT_OR, b, nullptr, one, blk2), 0);
    sel::TypeSpec spec = sel::build_type(s, 1);
    EXPECT_EQ(spec.bytes, (std::int64_t{1} << 31) + 13);
    EXPECT_EQ(check_single(s, 1, spec), "");
}

TEST(SelectionBig, PointsInAHugeSpacePaired) {
    Hid f = simple({hsize_t{1} << 12, hsize_t{1} << 12, hsize_t{1} << 12});
    Gen g(42);
    select_random_points(g, f, 200, false);
    sel::TypePair p = sel::build_piece_pair(f, H5S_BLOCK, 8);
    EXPECT_GT(p.file.span, std::int64_t{1} << 32);
    EXPECT_EQ(check_pair(f, H5S_BLOCK, 8, p), "");
    // Memory side huge too: points scattered over a 2^36-element memory space.
    Hid m = simple({hsize_t{1} << 18, hsize_t{1} << 18});
    select_random_points(g, m, 200, false);
    sel::TypePair q = sel::build_piece_pair(f, m, 8);
    EXPECT_EQ(check_pair(f, m, 8, q), "");
}

TEST(SelectionBig, ExtentBeyondTwoToTheSixtyTwoIsRejected) {
    Hid s = simple({hsize_t{1} << 40, hsize_t{1} << 20});
    try {
        sel::build_type(s, 8);
        ADD_FAILURE() << "accepted a 2^63-byte extent";
    } catch (const mpiio::Error &e) {
        EXPECT_EQ(e.kind(), mpiio::ErrorKind::Unsupported);
    }
}

TEST(SelectionBig, CombinedPiecesAtHighAddresses) {
    // Three chunks of 3 GiB each far out in the file, with fake (never dereferenced) buffers.
    std::vector<sel::TypedPiece> pieces;
    std::vector<Hid> spaces;
    for (int k = 0; k < 3; ++k) {
        spaces.push_back(simple({3 * hsize_t{1} << 30}));
        sel::TypedPiece p;
        p.file_address = (std::int64_t{1} << 40) + (2 - k) * 4 * G;
        p.buffer = reinterpret_cast<const void *>(std::uintptr_t{1} << 44 | std::uintptr_t(k) * 4 * G);
        p.types = sel::build_piece_pair(spaces.back(), H5S_BLOCK, 1);
        pieces.push_back(p);
    }
    sel::CombinedTypes c = sel::combine_pieces(pieces);
    EXPECT_EQ(c.file.offset, std::int64_t{1} << 40);
    EXPECT_EQ(c.file.bytes, 9 * G);
    EXPECT_EQ(type_size(c.file), 9 * G);
    EXPECT_EQ(type_size(c.mem), 9 * G);
    EXPECT_EQ(c.file.span, 8 * G + 3 * G);
    std::vector<ByteRun> f, m;
    EXPECT_EQ(spec_runs(c.file, 0, f), "");
    EXPECT_EQ(spec_runs(c.mem, 0, m), "");
    EXPECT_EQ(f.size(), 3u);
    // Pieces sorted by file address: the last input (k = 2) comes first, with the highest buffer.
    ASSERT_EQ(m.size(), 3u);
    EXPECT_GT(m[0].disp, m[2].disp);
}

} // namespace
