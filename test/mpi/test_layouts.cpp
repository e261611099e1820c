// Storage layouts beyond plain contiguous/chunked, on both drivers: compact, external files,
// filtered chunks (deflate, fletcher32: the library's filtered collective path with chunk
// redistribution over vector I/O) and a chunked dataset grown with H5Dset_extent.
#include "common.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace mpiio_test;

namespace {

// Writes this rank's row block [row0 + b.start, ...) of a 2-D int dataset of `cols` columns.
bool write_row_block(hid_t dset, hsize_t row0, hsize_t cols, H5FD_mpio_xfer_t mode, int salt,
                     H5D_selection_io_mode_t selection = H5D_SELECTION_IO_MODE_DEFAULT) {
    Hid fspace(H5Dget_space(dset));
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(fspace, dims, nullptr);
    const Block b = row_block(world_rank());
    const hsize_t start[2] = {row0 + b.start, 0}, count[2] = {b.count, cols};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mspace(H5Screate_simple(2, count, nullptr));
    const auto values =
        values_at<int>(hyperslab_indices({dims[0], dims[1]}, {start[0], 0}, {1, 1}, {b.count, cols}), salt);
    Hid dxpl = make_dxpl(mode, selection);
    const bool ok = H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, values.data()) >= 0;
    EXPECT_TRUE(ok) << error_stack_text();
    return ok;
}

bool read_row_block(hid_t dset, hsize_t row0, hsize_t cols, H5FD_mpio_xfer_t mode, int salt) {
    Hid fspace(H5Dget_space(dset));
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(fspace, dims, nullptr);
    const Block b = row_block(world_rank());
    const hsize_t start[2] = {row0 + b.start, 0}, count[2] = {b.count, cols};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mspace(H5Screate_simple(2, count, nullptr));
    const auto want =
        values_at<int>(hyperslab_indices({dims[0], dims[1]}, {start[0], 0}, {1, 1}, {b.count, cols}), salt);
    std::vector<int> got(want.size(), -1);
    Hid dxpl = make_dxpl(mode);
    if (H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, got.data()) < 0) {
        ADD_FAILURE() << "H5Dread: " << error_stack_text();
        return false;
    }
    EXPECT_EQ(got, want);
    return got == want;
}

TEST(Layouts, CompactDataset) {
    const std::string dir = test_dir();
    const hsize_t dims[2] = {6, 7};
    const auto values = values_at<int>(hyperslab_indices({6, 7}, {0, 0}, {1, 1}, {6, 7}), 1);
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "compact", d);
        Hid fapl = make_fapl(d);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid()));
            Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
            H5Pset_layout(dcpl, H5D_COMPACT);
            Hid space(H5Screate_simple(2, dims, nullptr));
            Hid dset(H5Dcreate2(file, "compact", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
            ASSERT_TRUE(all_ranks(dset.valid()));
            EXPECT_EQ(H5Pget_layout(Hid(H5Dget_create_plist(dset))), H5D_COMPACT);
            // compact data lives in the object header: every rank writes the same, whole data
            for (H5FD_mpio_xfer_t mode : {H5FD_MPIO_INDEPENDENT, H5FD_MPIO_COLLECTIVE}) {
                Hid dxpl = make_dxpl(mode);
                EXPECT_TRUE(
                    all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, values.data()) >= 0))
                    << error_stack_text();
            }
        }
        Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
        Hid dset(H5Dopen2(file, "compact", H5P_DEFAULT));
        std::vector<int> back(values.size(), -1);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, back.data()) >= 0));
        EXPECT_EQ(back, values);
    }
    EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "compact", Driver::Mpiio), "compact",
                                        expected_dataset<int>(42, 1)));
    EXPECT_EQ(compare_files(path_in(dir, "compact", Driver::Mpio), path_in(dir, "compact", Driver::Mpiio)),
              "");
}

std::vector<char> file_bytes(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(Layouts, ExternalStorage) {
    const std::string dir = test_dir();
    const hsize_t rows = total_rows(world_size()), cols = 6;
    const hsize_t bytes = rows * cols * sizeof(int);
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "external", d);
        const std::string ext_a = dir + "/external." + driver_name(d) + ".a.raw";
        const std::string ext_b = dir + "/external." + driver_name(d) + ".b.raw";
        Hid fapl = make_fapl(d);
        for (H5FD_mpio_xfer_t mode : {H5FD_MPIO_COLLECTIVE, H5FD_MPIO_INDEPENDENT}) {
            const bool first = mode == H5FD_MPIO_COLLECTIVE;
            Hid file(first ? H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                           : H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            Hid dset;
            if (first) {
                Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
                // the data is split over two external files, the first with a header of 16 bytes
                ASSERT_GE(H5Pset_external(dcpl, ext_a.c_str(), 16, static_cast<hsize_t>(bytes / 2)), 0);
                ASSERT_GE(H5Pset_external(dcpl, ext_b.c_str(), 0, H5F_UNLIMITED), 0);
                const hsize_t dims[2] = {rows, cols};
                Hid space(H5Screate_simple(2, dims, nullptr));
                dset =
                    Hid(H5Dcreate2(file, "external", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
                // the library creates the external files lazily; make sure they exist for all
                MPI_Barrier(MPI_COMM_WORLD);
            } else {
                dset = Hid(H5Dopen2(file, "external", H5P_DEFAULT));
            }
            ASSERT_TRUE(all_ranks(dset.valid())) << error_stack_text();
            // collective is requested first: the library falls back to independent for EFL
            const int salt = first ? 1 : 2;
            EXPECT_TRUE(all_ranks(write_row_block(dset, 0, cols, mode, salt)));
            MPI_Barrier(MPI_COMM_WORLD);
            EXPECT_TRUE(all_ranks(read_row_block(dset, 0, cols, mode, salt)));
        }
        EXPECT_TRUE(dataset_equals_on_rank0(path, "external", expected_dataset<int>(rows * cols, 2)));
    }
    EXPECT_EQ(compare_files(path_in(dir, "external", Driver::Mpio), path_in(dir, "external", Driver::Mpiio)),
              "");
    if (world_rank() == 0) {
        for (const char *part : {".a.raw", ".b.raw"}) {
            const auto a = file_bytes(dir + "/external.mpio" + part),
                       b = file_bytes(dir + "/external.mpiio" + part);
            EXPECT_FALSE(b.empty()) << part;
            EXPECT_TRUE(a == b) << "external file " << part << " differs from the built-in's";
        }
    }
}

struct FilterCase {
    const char *name;
    H5Z_filter_t filter;
};

class FilteredChunks : public testing::TestWithParam<FilterCase> {};

TEST_P(FilteredChunks, CollectiveWriteMatchesBuiltin) {
    const FilterCase fc = GetParam();
    if (H5Zfilter_avail(fc.filter) <= 0)
        GTEST_SKIP() << fc.name << " is not available in this HDF5 build";
    const std::string dir = test_dir();
    const hsize_t rows = total_rows(world_size()), cols = 10;
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "filtered", d);
        Hid fapl = make_fapl(d);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid()));
            Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
            set_chunk(dcpl, {4, 5}, {rows, cols}); // rank blocks straddle chunks: shared chunks
            if (fc.filter == H5Z_FILTER_DEFLATE) {
                H5Pset_shuffle(dcpl);
                H5Pset_deflate(dcpl, 6);
            } else {
                H5Pset_fletcher32(dcpl);
            }
            const hsize_t dims[2] = {rows, cols};
            Hid space(H5Screate_simple(2, dims, nullptr));
            Hid dset(H5Dcreate2(file, "filtered", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
            ASSERT_TRUE(all_ranks(dset.valid())) << error_stack_text();
            // first write, then an overwrite of every chunk (re-filtering, reallocation)
            EXPECT_TRUE(all_ranks(write_row_block(dset, 0, cols, H5FD_MPIO_COLLECTIVE, 1)));
            EXPECT_TRUE(all_ranks(write_row_block(dset, 0, cols, H5FD_MPIO_COLLECTIVE, 2)));
            EXPECT_TRUE(all_ranks(read_row_block(dset, 0, cols, H5FD_MPIO_COLLECTIVE, 2)));
            if (d == Driver::Mpiio) {
                EXPECT_GT(stats_of(file).collective_ops, 0u);
            }
        }
        Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
        Hid dset(H5Dopen2(file, "filtered", H5P_DEFAULT));
        EXPECT_TRUE(all_ranks(read_row_block(dset, 0, cols, H5FD_MPIO_COLLECTIVE, 2)));
        EXPECT_TRUE(all_ranks(read_row_block(dset, 0, cols, H5FD_MPIO_INDEPENDENT, 2)));
        EXPECT_GT(H5Dget_storage_size(dset), 0u);
    }
    EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "filtered", Driver::Mpiio), "filtered",
                                        expected_dataset<int>(rows * cols, 2)));
    EXPECT_EQ(compare_files(path_in(dir, "filtered", Driver::Mpio), path_in(dir, "filtered", Driver::Mpiio)),
              "");
    EXPECT_EQ(physical_size(path_in(dir, "filtered", Driver::Mpio)),
              physical_size(path_in(dir, "filtered", Driver::Mpiio)));
}

INSTANTIATE_TEST_SUITE_P(Filters, FilteredChunks,
                         testing::Values(FilterCase{"deflate", H5Z_FILTER_DEFLATE},
                                         FilterCase{"fletcher32", H5Z_FILTER_FLETCHER32}),
                         [](const testing::TestParamInfo<FilterCase> &info) {
                             return std::string(info.param.name);
                         });

class ExtendChunked : public testing::TestWithParam<H5FD_mpio_xfer_t> {};

TEST_P(ExtendChunked, SetExtentGrowsDataset) {
    const H5FD_mpio_xfer_t mode = GetParam();
    const std::string dir = test_dir();
    const hsize_t rows = total_rows(world_size()), cols = 4;
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "extend", d);
        Hid fapl = make_fapl(d);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid()));
            Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
            const hsize_t chunk[2] = {3, 4};
            H5Pset_chunk(dcpl, 2, chunk);
            const hsize_t dims[2] = {rows, cols}, maxdims[2] = {H5S_UNLIMITED, cols};
            Hid space(H5Screate_simple(2, dims, maxdims));
            Hid dset(H5Dcreate2(file, "grow", H5T_STD_I32LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
            ASSERT_TRUE(all_ranks(dset.valid()));
            EXPECT_TRUE(all_ranks(write_row_block(dset, 0, cols, mode, 0)));
            // grow to three times the rows, write the third part, leave the middle unwritten
            const hsize_t bigger[2] = {3 * rows, cols};
            ASSERT_TRUE(all_ranks(H5Dset_extent(dset, bigger) >= 0)) << error_stack_text();
            EXPECT_TRUE(all_ranks(write_row_block(dset, 2 * rows, cols, mode, 0)));
            EXPECT_TRUE(all_ranks(read_row_block(dset, 0, cols, mode, 0)));
            EXPECT_TRUE(all_ranks(read_row_block(dset, 2 * rows, cols, mode, 0)));
        }
        Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
        Hid dset(H5Dopen2(file, "grow", H5P_DEFAULT));
        Hid space(H5Dget_space(dset));
        hsize_t dims[2] = {0, 0};
        H5Sget_simple_extent_dims(space, dims, nullptr);
        EXPECT_EQ(dims[0], 3 * rows);
        EXPECT_EQ(dims[1], cols);
    }
    std::vector<int> whole(3 * rows * cols, 0);
    for (hsize_t i = 0; i < rows * cols; ++i) {
        whole[i] = value_at<int>(i);
        whole[2 * rows * cols + i] = value_at<int>(2 * rows * cols + i);
    }
    EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "extend", Driver::Mpiio), "grow", as_bytes(whole)));
    EXPECT_EQ(compare_files(path_in(dir, "extend", Driver::Mpio), path_in(dir, "extend", Driver::Mpiio)), "");
}

INSTANTIATE_TEST_SUITE_P(Modes, ExtendChunked, testing::Values(H5FD_MPIO_COLLECTIVE, H5FD_MPIO_INDEPENDENT),
                         [](const testing::TestParamInfo<H5FD_mpio_xfer_t> &info) {
                             return std::string(info.param == H5FD_MPIO_COLLECTIVE ? "Collective"
                                                                                   : "Independent");
                         });

} // namespace
