// The driver's per-file statistics (H5Fget_mpiio_stats from include/h5fd_mpiio.h): collective and
// independent transfers are counted where they happen, bytes add up, syncs follow the sync
// policy, and stats=summary prints one summary on rank 0 at close.
#include "common.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

using namespace mpiio_test;

namespace {

constexpr hsize_t kPerRank = 4096; // ints per rank

struct Dataset {
    Hid dset, fspace, mspace;
    std::vector<int> values;
};

Dataset make_dataset(hid_t file, const char *name) {
    const int rank = world_rank(), size = world_size();
    Dataset d;
    const hsize_t dims[1] = {kPerRank * static_cast<hsize_t>(size)};
    d.fspace = Hid(H5Screate_simple(1, dims, nullptr));
    d.dset = Hid(H5Dcreate2(file, name, H5T_STD_I32LE, d.fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    const hsize_t start[1] = {kPerRank * static_cast<hsize_t>(rank)}, count[1] = {kPerRank};
    H5Sselect_hyperslab(d.fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
    d.mspace = Hid(H5Screate_simple(1, count, nullptr));
    d.values = values_at<int>(hyperslab_indices({dims[0]}, {start[0]}, {1}, {kPerRank}));
    return d;
}

// A plugin file opened with `config`, holding dataset "a" that every rank has written its block
// of collectively.
struct WrittenFile {
    Hid file;
    Dataset a;
};

WrittenFile create_written(const std::string &path, const char *config) {
    FaplOptions options;
    options.config = config;
    Hid fapl = make_fapl(Driver::Mpiio, options);
    WrittenFile w;
    w.file = Hid(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    EXPECT_TRUE(all_ranks(w.file.valid()));
    if (!w.file.valid())
        return w;
    w.a = make_dataset(w.file, "a");
    Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE);
    EXPECT_TRUE(
        all_ranks(H5Dwrite(w.a.dset, H5T_NATIVE_INT, w.a.mspace, w.a.fspace, coll, w.a.values.data()) >= 0));
    return w;
}

// Collective. The ranks' counts added up: on the aggregating route an aggregator moves (and counts)
// the other ranks' bytes, so only the sum is each rank's share.
std::uint64_t summed(std::uint64_t mine) {
    std::uint64_t all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

TEST(Stats, CountCollectiveAndIndependentTransfers) {
    const std::string path = test_dir() + "/stats.h5";
    Hid fapl = make_fapl(Driver::Mpiio);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid()));
    Dataset a = make_dataset(file, "a");
    Dataset b = make_dataset(file, "b");
    ASSERT_TRUE(all_ranks(a.dset.valid() && b.dset.valid()));
    const uint64_t my_bytes = kPerRank * sizeof(int);

    const auto s0 = stats_of(file);
    Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE);
    EXPECT_TRUE(all_ranks(H5Dwrite(a.dset, H5T_NATIVE_INT, a.mspace, a.fspace, coll, a.values.data()) >= 0));
    const auto s1 = stats_of(file);
    EXPECT_GT(s1.collective_ops, s0.collective_ops)
        << "collective H5Dwrite reached the driver as independent";
    EXPECT_EQ(s1.collective_ops - s0.collective_ops,
              (s1.mpi_route_ops - s0.mpi_route_ops) + (s1.independent_route_ops - s0.independent_route_ops) +
                  (s1.aggregated_route_ops - s0.aggregated_route_ops));
    EXPECT_GE(s1.collective_mpi_calls - s0.collective_mpi_calls, s1.collective_ops - s0.collective_ops)
        << "every collective transfer makes at least its exchange";
    const bool aggregated = s1.aggregated_route_ops > s0.aggregated_route_ops;
    EXPECT_GE(summed(s1.bytes_written - s0.bytes_written),
              my_bytes * static_cast<std::uint64_t>(world_size()));
    if (!aggregated) {
        EXPECT_GE(s1.bytes_written - s0.bytes_written, my_bytes);
    }

    Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
    EXPECT_TRUE(all_ranks(H5Dwrite(b.dset, H5T_NATIVE_INT, b.mspace, b.fspace, indep, b.values.data()) >= 0));
    const auto s2 = stats_of(file);
    EXPECT_GT(s2.independent_writes, s1.independent_writes)
        << "independent H5Dwrite did no independent MPI write";
    EXPECT_EQ(s2.collective_writes, s1.collective_writes);
    EXPECT_EQ(s2.collective_ops, s1.collective_ops);
    EXPECT_GE(s2.bytes_written - s1.bytes_written, my_bytes);

    std::vector<int> back(kPerRank, -1);
    EXPECT_TRUE(all_ranks(H5Dread(a.dset, H5T_NATIVE_INT, a.mspace, a.fspace, coll, back.data()) >= 0));
    EXPECT_EQ(back, a.values);
    const auto s3 = stats_of(file);
    EXPECT_GT(s3.collective_ops, s2.collective_ops);
    EXPECT_GE(summed(s3.bytes_read - s2.bytes_read), my_bytes * static_cast<std::uint64_t>(world_size()));
    if (s3.aggregated_route_ops == s2.aggregated_route_ops) {
        EXPECT_GE(s3.bytes_read - s2.bytes_read, my_bytes);
    }

    std::fill(back.begin(), back.end(), -1);
    EXPECT_TRUE(all_ranks(H5Dread(b.dset, H5T_NATIVE_INT, b.mspace, b.fspace, indep, back.data()) >= 0));
    EXPECT_EQ(back, b.values);
    const auto s4 = stats_of(file);
    EXPECT_GT(s4.independent_reads, s3.independent_reads);
    EXPECT_EQ(s4.collective_reads, s3.collective_reads);
    EXPECT_EQ(s4.collective_ops, s3.collective_ops);
    EXPECT_GE(s4.bytes_read - s3.bytes_read, my_bytes);
    EXPECT_EQ(s4.seconds_in_mpi_io, 0.0) << "the clock runs only with stats=summary";
}

// The forced routes show in the counters: collective_route=collective moves every collective
// transfer with MPI collective I/O, collective_route=independent never does.
TEST(Stats, ForcedRoutesAreCounted) {
    for (const char *policy : {"collective", "independent"}) {
        SCOPED_TRACE(policy);
        const std::string config = std::string("collective_route=") + policy;
        FaplOptions options;
        options.config = config.c_str();
        Hid fapl = make_fapl(Driver::Mpiio, options);
        Hid file(H5Fcreate((test_dir() + "/" + policy + ".h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
        Dataset a = make_dataset(file, "a");
        const auto s0 = stats_of(file);
        Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE);
        EXPECT_TRUE(
            all_ranks(H5Dwrite(a.dset, H5T_NATIVE_INT, a.mspace, a.fspace, coll, a.values.data()) >= 0));
        std::vector<int> back(kPerRank, -1);
        EXPECT_TRUE(all_ranks(H5Dread(a.dset, H5T_NATIVE_INT, a.mspace, a.fspace, coll, back.data()) >= 0));
        EXPECT_EQ(back, a.values);
        const auto s1 = stats_of(file);
        if (route_forced_by_environment())
            continue; // the environment overrides the policy under test
        if (std::string(policy) == "collective") {
            EXPECT_GT(s1.collective_writes, s0.collective_writes);
            EXPECT_EQ(s1.independent_route_ops, s0.independent_route_ops);
        } else {
            EXPECT_EQ(s1.collective_writes, s0.collective_writes);
            EXPECT_EQ(s1.collective_reads, s0.collective_reads);
            EXPECT_EQ(s1.mpi_route_ops, s0.mpi_route_ops);
            EXPECT_GT(s1.independent_route_ops, s0.independent_route_ops);
        }
    }
}

// A collective read whose ranks' extents interleave (rank r reads every size-th element from r:
// the extents add up to just under `size` times the range they cover) goes rank by rank while
// that is within read_overlap_limit (default 4) and through MPI collective I/O above it; the
// values are right either way.
TEST(Stats, InterleavedReadsFollowTheOverlapLimit) {
    const int rank = world_rank(), size = world_size();
    const bool policy_forced = route_forced_by_environment();
    const std::vector<std::pair<const char *, int>> limits = {
        {"", 4}, {"read_overlap_limit=1", 1}, {"read_overlap_limit=2", 2}};
    for (const auto &[config, limit] : limits) {
        SCOPED_TRACE(config);
        WrittenFile w = create_written(test_dir() + "/overlap" + std::to_string(limit) + ".h5", config);
        ASSERT_TRUE(all_ranks(w.file.valid()));
        const Hid &file = w.file;
        const Dataset &a = w.a;
        Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE);
        const hsize_t dims[1] = {kPerRank * static_cast<hsize_t>(size)};
        const hsize_t start[1] = {static_cast<hsize_t>(rank)}, stride[1] = {static_cast<hsize_t>(size)},
                      count[1] = {kPerRank};
        Hid fspace(H5Screate_simple(1, dims, nullptr));
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, stride, count, nullptr);
        const auto s0 = stats_of(file);
        std::vector<int> got(kPerRank, -1);
        EXPECT_TRUE(all_ranks(H5Dread(a.dset, H5T_NATIVE_INT, a.mspace, fspace, coll, got.data()) >= 0));
        const auto s1 = stats_of(file);
        EXPECT_EQ(got, values_at<int>(hyperslab_indices({dims[0]}, {start[0]}, {stride[0]}, {kPerRank})));
        if (policy_forced || size == 1)
            continue; // the environment overrides the policy; one rank has nothing to overlap
        const auto independent = s1.independent_route_ops - s0.independent_route_ops;
        const auto mpi = s1.mpi_route_ops - s0.mpi_route_ops;
        const std::string route = auto_route(test_dir());
        if (route == "aggregate" || route == "aggregate_interleaved") { // (shared storage: every
            // collective read of interleaved extents aggregates)
            EXPECT_GT(s1.aggregated_route_ops, s0.aggregated_route_ops);
            EXPECT_EQ(mpi + independent, 0u);
        } else if (size <= limit && route == "auto") {
            EXPECT_GT(independent, 0u);
            EXPECT_EQ(mpi, 0u);
        } else {
            EXPECT_GT(mpi, 0u);
            EXPECT_EQ(independent, 0u);
        }
    }
}

// Independent reads of byte runs: small runs a short gap apart share one sieved call through the
// staging buffer; a run of 64 KiB or more moves with a call of its own, straight into the
// caller's memory (copying it through the staging buffer costs more than the call:
// IndependentLimits::kDirectBytes).
TEST(Stats, LargeRunsMoveStraightSmallRunsShareACall) {
    const int rank = world_rank(), size = world_size();
    constexpr hsize_t kLargeBlock = 32768, kSmallBlock = 256, kGap = 256; // ints: 128 KiB, 1 KiB, 1 KiB
    constexpr hsize_t kLargeCount = 4, kSmallCount = 64;
    constexpr hsize_t kRegion = kLargeCount * (kLargeBlock + kGap); // per rank
    const std::string path = test_dir() + "/runs.h5";
    FaplOptions options;
    options.config = "view_writes=on"; // the view write under every layer (the default: OMPIO only)
    Hid fapl = make_fapl(Driver::Mpiio, options);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid()));
    const hsize_t dims[1] = {kRegion * static_cast<hsize_t>(size)};
    Hid fspace(H5Screate_simple(1, dims, nullptr));
    Hid dset(H5Dcreate2(file, "d", H5T_STD_I32LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(all_ranks(dset.valid()));
    const hsize_t base = kRegion * static_cast<hsize_t>(rank);
    {
        const hsize_t start[1] = {base}, count[1] = {kRegion};
        Hid mine(H5Scopy(fspace));
        H5Sselect_hyperslab(mine, H5S_SELECT_SET, start, nullptr, count, nullptr);
        Hid mspace(H5Screate_simple(1, count, nullptr));
        const auto values = values_at<int>(hyperslab_indices({dims[0]}, {base}, {1}, {kRegion}));
        Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE);
        ASSERT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, mine, coll, values.data()) >= 0));
    }
    Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
    // `count` blocks of `block` ints, kGap ints apart, from the start of this rank's region: the
    // file selection, a memory space of as many elements, and the dataset indices in order.
    struct Blocks {
        Hid sel, mspace;
        std::vector<hsize_t> indices;
    };
    auto blocks = [&](hsize_t block, hsize_t count) {
        const hsize_t start[1] = {base}, stride[1] = {block + kGap}, cnt[1] = {count}, blk[1] = {block};
        Blocks b{Hid(H5Scopy(fspace)), Hid(), {}};
        H5Sselect_hyperslab(b.sel, H5S_SELECT_SET, start, stride, cnt, blk);
        const hsize_t n[1] = {block * count};
        b.mspace = Hid(H5Screate_simple(1, n, nullptr));
        for (hsize_t i = 0; i < count; ++i)
            for (hsize_t k = 0; k < block; ++k)
                b.indices.push_back(base + i * (block + kGap) + k);
        return b;
    };
    // Reads the blocks; returns the MPI read calls it took and checks the values.
    auto read_blocks = [&](hsize_t block, hsize_t count) -> uint64_t {
        const Blocks b = blocks(block, count);
        std::vector<int> back(b.indices.size(), -1);
        const auto before = stats_of(file);
        EXPECT_GE(H5Dread(dset, H5T_NATIVE_INT, b.mspace, b.sel, indep, back.data()), 0);
        const auto after = stats_of(file);
        EXPECT_EQ(back, values_at<int>(b.indices));
        return after.independent_reads - before.independent_reads;
    };
    EXPECT_EQ(read_blocks(kLargeBlock, kLargeCount), kLargeCount) << "one call per 128 KiB run";
    EXPECT_EQ(read_blocks(kSmallBlock, kSmallCount), 1u) << "1 KiB runs 1 KiB apart: one sieved call";

    // Writes: the same block patterns with new values. Large runs: a call each. Small runs: one
    // call either way, with the gaps read and written back on a one-rank file, through the rank's
    // own file view otherwise (no other rank's bytes are ever rewritten). The gaps keep what the
    // file held.
    auto write_blocks = [&](hsize_t block, hsize_t count, int salt) -> uint64_t {
        const Blocks b = blocks(block, count);
        const std::vector<int> values = values_at<int>(b.indices, salt);
        const auto before = stats_of(file);
        EXPECT_GE(H5Dwrite(dset, H5T_NATIVE_INT, b.mspace, b.sel, indep, values.data()), 0);
        const auto after = stats_of(file);
        return after.independent_writes - before.independent_writes;
    };
    EXPECT_EQ(write_blocks(kLargeBlock, kLargeCount, 1), kLargeCount) << "one call per 128 KiB run";
    const uint64_t views_before = stats_of(file).view_writes;
    EXPECT_EQ(write_blocks(kSmallBlock, kSmallCount, 2), 1u);
    EXPECT_EQ(stats_of(file).view_writes - views_before, size == 1 ? 0u : 1u);
    // Every element of this rank's region: salt 2 where the small blocks are, else salt 1 where the
    // large blocks are, else the first write's value (the gaps).
    std::vector<int> expected(kRegion);
    for (hsize_t k = 0; k < kRegion; ++k) {
        const bool small = k < kSmallCount * (kSmallBlock + kGap) && k % (kSmallBlock + kGap) < kSmallBlock;
        const bool large = k % (kLargeBlock + kGap) < kLargeBlock;
        expected[k] = value_at<int>(base + k, small ? 2 : large ? 1 : 0);
    }
    const hsize_t start[1] = {base}, count[1] = {kRegion};
    Hid mine(H5Scopy(fspace));
    H5Sselect_hyperslab(mine, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mspace(H5Screate_simple(1, count, nullptr));
    std::vector<int> back(kRegion, -1);
    EXPECT_GE(H5Dread(dset, H5T_NATIVE_INT, mspace, mine, indep, back.data()), 0);
    EXPECT_EQ(back, expected) << "a gap between written blocks changed";
}

TEST(Stats, BuiltinFilesHaveNoPluginStatistics) {
    const std::string path = test_dir() + "/builtin.h5";
    Hid fapl = make_fapl(Driver::Mpio);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid()));
    H5FD_mpiio_stats_t st{};
    EXPECT_LT(H5Fget_mpiio_stats(file, &st), 0);
    EXPECT_LT(H5Fget_mpiio_stats(file, nullptr), 0);
}

TEST(Stats, SyncFollowsThePolicy) {
    const std::string dir = test_dir();
    for (const char *config : {"sync=auto", "sync=flush", "sync=never"}) {
        SCOPED_TRACE(config);
        WrittenFile w = create_written(dir + "/sync_" + std::string(config + 5) + ".h5", config);
        ASSERT_TRUE(all_ranks(w.file.valid()));
        const Hid &file = w.file;
        const auto before = stats_of(file);
        EXPECT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0));
        const auto after = stats_of(file);
        if (std::string(config) == "sync=never") {
            EXPECT_EQ(after.syncs, 0u);
        } else {
            EXPECT_GT(after.syncs, before.syncs) << "H5Fflush did not sync";
        }
    }
}

// Captures what this process writes to stderr (fd 2) while `body` runs.
template <class Body> std::string capture_stderr(Body &&body) {
    char name[] = "/tmp/mpiio-stats-XXXXXX";
    const int fd = mkstemp(name);
    if (fd < 0)
        return "<mkstemp failed>";
    std::fflush(stderr);
    const int saved = dup(2);
    dup2(fd, 2);
    body();
    std::fflush(stderr);
    dup2(saved, 2);
    close(saved);
    close(fd);
    std::ifstream in(name);
    std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    std::remove(name);
    return text;
}

TEST(Stats, SummaryNamesTheStorageClassTheConfigurationChose) {
    const std::string path = test_dir() + "/forced.h5";
    FaplOptions opt;
    opt.config = "stats=summary;storage=shared;read_overlap_limit=2";
    Hid fapl = make_fapl(Driver::Mpiio, opt);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid()));
    herr_t closed = -1;
    const std::string text = capture_stderr([&] { closed = H5Fclose(file.release()); });
    EXPECT_GE(closed, 0);
    if (world_rank() == 0) {
        EXPECT_NE(text.find("storage: shared (storage=shared; file system: "), std::string::npos) << text;
        EXPECT_NE(text.find("sieve_gap=64K read_overlap_limit=2"), std::string::npos) << text;
    }
}

TEST(Stats, SummaryIsPrintedOnceByRankZeroAtClose) {
    const std::string path = test_dir() + "/summary.h5";
    FaplOptions opt;
    opt.config = "stats=summary";
    Hid fapl = make_fapl(Driver::Mpiio, opt);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid()));
    {
        Dataset a = make_dataset(file, "a");
        Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE);
        EXPECT_TRUE(
            all_ranks(H5Dwrite(a.dset, H5T_NATIVE_INT, a.mspace, a.fspace, coll, a.values.data()) >= 0));
        // (On the aggregating route only the aggregators call MPI-IO.)
        double seconds = stats_of(file).seconds_in_mpi_io, most = 0;
        MPI_Allreduce(&seconds, &most, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        EXPECT_GT(most, 0.0) << "stats=summary measures the time in MPI-IO";
    }
    herr_t closed = -1;
    const std::string text = capture_stderr([&] { closed = H5Fclose(file.release()); });
    EXPECT_GE(closed, 0);
    if (world_rank() == 0) {
        EXPECT_NE(text.find("mpiio stats: " + path), std::string::npos) << text;
        // the release, so a user can say which one they run
        EXPECT_NE(text.find("(mpiio-vfd " MPIIO_VFD_VERSION ", " + std::to_string(world_size()) + " ranks"),
                  std::string::npos)
            << text;
        // exactly one summary
        EXPECT_EQ(text.find("mpiio stats:"), text.rfind("mpiio stats:")) << text;
        // the storage class in effect, from the file system the test directory is on (tmpfs here,
        // GlusterFS or CephFS through FUSE in CI's dfs and cephfs stages, named by the mount table)
        const char *dfs = std::getenv("MPIIO_DFS_DIR");
        const char *base = std::getenv("MPIIO_TEST_DIR");
        const char *kind = std::getenv("MPIIO_DFS_KIND");
        if (dfs != nullptr && base != nullptr && std::string(base) == dfs) {
            const std::string named =
                kind != nullptr && std::string(kind) == "cephfs" ? "cephfs (ceph-fuse)" : "glusterfs (fuse)";
            EXPECT_NE(text.find("storage: shared (from the file system; file system: " + named +
                                "): sieve_gap=64K"),
                      std::string::npos)
                << text;
            // the file's layout as the storage reported it (CephFS: its layout attribute)
            if (named == "cephfs (ceph-fuse)")
                EXPECT_NE(text.find("layout: stripe unit 4M x 1 stripes (ceph.file.layout"),
                          std::string::npos)
                    << text;
        } else if (base == nullptr)
            EXPECT_NE(text.find("storage: local (from the file system; file system: tmpfs): sieve_gap=4K"),
                      std::string::npos)
                << text;
        else
            EXPECT_NE(text.find("storage: "), std::string::npos) << text;
    } else {
        EXPECT_EQ(text.find("mpiio stats"), std::string::npos) << "only rank 0 prints: " << text;
    }
}

} // namespace
