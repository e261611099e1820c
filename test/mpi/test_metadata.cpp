// Metadata-heavy workloads on both drivers, with and without collective metadata reads/writes
// (H5Pset_all_coll_metadata_ops + H5Pset_coll_metadata_write) and with the earliest and latest
// file formats: many groups, compact and dense attributes, small datasets, renames and deletes,
// then a full read-back through a reopened file.
#include "common.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

using namespace mpiio_test;

namespace {

constexpr int kGroups = 12;
constexpr int kDenseAttrs = 20;

std::string group_name(int g) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "g%02d", g);
    return buf;
}

bool write_int_attr(hid_t obj, const char *name, int value) {
    Hid space(H5Screate(H5S_SCALAR));
    Hid attr(H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT));
    return attr.valid() && H5Awrite(attr, H5T_NATIVE_INT, &value) >= 0;
}

int read_int_attr(hid_t obj, const char *name) {
    int v = -1;
    Hid attr(H5Aopen(obj, name, H5P_DEFAULT));
    if (!attr.valid() || H5Aread(attr, H5T_NATIVE_INT, &v) < 0)
        return -1;
    return v;
}

// Every rank builds the same objects (metadata operations are collective in parallel HDF5); the
// raw data of each dataset is split over the ranks.
bool build(hid_t file) {
    bool ok = true;
    const int rank = world_rank(), size = world_size();
    Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
    for (int g = 0; g < kGroups; ++g) {
        Hid grp(H5Gcreate2(file, group_name(g).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ok &= grp.valid();
        ok &= write_int_attr(grp, "index", g);
        {
            const hsize_t four[1] = {4};
            Hid space(H5Screate_simple(1, four, nullptr));
            Hid attr(H5Acreate2(grp, "scale", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT));
            const double v[4] = {g + 0.5, g + 1.5, g + 2.5, g + 3.5};
            ok &= H5Awrite(attr, H5T_NATIVE_DOUBLE, v) >= 0;
        }
        {
            Hid type(H5Tcopy(H5T_C_S1));
            H5Tset_size(type, 16);
            Hid space(H5Screate(H5S_SCALAR));
            Hid attr(H5Acreate2(grp, "label", type, space, H5P_DEFAULT, H5P_DEFAULT));
            char text[16] = {};
            std::snprintf(text, sizeof text, "group-%d", g);
            ok &= H5Awrite(attr, type, text) >= 0;
        }
        Hid sub(H5Gcreate2(grp, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ok &= sub.valid();
        // one element per rank, each rank writes its own
        const hsize_t n[1] = {static_cast<hsize_t>(size)};
        Hid fspace(H5Screate_simple(1, n, nullptr));
        Hid dset(H5Dcreate2(sub, "per_rank", H5T_STD_I32LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        const hsize_t start[1] = {static_cast<hsize_t>(rank)}, one[1] = {1};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, one, nullptr);
        Hid mspace(H5Screate_simple(1, one, nullptr));
        const int v = 1000 * g + rank;
        ok &= H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, &v) >= 0;
        // a chunked dataset with many chunks (chunk index metadata), rank blocks of rows
        const hsize_t rows = total_rows(size), dims[2] = {rows, 4};
        Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
        const hsize_t chunk[2] = {1, 2};
        H5Pset_chunk(dcpl, 2, chunk);
        Hid cspace(H5Screate_simple(2, dims, nullptr));
        Hid cdset(H5Dcreate2(grp, "chunks", H5T_STD_I32LE, cspace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
        const Block b = row_block(rank);
        const hsize_t cstart[2] = {b.start, 0}, ccount[2] = {b.count, 4};
        H5Sselect_hyperslab(cspace, H5S_SELECT_SET, cstart, nullptr, ccount, nullptr);
        Hid cm(H5Screate_simple(2, ccount, nullptr));
        const auto values =
            values_at<int>(hyperslab_indices({rows, 4}, {b.start, 0}, {1, 1}, {b.count, 4}), g);
        ok &= H5Dwrite(cdset, H5T_NATIVE_INT, cm, cspace, dxpl, values.data()) >= 0;
    }
    // dense attribute storage (more than the compact limit of 8)
    Hid dense(H5Gcreate2(file, "dense", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    for (int a = 0; a < kDenseAttrs; ++a)
        ok &= write_int_attr(dense, ("attr" + std::to_string(a)).c_str(), a * a);
    return ok;
}

// Renames, deletes and additions on a reopened file.
bool modify(hid_t file) {
    bool ok = true;
    ok &= H5Lmove(file, group_name(0).c_str(), file, "renamed", H5P_DEFAULT, H5P_DEFAULT) >= 0;
    ok &= H5Ldelete(file, (group_name(1) + "/chunks").c_str(), H5P_DEFAULT) >= 0;
    Hid dense(H5Gopen2(file, "dense", H5P_DEFAULT));
    ok &= H5Adelete(dense, "attr3") >= 0;
    ok &= write_int_attr(dense, "late", 77);
    return ok;
}

herr_t count_link(hid_t, const char *, const H5L_info2_t *, void *data) {
    ++*static_cast<int *>(data);
    return 0;
}

bool verify(hid_t file) {
    const int size = world_size();
    int links = 0;
    EXPECT_GE(H5Literate2(file, H5_INDEX_NAME, H5_ITER_INC, nullptr, count_link, &links), 0);
    EXPECT_EQ(links, kGroups + 1);
    bool ok = links == kGroups + 1;
    Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
    for (int g = 0; g < kGroups; ++g) {
        const std::string name = g == 0 ? "renamed" : group_name(g);
        Hid grp(H5Gopen2(file, name.c_str(), H5P_DEFAULT));
        if (!grp.valid()) {
            ADD_FAILURE() << "cannot open " << name;
            return false;
        }
        H5O_info2_t info{};
        H5Oget_info3(grp, &info, H5O_INFO_NUM_ATTRS);
        EXPECT_EQ(info.num_attrs, 3u) << name;
        EXPECT_EQ(read_int_attr(grp, "index"), g) << name;
        {
            Hid attr(H5Aopen(grp, "scale", H5P_DEFAULT));
            double v[4] = {};
            H5Aread(attr, H5T_NATIVE_DOUBLE, v);
            EXPECT_EQ(v[0], g + 0.5);
            EXPECT_EQ(v[3], g + 3.5);
        }
        {
            Hid attr(H5Aopen(grp, "label", H5P_DEFAULT));
            Hid type(H5Aget_type(attr));
            char text[17] = {};
            H5Aread(attr, type, text);
            EXPECT_EQ(std::string(text), "group-" + std::to_string(g));
        }
        Hid dset(H5Dopen2(grp, "sub/per_rank", H5P_DEFAULT));
        std::vector<int> per(static_cast<size_t>(size), -1);
        EXPECT_GE(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, per.data()), 0);
        for (int r = 0; r < size; ++r)
            ok &= per[static_cast<size_t>(r)] == 1000 * g + r;
        EXPECT_EQ(H5Lexists(grp, "chunks", H5P_DEFAULT), g == 1 ? 0 : 1) << name;
        if (g != 1) {
            Hid cdset(H5Dopen2(grp, "chunks", H5P_DEFAULT));
            const hsize_t n = total_rows(size) * 4;
            std::vector<int> all(n, -1);
            EXPECT_GE(H5Dread(cdset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, all.data()), 0);
            for (hsize_t k = 0; k < n; ++k)
                ok &= all[k] == value_at<int>(k, g);
        }
    }
    Hid dense(H5Gopen2(file, "dense", H5P_DEFAULT));
    H5O_info2_t info{};
    H5Oget_info3(dense, &info, H5O_INFO_NUM_ATTRS);
    EXPECT_EQ(info.num_attrs, static_cast<hsize_t>(kDenseAttrs));
    for (int a = 0; a < kDenseAttrs; ++a)
        if (a != 3)
            ok &= read_int_attr(dense, ("attr" + std::to_string(a)).c_str()) == a * a;
    EXPECT_EQ(H5Aexists(dense, "attr3"), 0);
    EXPECT_EQ(read_int_attr(dense, "late"), 77);
    EXPECT_TRUE(ok);
    return ok;
}

using MetaParam = std::tuple<bool, H5F_libver_t>; // collective metadata, lowest format version

class Metadata : public testing::TestWithParam<MetaParam> {};

TEST_P(Metadata, ManyObjectsMatchBuiltin) {
    const auto [coll, libver] = GetParam();
    const std::string dir = test_dir();
    std::array<long long, 2> sizes{};
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "meta", d);
        FaplOptions opt;
        opt.coll_metadata = coll;
        Hid fapl = make_fapl(d, opt);
        H5Pset_libver_bounds(fapl, libver, H5F_LIBVER_LATEST);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            EXPECT_TRUE(all_ranks(build(file))) << error_stack_text();
        }
        {
            Hid file(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            EXPECT_TRUE(all_ranks(modify(file))) << error_stack_text();
        }
        Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        EXPECT_TRUE(all_ranks(verify(file)));
        file.reset();
        sizes[static_cast<size_t>(d)] = physical_size(path);
    }
    EXPECT_EQ(sizes[1], sizes[0]) << "file sizes differ from the built-in's";
    EXPECT_EQ(compare_files(path_in(dir, "meta", Driver::Mpio), path_in(dir, "meta", Driver::Mpiio)), "");
}

INSTANTIATE_TEST_SUITE_P(
    Modes, Metadata, testing::Combine(testing::Bool(), testing::Values(H5F_LIBVER_EARLIEST, H5F_LIBVER_V110)),
    [](const testing::TestParamInfo<MetaParam> &info) {
        return std::string(std::get<0>(info.param) ? "CollectiveMetadata" : "IndependentMetadata") +
               (std::get<1>(info.param) == H5F_LIBVER_EARLIEST ? "Earliest" : "V110");
    });

} // namespace
