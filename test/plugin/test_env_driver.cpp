// Selecting the plugin through the environment only: run with HDF5_DRIVER=mpiio (and
// HDF5_DRIVER_CONFIG), the program passes H5P_DEFAULT everywhere and never names a driver.
#include "h5fd_mpiio.h"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace mpiio_test;

namespace {

TEST(EnvironmentDriver, DefaultFaplUsesThePlugin) {
    const char *env = std::getenv("HDF5_DRIVER");
    ASSERT_NE(env, nullptr) << "run with HDF5_DRIVER=mpiio";
    ASSERT_STREQ(env, "mpiio");
    EXPECT_GT(H5FDis_driver_registered_by_name("mpiio"), 0);
    const hid_t by_default = H5Pget_driver(H5P_FILE_ACCESS_DEFAULT);
    Hid fresh(H5Pcreate(H5P_FILE_ACCESS));
    Hid named(H5Pcreate(H5P_FILE_ACCESS));
    ASSERT_GE(H5Pset_driver_by_name(named, "mpiio", nullptr), 0);
    EXPECT_EQ(by_default, H5Pget_driver(named));
    EXPECT_EQ(H5Pget_driver(fresh), H5Pget_driver(named));
}

TEST(EnvironmentDriver, WritesAndReadsWithDefaultProperties) {
    const int rank = world_rank(), size = world_size();
    const std::string path = test_dir() + "/env.h5";
    const hsize_t per_rank = 100;
    std::vector<double> mine(per_rank);
    for (hsize_t i = 0; i < per_rank; ++i)
        mine[i] = rank * 1000.0 + static_cast<double>(i) + 0.25;
    {
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        H5FD_mpiio_stats_t stats{};
        EXPECT_GE(H5Fget_mpiio_stats(file, &stats), 0) << "HDF5_DRIVER=mpiio did not select the plugin";
        // The default FAPL carries no communicator: the driver uses MPI_COMM_WORLD (comm=world).
        Hid fapl(H5Fget_access_plist(file));
        MPI_Comm comm = MPI_COMM_NULL;
        MPI_Info info = MPI_INFO_NULL;
        ASSERT_GE(H5Pget_mpi_params(fapl, &comm, &info), 0);
        int comm_size = 0;
        MPI_Comm_size(comm, &comm_size);
        EXPECT_EQ(comm_size, size);
        MPI_Comm_free(&comm);
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);

        const hsize_t dims[1] = {per_rank * static_cast<hsize_t>(size)};
        Hid fspace(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "data", H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        const hsize_t start[1] = {per_rank * static_cast<hsize_t>(rank)}, count[1] = {per_rank};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
        Hid mspace(H5Screate_simple(1, count, nullptr));
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        EXPECT_GE(H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, mine.data()), 0);
        EXPECT_GE(H5Fget_mpiio_stats(file, &stats), 0);
        EXPECT_GT(stats.collective_ops, 0u);
    }
    Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT));
    ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
    H5FD_mpiio_stats_t stats{};
    EXPECT_GE(H5Fget_mpiio_stats(file, &stats), 0);
    Hid dset(H5Dopen2(file, "data", H5P_DEFAULT));
    std::vector<double> all(per_rank * static_cast<size_t>(size));
    EXPECT_GE(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, all.data()), 0);
    for (int r = 0; r < size; ++r)
        for (hsize_t i = 0; i < per_rank; ++i) {
            ASSERT_EQ(all[r * per_rank + i], r * 1000.0 + static_cast<double>(i) + 0.25) << r << " " << i;
        }
}

} // namespace
