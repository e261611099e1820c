// One host's ranks fail: run by scripts/multihost.sh with --fail-host b, so the ranks on host b see
// an empty read-only directory where the shared test directory is (a node without the file
// system). Opening or creating a file there must end with an HDF5 error on EVERY rank that names
// the file - the ranks on host a included, whose own access works - and nobody may hang; the ranks
// that can reach the directory must then still be able to use the driver among themselves.
#include "common.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <unistd.h>

using namespace mpiio_test;

namespace {

// A hang is a failure: end the job with a message instead of waiting for ctest's timeout.
constexpr unsigned kWatchdogSeconds = 60;

class HostFailure : public testing::Test {
protected:
    void SetUp() override {
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
        arm_watchdog(kWatchdogSeconds);
        dir_ = test_dir();
        sees_dir_ = std::filesystem::exists(dir_);
        int seeing = sees_dir_ ? 1 : 0;
        MPI_Allreduce(MPI_IN_PLACE, &seeing, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        seeing_ranks_ = seeing;
    }
    void TearDown() override { disarm_watchdog(); }

    // The precondition of every test here: some ranks reach the directory, some do not.
    void require_split() {
        ASSERT_GT(seeing_ranks_, 0) << "no rank sees " << dir_;
        ASSERT_LT(seeing_ranks_, world_size())
            << "every rank sees " << dir_ << ": run this program through scripts/multihost.sh --fail-host b";
    }

    // Checks that the call failed on every rank and that this rank's error stack names the file.
    void expect_failed_everywhere_naming(hid_t id, const std::string &stack, const std::string &path) {
        EXPECT_TRUE(all_ranks(id < 0)) << "the call succeeded on some rank";
        if (id >= 0)
            H5Idec_ref(id);
        EXPECT_NE(stack.find(path), std::string::npos)
            << "rank " << world_rank() << (sees_dir_ ? " (sees the directory)" : " (does not)")
            << ": the error stack does not name " << path << ":\n"
            << stack;
    }

    std::string dir_;
    bool sees_dir_ = false;
    int seeing_ranks_ = 0;
};

TEST_F(HostFailure, CreateFailsOnEveryRankNamingTheFile) {
    require_split();
    const std::string path = dir_ + "/create.h5";
    Hid fapl = make_fapl(Driver::Mpiio);
    const hid_t id = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    const std::string stack = error_stack_text();
    expect_failed_everywhere_naming(id, stack, path);
}

TEST_F(HostFailure, OpenOfAFileOnlyOneHostSeesFailsOnEveryRank) {
    require_split();
    const std::string path = dir_ + "/existing.h5";
    if (world_rank() == 0) { // on host a, which sees the directory: a valid file, written alone
        ASSERT_TRUE(sees_dir_);
        Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(file.valid()) << error_stack_text();
    }
    MPI_Barrier(MPI_COMM_WORLD);
    Hid fapl = make_fapl(Driver::Mpiio);
    const hid_t id = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
    const std::string stack = error_stack_text();
    expect_failed_everywhere_naming(id, stack, path);
}

// After the failures, the ranks that reach the directory write a file together through the
// plugin, identical to the built-in driver's.
TEST_F(HostFailure, HealthyHostStillWritesWithTheBuiltInDriversBytes) {
    require_split();
    MPI_Comm healthy = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, sees_dir_ ? 0 : MPI_UNDEFINED, world_rank(), &healthy);
    if (healthy != MPI_COMM_NULL) {
        int rank = 0, size = 0;
        MPI_Comm_rank(healthy, &rank);
        MPI_Comm_size(healthy, &size);
        for (Driver d : kDrivers) {
            FaplOptions opt;
            opt.comm = healthy;
            Hid fapl = make_fapl(d, opt);
            const std::string path = path_in(dir_, "healthy", d);
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid(), healthy)) << error_stack_text();
            const hsize_t dims[1] = {static_cast<hsize_t>(size) * 1000};
            Hid space(H5Screate_simple(1, dims, nullptr));
            Hid dset(
                H5Dcreate2(file, "values", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
            const hsize_t start[1] = {static_cast<hsize_t>(rank) * 1000}, count[1] = {1000};
            H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
            Hid mem(H5Screate_simple(1, count, nullptr));
            std::vector<int> values(1000);
            for (int i = 0; i < 1000; ++i)
                values[static_cast<size_t>(i)] = rank * 1000 + i;
            Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
            EXPECT_TRUE(
                all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, values.data()) >= 0, healthy))
                << error_stack_text();
        }
        MPI_Comm_free(&healthy);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) {
        const auto a = read_dataset_sec2(path_in(dir_, "healthy", Driver::Mpio), "values");
        const auto b = read_dataset_sec2(path_in(dir_, "healthy", Driver::Mpiio), "values");
        EXPECT_FALSE(a.empty());
        EXPECT_EQ(a, b) << "the plugin's file differs from the built-in driver's";
    }
}

} // namespace
