// What only shared storage shows, on the distributed file systems of scripts/dfs.sh (GlusterFS, CI
// stage dfs) and scripts/cephfs.sh (CephFS, CI stage cephfs): ranks on two client hosts, each with
// its own client of the file system, and servers that can fail. Every test is skipped, saying why,
// outside those testbeds (MPIIO_DFS_CTL unset).
//
//  - Visibility: the bytes the ranks of one client wrote (collective transfer on each route,
//    independent transfer) are what the ranks of the other client read once the file was flushed
//    (H5Fflush: MPI_File_sync, barrier) or closed, as MPI's consistency rules promise. On GlusterFS
//    with the file system's client write cache on, so a missing MPI_File_sync leaves the other
//    client reading stale bytes; a control checks that the cache does hold writes back. CephFS
//    keeps its clients' caches coherent itself (the MDS recalls a client's capabilities to cache a
//    file another client opened for writing): it has no cache that holds writes back from the
//    other client, so there the control is skipped and the same cases check the bytes across the
//    clients (a missing MPI_File_sync cannot show there).
//  - Faults: a data server killed during a collective write (the file system survives one: the
//    write completes and the bytes are right); a client daemon killed under some ranks (every rank
//    gets an HDF5 error, none hangs); the volume full (an HDF5 error on every rank). What was
//    flushed before a fault reads back intact.
//
// Ranks: odd ranks run on client 2, even ranks on client 1 (the testbed's agent), so on 2 or more
// ranks every rank's neighbour (rank + 1) reads through the other client.
#include "../mpi/common.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>
#include <hdf5.h>
#include <mpi.h>

#include <cctype>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

using namespace mpiio_test;

namespace {

// A hang is a failure: each test ends the whole MPI job after this long (arm_watchdog).
constexpr unsigned kWatchdogSeconds = 240;

const char *testbed_controls() { return std::getenv("MPIIO_DFS_CTL"); }

// The testbed's file system (MPIIO_DFS_KIND: glusterfs from scripts/dfs.sh, cephfs from
// scripts/cephfs.sh).
bool on_cephfs() {
    const char *kind = std::getenv("MPIIO_DFS_KIND");
    return kind != nullptr && std::string(kind) == "cephfs";
}

// Collective: rank 0 runs a control of the testbed (scripts/dfs.sh --help, scripts/cephfs.sh --help:
// the same names); true on every rank when it succeeded.
bool control(const std::string &args) {
    int status = 0;
    if (world_rank() == 0)
        status = std::system((std::string(testbed_controls()) + " " + args).c_str());
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return status == 0;
}

class SharedStorage : public testing::Test {
protected:
    void SetUp() override {
        if (testbed_controls() == nullptr || *testbed_controls() == '\0')
            GTEST_SKIP() << "not on the distributed file system of scripts/dfs.sh or scripts/cephfs.sh "
                            "(MPIIO_DFS_CTL unset)";
        arm_watchdog(kWatchdogSeconds);
    }
    void TearDown() override { disarm_watchdog(); }
};

// The testbed's client write cache (Gluster's write-behind) on for the life of the object: writes
// stay in the writing client until it is told to flush (fsync, close). On CephFS there is nothing
// to turn on: its clients' caches stay coherent (on() is true, and nothing changes).
// The clients switch to the new volume graph some time after the option is set (a second, more on
// a loaded machine), and a file created meanwhile may fail to be found: each rank waits until it
// can create and remove a file of its own in the test's directory through its client (at most 30 s).
void wait_for_the_clients() {
    sleep(1);
    const std::string probe = test_dir() + "/graph-probe." + std::to_string(world_rank());
    for (int tries = 0; tries < 60; ++tries) {
        const int fd = ::open(probe.c_str(), O_CREAT | O_WRONLY, 0644);
        if (fd >= 0) {
            ::close(fd);
            if (::unlink(probe.c_str()) == 0)
                break;
        }
        usleep(500000);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

class ClientWriteCache {
public:
    ClientWriteCache() {
        if (cephfs_) {
            on_ = true;
            return;
        }
        on_ = control("gluster volume set mpiiovol performance.write-behind on") &&
              control("gluster volume set mpiiovol performance.write-behind-trickling-writes off");
        wait_for_the_clients();
    }
    ~ClientWriteCache() {
        if (cephfs_)
            return;
        control("gluster volume set mpiiovol performance.write-behind off");
        wait_for_the_clients();
    }
    ClientWriteCache(const ClientWriteCache &) = delete;
    ClientWriteCache &operator=(const ClientWriteCache &) = delete;
    bool on() const { return on_; }

private:
    const bool cephfs_ = on_cephfs();
    bool on_ = false;
};

constexpr hsize_t kPerRank = 64 * 1024; // ints: 256 KiB per rank

// One dataset of kPerRank ints per rank, rank r's block at r * kPerRank; `salt` tells writes apart.
struct Blocks {
    explicit Blocks(hid_t file, bool create) {
        const hsize_t dims[1] = {kPerRank * static_cast<hsize_t>(world_size())};
        space = Hid(H5Screate_simple(1, dims, nullptr));
        dset =
            create
                ? Hid(H5Dcreate2(file, "blocks", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT))
                : Hid(H5Dopen2(file, "blocks", H5P_DEFAULT));
    }
    // Writes rank `rank`'s block (this rank's own, normally).
    bool write(int rank, int salt, hid_t dxpl) {
        std::vector<int> v = block_values(rank, salt);
        Hid fspace = block_space(rank), mspace(H5Screate_simple(1, &kPerRank, nullptr));
        return H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, v.data()) >= 0;
    }
    // Reads rank `rank`'s block; empty when the read failed.
    std::vector<int> read(int rank, hid_t dxpl) {
        std::vector<int> v(kPerRank);
        Hid fspace = block_space(rank), mspace(H5Screate_simple(1, &kPerRank, nullptr));
        if (H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, v.data()) < 0)
            v.clear();
        return v;
    }
    static std::vector<int> block_values(int rank, int salt) {
        std::vector<int> v(kPerRank);
        for (hsize_t i = 0; i < kPerRank; ++i)
            v[i] = value_at<int>(static_cast<hsize_t>(rank) * kPerRank + i, salt);
        return v;
    }
    Hid block_space(int rank) const {
        Hid s(H5Dget_space(dset));
        const hsize_t start[1] = {kPerRank * static_cast<hsize_t>(rank)};
        H5Sselect_hyperslab(s, H5S_SELECT_SET, start, nullptr, &kPerRank, nullptr);
        return s;
    }
    Hid space, dset;
};

// How many of the ranks found `want` where they read `got` (collective).
int ranks_reading(const std::vector<int> &got, const std::vector<int> &want) {
    int mine = got == want ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

// ---- visibility -------------------------------------------------------------------------------

// The control: with the client write cache on, bytes one rank writes with MPI_File_write_at and no
// MPI_File_sync stay invisible to a rank on the other client after a barrier. If they did not,
// the visibility tests below could not tell a missing MPI_File_sync from a present one.
TEST_F(SharedStorage, ClientCacheHoldsBackUnsyncedWrites) {
    // With more ranks per client the cache wrote back on its own before the other client read
    // (4 ranks under OMPIO: in 5 rounds of 5), so the control runs with one rank per client; the
    // visibility tests run on 4 ranks as well.
    if (world_size() != 2)
        GTEST_SKIP() << "the control needs one rank per client (2 ranks)";
    if (on_cephfs())
        GTEST_SKIP() << "CephFS keeps its clients' caches coherent (the MDS recalls the capabilities to "
                        "cache a file another client writes): there is no client cache that holds "
                        "writes back from the other client to turn on";
    ClientWriteCache cache;
    ASSERT_TRUE(cache.on());
    const std::string path = test_dir() + "/control.bin";
    MPI_File fh = MPI_FILE_NULL;
    ASSERT_EQ(
        MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
        MPI_SUCCESS);
    std::vector<int> zeros(1024, 0), seen(1024, -1);
    if (world_rank() == 0)
        MPI_File_write_at(fh, 0, zeros.data(), 1024, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_sync(fh); // collective: the zeros are visible everywhere
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    // The cache may write back on its own now and then, so a few rounds each write new bytes
    // unsynced; one stale read shows the cache holds writes back.
    int stale = 0;
    for (int round = 1; round <= 5 && stale == 0; ++round) {
        std::vector<int> mine(1024, round);
        if (world_rank() == 0)
            MPI_File_write_at(fh, 0, mine.data(), 1024, MPI_INT, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD); // no sync
        if (world_rank() == 1)
            MPI_File_read_at(fh, 0, seen.data(), 1024, MPI_INT, MPI_STATUS_IGNORE);
        stale = world_rank() == 1 && seen != mine ? 1 : 0;
        MPI_Bcast(&stale, 1, MPI_INT, 1, MPI_COMM_WORLD);
        MPI_File_sync(fh); // collective: this round's bytes visible before the next round
        MPI_Barrier(MPI_COMM_WORLD);
        MPI_File_sync(fh);
    }
    MPI_File_close(&fh);
    EXPECT_EQ(stale, 1) << "rank 1 (client 2) saw rank 0's unsynced write: the client cache is not holding "
                           "writes back, so the visibility tests prove nothing";
}

struct VisibilityCase {
    const char *name;
    H5FD_mpio_xfer_t mode;
    const char *config; // the plugin's configuration (the route of collective transfers)
};

class Visibility : public SharedStorage, public testing::WithParamInterface<VisibilityCase> {};

// Each rank writes its block, the file is flushed, and each rank reads its neighbour's block,
// written through the other client; then the file is closed, reopened, and every block read.
TEST_P(Visibility, OtherClientReadsAfterFlushAndClose) {
    const VisibilityCase c = GetParam();
    ClientWriteCache cache;
    ASSERT_TRUE(cache.on());
    const int rank = world_rank(), size = world_size(), neighbour = (rank + 1) % size;
    Hid dxpl = make_dxpl(c.mode);
    FaplOptions opt;
    opt.config = c.config;
    for (Driver d : {Driver::Mpio, Driver::Mpiio}) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = test_file("visible", d);
        Hid fapl = make_fapl(d, d == Driver::Mpiio ? opt : FaplOptions{});
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            Blocks blocks(file, true);
            ASSERT_TRUE(all_ranks(blocks.dset.valid()));
            // First contents, flushed; then new contents: what the neighbour reads must be the new.
            ASSERT_TRUE(all_ranks(blocks.write(rank, 1, dxpl)));
            ASSERT_GE(H5Fflush(file, H5F_SCOPE_GLOBAL), 0);
            ASSERT_TRUE(all_ranks(blocks.write(rank, 2, dxpl)));
            ASSERT_GE(H5Fflush(file, H5F_SCOPE_GLOBAL), 0);
            MPI_Barrier(MPI_COMM_WORLD);
            Hid independent = make_dxpl(H5FD_MPIO_INDEPENDENT);
            EXPECT_EQ(ranks_reading(blocks.read(neighbour, independent), Blocks::block_values(neighbour, 2)),
                      size)
                << "a rank read its neighbour's block (written through the other client) stale after "
                   "H5Fflush";
            // Third contents, then close: visible to every rank after reopening.
            ASSERT_TRUE(all_ranks(blocks.write(rank, 3, dxpl)));
        }
        Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        Blocks blocks(file, false);
        int complete = 0;
        for (int r = 0; r < size; ++r)
            complete += ranks_reading(blocks.read(r, dxpl), Blocks::block_values(r, 3)) == size ? 1 : 0;
        EXPECT_EQ(complete, size) << "blocks read stale after close and reopen";
    }
    EXPECT_EQ(compare_files(test_file("visible", Driver::Mpio), test_file("visible", Driver::Mpiio)), "");
}

INSTANTIATE_TEST_SUITE_P(Transfers, Visibility,
                         testing::Values(VisibilityCase{"CollectiveAuto", H5FD_MPIO_COLLECTIVE, nullptr},
                                         VisibilityCase{"CollectiveRouteIndependent", H5FD_MPIO_COLLECTIVE,
                                                        "collective_route=independent"},
                                         VisibilityCase{"CollectiveRouteCollective", H5FD_MPIO_COLLECTIVE,
                                                        "collective_route=collective"},
                                         VisibilityCase{"Independent", H5FD_MPIO_INDEPENDENT, nullptr}),
                         [](const testing::TestParamInfo<VisibilityCase> &info) { return info.param.name; });

// ---- faults -----------------------------------------------------------------------------------

// Writes and flushes the "before" contents (salt 1), for a fault to follow.
struct FlushedFile {
    explicit FlushedFile(const std::string &path) : fapl(make_fapl(Driver::Mpiio)) {
        file = Hid(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        if (!all_ranks(file.valid()))
            return;
        blocks = std::make_unique<Blocks>(file, true);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        ok = all_ranks(blocks->dset.valid() && blocks->write(world_rank(), 1, dxpl)) &&
             all_ranks(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0);
        address = H5Dget_offset(blocks->dset);
    }
    Hid fapl, file;
    std::unique_ptr<Blocks> blocks;
    bool ok = false;
    haddr_t address = HADDR_UNDEF; // where the contiguous dataset's bytes lie in the file
};

// Collective. Whether the file holds every rank's block with `salt` at `address`, read by rank 0
// with plain POSIX reads: what a fault left of the flushed bytes, whatever it did to the rest of
// the file (a close that failed on a full volume leaves the superblock's end of file past the
// file's end, which the library refuses to open).
bool raw_blocks_intact(const std::string &path, haddr_t address, int salt) {
    int intact = 0;
    if (world_rank() == 0 && address != HADDR_UNDEF) {
        std::vector<int> want, got(kPerRank * static_cast<std::size_t>(world_size()));
        for (int r = 0; r < world_size(); ++r) {
            const std::vector<int> block = Blocks::block_values(r, salt);
            want.insert(want.end(), block.begin(), block.end());
        }
        std::FILE *f = std::fopen(path.c_str(), "rb");
        if (f != nullptr && std::fseek(f, static_cast<long>(address), SEEK_SET) == 0 &&
            std::fread(got.data(), sizeof(int), got.size(), f) == got.size())
            intact = got == want ? 1 : 0;
        if (f != nullptr)
            std::fclose(f);
    }
    MPI_Bcast(&intact, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return intact == 1;
}

// Every rank's block as written with `salt`, read back through a fresh open (collective).
bool reads_back(const std::string &path, int salt) {
    Hid fapl = make_fapl(Driver::Mpiio);
    Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
    if (!all_ranks(file.valid()))
        return false;
    Blocks blocks(file, false);
    Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
    return ranks_reading(blocks.read(world_rank(), dxpl), Blocks::block_values(world_rank(), salt)) ==
           world_size();
}

// A data server dies while a collective write is under way: the file system keeps one server's
// worth of redundancy (GlusterFS: one of the disperse volume's three fragments; CephFS: one of the
// pools' two replicas, writable with one), so the write completes and the bytes are right, before
// and after the server is back.
TEST_F(SharedStorage, ServerKilledDuringCollectiveWrite) {
    const std::string path = test_dir() + "/server.h5";
    {
        FlushedFile f(path);
        ASSERT_TRUE(f.ok) << error_stack_text();
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        // The last server (GlusterFS's 3, CephFS's OSD 2) goes down a moment after the writes begin.
        ASSERT_TRUE(control(on_cephfs() ? "kill-server-after 0.05 2" : "kill-server-after 0.05 3"));
        bool written = true;
        for (int salt = 2; salt < 8 && written; ++salt)
            written = all_ranks(f.blocks->write(world_rank(), salt, dxpl));
        EXPECT_TRUE(written) << error_stack_text();
        EXPECT_TRUE(all_ranks(H5Fflush(f.file, H5F_SCOPE_GLOBAL) >= 0)) << error_stack_text();
    }
    EXPECT_TRUE(reads_back(path, 7)) << "with one server down";
    ASSERT_TRUE(control("restart-servers"));
    EXPECT_TRUE(reads_back(path, 7)) << "after the server came back";
}

// The file system client under the odd ranks dies: every rank gets an HDF5 error from the next
// collective write (or at the latest from its close), none hangs; what was flushed before reads
// back intact through the other client. Or, where aggregators on the live client moved every
// rank's bytes (the aggregating route: the odd ranks never touch the file system in the write or
// the close), no rank gets an error and every block holds what was written. Never only some ranks
// an error. Last, in a job of its own (CMakeLists.txt): the odd ranks cannot reach the file system
// again.
TEST_F(SharedStorage, ClientKilledUnderSomeRanks) {
    if (world_size() < 2)
        GTEST_SKIP() << "needs a rank on each client (2 ranks or more)";
    const std::string path = test_dir() + "/client.h5";
    bool nothing_failed = false;
    {
        FlushedFile f(path);
        ASSERT_TRUE(f.ok) << error_stack_text();
        ASSERT_TRUE(control("kill-client 2"));
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        QuietErrors quiet;
        const bool written = f.blocks->write(world_rank(), 2, dxpl);
        const bool write_failed_everywhere = all_ranks(!written);
        f.blocks.reset();
        const bool closed = H5Fclose(f.file.release()) >= 0;
        const bool close_failed_everywhere = all_ranks(!closed);
        nothing_failed = all_ranks(written && closed);
        EXPECT_TRUE(write_failed_everywhere || close_failed_everywhere || nothing_failed)
            << "only some ranks got an error (write failed here: " << !written
            << ", close failed here: " << !closed << ")";
    }
    // Read through client 1 by rank 0 (the odd ranks' view of the file system stays dead for the
    // rest of this job: this test runs in a job of its own): the blocks of the ranks whose client
    // died hold what was flushed before; the others hold that or what the failed write put there
    // (a collective write that fails on some ranks may have written on the others), never else.
    ASSERT_TRUE(control("restart-client 2"));
    std::string problem;
    if (world_rank() == 0) {
        const std::vector<unsigned char> got = read_dataset_sec2(path, "blocks");
        const std::size_t block_bytes = kPerRank * sizeof(int);
        if (got.size() != block_bytes * static_cast<std::size_t>(world_size()))
            problem =
                "the dataset cannot be read back through client 1 (" + std::to_string(got.size()) + " bytes)";
        for (int r = 0; r < world_size() && problem.empty(); ++r) {
            const std::vector<unsigned char> block(got.begin() + static_cast<std::ptrdiff_t>(block_bytes * r),
                                                   got.begin() +
                                                       static_cast<std::ptrdiff_t>(block_bytes * (r + 1)));
            const bool flushed = block == as_bytes(Blocks::block_values(r, 1));
            const bool rewritten = block == as_bytes(Blocks::block_values(r, 2));
            if (nothing_failed && !rewritten)
                problem = "rank " + std::to_string(r) + "'s block lacks what the write that succeeded wrote";
            else if (!nothing_failed && !flushed && !(rewritten && r % 2 == 0))
                problem = "rank " + std::to_string(r) + "'s block holds neither what was flushed before" +
                          (r % 2 == 0 ? " nor what the failed write wrote" : " (its client died)");
        }
    }
    EXPECT_TRUE(all_ranks(problem.empty())) << problem;
}

// The volume fills up during a collective write: an HDF5 error on every rank, none hangs; the bytes
// flushed before are intact once there is room again.
TEST_F(SharedStorage, VolumeFullIsAnErrorOnEveryRank) {
    const std::string path = test_dir() + "/full.h5";
    haddr_t address = HADDR_UNDEF;
    {
        FlushedFile f(path);
        ASSERT_TRUE(f.ok) << error_stack_text();
        address = f.address;
        ASSERT_TRUE(control("fill"));
        // A second dataset far larger than the room left.
        const hsize_t per_rank = hsize_t{8} << 20, dims[1] = {per_rank * static_cast<hsize_t>(world_size())};
        Hid space(H5Screate_simple(1, dims, nullptr));
        Hid big(H5Dcreate2(f.file, "big", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        std::vector<int> data(per_rank, 7);
        const hsize_t start[1] = {per_rank * static_cast<hsize_t>(world_rank())}, count[1] = {per_rank};
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
        Hid mspace(H5Screate_simple(1, count, nullptr));
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        QuietErrors quiet;
        const bool written =
            big.valid() && H5Dwrite(big, H5T_NATIVE_INT, mspace, space, dxpl, data.data()) >= 0;
        const std::string text = written ? "" : error_stack_text();
        const bool write_failed_everywhere = all_ranks(!written);
        big.reset();
        f.blocks.reset();
        const bool closed = H5Fclose(f.file.release()) >= 0;
        const bool close_failed_everywhere = all_ranks(!closed);
        EXPECT_TRUE(write_failed_everywhere || close_failed_everywhere)
            << "writing far beyond the room left did not fail on every rank";
        std::string lower = text;
        for (char &ch : lower)
            ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        // What the storage said: a short write (OMPIO: the driver names the likely cause) or
        // ENOSPC, or EIO where the disperse volume could not store a fragment (ROMIO passes it on),
        // or EDQUOT where the testbed fills the file system with a quota (CephFS).
        if (!written) {
            EXPECT_TRUE(lower.find("space") != std::string::npos ||
                        lower.find("input/output error") != std::string::npos ||
                        lower.find("quota") != std::string::npos)
                << "the error does not say what the storage reported: " << text;
        }
    }
    ASSERT_TRUE(control("unfill"));
    EXPECT_TRUE(raw_blocks_intact(path, address, 1)) << "the bytes flushed before the volume filled up";
}

} // namespace
