// File lifetime on both drivers: create, close, reopen read-only and read-write, truncating
// create over a bigger file, exclusive create of an existing file, file size after reopen and
// after H5Fflush, and H5Fdelete. The built-in mpio driver is the oracle for every size.
#include "common.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

using namespace mpiio_test;

namespace {

// Writes a 1-D int dataset `name` of `per_rank` elements per rank (rank r at [r*per_rank, ...))
// collectively. Returns false on any failure on this rank.
bool write_blocks(hid_t file, const char *name, hsize_t per_rank, int salt,
                  H5FD_mpio_xfer_t mode = H5FD_MPIO_COLLECTIVE) {
    const int rank = world_rank(), size = world_size();
    const hsize_t dims[1] = {per_rank * static_cast<hsize_t>(size)};
    Hid fspace(H5Screate_simple(1, dims, nullptr));
    Hid dset(H5Dcreate2(file, name, H5T_STD_I32LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    if (!dset.valid())
        return false;
    const hsize_t start[1] = {per_rank * static_cast<hsize_t>(rank)}, count[1] = {per_rank};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mspace(H5Screate_simple(1, count, nullptr));
    const auto values = values_at<int>(hyperslab_indices({dims[0]}, {start[0]}, {1}, {per_rank}), salt);
    Hid dxpl = make_dxpl(mode);
    return H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, values.data()) >= 0;
}

// Reads the whole dataset independently on every rank and compares with the expected contents.
bool read_all_matches(hid_t file, const char *name, hsize_t n, int salt) {
    Hid dset(H5Dopen2(file, name, H5P_DEFAULT));
    if (!dset.valid())
        return false;
    std::vector<int> got(n, -1);
    if (H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got.data()) < 0)
        return false;
    std::vector<int> want(n);
    for (hsize_t k = 0; k < n; ++k)
        want[k] = value_at<int>(k, salt);
    EXPECT_EQ(got, want) << name;
    return got == want;
}

TEST(FileLifecycle, CreateCloseReopenReadOnlyAndReadWrite) {
    const std::string dir = test_dir();
    const hsize_t per = 1000;
    const hsize_t n = per * static_cast<hsize_t>(world_size());
    std::array<long long, 2> reopened_size{}, physical{};
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "lifecycle", d);
        Hid fapl = make_fapl(d);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            unsigned intent = 0;
            EXPECT_GE(H5Fget_intent(file, &intent), 0);
            EXPECT_TRUE(intent & H5F_ACC_RDWR);
            EXPECT_TRUE(all_ranks(write_blocks(file, "first", per, 1)));
            EXPECT_GE(H5Fclose(file.release()), 0);
        }
        EXPECT_TRUE(exists_on_rank0(path));
        {
            Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            unsigned intent = 0;
            EXPECT_GE(H5Fget_intent(file, &intent), 0);
            EXPECT_EQ(intent, H5F_ACC_RDONLY);
            EXPECT_TRUE(all_ranks(read_all_matches(file, "first", n, 1)));
            hsize_t size = 0;
            EXPECT_GE(H5Fget_filesize(file, &size), 0);
            reopened_size[static_cast<size_t>(d)] = static_cast<long long>(size);
            {
                // writing to a read-only file fails (locally, on every rank)
                QuietErrors quiet;
                Hid dset(H5Dopen2(file, "first", H5P_DEFAULT));
                std::vector<int> zeros(n, 0);
                EXPECT_TRUE(all_ranks(
                    H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, zeros.data()) < 0));
                const hsize_t one[1] = {1};
                Hid space(H5Screate_simple(1, one, nullptr));
                EXPECT_TRUE(all_ranks(H5Dcreate2(file, "nope", H5T_NATIVE_INT, space, H5P_DEFAULT,
                                                 H5P_DEFAULT, H5P_DEFAULT) < 0));
            }
            EXPECT_GE(H5Fclose(file.release()), 0);
        }
        {
            Hid file(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            EXPECT_TRUE(all_ranks(read_all_matches(file, "first", n, 1)));
            EXPECT_TRUE(all_ranks(write_blocks(file, "second", per / 2, 2, H5FD_MPIO_INDEPENDENT)));
            EXPECT_GE(H5Fclose(file.release()), 0);
        }
        {
            Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            EXPECT_TRUE(all_ranks(read_all_matches(file, "first", n, 1)));
            EXPECT_TRUE(all_ranks(read_all_matches(file, "second", n / 2, 2)));
        }
        physical[static_cast<size_t>(d)] = physical_size(path);
    }
    EXPECT_EQ(
        compare_files(path_in(dir, "lifecycle", Driver::Mpio), path_in(dir, "lifecycle", Driver::Mpiio)), "");
    EXPECT_EQ(reopened_size[1], reopened_size[0])
        << "H5Fget_filesize after reopen differs from the built-in's";
    EXPECT_EQ(physical[1], physical[0]) << "physical file size differs from the built-in's";
    EXPECT_GT(physical[1], static_cast<long long>(n * sizeof(int)));
}

TEST(FileLifecycle, FileSizeAfterReopenEqualsPhysicalSize) {
    const std::string dir = test_dir();
    std::array<long long, 2> sizes{};
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "size", d);
        Hid fapl = make_fapl(d);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid()));
            EXPECT_TRUE(all_ranks(write_blocks(file, "a", 3000, 0)));
            EXPECT_TRUE(all_ranks(write_blocks(file, "b", 17, 1)));
        }
        for (unsigned flags : {H5F_ACC_RDONLY, H5F_ACC_RDWR}) {
            Hid file(H5Fopen(path.c_str(), flags, fapl));
            ASSERT_TRUE(all_ranks(file.valid()));
            hsize_t size = 0;
            EXPECT_GE(H5Fget_filesize(file, &size), 0);
            EXPECT_TRUE(all_ranks(static_cast<long long>(size) == physical_size(path)))
                << "H5Fget_filesize " << size << " vs " << physical_size(path) << " on disk";
            sizes[static_cast<size_t>(d)] = static_cast<long long>(size);
        }
        // reopening without changes must not change the file
        EXPECT_EQ(physical_size(path), sizes[static_cast<size_t>(d)]);
    }
    EXPECT_EQ(sizes[1], sizes[0]);
    EXPECT_EQ(compare_files(path_in(dir, "size", Driver::Mpio), path_in(dir, "size", Driver::Mpiio)), "");
}

TEST(FileLifecycle, EofAfterFlushMatchesBuiltin) {
    const std::string dir = test_dir();
    std::array<std::vector<long long>, 2> after_flush;
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "flush", d);
        Hid fapl = make_fapl(d);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
        for (int step = 0; step < 3; ++step) {
            const std::string name = "d" + std::to_string(step);
            EXPECT_TRUE(all_ranks(write_blocks(file, name.c_str(), 500 * (step + 1), step)));
            ASSERT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0)) << error_stack_text();
            MPI_Barrier(MPI_COMM_WORLD);
            const long long on_disk = physical_size(path);
            after_flush[static_cast<size_t>(d)].push_back(on_disk);
            if (d == Driver::Mpiio) {
                // the plugin knows its exact size after the flush's truncate
                hsize_t size = 0;
                EXPECT_GE(H5Fget_filesize(file, &size), 0) << error_stack_text();
                EXPECT_EQ(static_cast<long long>(size), on_disk) << "step " << step;
            }
        }
        // everything flushed is readable by another open of the file (sec2, rank 0)
        EXPECT_TRUE(dataset_equals_on_rank0(path, "d2", expected_dataset<int>(1500 * world_size(), 2)));
    }
    EXPECT_EQ(after_flush[1], after_flush[0]) << "file size after H5Fflush differs from the built-in's";
    EXPECT_EQ(compare_files(path_in(dir, "flush", Driver::Mpio), path_in(dir, "flush", Driver::Mpiio)), "");
}

TEST(FileLifecycle, TruncatingCreateShrinksABiggerFile) {
    const std::string dir = test_dir();
    std::array<long long, 2> big{}, small{};
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "trunc", d);
        Hid fapl = make_fapl(d);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid()));
            EXPECT_TRUE(all_ranks(write_blocks(file, "big", 64 * 1024, 3)));
        }
        big[static_cast<size_t>(d)] = physical_size(path);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            EXPECT_EQ(H5Lexists(file, "big", H5P_DEFAULT), 0);
            EXPECT_TRUE(all_ranks(write_blocks(file, "small", 10, 4)));
        }
        small[static_cast<size_t>(d)] = physical_size(path);
        EXPECT_LT(small[static_cast<size_t>(d)], big[static_cast<size_t>(d)] / 10);
        Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
        EXPECT_EQ(H5Lexists(file, "big", H5P_DEFAULT), 0);
        EXPECT_TRUE(all_ranks(read_all_matches(file, "small", 10 * world_size(), 4)));
    }
    EXPECT_EQ(big[1], big[0]);
    EXPECT_EQ(small[1], small[0]);
    EXPECT_EQ(compare_files(path_in(dir, "trunc", Driver::Mpio), path_in(dir, "trunc", Driver::Mpiio)), "");
}

TEST(FileLifecycle, ExclusiveCreateOfExistingFileFailsOnEveryRank) {
    const std::string dir = test_dir();
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "excl", d);
        Hid fapl = make_fapl(d);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid()));
            EXPECT_TRUE(all_ranks(write_blocks(file, "keep", 100, 5)));
        }
        const long long before = physical_size(path);
        {
            QuietErrors quiet;
            Hid again(H5Fcreate(path.c_str(), H5F_ACC_EXCL, H5P_DEFAULT, fapl));
            EXPECT_TRUE(all_ranks(!again.valid())) << "H5F_ACC_EXCL create of an existing file succeeded";
        }
        EXPECT_EQ(physical_size(path), before) << "the failed exclusive create changed the file";
        Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        EXPECT_TRUE(all_ranks(read_all_matches(file, "keep", 100 * world_size(), 5)));
    }
}

TEST(FileLifecycle, DeleteRemovesThePluginFile) {
    const std::string dir = test_dir();
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "delete", d);
        Hid fapl = make_fapl(d);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid()));
            EXPECT_TRUE(all_ranks(write_blocks(file, "x", 10, 0)));
        }
        ASSERT_TRUE(exists_on_rank0(path));
        EXPECT_TRUE(all_ranks(H5Fdelete(path.c_str(), fapl) >= 0)) << error_stack_text();
        EXPECT_FALSE(exists_on_rank0(path)) << "H5Fdelete left " << path;
    }
}

TEST(FileLifecycle, DeleteOfMissingFileFailsOnEveryRank) {
    const std::string dir = test_dir();
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "missing", d);
        Hid fapl = make_fapl(d);
        QuietErrors quiet;
        EXPECT_TRUE(all_ranks(H5Fdelete(path.c_str(), fapl) < 0));
        EXPECT_FALSE(exists_on_rank0(path));
    }
}

TEST(FileLifecycle, DeleteOfNonHdf5FileFailsAndKeepsIt) {
    const std::string dir = test_dir();
    const std::string path = dir + "/not_hdf5.bin";
    if (world_rank() == 0) {
        FILE *f = std::fopen(path.c_str(), "wb");
        EXPECT_NE(f, nullptr);
        if (f != nullptr) {
            std::fputs("this is not an HDF5 file, not even close to one.......", f);
            std::fclose(f);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    Hid fapl = make_fapl(Driver::Mpiio);
    QuietErrors quiet;
    EXPECT_TRUE(all_ranks(H5Fdelete(path.c_str(), fapl) < 0));
    EXPECT_TRUE(exists_on_rank0(path));
}

} // namespace
