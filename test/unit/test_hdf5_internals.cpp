// hdf5_internals: every HDF5-private symbol and behaviour the driver relies on, checked against the
// running library. A new HDF5 release that renames a getter, a property or the version string, or
// changes what the transfer state reports, fails here with a message saying which item broke
// (see driver/hdf5/hdf5_internals.hpp for the source references).
#include "hdf5/hdf5_internals.hpp"

#include "common/error.hpp"
#include "h5fd_mpiio.h"
#include "random_selection.hpp"
#include "selection/space_info.hpp"
#include "test_support.hpp"

#include <H5FDmpi.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

namespace {

using namespace mpiio_test;
namespace internals = mpiio::hdf5_internals;

// Item 2: the version string is found and parsed, and it is a release the driver accepts.
TEST(Hdf5Internals, VersionStringIsReadAndAccepted) {
    unsigned maj = 0, min = 0, rel = 0;
    ASSERT_GE(H5get_libversion(&maj, &min, &rel), 0);
    const std::string expected = std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
    EXPECT_EQ(internals::library_version(), expected) << "H5_lib_vers_info_g no longer reads as the version";
    const auto accepted = internals::accepted_versions();
    EXPECT_NE(std::find(accepted.begin(), accepted.end(), expected), accepted.end())
        << "HDF5 " << expected << " is not among the releases the driver accepts";
}

// Item 2: h5plugin.json advertises exactly the releases the driver accepts, in the same order
// (FindParallelHDF5.cmake warns at configure time from the JSON list).
TEST(Hdf5Internals, PluginJsonListsTheAcceptedVersions) {
    const char *path = std::getenv("MPIIO_TEST_PLUGIN_JSON");
    ASSERT_NE(path, nullptr) << "MPIIO_TEST_PLUGIN_JSON is not set (run through ctest)";
    std::ifstream in(path);
    const std::string json((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::smatch list;
    ASSERT_TRUE(std::regex_search(json, list, std::regex(R"("hdf5_versions"\s*:\s*\[([^\]]*)\])")))
        << path << " has no hdf5_versions list";
    std::vector<std::string> listed;
    const std::string items = list[1].str();
    const std::regex quoted("\"([^\"]+)\"");
    for (auto it = std::sregex_iterator(items.begin(), items.end(), quoted); it != std::sregex_iterator();
         ++it)
        listed.push_back((*it)[1].str());
    const auto accepted = internals::accepted_versions();
    EXPECT_EQ(listed, std::vector<std::string>(accepted.begin(), accepted.end()))
        << "h5plugin.json's hdf5_versions differ from hdf5_internals::accepted_versions()";
}

// Item 1: every context getter is exported by the running library.
TEST(Hdf5Internals, ContextGettersResolve) {
    EXPECT_EQ(internals::resolve(), "") << "the H5CX getters or the version guard failed";
    EXPECT_TRUE(internals::ready());
}

// Item 3: the DXPL chunk properties exist under their names with the sizes the driver reads, and
// the public setters write them.
TEST(Hdf5Internals, DxplChunkPropertiesKeepTheirNames) {
    Hid dxpl(H5Pcreate(H5P_DATASET_XFER));
    size_t size = 0;
    ASSERT_GE(H5Pget_size(dxpl, "mpio_chunk_opt_hard", &size), 0) << "property renamed";
    EXPECT_EQ(size, sizeof(H5FD_mpio_chunk_opt_t));
    ASSERT_GE(H5Pget_size(dxpl, "mpio_chunk_opt_num", &size), 0) << "property renamed";
    EXPECT_EQ(size, sizeof(unsigned));
    ASSERT_GE(H5Pget_size(dxpl, "mpio_chunk_opt_ratio", &size), 0) << "property renamed";
    EXPECT_EQ(size, sizeof(unsigned));
    EXPECT_EQ(internals::dxpl_chunk_mode(dxpl), H5FD_MPIO_CHUNK_DEFAULT);
    EXPECT_EQ(internals::dxpl_chunk_threshold(dxpl), 0u);
    EXPECT_EQ(internals::dxpl_chunk_ratio(dxpl), 60u);
    ASSERT_GE(H5Pset_dxpl_mpio_chunk_opt(dxpl, H5FD_MPIO_CHUNK_MULTI_IO), 0);
    ASSERT_GE(H5Pset_dxpl_mpio_chunk_opt_num(dxpl, 7), 0);
    ASSERT_GE(H5Pset_dxpl_mpio_chunk_opt_ratio(dxpl, 33), 0);
    EXPECT_EQ(internals::dxpl_chunk_mode(dxpl), H5FD_MPIO_CHUNK_MULTI_IO);
    EXPECT_EQ(internals::dxpl_chunk_threshold(dxpl), 7u);
    EXPECT_EQ(internals::dxpl_chunk_ratio(dxpl), 33u);
}

// Item 4: the output properties the report hook replaces exist with the sizes it declares.
TEST(Hdf5Internals, ActualModePropertiesKeepTheirNames) {
    Hid dxpl(H5Pcreate(H5P_DATASET_XFER));
    size_t size = 0;
    ASSERT_GE(H5Pget_size(dxpl, "actual_chunk_opt_mode", &size), 0) << "property renamed";
    EXPECT_EQ(size, sizeof(H5D_mpio_actual_chunk_opt_mode_t));
    ASSERT_GE(H5Pget_size(dxpl, "actual_io_mode", &size), 0) << "property renamed";
    EXPECT_EQ(size, sizeof(H5D_mpio_actual_io_mode_t));
}

// Item 1, behaviour: the transfer mode the getter reports inside the driver follows the
// library's (collective H5Dwrite: collective transfers; independent: none), which the driver's
// statistics show.
TEST(Hdf5Internals, TransferModeReachesTheDriver) {
    Hid fapl = make_fapl(Driver::Mpiio);
    Hid file(H5Fcreate(test_file("mode", Driver::Mpiio).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(file.valid());
    const hsize_t dims[1] = {64};
    Hid space(H5Screate_simple(1, dims, nullptr));
    Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(dset.valid());
    int data[64] = {};
    H5FD_mpiio_stats_t before{}, after{};
    ASSERT_GE(H5Fget_mpiio_stats(file, &before), 0);
    Hid independent = make_dxpl(H5FD_MPIO_INDEPENDENT);
    ASSERT_GE(H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, independent, data), 0);
    ASSERT_GE(H5Fget_mpiio_stats(file, &after), 0);
    EXPECT_EQ(after.collective_ops, before.collective_ops)
        << "an independent write reached the driver as collective";
    Hid collective = make_dxpl(H5FD_MPIO_COLLECTIVE);
    ASSERT_GE(H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, collective, data), 0);
    ASSERT_GE(H5Fget_mpiio_stats(file, &before), 0);
    EXPECT_EQ(before.collective_ops, after.collective_ops + 1)
        << "a collective write did not reach the driver as one";
}

// Item 6: the dataspace functions resolve, and the facts they give equal the public API's for
// every kind of selection (offsets, scalar and null dataspaces included).
TEST(Hdf5Internals, DataspaceReaderMatchesThePublicApi) {
    ASSERT_EQ(internals::resolve(), "");
    ASSERT_TRUE(internals::dataspace_reader_installed())
        << "H5I_object_verify or an H5S_ function is no longer exported: tiny transfers got slower";
    namespace sel = mpiio::selection;
    auto expect_same = [](hid_t space, const std::string &what) {
        sel::SpaceInfo fast;
        ASSERT_TRUE(internals::read_dataspace(space, fast)) << what << ": the reader declined";
        fast.extent_bytes = sel::query_space(space, 4).extent_bytes;
        const sel::SpaceInfo slow = sel::query_space_public(space, 4);
        EXPECT_EQ(fast.kind, slow.kind) << what;
        EXPECT_EQ(fast.npoints, slow.npoints) << what;
        ASSERT_EQ(fast.rank, slow.rank) << what;
        EXPECT_EQ(fast.regular, slow.regular) << what;
        EXPECT_EQ(fast.extent_bytes, slow.extent_bytes) << what;
        for (int d = 0; d < fast.rank; ++d) {
            EXPECT_EQ(fast.dims[d], slow.dims[d]) << what << " dimension " << d;
            if (slow.npoints == 0)
                continue;
            EXPECT_EQ(fast.low[d], slow.low[d]) << what << " dimension " << d;
            EXPECT_EQ(fast.high[d], slow.high[d]) << what << " dimension " << d;
        }
    };
    seltest::Gen gen(20261124);
    const seltest::Kind kinds[] = {seltest::Kind::All,     seltest::Kind::None,
                                   seltest::Kind::Regular, seltest::Kind::Irregular,
                                   seltest::Kind::Points,  seltest::Kind::PointsSorted};
    int checked = 0;
    for (int i = 0; i < 600; ++i) {
        const seltest::Kind kind = kinds[i % 6];
        const int rank = 1 + static_cast<int>(gen.u(0, 3));
        Hid space = seltest::random_selection(gen, kind, rank);
        expect_same(space, std::string(seltest::kind_name(kind)) + " " + seltest::describe_space(space));
        ++checked;
    }
    Hid scalar(H5Screate(H5S_SCALAR));
    expect_same(scalar, "scalar");
    Hid null_space(H5Screate(H5S_NULL));
    expect_same(null_space, "null");
    EXPECT_EQ(checked, 600);
    // Not a dataspace: the reader declines and the public API's error reaches the caller.
    Hid plist(H5Pcreate(H5P_DATASET_XFER));
    sel::SpaceInfo none;
    EXPECT_FALSE(internals::read_dataspace(plist, none));
    H5E_BEGIN_TRY { EXPECT_THROW(sel::query_space(plist, 4), mpiio::Error); }
    H5E_END_TRY
}

// Item 7: the FAPL reader resolves and reads what the public getters give, without duplicating:
// the communicator is the one the list stores (congruent to the application's, and the same
// handle at every read), the hints are the stored info, and the config string is the one set.
TEST(Hdf5Internals, FaplReaderMatchesThePublicGetters) {
    ASSERT_EQ(internals::resolve(), "");
    ASSERT_TRUE(internals::fapl_reader_installed())
        << "H5P_object_verify, H5P_peek or H5P_peek_driver_config_str is no longer exported";
    MPI_Info hints = MPI_INFO_NULL;
    ASSERT_EQ(MPI_Info_create(&hints), MPI_SUCCESS);
    ASSERT_EQ(MPI_Info_set(hints, "cb_nodes", "1"), MPI_SUCCESS);
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    ASSERT_GE(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, hints), 0);
    ASSERT_GE(H5Pset_driver_by_name(fapl, "mpiio", "sieve_gap=8K"), 0);
    MPI_Info_free(&hints);

    internals::FaplSettings first, second;
    ASSERT_TRUE(internals::peek_fapl(fapl, first));
    ASSERT_TRUE(internals::peek_fapl(fapl, second));
    EXPECT_EQ(first.comm, second.comm) << "a read duplicated the communicator";
    EXPECT_NE(first.comm, MPI_COMM_WORLD) << "the list keeps its own duplicate, not the application's";
    int result = MPI_UNEQUAL;
    ASSERT_EQ(MPI_Comm_compare(first.comm, MPI_COMM_WORLD, &result), MPI_SUCCESS);
    EXPECT_EQ(result, MPI_CONGRUENT);
    ASSERT_NE(first.info, MPI_INFO_NULL);
    EXPECT_EQ(first.info, second.info) << "a read duplicated the hints";
    char value[MPI_MAX_INFO_VAL + 1] = {};
    int present = 0;
    ASSERT_EQ(MPI_Info_get(first.info, "cb_nodes", MPI_MAX_INFO_VAL, value, &present), MPI_SUCCESS);
    EXPECT_TRUE(present);
    EXPECT_STREQ(value, "1");
    ASSERT_NE(first.config, nullptr);
    EXPECT_STREQ(first.config, "sieve_gap=8K");

    // A list without MPI settings or config string: null values, as the public getters answer.
    Hid plain(H5Pcreate(H5P_FILE_ACCESS));
    internals::FaplSettings none;
    ASSERT_TRUE(internals::peek_fapl(plain, none));
    EXPECT_EQ(none.comm, MPI_COMM_NULL);
    EXPECT_EQ(none.info, MPI_INFO_NULL);
    EXPECT_EQ(none.config, nullptr);

    // Not a FAPL: the reader declines (the public getters then report the error).
    Hid dxpl(H5Pcreate(H5P_DATASET_XFER));
    H5E_BEGIN_TRY { EXPECT_FALSE(internals::peek_fapl(dxpl, none)); }
    H5E_END_TRY
}

} // namespace
