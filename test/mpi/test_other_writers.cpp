// Bytes another writer puts in the file - the application through the file's MPI handle
// (H5Fget_vfd_handle), or a second MPI_File_open of the file - made visible as MPI makes them
// (sync, barrier, sync) and followed by H5Fflush: every later collective read returns them and every
// later collective write keeps the ones it does not overwrite, as the built-in driver does, on
// every route. (The plugin takes the bytes past what the ranks ever wrote for zeros, neither read
// nor read back; a flush is where it learns what others wrote: io/mpi_io.hpp, written_end.)
// 1-4 ranks, under OMPIO and ROMIO.
#include "common.hpp"

#include <cstring>

namespace {

using namespace mpiio_test;

// The dataset, whatever the number of ranks (on shared storage smaller: the built-in driver's
// collective write of every other element makes a call per element there under OMPIO).
const hsize_t kElements = storage_sized<hsize_t>(65536, 1024);

// Rank r's share of [0, kElements): a contiguous block (the last rank takes the rest).
struct Share {
    hsize_t first = 0, count = 0;
};
Share share_of(int r, int s) {
    const hsize_t per = kElements / static_cast<hsize_t>(s);
    const hsize_t first = per * static_cast<hsize_t>(r);
    return {first, r == s - 1 ? kElements - first : per};
}

// Collective over the file's ranks. Rank 0 writes every element (salt 7) behind the library's back:
// through the file's own MPI handle, or through a second MPI_File_open of the file; then MPI's
// rule for other processes to see them: MPI_File_sync, MPI_Barrier, MPI_File_sync (a close of the
// second handle syncs it).
bool write_behind_the_librarys_back(hid_t file, hid_t fapl, haddr_t at, const std::string &path,
                                    bool second_open) {
    std::vector<int> values(kElements);
    for (hsize_t k = 0; k < kElements; ++k)
        values[k] = value_at<int>(k, 7);
    MPI_File fh = MPI_FILE_NULL;
    bool ok = true;
    if (second_open) {
        ok = MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_WRONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS;
    } else {
        void *handle = nullptr;
        ok = H5Fget_vfd_handle(file, fapl, &handle) >= 0 && handle != nullptr;
        if (ok)
            fh = *static_cast<MPI_File *>(handle);
    }
    if (!all_ranks(ok))
        return false;
    if (world_rank() == 0)
        ok = MPI_File_write_at(fh, static_cast<MPI_Offset>(at), values.data(), static_cast<int>(kElements),
                               MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    ok = MPI_File_sync(fh) == MPI_SUCCESS && ok;
    MPI_Barrier(MPI_COMM_WORLD);
    ok = (second_open ? MPI_File_close(&fh) : MPI_File_sync(fh)) == MPI_SUCCESS && ok;
    return all_ranks(ok);
}

// Collective. Reads this rank's share (every element, or every other from element 0) and checks
// each against `want(index)`.
template <class Want> bool read_share(hid_t dset, hid_t dxpl, bool every_other, Want &&want) {
    const Share mine = share_of(world_rank(), world_size());
    const hsize_t dims[1] = {kElements}, start[1] = {mine.first + (every_other ? mine.first % 2 : 0)},
                  stride[1] = {every_other ? 2u : 1u};
    const hsize_t count[1] = {every_other ? (mine.first + mine.count - start[0] + 1) / 2 : mine.count};
    Hid fspace(H5Screate_simple(1, dims, nullptr)), mspace(H5Screate_simple(1, count, nullptr));
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, stride, count, nullptr);
    std::vector<int> got(count[0], -1);
    if (!all_ranks(H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, got.data()) >= 0))
        return false;
    hsize_t wrong = 0, first_wrong = 0;
    for (hsize_t k = 0; k < count[0]; ++k) {
        const hsize_t index = start[0] + k * stride[0];
        if (got[k] != want(index) && wrong++ == 0)
            first_wrong = index;
    }
    EXPECT_EQ(wrong, 0u) << wrong << " of " << count[0] << " elements differ, the first at " << first_wrong;
    return all_ranks(wrong == 0);
}

// Collective. Writes every other element of this rank's share (from element 0), salt 8.
bool write_every_other(hid_t dset, hid_t dxpl) {
    const Share mine = share_of(world_rank(), world_size());
    const hsize_t dims[1] = {kElements}, start[1] = {mine.first + mine.first % 2}, stride[1] = {2};
    const hsize_t count[1] = {(mine.first + mine.count - start[0] + 1) / 2};
    Hid fspace(H5Screate_simple(1, dims, nullptr)), mspace(H5Screate_simple(1, count, nullptr));
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, stride, count, nullptr);
    std::vector<int> values(count[0]);
    for (hsize_t k = 0; k < count[0]; ++k)
        values[k] = value_at<int>(start[0] + 2 * k, 8);
    return all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, values.data()) >= 0);
}

class OtherWriters : public ::testing::TestWithParam<std::tuple<bool, const char *>> {};

// A dataset allocated early (as parallel HDF5 allocates) and never written through the library;
// rank 0's bytes arrive behind its back, then H5Fflush. A collective read returns them all; a
// collective read and rewrite of every other element (a deferred write on the aggregating route
// with write_behind) leaves the elements between as rank 0 wrote them; the file is the built-in
// driver's.
TEST_P(OtherWriters, BytesWrittenBehindTheLibrarysBackAreReadAndKeptAfterAFlush) {
    const auto [second_open, config] = GetParam();
    if (route_forced_by_environment() && std::strstr(config, "collective_route") != nullptr)
        GTEST_SKIP() << "the environment forces another route";
    const std::string dir = test_dir();
    const char *stem = second_open ? "second-open" : "handle";
    for (Driver d : kDrivers) {
        SCOPED_TRACE(std::string(driver_name(d)) + " " + stem + " " + config);
        const std::string path = path_in(dir, stem, d);
        FaplOptions options;
        options.config = config;
        Hid fapl = make_fapl(d, options);
        Hid collective = make_dxpl(H5FD_MPIO_COLLECTIVE);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        const hsize_t dims[1] = {kElements};
        Hid space(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(dset.valid())) << error_stack_text();
        const haddr_t at = H5Dget_offset(dset);
        ASSERT_TRUE(all_ranks(at != HADDR_UNDEF));
        ASSERT_TRUE(write_behind_the_librarys_back(file, fapl, at, path, second_open));
        ASSERT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0)) << error_stack_text();

        EXPECT_TRUE(read_share(dset, collective, false, [](hsize_t k) { return value_at<int>(k, 7); }))
            << "a collective read did not return the bytes written behind the library's back";
        EXPECT_TRUE(read_share(dset, collective, true, [](hsize_t k) { return value_at<int>(k, 7); }));
        EXPECT_TRUE(write_every_other(dset, collective)) << error_stack_text();
        ASSERT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0)) << error_stack_text();
        EXPECT_TRUE(read_share(dset, collective, false, [](hsize_t k) {
            return value_at<int>(k, k % 2 == 0 ? 8 : 7);
        })) << "a collective write of every other element did not keep the elements between";
    }
    EXPECT_EQ(compare_files(path_in(dir, stem, Driver::Mpio), path_in(dir, stem, Driver::Mpiio)), "");
}

// (names: the writer, then the route: default, independent, aggregate, aggregate_write_behind)
std::string case_name(const ::testing::TestParamInfo<std::tuple<bool, const char *>> &info) {
    std::string route = std::get<1>(info.param);
    route = route.empty() ? "default" : route.substr(route.find('=') + 1);
    for (char &c : route)
        if (c == ';' || c == '=')
            c = '_';
    return std::string(std::get<0>(info.param) ? "second_open_" : "handle_") + route;
}

INSTANTIATE_TEST_SUITE_P(EveryRoute, OtherWriters,
                         ::testing::Combine(::testing::Bool(),
                                            ::testing::Values("", "collective_route=independent",
                                                              "collective_route=aggregate",
                                                              "collective_route=aggregate;write_behind=on")),
                         case_name);

} // namespace
