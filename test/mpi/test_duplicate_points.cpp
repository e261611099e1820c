// Point selections that name an element more than once (H5Sselect_elements allows it). Serial HDF5
// writes each element's last occurrence (sec2: points {5, 2, 5, 9, 2} with values {50, 20, 51, 90,
// 21} leave 51 at 5 and 21 at 2), and reading them back gives every occurrence the element's value.
// mpiio does the same on every route and in both transfer modes, with each rank's points in its own
// region or interleaved with the other ranks' (the built-in driver fails every collective point
// write with duplicates: its file type overlaps itself). The file is checked through sec2 against
// that rule; elements nobody names keep the value written before.
#include "common.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace mpiio_test;

constexpr hsize_t kPerRank = 64;       // elements of the dataset per rank
constexpr hsize_t kPointsPerRank = 40; // occurrences each rank names (with duplicates)

// This rank's points in selection order: distinct elements named once, twice or three times, in a
// scrambled order; in its own region (`interleaved` false) or on every size-th element from its
// rank (the ranks' points interleave, and no element is named by two ranks).
std::vector<hsize_t> points_of(int rank, int size, bool interleaved) {
    std::vector<hsize_t> out;
    for (hsize_t k = 0; k < kPointsPerRank; ++k) {
        const hsize_t local = (k * 7 + (k % 3 == 0 ? 0 : 3)) % 20; // repeats: 20 distinct of 40 named
        out.push_back(interleaved ? local * static_cast<hsize_t>(size) + static_cast<hsize_t>(rank)
                                  : static_cast<hsize_t>(rank) * kPerRank + local);
    }
    return out;
}

int occurrence_value(int rank, hsize_t k) { return 100000 * (rank + 1) + static_cast<int>(k); }

using Params = std::tuple<H5FD_mpio_xfer_t, const char *, bool>; // mode, route, interleaved

class DuplicatePoints : public testing::TestWithParam<Params> {};

TEST_P(DuplicatePoints, LastOccurrenceWinsAndReadsFillEveryOccurrence) {
    const auto [mode, route, interleaved] = GetParam();
    const int rank = world_rank(), size = world_size();
    const std::string config = std::string("collective_route=") + route;
    FaplOptions options;
    options.config = config.c_str();
    Hid fapl = make_fapl(Driver::Mpiio, options);
    const std::string path = test_file("dup", Driver::Mpiio);
    const hsize_t dims[1] = {kPerRank * static_cast<hsize_t>(size)};
    {
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        Hid fspace(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(dset.valid()));
        // Every element first holds -1 - its index (each rank its own block), so that elements the
        // points miss show.
        const hsize_t start[1] = {static_cast<hsize_t>(rank) * kPerRank}, count[1] = {kPerRank};
        Hid block(H5Scopy(fspace));
        H5Sselect_hyperslab(block, H5S_SELECT_SET, start, nullptr, count, nullptr);
        Hid bspace(H5Screate_simple(1, count, nullptr));
        std::vector<int> before(kPerRank);
        for (hsize_t k = 0; k < kPerRank; ++k)
            before[k] = -1 - static_cast<int>(start[0] + k);
        Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE);
        ASSERT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, bspace, block, coll, before.data()) >= 0));

        const std::vector<hsize_t> points = points_of(rank, size, interleaved);
        Hid sel(H5Scopy(fspace));
        ASSERT_GE(H5Sselect_elements(sel, H5S_SELECT_SET, points.size(), points.data()), 0);
        const hsize_t n[1] = {points.size()};
        Hid mspace(H5Screate_simple(1, n, nullptr));
        std::vector<int> values(points.size());
        for (hsize_t k = 0; k < points.size(); ++k)
            values[k] = occurrence_value(rank, k);
        Hid dxpl = make_dxpl(mode);
        ASSERT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, sel, dxpl, values.data()) >= 0))
            << error_stack_text();

        // Reading the same selection: every occurrence gets the element's (last) value.
        std::map<hsize_t, int> last;
        for (hsize_t k = 0; k < points.size(); ++k)
            last[points[k]] = values[k];
        std::vector<int> back(points.size(), 0);
        ASSERT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, mspace, sel, dxpl, back.data()) >= 0))
            << error_stack_text();
        for (hsize_t k = 0; k < points.size(); ++k)
            EXPECT_EQ(back[k], last[points[k]]) << "occurrence " << k << " of element " << points[k];
    }
    // The whole file through sec2, against the rule applied to every rank's points.
    std::vector<int> expected(dims[0]);
    for (hsize_t i = 0; i < dims[0]; ++i)
        expected[i] = -1 - static_cast<int>(i);
    for (int r = 0; r < size; ++r) {
        const std::vector<hsize_t> points = points_of(r, size, interleaved);
        for (hsize_t k = 0; k < points.size(); ++k)
            expected[points[k]] = occurrence_value(r, k);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const std::vector<unsigned char> raw = read_dataset_sec2(path, "d");
    ASSERT_EQ(raw.size(), expected.size() * sizeof(int));
    std::vector<int> got(expected.size());
    std::memcpy(got.data(), raw.data(), raw.size());
    for (hsize_t i = 0; i < expected.size(); ++i)
        ASSERT_EQ(got[i], expected[i]) << "element " << i;
}

std::string name_of(const testing::TestParamInfo<Params> &info) {
    const auto [mode, route, interleaved] = info.param;
    return std::string(mode == H5FD_MPIO_COLLECTIVE ? "collective" : "independent") + "_" + route + "_" +
           (interleaved ? "interleaved" : "separate");
}

INSTANTIATE_TEST_SUITE_P(EveryRoute, DuplicatePoints,
                         testing::Combine(testing::Values(H5FD_MPIO_COLLECTIVE, H5FD_MPIO_INDEPENDENT),
                                          testing::Values("auto", "collective", "independent"),
                                          testing::Bool()),
                         name_of);

} // namespace
