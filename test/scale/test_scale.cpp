// Many ranks (label scale: 16 in CI, 32 and 64 by hand): what 1-4 ranks hide. Every case writes
// and reads the same data through the built-in driver and the plugin, checks the values read, and
// compares the two files byte for byte; the plugin's statistics show which route each transfer
// took where the rank count changes it. A watchdog turns a hang into a failure naming the case.
//
// Cases: contiguous blocks (collective, independent), strided (every other element of a rank's
// block), interleaved elements (rank r owns r, r+P, ...: writes two-phase, reads rank by rank only
// while the overlap limit allows), scattered points, chunked (linked-chunk and multi-chunk, chunks
// straddling ranks), filtered (deflate), metadata-heavy (groups, datasets, attributes with
// collective metadata), and one rank failing to open (every rank gets an error).
#include "test_support.hpp"

#include "h5fd_mpiio.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace mpiio_test;

constexpr unsigned kWatchdogSeconds = 240;

class Scale : public testing::Test {
protected:
    void SetUp() override { arm_watchdog(kWatchdogSeconds); }
    void TearDown() override { disarm_watchdog(); }
};

int value(hsize_t i) { return static_cast<int>(i * 2654435761u % 1000003u) - 500000; }

// One dataset's selection for this rank: the file selection, a memory space of as many elements,
// and the elements' indices (in the order HDF5 pairs them with memory).
struct Part {
    Hid file_sel, mem;
    std::vector<hsize_t> indices;
};

using MakePart = std::function<Part(hid_t file_space)>;

Part block_part(hid_t space, hsize_t first, hsize_t count) {
    Part p{Hid(H5Scopy(space)), Hid(), {}};
    const hsize_t start[1] = {first}, n[1] = {count};
    H5Sselect_hyperslab(p.file_sel, H5S_SELECT_SET, start, nullptr, n, nullptr);
    p.mem = Hid(H5Screate_simple(1, n, nullptr));
    for (hsize_t k = 0; k < count; ++k)
        p.indices.push_back(first + k);
    return p;
}

Part strided_part(hid_t space, hsize_t first, hsize_t stride, hsize_t count) {
    Part p{Hid(H5Scopy(space)), Hid(), {}};
    const hsize_t start[1] = {first}, st[1] = {stride}, n[1] = {count};
    H5Sselect_hyperslab(p.file_sel, H5S_SELECT_SET, start, st, n, nullptr);
    p.mem = Hid(H5Screate_simple(1, n, nullptr));
    for (hsize_t k = 0; k < count; ++k)
        p.indices.push_back(first + k * stride);
    return p;
}

Part points_part(hid_t space, std::vector<hsize_t> points) {
    Part p{Hid(H5Scopy(space)), Hid(), std::move(points)};
    H5Sselect_elements(p.file_sel, H5S_SELECT_SET, p.indices.size(), p.indices.data());
    const hsize_t n[1] = {p.indices.size()};
    p.mem = Hid(H5Screate_simple(1, n, nullptr));
    return p;
}

hsize_t P() { return static_cast<hsize_t>(world_size()); }
hsize_t R() { return static_cast<hsize_t>(world_rank()); }

// Writes dataset "d" of `elements` ints with `dcpl` through `d`, each rank its part, then reads
// the part back and checks it; returns the plugin's route and chunk counts of that write and read.
H5FD_mpiio_stats_t write_and_read(Driver d, const std::string &path, hsize_t elements, hid_t dcpl,
                                  H5FD_mpio_xfer_t mode, const MakePart &make, const char *config = nullptr) {
    FaplOptions options;
    options.config = config;
    Hid fapl = make_fapl(d, options);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    EXPECT_TRUE(all_ranks(file.valid())) << error_stack_text();
    const hsize_t dims[1] = {elements};
    Hid space(H5Screate_simple(1, dims, nullptr));
    Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    EXPECT_TRUE(all_ranks(dset.valid())) << error_stack_text();
    // Every element first gets a value (each rank its share, collectively): elements the case
    // does not write then hold the same bytes under both drivers (a hole past the end of the file
    // holds whatever the MPI-IO layer's buffer held under the built-in driver).
    const hsize_t share = (elements + P() - 1) / P(), first = std::min(elements, share * R());
    Part fill = block_part(space, first, std::min(share, elements - first));
    std::vector<int> prefill(fill.indices.size(), -7);
    Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE);
    EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, fill.mem, fill.file_sel, coll, prefill.data()) >= 0))
        << error_stack_text();
    H5FD_mpiio_stats_t before{};
    if (d == Driver::Mpiio)
        H5Fget_mpiio_stats(file, &before);
    Part part = make(space);
    std::vector<int> values(part.indices.size());
    for (std::size_t k = 0; k < values.size(); ++k)
        values[k] = value(part.indices[k]);
    Hid dxpl = make_dxpl(mode);
    EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, part.mem, part.file_sel, dxpl, values.data()) >= 0))
        << error_stack_text();
    std::vector<int> back(values.size(), 0);
    EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, part.mem, part.file_sel, dxpl, back.data()) >= 0))
        << error_stack_text();
    EXPECT_TRUE(all_ranks(back == values)) << driver_name(d) << ": values read back differ";
    H5FD_mpiio_stats_t after{};
    if (d == Driver::Mpiio)
        H5Fget_mpiio_stats(file, &after);
    // The case's own transfers (not the prefill).
    after.independent_route_ops -= before.independent_route_ops;
    after.mpi_route_ops -= before.mpi_route_ops;
    after.multi_chunk_ops -= before.multi_chunk_ops;
    after.collective_chunks -= before.collective_chunks;
    after.independent_chunks -= before.independent_chunks;
    return after;
}

// Both drivers, then the files compared; the plugin's statistics.
H5FD_mpiio_stats_t both_drivers(const std::string &stem, hsize_t elements, hid_t dcpl, H5FD_mpio_xfer_t mode,
                                const MakePart &make, const char *config = nullptr) {
    const std::string builtin = test_file(stem, Driver::Mpio), plugin = test_file(stem, Driver::Mpiio);
    write_and_read(Driver::Mpio, builtin, elements, dcpl, mode, make);
    const H5FD_mpiio_stats_t stats =
        write_and_read(Driver::Mpiio, plugin, elements, dcpl, mode, make, config);
    EXPECT_EQ(compare_files(builtin, plugin), "") << stem;
    return stats;
}

constexpr hsize_t kPerRank = 4096;

TEST_F(Scale, ContiguousBlocks) {
    for (H5FD_mpio_xfer_t mode : {H5FD_MPIO_COLLECTIVE, H5FD_MPIO_INDEPENDENT}) {
        const auto stats =
            both_drivers(mode == H5FD_MPIO_COLLECTIVE ? "blocks_coll" : "blocks_ind", kPerRank * P(),
                         H5P_DEFAULT, mode, [](hid_t s) { return block_part(s, R() * kPerRank, kPerRank); });
        if (mode == H5FD_MPIO_COLLECTIVE && std::getenv("MPIIO_TEST_CONFIG") == nullptr) {
            // Blocks in rank order: each rank moves its own, decided from the fixed-size summary.
            EXPECT_GT(stats.independent_route_ops, 0u);
            EXPECT_EQ(stats.mpi_route_ops, 0u);
        }
    }
}

// Every rank writes the whole dataset (the same values) on the aggregating route: every window
// comes from every rank, yet an aggregator holds at most two windows (its own and one of staging).
TEST_F(Scale, ReplicatedWritesHoldAtMostTwoWindowsOnAnAggregator) {
    if (std::getenv("MPIIO_TEST_CONFIG") != nullptr)
        GTEST_SKIP() << "the environment sets the configuration";
    constexpr hsize_t kWindow = 65536;
    const auto stats = both_drivers(
        "replicated", 4 * kWindow / sizeof(int), H5P_DEFAULT, H5FD_MPIO_COLLECTIVE,
        [](hid_t s) { return block_part(s, 0, 4 * kWindow / sizeof(int)); },
        "collective_route=aggregate;staging_buffer=64K;write_behind=off");
    EXPECT_LE(stats.aggregation_buffer_peak, 2 * kWindow) << P() << " ranks";
    if (R() == 0) {
        EXPECT_GE(stats.aggregation_buffer_peak, kWindow) << "rank 0 aggregated nothing";
    }
}

TEST_F(Scale, StridedWithinEachRanksBlock) {
    both_drivers("strided", 2 * kPerRank * P(), H5P_DEFAULT, H5FD_MPIO_COLLECTIVE,
                 [](hid_t s) { return strided_part(s, 2 * R() * kPerRank, 2, kPerRank); });
}

// Rank r owns elements r, r + P, r + 2P, ...: every extent spans (almost) the whole dataset.
// Writes take MPI collective I/O; reads go rank by rank only while P x the range stays within
// read_overlap_limit (4) x the range, so from 5 ranks on they take MPI collective I/O as well.
TEST_F(Scale, InterleavedElements) {
    const auto stats = both_drivers("interleaved", kPerRank * P(), H5P_DEFAULT, H5FD_MPIO_COLLECTIVE,
                                    [](hid_t s) { return strided_part(s, R(), P(), kPerRank); });
    if (std::getenv("MPIIO_TEST_CONFIG") == nullptr) {
        EXPECT_EQ(stats.independent_route_ops, 0u) << "interleaved writes and reads on " << P() << " ranks";
        EXPECT_GE(stats.mpi_route_ops, 2u);
    }
}

TEST_F(Scale, ScatteredPoints) {
    both_drivers("points", kPerRank * P(), H5P_DEFAULT, H5FD_MPIO_COLLECTIVE, [](hid_t s) {
        std::vector<hsize_t> pts;
        for (hsize_t k = 0; k < 512; ++k) // distinct across ranks: element (k * P + r) scrambled
            pts.push_back(((k * 37) % 512) * P() + R());
        return points_part(s, std::move(pts));
    });
}

Hid chunked(hsize_t chunk, bool deflate) {
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
    const hsize_t c[1] = {chunk};
    H5Pset_chunk(dcpl, 1, c);
    if (deflate)
        H5Pset_deflate(dcpl, 1);
    return dcpl;
}

// Chunks of 1000 elements: every chunk boundary falls inside some rank's block. Multi-chunk with
// ratio 1: a chunk two ranks touch is collective (more than max(1, P / 100) ranks), one of a
// single rank independent.
TEST_F(Scale, ChunkedLinkedAndMultiChunk) {
    Hid dcpl = chunked(1000, false);
    both_drivers("chunked_linked", kPerRank * P(), dcpl, H5FD_MPIO_COLLECTIVE,
                 [](hid_t s) { return block_part(s, R() * kPerRank, kPerRank); });
    const auto multi = both_drivers(
        "chunked_multi", kPerRank * P(), dcpl, H5FD_MPIO_COLLECTIVE,
        [](hid_t s) { return block_part(s, R() * kPerRank, kPerRank); }, "chunk_opt=multi;chunk_opt_ratio=1");
    EXPECT_GT(multi.multi_chunk_ops, 0u);
    EXPECT_GT(multi.collective_chunks, 0u) << "chunks shared by two ranks are collective";
    EXPECT_GT(multi.independent_chunks, 0u) << "chunks of one rank are independent";
}

TEST_F(Scale, Filtered) {
    if (H5Zfilter_avail(H5Z_FILTER_DEFLATE) <= 0)
        GTEST_SKIP() << "this HDF5 has no deflate filter";
    Hid dcpl = chunked(1000, true);
    both_drivers("deflate", kPerRank * P(), dcpl, H5FD_MPIO_COLLECTIVE,
                 [](hid_t s) { return block_part(s, R() * kPerRank, kPerRank); });
}

// Many objects with collective metadata: groups, small datasets and attributes created by every
// rank together, the values written by their owner rank.
TEST_F(Scale, MetadataHeavy) {
    auto build = [](Driver d, const std::string &path) {
        FaplOptions options;
        options.coll_metadata = true;
        Hid fapl = make_fapl(d, options);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        const hsize_t n[1] = {16}, one[1] = {1};
        Hid space(H5Screate_simple(1, n, nullptr)), scalar(H5Screate_simple(1, one, nullptr));
        Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
        for (int g = 0; g < 8; ++g) {
            Hid group(
                H5Gcreate2(file, ("g" + std::to_string(g)).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            for (int k = 0; k < 8; ++k) {
                const hsize_t owner = static_cast<hsize_t>(g * 8 + k) % P();
                Hid dset(H5Dcreate2(group, ("d" + std::to_string(k)).c_str(), H5T_NATIVE_INT, space,
                                    H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
                const int tag = g * 100 + k;
                Hid attr(H5Acreate2(dset, "tag", H5T_NATIVE_INT, scalar, H5P_DEFAULT, H5P_DEFAULT));
                H5Awrite(attr, H5T_NATIVE_INT, &tag);
                if (owner == R()) {
                    std::vector<int> v(16);
                    for (int i = 0; i < 16; ++i)
                        v[static_cast<std::size_t>(i)] = tag * 16 + i;
                    EXPECT_GE(H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, indep, v.data()), 0);
                }
            }
        }
    };
    const std::string builtin = test_file("metadata", Driver::Mpio),
                      plugin = test_file("metadata", Driver::Mpiio);
    build(Driver::Mpio, builtin);
    build(Driver::Mpiio, plugin);
    EXPECT_EQ(compare_files(builtin, plugin), "");
}

// The last rank cannot open the file (a configuration only it has wrong): every rank fails with an
// HDF5 error, none hangs, and the file is usable afterwards.
TEST_F(Scale, OneRankFailsEveryRankErrs) {
    const std::string path = test_file("one_fails", Driver::Mpiio);
    {
        Hid fapl = make_fapl(Driver::Mpiio);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
    }
    FaplOptions bad;
    bad.config = R() == P() - 1 ? "no_such_key=1" : nullptr;
    Hid fapl = make_fapl(Driver::Mpiio, bad);
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    Hid file(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl));
    EXPECT_TRUE(all_ranks(!file.valid())) << "a rank opened the file although another could not";
    EXPECT_NE(error_stack_text().find("no_such_key"), std::string::npos) << error_stack_text();
    Hid good = make_fapl(Driver::Mpiio);
    Hid again(H5Fopen(path.c_str(), H5F_ACC_RDWR, good));
    EXPECT_TRUE(all_ranks(again.valid())) << error_stack_text();
}

} // namespace
