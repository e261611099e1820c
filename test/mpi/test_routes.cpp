// Collective transfers and their route choice (ARCHITECTURE.md D12): whatever route a collective
// write takes, bytes no rank selects keep what the file held, and the file equals the built-in
// driver's. Every case runs under each policy (auto, collective, independent; the environment's
// MPIIO_TEST_CONFIG may add more settings), contiguous and chunked, and checks under auto that
// the route taken is the one the extents call for.
#include "common.hpp"

#include <cstdlib>
#include <functional>
#include <numeric>

namespace {

using namespace mpiio_test;

constexpr hsize_t kPerRank = 96; // elements of the dataset per rank

// The elements rank r of s selects (ascending), and whether the ranks' extents are disjoint.
struct Case {
    const char *name;
    std::function<std::vector<hsize_t>(int r, int s)> select;
    bool disjoint; // for s > 1
};

std::vector<hsize_t> every(hsize_t from, hsize_t to, hsize_t step) {
    std::vector<hsize_t> v;
    for (hsize_t i = from; i < to; i += step)
        v.push_back(i);
    return v;
}

const std::vector<Case> &cases() {
    static const std::vector<Case> all = {
        // each rank a strided region of its own block: disjoint extents with holes inside
        {"own_strided", [](int r, int) { return every(r * kPerRank + 1, (r + 1) * kPerRank - 1, 2); }, true},
        // whole blocks: extents touch
        {"touching", [](int r, int) { return every(r * kPerRank, (r + 1) * kPerRank, 1); }, true},
        // blocks in reverse rank order, strided
        {"reversed", [](int r, int s) { return every((s - 1 - r) * kPerRank, (s - r) * kPerRank, 3); }, true},
        // odd ranks select nothing
        {"empty_on_some",
         [](int r, int) {
             return r % 2 ? std::vector<hsize_t>{} : every(r * kPerRank + 2, (r + 1) * kPerRank, 5);
         },
         true},
        // element i belongs to rank i % (2s) (and to nobody when that is >= s): extents interleave
        {"interleaved", [](int r, int s) { return every(static_cast<hsize_t>(r), s * kPerRank, 2 * s); },
         false},
        // one rank's extent spans the others' blocks (its first and last element)
        {"spanning",
         [](int r, int s) {
             if (r == 0)
                 return std::vector<hsize_t>{0, s * kPerRank - 1};
             return every(r * kPerRank - kPerRank / 2, r * kPerRank, 1);
         },
         false},
    };
    return all;
}

enum class Layout { Contiguous, Chunked };

// Collective. Creates /d filled with value_at(i, 1) everywhere (a complete collective write).
Hid create_prefilled(hid_t file, Layout layout, hid_t dxpl) {
    const hsize_t n = kPerRank * static_cast<hsize_t>(world_size());
    const hsize_t dims[1] = {n};
    Hid space(H5Screate_simple(1, dims, nullptr));
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
    if (layout == Layout::Chunked) {
        const hsize_t chunk[1] = {40}; // chunks straddle the rank blocks
        H5Pset_chunk(dcpl, 1, chunk);
    }
    Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    const hsize_t start[1] = {kPerRank * static_cast<hsize_t>(world_rank())}, count[1] = {kPerRank};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mem(H5Screate_simple(1, count, nullptr));
    std::vector<int> mine(kPerRank);
    for (hsize_t k = 0; k < kPerRank; ++k)
        mine[k] = value_at<int>(start[0] + k, 1);
    EXPECT_GE(H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, mine.data()), 0) << error_stack_text();
    return dset;
}

// A point-free file selection of `elements` (a union of unit hyperslabs, so HDF5 sees a
// hyperslab like applications make with strides) and the matching packed memory space.
std::pair<Hid, Hid> spaces_for(const std::vector<hsize_t> &elements) {
    const hsize_t dims[1] = {kPerRank * static_cast<hsize_t>(world_size())};
    Hid file_space(H5Screate_simple(1, dims, nullptr));
    H5Sselect_none(file_space);
    for (hsize_t e : elements) {
        const hsize_t start[1] = {e}, count[1] = {1};
        H5Sselect_hyperslab(file_space, H5S_SELECT_OR, start, nullptr, count, nullptr);
    }
    const hsize_t n[1] = {std::max<hsize_t>(elements.size(), 1)};
    Hid mem_space(H5Screate_simple(1, n, nullptr));
    if (elements.empty())
        H5Sselect_none(mem_space);
    return {std::move(file_space), std::move(mem_space)};
}

std::vector<unsigned char> expected_after(const Case &c) {
    const int s = world_size();
    std::vector<int> v(kPerRank * static_cast<hsize_t>(s));
    for (hsize_t i = 0; i < v.size(); ++i)
        v[i] = value_at<int>(i, 1);
    for (int r = 0; r < s; ++r)
        for (hsize_t e : c.select(r, s))
            v[e] = value_at<int>(e, 2);
    return as_bytes(v);
}

using Param = std::tuple<const char *, Layout>; // policy, layout

// The policy in effect: the test's, unless MPIIO_TEST_CONFIG (appended by make_fapl) sets another.
std::string effective_policy(const std::string &policy) {
    const char *extra = std::getenv("MPIIO_TEST_CONFIG");
    const std::string text = extra ? extra : "";
    const auto at = text.rfind("collective_route=");
    if (at == std::string::npos)
        return policy;
    const auto start = at + std::string("collective_route=").size();
    return text.substr(start, text.find(';', start) - start);
}

class Routes : public testing::TestWithParam<Param> {};

TEST_P(Routes, HolesKeepTheirBytesAndFilesMatchTheBuiltinDriver) {
    const auto [policy, layout] = GetParam();
    const std::string dir = test_dir();
    const std::string config = std::string("collective_route=") + policy;
    for (const Case &c : cases()) {
        SCOPED_TRACE(c.name);
        const auto mine = c.select(world_rank(), world_size());
        for (Driver d : kDrivers) {
            SCOPED_TRACE(driver_name(d));
            FaplOptions options;
            options.config = config.c_str();
            Hid fapl = make_fapl(d, options);
            Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
            const std::string path = path_in(dir, c.name, d);
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            Hid dset = create_prefilled(file, layout, dxpl);
            ASSERT_TRUE(all_ranks(dset.valid()));
            H5FD_mpiio_stats_t before{};
            if (d == Driver::Mpiio)
                before = stats_of(file);
            auto [fspace, mspace] = spaces_for(mine);
            const auto values = values_at<int>(mine, 2);
            EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, values.data()) >= 0))
                << error_stack_text();
            const std::string in_effect = effective_policy(policy);
            if (d == Driver::Mpiio && world_size() > 1) {
                const auto after = stats_of(file);
                const auto independent = after.independent_route_ops - before.independent_route_ops;
                const auto mpi = after.mpi_route_ops - before.mpi_route_ops;
                if (in_effect == "collective") {
                    EXPECT_EQ(independent, 0u);
                } else if (in_effect == "independent") {
                    EXPECT_EQ(mpi, 0u);
                } else if (in_effect == "auto") {
                    EXPECT_EQ(independent > 0, c.disjoint)
                        << "independent " << independent << ", mpi " << mpi;
                }
            }
            // read back collectively what this rank wrote
            std::vector<int> got(mine.size(), -1);
            EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, got.data()) >= 0));
            EXPECT_EQ(got, values);
        }
        EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, c.name, Driver::Mpiio), "d", expected_after(c)));
        EXPECT_EQ(compare_files(path_in(dir, c.name, Driver::Mpio), path_in(dir, c.name, Driver::Mpiio)), "");
    }
}

INSTANTIATE_TEST_SUITE_P(Policies, Routes,
                         testing::Combine(testing::Values("auto", "collective", "independent"),
                                          testing::Values(Layout::Contiguous, Layout::Chunked)),
                         [](const testing::TestParamInfo<Param> &info) {
                             return std::string(std::get<0>(info.param)) +
                                    (std::get<1>(info.param) == Layout::Contiguous ? "Contiguous"
                                                                                   : "Chunked");
                         });

} // namespace
