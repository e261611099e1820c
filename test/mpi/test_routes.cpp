// Collective transfers and their route choice (docs/decisions.md D12): whatever route a collective
// write takes, bytes no rank selects keep what the file held, and the file equals the built-in
// driver's. Every case runs under each policy (auto, collective, independent; the environment's
// MPIIO_TEST_CONFIG may add more settings), contiguous and chunked, with HDF5's selection I/O on
// (the plugin's selection callbacks) and off (the library's own MPI datatypes through read/write),
// and checks under auto that the route taken is the one the extents call for. With a staging buffer
// of 64 bytes, ranges sieved on the independent route go in windows smaller than a rank's extent
// and than some runs (own_long_runs: 80 bytes), which then straddle two windows.
#include "common.hpp"

#include <array>
#include <cstdlib>
#include <cstring>
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

// Runs of `run` consecutive elements, one every `step`, in [from, to).
std::vector<hsize_t> runs_every(hsize_t from, hsize_t to, hsize_t run, hsize_t step) {
    std::vector<hsize_t> v;
    for (hsize_t i = from; i < to; i += step)
        for (hsize_t k = i; k < std::min(i + run, to); ++k)
            v.push_back(k);
    return v;
}

const std::vector<Case> &cases() {
    static const std::vector<Case> all = {
        // each rank a strided region of its own block: disjoint extents with holes inside
        {"own_strided", [](int r, int) { return every(r * kPerRank + 1, (r + 1) * kPerRank - 1, 2); }, true},
        // the same with runs of 20 elements and holes of 12: 80-byte runs, which a sieved range
        // on the independent route (contiguous layout, packed memory) copies with memcpy rather
        // than MPI's datatype engine
        {"own_long_runs",
         [](int r, int) { return runs_every(r * kPerRank + 2, (r + 1) * kPerRank - 2, 20, 32); }, true},
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

// What element i holds before the write under test, which then stores value_at(i, 2) there: every
// byte differs, so a byte the write misses or a hole it clobbers shows.
int prefill_at(hsize_t i) { return ~value_at<int>(i, 2); }

// Collective. Creates dataset `name` filled with prefill_at(i) everywhere (a complete collective
// write).
Hid create_prefilled(hid_t file, Layout layout, hid_t dxpl, const char *name = "d") {
    const hsize_t n = kPerRank * static_cast<hsize_t>(world_size());
    const hsize_t dims[1] = {n};
    Hid space(H5Screate_simple(1, dims, nullptr));
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
    if (layout == Layout::Chunked) {
        const hsize_t chunk[1] = {40}; // chunks straddle the rank blocks
        H5Pset_chunk(dcpl, 1, chunk);
    }
    Hid dset(H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    const hsize_t start[1] = {kPerRank * static_cast<hsize_t>(world_rank())}, count[1] = {kPerRank};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mem(H5Screate_simple(1, count, nullptr));
    std::vector<int> mine(kPerRank);
    for (hsize_t k = 0; k < kPerRank; ++k)
        mine[k] = prefill_at(start[0] + k);
    EXPECT_GE(H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, mine.data()), 0) << error_stack_text();
    return dset;
}

// A point-free file selection of `elements` (a union of unit hyperslabs, so HDF5 sees a
// hyperslab like applications make with strides) and the matching memory space: packed, or
// every other element of a buffer twice as long (a memory side with holes of its own).
std::pair<Hid, Hid> spaces_for(const std::vector<hsize_t> &elements, bool strided_memory) {
    const hsize_t dims[1] = {kPerRank * static_cast<hsize_t>(world_size())};
    Hid file_space(H5Screate_simple(1, dims, nullptr));
    H5Sselect_none(file_space);
    for (hsize_t e : elements) {
        const hsize_t start[1] = {e}, count[1] = {1};
        H5Sselect_hyperslab(file_space, H5S_SELECT_OR, start, nullptr, count, nullptr);
    }
    const hsize_t n = std::max<hsize_t>(elements.size(), 1);
    const hsize_t mem_dims[1] = {strided_memory ? 2 * n : n};
    Hid mem_space(H5Screate_simple(1, mem_dims, nullptr));
    if (elements.empty()) {
        H5Sselect_none(mem_space);
    } else if (strided_memory) {
        const hsize_t start[1] = {1}, stride[1] = {2}, count[1] = {elements.size()};
        H5Sselect_hyperslab(mem_space, H5S_SELECT_SET, start, stride, count, nullptr);
    }
    return {std::move(file_space), std::move(mem_space)};
}

// The memory buffer for `packed` values: as is, or at the odd positions of a buffer twice as long.
std::vector<int> memory_image(const std::vector<int> &packed, bool strided_memory, int background) {
    if (!strided_memory)
        return packed;
    std::vector<int> image(2 * std::max<size_t>(packed.size(), 1), background);
    for (size_t k = 0; k < packed.size(); ++k)
        image[2 * k + 1] = packed[k];
    return image;
}

std::vector<unsigned char> expected_after(const Case &c) {
    const int s = world_size();
    std::vector<int> v(kPerRank * static_cast<hsize_t>(s));
    for (hsize_t i = 0; i < v.size(); ++i)
        v[i] = prefill_at(i);
    for (int r = 0; r < s; ++r)
        for (hsize_t e : c.select(r, s))
            v[e] = value_at<int>(e, 2);
    return as_bytes(v);
}

// One selection of the table with a packed or a strided memory buffer.
struct Variant {
    Case c;
    bool strided_memory;
    std::string name() const { return std::string(c.name) + (strided_memory ? "_strided_memory" : ""); }
};

// Every case with a packed memory buffer and with a strided one. On shared storage, where the
// table of a route takes 15-50 s as a whole, each case once for each layout of a pair (a route's
// contiguous and chunked rows), packed and strided memory in turn and the other way round in the
// other layout: every case meets both memory buffers on every route, in one layout each. A row
// without its pair (`paired` false) keeps them all.
std::vector<Variant> case_variants(Layout layout, bool paired) {
    std::vector<Variant> out;
    const bool halve = paired && shared_storage();
    for (size_t k = 0; k < cases().size(); ++k) {
        const bool strided_first = (k + (layout == Layout::Chunked ? 1 : 0)) % 2 == 1;
        for (bool strided_memory : {false, true})
            if (!halve || strided_memory == strided_first)
                out.push_back({cases()[k], strided_memory});
    }
    return out;
}

enum class SelectionIo { Default, Off };
enum class Staging { Default, Tiny };
using Param = std::tuple<const char *, Layout, SelectionIo, Staging>;

// The policy in effect: the test's, unless MPIIO_TEST_CONFIG (appended by make_fapl) sets another;
// `auto` on shared storage is `aggregate`, on CephFS `aggregate_interleaved` (settings/storage.hpp).
std::string effective_policy(const std::string &policy) {
    const std::string forced = route_set_by_environment();
    const std::string chosen = forced.empty() ? policy : forced;
    return chosen == "auto" ? auto_route(test_dir()) : chosen;
}

class Routes : public testing::TestWithParam<Param> {};

// Each case writes into a dataset of a file of its own. On shared storage, where creating and
// closing a file costs more than the case's transfers, one file per driver holds a dataset per
// case, compared once at the end.
TEST_P(Routes, HolesKeepTheirBytesAndFilesMatchTheBuiltinDriver) {
    const auto [policy, layout, selection_io, staging] = GetParam();
    const std::string dir = test_dir();
    // (aggregate_interleaved leaves blocks of at least sieve_gap to their ranks: the cases' blocks
    // are 384 bytes)
    const std::string config = std::string("collective_route=") + policy +
                               (staging == Staging::Tiny ? ";staging_buffer=64" : "") +
                               (std::string(policy) == "aggregate_interleaved" ? ";sieve_gap=256" : "");
    const bool one_file = shared_storage();
    const auto variants = case_variants(layout, selection_io == SelectionIo::Default);
    // The file and dataset of a variant.
    auto stem_of = [&](const Variant &v) { return one_file ? std::string("cases") : std::string(v.c.name); };
    auto dataset_of = [&](const Variant &v) { return one_file ? v.name() : std::string("d"); };
    Hid files[2];
    for (const Variant &v : variants) {
        const Case &c = v.c;
        const bool strided_memory = v.strided_memory;
        SCOPED_TRACE(std::string(c.name) + (strided_memory ? ", strided memory" : ""));
        const auto mine = c.select(world_rank(), world_size());
        H5D_mpio_actual_io_mode_t reported[2] = {};
        for (Driver d : kDrivers) {
            SCOPED_TRACE(driver_name(d));
            Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
            // Off: the library builds one file type per transfer, whose lower bound some ranks'
            // contiguous parts carry while other ranks' parts need a file view.
            if (selection_io == SelectionIo::Off) {
                ASSERT_GE(H5Pset_selection_io(dxpl, H5D_SELECTION_IO_MODE_OFF), 0);
            }
            Hid &file = files[static_cast<int>(d)];
            if (!file.valid()) {
                FaplOptions options;
                options.config = config.c_str();
                Hid fapl = make_fapl(d, options);
                const std::string path = path_in(dir, stem_of(v), d);
                file = Hid(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            }
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            Hid dset = create_prefilled(file, layout, dxpl, dataset_of(v).c_str());
            ASSERT_TRUE(all_ranks(dset.valid()));
            H5FD_mpiio_stats_t before{};
            if (d == Driver::Mpiio)
                before = stats_of(file);
            auto [fspace, mspace] = spaces_for(mine, strided_memory);
            const auto values = memory_image(values_at<int>(mine, 2), strided_memory, -3);
            EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, values.data()) >= 0))
                << error_stack_text();
            H5Pget_mpio_actual_io_mode(dxpl, &reported[static_cast<int>(d)]);
            const std::string in_effect = effective_policy(policy);
            if (d == Driver::Mpiio && world_size() > 1) {
                const auto after = stats_of(file);
                const auto independent = after.independent_route_ops - before.independent_route_ops;
                const auto mpi = after.mpi_route_ops - before.mpi_route_ops;
                const auto aggregated = after.aggregated_route_ops - before.aggregated_route_ops;
                if (in_effect == "collective") {
                    EXPECT_EQ(independent, 0u);
                    EXPECT_EQ(aggregated, 0u);
                } else if (in_effect == "aggregate" && selection_io == SelectionIo::Default) {
                    EXPECT_EQ(mpi + independent, 0u);
                    EXPECT_GT(aggregated, 0u);
                } else if (in_effect == "aggregate_interleaved" && layout == Layout::Contiguous) {
                    // whole blocks ascending with the rank are written rank by rank (here
                    // "touching", whose range the prefill wrote just before: so it aggregates
                    // too), the rest aggregates
                    EXPECT_EQ(mpi, 0u);
                    EXPECT_GT(aggregated, 0u) << "independent " << independent;
                    if (std::string(c.name) != "touching") {
                        EXPECT_EQ(independent, 0u);
                    }
                } else if (in_effect == "independent" && selection_io == SelectionIo::Default) {
                    EXPECT_EQ(mpi, 0u);
                } else if (in_effect == "auto" && selection_io == SelectionIo::Default) {
                    // (with selection I/O off, a part whose file type (the library's) has holes
                    // makes the transfer MPI collective I/O under every policy: see the README)
                    EXPECT_EQ(independent > 0, c.disjoint)
                        << "independent " << independent << ", mpi " << mpi;
                }
            }
            // read back collectively what this rank wrote
            std::vector<int> got = memory_image(std::vector<int>(mine.size(), -1), strided_memory, -3);
            EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, got.data()) >= 0));
            EXPECT_EQ(got, values);
            dset.reset();
            if (!one_file)
                file.reset();
        }
        // whatever route the plugin took, the application is told what the built-in driver tells it
        EXPECT_EQ(reported[static_cast<int>(Driver::Mpiio)], reported[static_cast<int>(Driver::Mpio)]);
        EXPECT_NE(reported[static_cast<int>(Driver::Mpiio)], H5D_MPIO_NO_COLLECTIVE);
        if (!one_file) {
            EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, c.name, Driver::Mpiio), "d", expected_after(c)));
            EXPECT_EQ(compare_files(path_in(dir, c.name, Driver::Mpio), path_in(dir, c.name, Driver::Mpiio)),
                      "");
        }
    }
    if (one_file) {
        files[0].reset();
        files[1].reset();
        for (const Variant &v : variants)
            EXPECT_TRUE(
                dataset_equals_on_rank0(path_in(dir, "cases", Driver::Mpiio), v.name(), expected_after(v.c)))
                << v.name();
        EXPECT_EQ(compare_files(path_in(dir, "cases", Driver::Mpio), path_in(dir, "cases", Driver::Mpiio)),
                  "");
    }
}

// Where the MPI-IO layer says writes need MPI_File_sync to be seen by other ranks (here forced by
// HDF5_DO_MPI_FILE_SYNC, as for the built-in driver), every collective write syncs, whichever
// route it took, and what each rank reads back of its neighbour's block is what was written.
TEST(RoutesSync, CollectiveWritesSyncOnEveryRouteWhenTheLayerAsks) {
    const std::string dir = test_dir();
    ASSERT_EQ(setenv("HDF5_DO_MPI_FILE_SYNC", "1", 1), 0);
    for (const char *policy : {"auto", "collective", "independent"}) {
        SCOPED_TRACE(policy);
        const std::string config = std::string("collective_route=") + policy;
        FaplOptions options;
        options.config = config.c_str();
        Hid fapl = make_fapl(Driver::Mpiio, options);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        const std::string path = path_in(dir, (std::string("sync_") + policy).c_str(), Driver::Mpiio);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        const auto before = stats_of(file);
        Hid dset = create_prefilled(file, Layout::Contiguous, dxpl); // one collective write of blocks
        ASSERT_TRUE(all_ranks(dset.valid()));
        const auto after = stats_of(file);
        EXPECT_GE(after.syncs - before.syncs, 1u);
        // every rank reads its right neighbour's block collectively
        const int s = world_size(), r = world_rank();
        const hsize_t dims[1] = {kPerRank * static_cast<hsize_t>(s)};
        const hsize_t start[1] = {kPerRank * static_cast<hsize_t>((r + 1) % s)}, count[1] = {kPerRank};
        Hid fspace(H5Screate_simple(1, dims, nullptr));
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
        Hid mspace(H5Screate_simple(1, count, nullptr));
        std::vector<int> got(kPerRank, -1), want(kPerRank);
        for (hsize_t k = 0; k < kPerRank; ++k)
            want[k] = prefill_at(start[0] + k);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, got.data()) >= 0));
        EXPECT_EQ(got, want);
    }
    ASSERT_EQ(unsetenv("HDF5_DO_MPI_FILE_SYNC"), 0);
}

// Before an MPI collective write with holes the file is extended to the end of allocation (the
// layer's read-modify-write of a hole past the end of the file then reads zeros); a write whose
// bytes leave no hole in their range needs none, even when each rank's extent has holes of its own:
// column blocks tiling a 2-D dataset make no MPI_File_set_size (on shared storage each is a round of
// the servers' locks), every other column of each block still does; the bytes are the ones written
// (and zeros in the holes, where the built-in driver's file holds whatever the layer left).
TEST(RoutesMpi, BlocksTilingTheDatasetNeedNoResizeBlocksWithHolesDo) {
    if (route_forced_by_environment())
        GTEST_SKIP() << "the environment forces another route";
    const int s = world_size(), r = world_rank();
    constexpr hsize_t kRows = 8, kCols = 8; // each rank's column block
    const hsize_t dims[2] = {kRows, kCols * static_cast<hsize_t>(s)};
    const std::string dir = test_dir();
    std::uint64_t resizes_tiling = 0, resizes_holes = 0;
    for (Driver d : {Driver::Mpio, Driver::Mpiio}) {
        FaplOptions options;
        options.config = d == Driver::Mpiio ? "collective_route=collective" : nullptr;
        Hid fapl = make_fapl(d, options);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        const std::string path = path_in(dir, "blocks", d);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        Hid space(H5Screate_simple(2, dims, nullptr));
        std::vector<int> block(kRows * kCols);
        for (hsize_t k = 0; k < kRows * kCols; ++k)
            block[k] = value_at<int>(k, r + 5);
        // `every`: 1 = the whole column block, 2 = its even columns
        auto write_block = [&](const char *name, hsize_t every, std::uint64_t &resizes) {
            Hid dset(H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            const hsize_t start[2] = {0, kCols * static_cast<hsize_t>(r)}, stride[2] = {1, every},
                          count[2] = {kRows, kCols / every}, mdims[2] = {kRows, kCols};
            Hid fspace(H5Screate_simple(2, dims, nullptr)), mspace(H5Screate_simple(2, mdims, nullptr));
            H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, stride, count, nullptr);
            H5Sselect_hyperslab(mspace, H5S_SELECT_SET, std::array<hsize_t, 2>{0, 0}.data(), stride, count,
                                nullptr);
            const auto before = d == Driver::Mpiio ? stats_of(file) : H5FD_mpiio_stats_t{};
            EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, block.data()) >= 0))
                << error_stack_text();
            if (d == Driver::Mpiio)
                resizes = stats_of(file).truncates - before.truncates;
        };
        write_block("tiling", 1, resizes_tiling);
        write_block("holes", 2, resizes_holes);
    }
    EXPECT_EQ(resizes_tiling, 0u) << "a write that leaves no hole extended the file";
    EXPECT_EQ(resizes_holes, 1u) << "a write with holes past the end of the file did not extend it";
    // (the built-in driver's odd columns are whatever the layer left there: compared to zeros instead)
    std::vector<int> tiling(dims[0] * dims[1]), holes(dims[0] * dims[1], 0);
    for (hsize_t i = 0; i < kRows; ++i)
        for (hsize_t j = 0; j < dims[1]; ++j) {
            tiling[i * dims[1] + j] = value_at<int>(i * kCols + j % kCols, static_cast<int>(j / kCols) + 5);
            if (j % 2 == 0)
                holes[i * dims[1] + j] = tiling[i * dims[1] + j];
        }
    EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "blocks", Driver::Mpio), "tiling", as_bytes(tiling)));
    EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "blocks", Driver::Mpiio), "tiling", as_bytes(tiling)));
    EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "blocks", Driver::Mpiio), "holes", as_bytes(holes)));
}

// Two ranks writing the same bytes in one collective write (MPI leaves the result undefined): the
// aggregating route keeps the highest rank's bytes, the same on every run, and moves every rank's
// bytes through the aggregators (overlapping or not). 64-byte windows: many rounds, each with
// pieces of every rank.
TEST(RoutesAggregate, OverlappingWritesKeepTheHighestRanksBytes) {
    if (route_forced_by_environment())
        GTEST_SKIP() << "the environment forces another route";
    const int s = world_size(), r = world_rank();
    for (const char *staging : {"", ";staging_buffer=64"}) {
        SCOPED_TRACE(staging);
        const std::string config = std::string("collective_route=aggregate") + staging;
        FaplOptions options;
        options.config = config.c_str();
        Hid fapl = make_fapl(Driver::Mpiio, options);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        const std::string path = path_in(test_dir(), staging[0] ? "overlap_tiny" : "overlap", Driver::Mpiio);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        // Every rank writes all of it: every window holds a piece of every rank, all overlapping.
        const hsize_t n = kPerRank * static_cast<hsize_t>(s), dims[1] = {n};
        Hid fspace(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(dset.valid()));
        std::vector<int> mine(n);
        for (hsize_t k = 0; k < n; ++k)
            mine[k] = r * 100000 + static_cast<int>(k);
        const auto before = stats_of(file);
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, mine.data()) >= 0))
            << error_stack_text();
        const auto after = stats_of(file);
        if (s > 1) {
            EXPECT_GT(after.aggregated_route_ops, before.aggregated_route_ops);
        }
        std::vector<int> got(n, -1), want(n);
        for (hsize_t k = 0; k < n; ++k)
            want[k] = (s - 1) * 100000 + static_cast<int>(k);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, got.data()) >= 0));
        EXPECT_EQ(got, want);
    }
}

// The same with pieces of several lengths and spacings in every window (an irregular selection,
// every rank the same one): an aggregator receives each rank's pieces as several groups into its
// staging buffer, one after the other, and places each where the file has it. Unselected elements
// keep the fill value. (A chunked dataset every rank writes whole, as HDF5's own t_select_io_dset
// does with chunks out of address order, took this path: every group then landed at the start of
// the rank's staging, and one chunk's bytes were written into another's place.)
TEST(RoutesAggregate, OverlappingIrregularPiecesLandWhereTheFileHasThem) {
    if (route_forced_by_environment())
        GTEST_SKIP() << "the environment forces another route";
    const int s = world_size(), r = world_rank();
    constexpr hsize_t n = 4096;
    for (const char *staging : {"", ";staging_buffer=256"}) {
        SCOPED_TRACE(staging);
        const std::string config = std::string("collective_route=aggregate;write_behind=off") + staging;
        FaplOptions options;
        options.config = config.c_str();
        Hid fapl = make_fapl(Driver::Mpiio, options);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        const std::string path =
            path_in(test_dir(), staging[0] ? "overlap_irregular_tiny" : "overlap_irregular", Driver::Mpiio);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        const hsize_t dims[1] = {n};
        Hid fspace(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(dset.valid()));
        // blocks of 1, 2, 3, ... 7 elements with gaps of 3, 1, 4, 1, 5 ..., the same on every rank
        std::vector<bool> chosen(n, false);
        H5Sselect_none(fspace);
        const hsize_t gaps[] = {3, 1, 4, 1, 5, 9, 2, 6};
        hsize_t at = 0;
        for (unsigned k = 0; at < n; ++k) {
            const hsize_t len = std::min<hsize_t>(1 + k % 7, n - at), start[1] = {at}, count[1] = {len};
            ASSERT_GE(H5Sselect_hyperslab(fspace, H5S_SELECT_OR, start, nullptr, count, nullptr), 0);
            for (hsize_t e = at; e < at + len; ++e)
                chosen[e] = true;
            at += len + gaps[k % 8];
        }
        const auto selected = static_cast<hsize_t>(H5Sget_select_npoints(fspace));
        Hid mspace(H5Screate_simple(1, &selected, nullptr));
        std::vector<int> mine(selected);
        std::vector<int> want(n, 0);
        for (hsize_t e = 0, k = 0; e < n; ++e)
            if (chosen[e]) {
                mine[k] = r * 100000 + static_cast<int>(e);
                want[e] = (s - 1) * 100000 + static_cast<int>(e);
                ++k;
            }
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, mine.data()) >= 0))
            << error_stack_text();
        std::vector<int> got(n, -1);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, got.data()) >= 0));
        EXPECT_EQ(got, want);
    }
}

// Every rank writes the same bytes, all of a dataset of four windows (a replicated value): an
// aggregator receives every rank's copy of each window, yet holds at most its window and one more
// of staging (the ranks' pieces received a batch at a time), whatever the number of ranks; the file
// is the built-in driver's (the ranks write the same values).
TEST(RoutesAggregate, ReplicatedWritesHoldAtMostTwoWindowsOnAnAggregator) {
    if (route_forced_by_environment())
        GTEST_SKIP() << "the environment forces another route";
    constexpr hsize_t kWindow = 65536, n = 4 * kWindow / sizeof(int), dims[1] = {n};
    std::vector<int> values(n);
    for (hsize_t k = 0; k < n; ++k)
        values[k] = value_at<int>(k, 3);
    for (Driver d : kDrivers) {
        FaplOptions options;
        // (the stripe unit given too: a file system's own, CephFS's 4 MiB, would make the window)
        options.config = "collective_route=aggregate;staging_buffer=64K;stripe_unit=64K;write_behind=off";
        Hid fapl = make_fapl(d, options);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        Hid file(H5Fcreate(path_in(test_dir(), "replicated", d).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        Hid fspace(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(dset.valid()));
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, values.data()) >= 0))
            << error_stack_text();
        if (d == Driver::Mpiio) {
            const auto st = stats_of(file);
            EXPECT_LE(st.aggregation_buffer_peak, 2 * kWindow)
                << "an aggregator held more than two windows for " << world_size() << " ranks' copies";
            if (world_rank() == 0) {
                EXPECT_GE(st.aggregation_buffer_peak, kWindow)
                    << "rank 0 aggregated nothing: the test tests nothing";
            }
        }
    }
    EXPECT_EQ(compare_files(path_in(test_dir(), "replicated", Driver::Mpio),
                            path_in(test_dir(), "replicated", Driver::Mpiio)),
              "");
}

// Collective. A 1-D dataset of `n` ints allocated at creation and never filled: no byte of it is
// written until the test writes one (an invalid handle when anything fails).
Hid create_unwritten(hid_t file, const char *name, hsize_t n) {
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
    const hsize_t dims[1] = {n};
    Hid space(H5Screate_simple(1, dims, nullptr));
    if (!dcpl.valid() || !space.valid() || H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY) < 0 ||
        H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER) < 0)
        return Hid();
    return Hid(H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
}

// The holes an aggregator bridges: bytes no rank ever wrote are zeros and are not read back (a
// time step's fresh dataset reads nothing: on a network file system each read is a round trip),
// and bytes another rank wrote there before are read back and kept. "kept" lies past "fresh" in
// the file, so the last rank's independent write there is past every byte the aggregator wrote
// itself: only the ranks' agreed written end tells it that the holes hold bytes.
TEST(RoutesAggregate, HolesKeepWhatAnyRankWroteAndReadNothingNoRankWrote) {
    if (route_forced_by_environment())
        GTEST_SKIP() << "the environment forces another route";
    const int s = world_size(), r = world_rank();
    const hsize_t n = kPerRank * static_cast<hsize_t>(s), dims[1] = {n};
    FaplOptions options;
    options.config = "collective_route=aggregate";
    Hid fapl = make_fapl(Driver::Mpiio, options);
    Hid collective = make_dxpl(H5FD_MPIO_COLLECTIVE), independent = make_dxpl(H5FD_MPIO_INDEPENDENT);
    const std::string path = path_in(test_dir(), "aggregated_holes", Driver::Mpiio);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
    Hid fresh = create_unwritten(file, "fresh", n), kept = create_unwritten(file, "kept", n);
    ASSERT_TRUE(all_ranks(fresh.valid() && kept.valid()));

    // Each rank's even elements of its own block, collectively: odd holes inside every window.
    const hsize_t start[1] = {r * kPerRank}, stride[1] = {2}, count[1] = {kPerRank / 2};
    Hid evens(H5Screate_simple(1, dims, nullptr));
    ASSERT_GE(H5Sselect_hyperslab(evens, H5S_SELECT_SET, start, stride, count, nullptr), 0);
    Hid evens_memory(H5Screate_simple(1, count, nullptr));
    std::vector<int> even_values(kPerRank / 2);
    for (hsize_t k = 0; k < kPerRank / 2; ++k)
        even_values[k] = value_at<int>(start[0] + 2 * k, 2);
    auto write_evens = [&](hid_t dset) {
        return all_ranks(
            H5Dwrite(dset, H5T_NATIVE_INT, evens_memory, evens, collective, even_values.data()) >= 0);
    };

    const auto before = stats_of(file);
    EXPECT_TRUE(write_evens(fresh)) << error_stack_text();
    const auto after = stats_of(file);
    EXPECT_EQ(after.independent_reads + after.collective_reads,
              before.independent_reads + before.collective_reads)
        << "a hole no rank ever wrote was read back";

    // The last rank writes every odd element of "kept" on its own; the flush makes them visible.
    const hsize_t odd_start[1] = {1}, odd_count[1] = {n / 2};
    Hid odds(H5Screate_simple(1, dims, nullptr));
    ASSERT_GE(H5Sselect_hyperslab(odds, H5S_SELECT_SET, odd_start, stride, odd_count, nullptr), 0);
    Hid odds_memory(H5Screate_simple(1, odd_count, nullptr));
    std::vector<int> odd_values(n / 2);
    for (hsize_t k = 0; k < n / 2; ++k)
        odd_values[k] = ~value_at<int>(1 + 2 * k, 2);
    bool odds_written = true;
    if (r == s - 1)
        odds_written = H5Dwrite(kept, H5T_NATIVE_INT, odds_memory, odds, independent, odd_values.data()) >= 0;
    EXPECT_TRUE(all_ranks(odds_written)) << error_stack_text();
    EXPECT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_LOCAL) >= 0)) << error_stack_text();
    EXPECT_TRUE(write_evens(kept)) << error_stack_text();

    std::vector<int> want_fresh(n), want_kept(n), got(n, -1);
    for (hsize_t i = 0; i < n; ++i) {
        want_fresh[i] = i % 2 == 0 ? value_at<int>(i, 2) : 0;
        want_kept[i] = i % 2 == 0 ? value_at<int>(i, 2) : ~value_at<int>(i, 2);
    }
    EXPECT_TRUE(all_ranks(H5Dread(fresh, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, collective, got.data()) >= 0));
    EXPECT_EQ(got, want_fresh);
    EXPECT_TRUE(all_ranks(H5Dread(kept, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, collective, got.data()) >= 0));
    EXPECT_EQ(got, want_kept);
}

// A collective read of bytes no rank ever wrote (the library's background read of a fresh compound
// dataset before its first field is written) is zeros without a call, on the routes that read rank
// by rank; bytes another rank wrote are read (the ranks' agreed written end, not this rank's own,
// bounds the zeros). "later" lies past "fresh" in the file and only the last rank writes it.
TEST(RoutesAggregate, ReadsOfBytesNoRankWroteAreZerosWithoutACall) {
    if (route_forced_by_environment())
        GTEST_SKIP() << "the environment forces another route";
    const int s = world_size(), r = world_rank();
    const hsize_t n = kPerRank * static_cast<hsize_t>(s), dims[1] = {n};
    for (const char *route : {"aggregate", "independent"}) {
        SCOPED_TRACE(route);
        const std::string config = std::string("collective_route=") + route;
        FaplOptions options;
        options.config = config.c_str();
        Hid fapl = make_fapl(Driver::Mpiio, options);
        Hid collective = make_dxpl(H5FD_MPIO_COLLECTIVE), independent = make_dxpl(H5FD_MPIO_INDEPENDENT);
        const std::string path =
            path_in(test_dir(), (std::string("unwritten_reads_") + route).c_str(), Driver::Mpiio);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        Hid fresh = create_unwritten(file, "fresh", n), later = create_unwritten(file, "later", n);
        ASSERT_TRUE(all_ranks(fresh.valid() && later.valid()));
        // Each rank reads its own block (the routes that read rank by rank; a whole-dataset read
        // on every rank is the library's rank-0 broadcast).
        const hsize_t start[1] = {r * kPerRank}, count[1] = {kPerRank};
        Hid block(H5Screate_simple(1, dims, nullptr));
        ASSERT_GE(H5Sselect_hyperslab(block, H5S_SELECT_SET, start, nullptr, count, nullptr), 0);
        Hid block_memory(H5Screate_simple(1, count, nullptr));
        std::vector<int> got(kPerRank, -1);

        const auto before = stats_of(file);
        EXPECT_TRUE(
            all_ranks(H5Dread(fresh, H5T_NATIVE_INT, block_memory, block, collective, got.data()) >= 0));
        const auto after = stats_of(file);
        EXPECT_EQ(got, std::vector<int>(kPerRank, 0));
        EXPECT_EQ(after.independent_reads + after.collective_reads,
                  before.independent_reads + before.collective_reads)
            << "bytes no rank ever wrote were read";

        std::vector<int> values(n);
        for (hsize_t i = 0; i < n; ++i)
            values[i] = value_at<int>(i, 3);
        bool written = true;
        if (r == s - 1)
            written = H5Dwrite(later, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, independent, values.data()) >= 0;
        EXPECT_TRUE(all_ranks(written)) << error_stack_text();
        EXPECT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_LOCAL) >= 0)) << error_stack_text();
        std::fill(got.begin(), got.end(), -1);
        EXPECT_TRUE(
            all_ranks(H5Dread(later, H5T_NATIVE_INT, block_memory, block, collective, got.data()) >= 0));
        EXPECT_EQ(got, std::vector<int>(values.begin() + static_cast<std::ptrdiff_t>(start[0]),
                                        values.begin() + static_cast<std::ptrdiff_t>(start[0] + kPerRank)));
    }
}

// A new file at `path` with one 1-D dataset "d" of `n` ints, and the dataset's file space (all
// ranks; invalid handles where a rank failed). Collective.
struct IntDataset {
    Hid file, space, dset;
};
IntDataset create_int_dataset(const std::string &path, hid_t fapl, hsize_t n) {
    IntDataset out;
    out.file = Hid(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    if (!all_ranks(out.file.valid()))
        return out;
    const hsize_t dims[1] = {n};
    out.space = Hid(H5Screate_simple(1, dims, nullptr));
    out.dset =
        Hid(H5Dcreate2(out.file, "d", H5T_NATIVE_INT, out.space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    return out;
}

// `auto` where each rank writes and reads one contiguous block of a call's worth or more (128 KiB,
// over the 64 KiB a call is worth on shared storage): on local storage each rank moves its own, on
// CephFS each rank writes its own and the aggregators read (collective_route=aggregate_interleaved
// there), elsewhere on shared storage the aggregators do both; either way the file is the
// built-in driver's and every rank reads its block back.
TEST(RoutesAuto, LargeBlocksTakeTheStoragesRoute) {
    if (route_forced_by_environment())
        GTEST_SKIP() << "the environment forces another route";
    constexpr hsize_t kBlock = 32768; // ints: 128 KiB per rank
    const int s = world_size(), r = world_rank();
    const hsize_t dims[1] = {kBlock * static_cast<hsize_t>(s)}, start[1] = {r * kBlock}, count[1] = {kBlock};
    const std::string route = auto_route(test_dir());
    std::vector<int> values(kBlock);
    for (hsize_t i = 0; i < kBlock; ++i)
        values[i] = value_at<int>(start[0] + i, 4);
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        Hid fapl = make_fapl(d);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        auto [file, fspace, dset] = create_int_dataset(path_in(test_dir(), "large_blocks", d), fapl, dims[0]);
        ASSERT_TRUE(all_ranks(dset.valid())) << error_stack_text();
        ASSERT_GE(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr), 0);
        Hid mspace(H5Screate_simple(1, count, nullptr));
        H5FD_mpiio_stats_t before{};
        if (d == Driver::Mpiio)
            before = stats_of(file);
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, values.data()) >= 0))
            << error_stack_text();
        std::vector<int> got(kBlock, -1);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, got.data()) >= 0));
        EXPECT_EQ(got, values);
        if (d == Driver::Mpiio && s > 1) {
            const auto after = stats_of(file);
            const auto independent = after.independent_route_ops - before.independent_route_ops;
            const auto aggregated = after.aggregated_route_ops - before.aggregated_route_ops;
            const auto mpi = after.mpi_route_ops - before.mpi_route_ops;
            SCOPED_TRACE("auto is " + route + " here");
            EXPECT_EQ(mpi, 0u);
            if (route == "aggregate") {
                EXPECT_EQ(independent, 0u);
                EXPECT_GE(aggregated, 2u) << "the write and the read";
            } else if (route == "aggregate_interleaved") { // (reads aggregate)
                EXPECT_GE(independent, 1u) << "the write";
                EXPECT_GE(aggregated, 1u) << "the read";
            } else {
                EXPECT_EQ(aggregated, 0u);
                EXPECT_GE(independent, 2u) << "the write and the read";
            }
        }
    }
    EXPECT_EQ(compare_files(path_in(test_dir(), "large_blocks", Driver::Mpio),
                            path_in(test_dir(), "large_blocks", Driver::Mpiio)),
              "");
}

// collective_route=aggregate_interleaved (auto on CephFS) on any storage: each rank writes its
// whole block on its own, reads of part of it go through the aggregators (rank by rank reads cost
// CephFS's servers many times the reads), and an aggregator's copy of a window (window_cache)
// does not outlive the ranks' own rewrite of it: the read after the rewrite returns the new bytes.
TEST(RoutesInterleaved, WritesGoRankByRankReadsAggregateAndSeeTheRanksRewrites) {
    if (route_forced_by_environment())
        GTEST_SKIP() << "the environment forces another route";
    constexpr hsize_t kBlock = 4096; // ints: 16 KiB per rank, over the test's 1 KiB sieve_gap
    const int s = world_size(), r = world_rank();
    const hsize_t dims[1] = {kBlock * static_cast<hsize_t>(s)}, start[1] = {r * kBlock};
    const hsize_t whole[1] = {kBlock}, half[1] = {kBlock / 2};
    auto block_values = [&](int seed, hsize_t count) {
        std::vector<int> v(count);
        for (hsize_t i = 0; i < count; ++i)
            v[i] = value_at<int>(start[0] + i, seed);
        return v;
    };
    // Route counters summed over the ranks (the aggregators' copies are theirs alone).
    struct RouteCounts {
        std::uint64_t independent = 0, aggregated = 0, cached = 0;
    };
    auto route_counts = [](hid_t file) {
        const H5FD_mpiio_stats_t st = stats_of(file);
        return RouteCounts{summed(st.independent_route_ops), summed(st.aggregated_route_ops),
                           summed(st.cached_window_reads)};
    };
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        FaplOptions options;
        options.config = "collective_route=aggregate_interleaved;sieve_gap=1K;window_cache=1M";
        Hid fapl = make_fapl(d, options);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        auto [file, fspace, dset] =
            create_int_dataset(path_in(test_dir(), "interleaved_reads", d), fapl, dims[0]);
        ASSERT_TRUE(all_ranks(dset.valid())) << error_stack_text();
        Hid whole_memory(H5Screate_simple(1, whole, nullptr)),
            half_memory(H5Screate_simple(1, half, nullptr));
        auto select = [&](const hsize_t *count) {
            return H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr) >= 0;
        };
        // One collective transfer; the route counters it moved (zeros under the built-in driver).
        auto counted = [&](auto &&transfer) {
            const RouteCounts before = d == Driver::Mpiio ? route_counts(file) : RouteCounts{};
            EXPECT_TRUE(all_ranks(transfer())) << error_stack_text();
            const RouteCounts after = d == Driver::Mpiio ? route_counts(file) : RouteCounts{};
            return RouteCounts{after.independent - before.independent, after.aggregated - before.aggregated,
                               after.cached - before.cached};
        };
        auto write_whole = [&](int seed) {
            const auto v = block_values(seed, kBlock);
            return counted([&] {
                return select(whole) &&
                       H5Dwrite(dset, H5T_NATIVE_INT, whole_memory, fspace, dxpl, v.data()) >= 0;
            });
        };
        auto read_half = [&](int seed) {
            std::vector<int> got(kBlock / 2, -1);
            const auto moved = counted([&] {
                return select(half) &&
                       H5Dread(dset, H5T_NATIVE_INT, half_memory, fspace, dxpl, got.data()) >= 0;
            });
            EXPECT_EQ(got, block_values(seed, kBlock / 2)) << "the read after the write of seed " << seed;
            return moved;
        };
        const auto written = write_whole(1);
        const auto first_read = read_half(1);
        const auto second_read = read_half(1);
        const auto rewritten = write_whole(2);
        const auto read_after_rewrite = read_half(2);
        if (d == Driver::Mpiio && s > 1) {
            EXPECT_EQ(written.independent, static_cast<std::uint64_t>(s)) << "each rank writes its own block";
            EXPECT_EQ(written.aggregated, 0u);
            for (const auto &read : {first_read, second_read, read_after_rewrite}) {
                EXPECT_EQ(read.independent, 0u) << "a read went rank by rank";
                EXPECT_EQ(read.aggregated, static_cast<std::uint64_t>(s)) << "a read did not aggregate";
            }
            EXPECT_GT(second_read.cached, 0u)
                << "the aggregators kept no copy: the rewrite below tests nothing";
            EXPECT_EQ(rewritten.independent, static_cast<std::uint64_t>(s));
            EXPECT_EQ(read_after_rewrite.cached, 0u) << "a copy older than the ranks' rewrite answered";
        }
    }
    EXPECT_EQ(compare_files(path_in(test_dir(), "interleaved_reads", Driver::Mpio),
                            path_in(test_dir(), "interleaved_reads", Driver::Mpiio)),
              "");
}

// Point selections may name their points in any order; a range of long runs sieved in windows
// moves them in file order (one window per point would read a whole staging buffer for each).
// Elements of 64 bytes (16 ints), so that each point is a run long enough for windows. Each rank
// writes, then reads back, every other element of its own block, named last to first,
// collectively, through 1 KiB windows (its range is 6,080 bytes).
TEST(RoutesPoints, PointsInDescendingOrderSievedInWindowsMatchTheBuiltinDriver) {
    constexpr hsize_t kInts = 16;
    const std::string dir = test_dir();
    const int s = world_size(), r = world_rank();
    const hsize_t n = kPerRank * static_cast<hsize_t>(s);
    auto record_values = [&](const std::vector<hsize_t> &elements, bool prefill) {
        std::vector<int> v;
        for (hsize_t e : elements)
            for (hsize_t k = 0; k < kInts; ++k)
                v.push_back(prefill ? prefill_at(e * kInts + k) : value_at<int>(e * kInts + k, 2));
        return v;
    };
    std::vector<hsize_t> block(kPerRank), mine, all(n);
    std::iota(block.begin(), block.end(), r * kPerRank);
    std::iota(all.begin(), all.end(), hsize_t{0});
    for (hsize_t k = 1; k < kPerRank; k += 2)
        mine.push_back((r + 1) * kPerRank - k); // descending
    const std::vector<int> values = record_values(mine, false);
    const hsize_t ints[1] = {kInts};
    Hid record(H5Tarray_create2(H5T_NATIVE_INT, 1, ints));
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        FaplOptions options;
        options.config = "staging_buffer=1K";
        Hid fapl = make_fapl(d, options);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        const std::string path = path_in(dir, "points_descending", d);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        const hsize_t dims[1] = {n};
        Hid fspace(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "d", record, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(dset.valid()));
        const hsize_t start[1] = {r * kPerRank}, count[1] = {kPerRank}, picked[1] = {mine.size()};
        ASSERT_GE(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr), 0);
        Hid block_space(H5Screate_simple(1, count, nullptr));
        const std::vector<int> prefill = record_values(block, true);
        ASSERT_TRUE(all_ranks(H5Dwrite(dset, record, block_space, fspace, dxpl, prefill.data()) >= 0));
        ASSERT_GE(H5Sselect_elements(fspace, H5S_SELECT_SET, mine.size(), mine.data()), 0);
        Hid mspace(H5Screate_simple(1, picked, nullptr));
        H5FD_mpiio_stats_t before{};
        if (d == Driver::Mpiio)
            before = stats_of(file);
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, record, mspace, fspace, dxpl, values.data()) >= 0))
            << error_stack_text();
        std::vector<int> got(values.size(), -1);
        EXPECT_TRUE(all_ranks(H5Dread(dset, record, mspace, fspace, dxpl, got.data()) >= 0));
        EXPECT_EQ(got, values);
        if (d == Driver::Mpiio && s > 1 && effective_policy("auto") == "auto") {
            const auto after = stats_of(file);
            EXPECT_EQ(after.independent_route_ops - before.independent_route_ops, 2u);
            // About a window per KiB of the rank's 6,080-byte range in each of the two transfers
            // (this rank's counters); a window per point would be 48 each.
            EXPECT_LE(after.independent_reads - before.independent_reads, 2u * 8u);
        }
    }
    std::vector<int> expected = record_values(all, true);
    for (int q = 0; q < s; ++q)
        for (hsize_t k = 1; k < kPerRank; k += 2)
            for (hsize_t i = 0; i < kInts; ++i) {
                const hsize_t e = (q + 1) * kPerRank - k;
                expected[e * kInts + i] = value_at<int>(e * kInts + i, 2);
            }
    EXPECT_TRUE(
        dataset_equals_on_rank0(path_in(dir, "points_descending", Driver::Mpiio), "d", as_bytes(expected)));
    EXPECT_EQ(compare_files(path_in(dir, "points_descending", Driver::Mpio),
                            path_in(dir, "points_descending", Driver::Mpiio)),
              "");
}

std::string param_name(const testing::TestParamInfo<Param> &info) {
    return std::string(std::get<0>(info.param)) +
           (std::get<1>(info.param) == Layout::Contiguous ? "Contiguous" : "Chunked") +
           (std::get<2>(info.param) == SelectionIo::Off ? "SelectionIoOff" : "") +
           (std::get<3>(info.param) == Staging::Tiny ? "TinyStaging" : "");
}

INSTANTIATE_TEST_SUITE_P(Policies, Routes,
                         testing::Combine(testing::Values("auto", "collective", "independent", "aggregate"),
                                          testing::Values(Layout::Contiguous, Layout::Chunked),
                                          testing::Values(SelectionIo::Default),
                                          testing::Values(Staging::Default)),
                         param_name);
// aggregate_interleaved (auto on CephFS) on the contiguous layout: every case aggregates (the
// whole blocks of "touching" too, as they rewrite the prefill's range; RoutesAuto and
// RoutesInterleaved have blocks written rank by rank).
INSTANTIATE_TEST_SUITE_P(Interleaved, Routes,
                         testing::Combine(testing::Values("aggregate_interleaved"),
                                          testing::Values(Layout::Contiguous),
                                          testing::Values(SelectionIo::Default),
                                          testing::Values(Staging::Default)),
                         param_name);
// The policies that sieve (collective never moves a range rank by rank), with 64-byte windows (and
// 64-byte aggregation windows: a round per 64 bytes of the ranks' range).
INSTANTIATE_TEST_SUITE_P(TinyStaging, Routes,
                         testing::Combine(testing::Values("auto", "independent", "aggregate"),
                                          testing::Values(Layout::Contiguous, Layout::Chunked),
                                          testing::Values(SelectionIo::Default),
                                          testing::Values(Staging::Tiny)),
                         param_name);
// With selection I/O off, chunked only: chunks straddling the rank blocks give the library's file
// types their lower bounds and holes (a contiguous dataset gives one contiguous range per rank).
INSTANTIATE_TEST_SUITE_P(SelectionIoOff, Routes,
                         testing::Combine(testing::Values("auto", "collective", "independent", "aggregate"),
                                          testing::Values(Layout::Chunked), testing::Values(SelectionIo::Off),
                                          testing::Values(Staging::Default)),
                         param_name);

} // namespace
