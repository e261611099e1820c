// Properties of an open plugin file: MPI atomicity (H5Fset/get_mpi_atomicity reach the driver's
// MPI_File directly), the FAPL rebuilt by H5Fget_access_plist (communicator and hints), and the
// config keys that must not change file contents (sync, hints).
#include "common.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace mpiio_test;

namespace {

// Each rank writes its row block of a 2-D int dataset with `mode`, and reads it back.
bool write_rows(hid_t file, const char *name, H5FD_mpio_xfer_t mode, int salt) {
    const int rank = world_rank(), size = world_size();
    const hsize_t dims[2] = {total_rows(size), 16};
    Hid fspace(H5Screate_simple(2, dims, nullptr));
    Hid dset(H5Dcreate2(file, name, H5T_STD_I32LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (!dset.valid())
        return false;
    const Block b = row_block(rank);
    const hsize_t start[2] = {b.start, 0}, count[2] = {b.count, dims[1]};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mspace(H5Screate_simple(2, count, nullptr));
    const auto idx = hyperslab_indices({dims[0], dims[1]}, {start[0], 0}, {1, 1}, {count[0], count[1]});
    const auto values = values_at<int>(idx, salt);
    Hid dxpl = make_dxpl(mode);
    if (H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, values.data()) < 0)
        return false;
    std::vector<int> back(values.size(), 0);
    if (H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, back.data()) < 0)
        return false;
    EXPECT_EQ(back, values);
    return back == values;
}

TEST(FileProperties, AtomicityCanBeSetAndWritesStillMatch) {
    const std::string dir = test_dir();
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "atomic", d);
        Hid fapl = make_fapl(d);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
        bool flag = true;
        EXPECT_GE(H5Fget_mpi_atomicity(file, &flag), 0);
        EXPECT_FALSE(flag) << "atomicity is on by default";
        ASSERT_TRUE(all_ranks(H5Fset_mpi_atomicity(file, true) >= 0)) << error_stack_text();
        flag = false;
        EXPECT_GE(H5Fget_mpi_atomicity(file, &flag), 0);
        EXPECT_TRUE(flag);
        if (d == Driver::Mpiio) {
            // the flag is really set on the driver's MPI_File
            void *handle = nullptr;
            ASSERT_GE(H5Fget_vfd_handle(file, H5P_DEFAULT, &handle), 0);
            int atomic = 0;
            EXPECT_EQ(MPI_File_get_atomicity(*static_cast<MPI_File *>(handle), &atomic), MPI_SUCCESS);
            EXPECT_EQ(atomic, 1);
        }
        EXPECT_TRUE(all_ranks(write_rows(file, "coll", H5FD_MPIO_COLLECTIVE, 1)));
        EXPECT_TRUE(all_ranks(write_rows(file, "indep", H5FD_MPIO_INDEPENDENT, 2)));
        ASSERT_TRUE(all_ranks(H5Fset_mpi_atomicity(file, false) >= 0));
        EXPECT_GE(H5Fget_mpi_atomicity(file, &flag), 0);
        EXPECT_FALSE(flag);
        EXPECT_TRUE(all_ranks(write_rows(file, "after", H5FD_MPIO_COLLECTIVE, 3)));
    }
    EXPECT_EQ(compare_files(path_in(dir, "atomic", Driver::Mpio), path_in(dir, "atomic", Driver::Mpiio)), "");
    const hsize_t n = total_rows(world_size()) * 16;
    EXPECT_TRUE(
        dataset_equals_on_rank0(path_in(dir, "atomic", Driver::Mpiio), "coll", expected_dataset<int>(n, 1)));
    EXPECT_TRUE(
        dataset_equals_on_rank0(path_in(dir, "atomic", Driver::Mpiio), "indep", expected_dataset<int>(n, 2)));
    EXPECT_TRUE(
        dataset_equals_on_rank0(path_in(dir, "atomic", Driver::Mpiio), "after", expected_dataset<int>(n, 3)));
}

std::string info_value(MPI_Info info, const char *key) {
    char value[MPI_MAX_INFO_VAL + 1] = {};
    int flag = 0;
    if (info == MPI_INFO_NULL || MPI_Info_get(info, key, MPI_MAX_INFO_VAL, value, &flag) != MPI_SUCCESS ||
        !flag)
        return "<absent>";
    return value;
}

TEST(FileProperties, AccessPlistCarriesCommunicatorAndHints) {
    const std::string path = test_dir() + "/plist.h5";
    MPI_Info fapl_info = MPI_INFO_NULL;
    MPI_Info_create(&fapl_info);
    MPI_Info_set(fapl_info, "mpiio_test_fapl_hint", "from-fapl");
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    ASSERT_GE(H5Pset_fapl_mpiio(fapl, MPI_COMM_WORLD, fapl_info, "hint.mpiio_test_config_hint=from-config"),
              0);
    MPI_Info_free(&fapl_info);

    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
    Hid access(H5Fget_access_plist(file));
    ASSERT_TRUE(access.valid()) << error_stack_text();
    EXPECT_EQ(H5Pget_driver(access), H5Pget_driver(fapl));
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    ASSERT_GE(H5Pget_mpi_params(access, &comm, &info), 0);
    EXPECT_NE(info, MPI_INFO_NULL);
    EXPECT_NE(comm, MPI_COMM_NULL);
    if (comm != MPI_COMM_NULL) {
        int cmp = MPI_UNEQUAL;
        MPI_Comm_compare(comm, MPI_COMM_WORLD, &cmp);
        EXPECT_EQ(cmp, MPI_CONGRUENT);
        MPI_Comm_free(&comm);
    }
    EXPECT_EQ(info_value(info, "mpiio_test_fapl_hint"), "from-fapl");
    EXPECT_EQ(info_value(info, "mpiio_test_config_hint"), "from-config");
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);

    // the rebuilt FAPL opens the file again (as external links do)
    EXPECT_GE(H5Fclose(file.release()), 0);
    Hid again(H5Fopen(path.c_str(), H5F_ACC_RDONLY, access));
    EXPECT_TRUE(all_ranks(again.valid())) << error_stack_text();
}

// A hint the application gives reaches the MPI-IO layer: its MPI_File reports the value. Open MPI
// 5's romio341 drops the hints given to MPI_File_open (it reports its default there); the driver
// sets them again after the open on that layer.
TEST(FileProperties, HintsReachTheMpiIoLayer) {
    const std::string path = test_dir() + "/hints.h5";
    FaplOptions opt;
    opt.config = "hint.cb_buffer_size=65536";
    Hid fapl = make_fapl(Driver::Mpiio, opt);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
    void *handle = nullptr;
    ASSERT_GE(H5Fget_vfd_handle(file, H5P_DEFAULT, &handle), 0);
    MPI_Info used = MPI_INFO_NULL;
    ASSERT_EQ(MPI_File_get_info(*static_cast<MPI_File *>(handle), &used), MPI_SUCCESS);
    EXPECT_EQ(info_value(used, "cb_buffer_size"), "65536")
        << "layer " << (std::getenv("MPIIO_TEST_IO") ? std::getenv("MPIIO_TEST_IO") : "?");
    MPI_Info_free(&used);
}

TEST(FileProperties, AccessPlistOfFileOpenedWithoutInfo) {
    const std::string path = test_dir() + "/plist_noinfo.h5";
    Hid fapl = make_fapl(Driver::Mpiio);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid()));
    Hid access(H5Fget_access_plist(file));
    ASSERT_TRUE(access.valid()) << error_stack_text();
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    ASSERT_GE(H5Pget_mpi_params(access, &comm, &info), 0);
    EXPECT_NE(info, MPI_INFO_NULL) << "H5Fget_access_plist must carry an MPI info";
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
}

// Config keys that only change how the driver talks to MPI-IO must not change the file.
TEST(FileProperties, SyncPoliciesAndHintsWriteTheSameFile) {
    const std::string dir = test_dir();
    const std::vector<std::string> configs = {"sync=auto", "sync=flush", "sync=never",
                                              "hint.romio_cb_write=enable;hint.cb_buffer_size=65536",
                                              "hint.romio_cb_write=disable;hint.romio_ds_write=disable"};
    std::vector<std::string> paths;
    paths.push_back(path_in(dir, "sync", Driver::Mpio));
    for (size_t i = 0; i < configs.size() + 1; ++i) {
        const Driver d = i == 0 ? Driver::Mpio : Driver::Mpiio;
        const std::string path = i == 0 ? paths[0] : dir + "/sync.config" + std::to_string(i) + ".h5";
        if (i > 0)
            paths.push_back(path);
        SCOPED_TRACE(i == 0 ? "built-in" : configs[i - 1]);
        FaplOptions opt;
        opt.config = i == 0 ? nullptr : configs[i - 1].c_str();
        Hid fapl = make_fapl(d, opt);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        EXPECT_TRUE(all_ranks(write_rows(file, "coll", H5FD_MPIO_COLLECTIVE, 1)));
        EXPECT_GE(H5Fflush(file, H5F_SCOPE_GLOBAL), 0);
        EXPECT_TRUE(all_ranks(write_rows(file, "indep", H5FD_MPIO_INDEPENDENT, 2)));
        if (d == Driver::Mpiio) {
            const auto st = stats_of(file);
            if (configs[i - 1] == "sync=never") {
                EXPECT_EQ(st.syncs, 0u);
            } else if (configs[i - 1] == "sync=flush") {
                EXPECT_GE(st.syncs, 1u);
            }
        }
    }
    for (size_t i = 1; i < paths.size(); ++i) {
        EXPECT_EQ(compare_files(paths[0], paths[i]), "") << configs[i - 1];
    }
}

} // namespace
