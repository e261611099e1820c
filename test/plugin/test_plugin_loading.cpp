// Loading the plugin through HDF5's plugin loader (by name, by value) and checking that what the
// loader finds is what h5plugin.json advertises: name, value, library file, plugin type and the
// HDF5 versions it supports. Run under mpiexec -n 1 with HDF5_PLUGIN_PATH set by ctest.
#include "h5fd_mpiio.h"
#include "test_support.hpp"

#include <H5FDdevelop.h>
#include <H5PLextern.h>
#include <dlfcn.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

using namespace mpiio_test;

namespace {

struct PluginJson {
    std::string name, type, library;
    long value = -1;
    std::vector<std::string> hdf5_versions;
};

std::string json_string(const std::string &json, const std::string &key) {
    std::smatch m;
    if (std::regex_search(json, m, std::regex("\"" + key + "\"\\s*:\\s*\"([^\"]*)\"")))
        return m[1].str();
    return {};
}

PluginJson read_plugin_json() {
    PluginJson out;
    const char *path = std::getenv("MPIIO_TEST_PLUGIN_JSON");
    if (path == nullptr) {
        ADD_FAILURE() << "MPIIO_TEST_PLUGIN_JSON is not set (run through ctest)";
        return out;
    }
    std::ifstream in(path);
    if (!in) {
        ADD_FAILURE() << "cannot read " << path;
        return out;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string json = ss.str();
    out.name = json_string(json, "name");
    out.type = json_string(json, "type");
    out.library = json_string(json, "library");
    std::smatch m;
    if (std::regex_search(json, m, std::regex(R"("value"\s*:\s*(-?[0-9]+))")))
        out.value = std::stol(m[1].str());
    if (std::regex_search(json, m, std::regex(R"("hdf5_versions"\s*:\s*\[([^\]]*)\])"))) {
        const std::string list = m[1].str();
        const std::regex item("\"([^\"]+)\"");
        for (auto it = std::sregex_iterator(list.begin(), list.end(), item); it != std::sregex_iterator();
             ++it)
            out.hdf5_versions.push_back((*it)[1].str());
    }
    return out;
}

// The driver class of an open file, found through the MPI_File* its get_handle returns.
const H5FD_class_t *file_driver_class(hid_t file) {
    void *handle = nullptr;
    if (H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) < 0 || handle == nullptr)
        return nullptr;
    auto *lf = reinterpret_cast<H5FD_t *>(static_cast<char *>(handle) - offsetof(H5FD_mpiio_prefix_t, fh));
    return lf->cls;
}

Hid mpi_fapl() {
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    EXPECT_GE(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL), 0);
    return fapl;
}

// Creates a file with `fapl`, writes a small dataset through it, checks the driver class the
// file uses and that the plugin's statistics are reachable, then reads the data back with sec2.
void write_and_check(hid_t fapl, const std::string &path, const PluginJson &json) {
    const std::vector<int> values = [] {
        std::vector<int> v(64);
        std::iota(v.begin(), v.end(), 100);
        return v;
    }();
    {
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(file.valid()) << error_stack_text();
        const H5FD_class_t *cls = file_driver_class(file);
        ASSERT_NE(cls, nullptr);
        EXPECT_STREQ(cls->name, json.name.c_str());
        EXPECT_EQ(cls->value, json.value);
        const hsize_t dims[1] = {values.size()};
        Hid space(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "values", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(dset.valid());
        ASSERT_GE(H5Dwrite(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), 0);
        ASSERT_GE(H5Fflush(file, H5F_SCOPE_GLOBAL), 0);
        H5FD_mpiio_stats_t stats{};
        ASSERT_GE(H5Fget_mpiio_stats(file, &stats), 0) << "the file does not use the mpiio plugin";
        EXPECT_GE(stats.bytes_written, values.size() * sizeof(int));
    }
    const auto bytes = read_dataset_sec2(path, "values");
    ASSERT_EQ(bytes.size(), values.size() * sizeof(int));
    EXPECT_EQ(std::memcmp(bytes.data(), values.data(), bytes.size()), 0);
}

TEST(PluginLoading, ByName) {
    const PluginJson json = read_plugin_json();
    Hid fapl = mpi_fapl();
    ASSERT_GE(H5Pset_driver_by_name(fapl, "mpiio", nullptr), 0) << error_stack_text();
    EXPECT_GT(H5FDis_driver_registered_by_name("mpiio"), 0);
    EXPECT_GT(H5FDis_driver_registered_by_value(311), 0);
    const hid_t driver = H5Pget_driver(fapl);
    ASSERT_GE(driver, 0);
    EXPECT_EQ(H5Iget_type(driver), H5I_VFL);
    unsigned long flags = 0;
    ASSERT_GE(H5FDdriver_query(driver, &flags), 0);
    EXPECT_TRUE(flags & H5FD_FEAT_HAS_MPI);
    EXPECT_FALSE(flags & H5FD_FEAT_DATA_SIEVE);
    EXPECT_FALSE(flags & H5FD_FEAT_ACCUMULATE_METADATA);
    write_and_check(fapl, test_dir() + "/by_name.h5", json);
}

TEST(PluginLoading, ByValue) {
    const PluginJson json = read_plugin_json();
    Hid fapl = mpi_fapl();
    ASSERT_GE(H5Pset_driver_by_value(fapl, 311, nullptr), 0) << error_stack_text();
    EXPECT_GT(H5FDis_driver_registered_by_value(311), 0);
    EXPECT_GT(H5FDis_driver_registered_by_name("mpiio"), 0);
    write_and_check(fapl, test_dir() + "/by_value.h5", json);
}

TEST(PluginLoading, NameAndValueSelectTheSameDriver) {
    Hid by_name = mpi_fapl();
    Hid by_value = mpi_fapl();
    ASSERT_GE(H5Pset_driver_by_name(by_name, "mpiio", nullptr), 0);
    ASSERT_GE(H5Pset_driver_by_value(by_value, H5FD_MPIIO_VALUE, nullptr), 0);
    EXPECT_EQ(H5Pget_driver(by_name), H5Pget_driver(by_value));
    // and it is not the built-in MPI-IO driver
    Hid builtin(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_fapl_mpio(builtin, MPI_COMM_WORLD, MPI_INFO_NULL);
    EXPECT_NE(H5Pget_driver(by_name), H5Pget_driver(builtin));
}

TEST(PluginLoading, PublicHeaderHelperSelectsThePlugin) {
    const PluginJson json = read_plugin_json();
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    ASSERT_GE(H5Pset_fapl_mpiio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL, "sync=flush"), 0);
    write_and_check(fapl, test_dir() + "/helper.h5", json);
}

TEST(PluginLoading, UnknownNameAndValueAreRejected) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    EXPECT_LT(H5Pset_driver_by_name(fapl, "mpiio-no-such-driver", nullptr), 0);
    EXPECT_LT(H5Pset_driver_by_value(fapl, 312, nullptr), 0);
}

// h5plugin.json describes the compiled class: name, value, type, library file, HDF5 versions.
TEST(PluginJson, MatchesTheCompiledClass) {
    const PluginJson json = read_plugin_json();
    EXPECT_EQ(json.name, H5FD_MPIIO_NAME);
    EXPECT_EQ(json.value, H5FD_MPIIO_VALUE);
    EXPECT_EQ(json.type, "vfd");

    const char *dir = std::getenv("MPIIO_TEST_PLUGIN_DIR");
    ASSERT_NE(dir, nullptr) << "MPIIO_TEST_PLUGIN_DIR is not set (run through ctest)";
    const std::filesystem::path lib = std::filesystem::path(dir) / json.library;
    ASSERT_TRUE(std::filesystem::is_regular_file(lib)) << lib;
    // HDF5's loader only considers lib*.so* files
    EXPECT_EQ(json.library.rfind("lib", 0), 0u);
    EXPECT_NE(json.library.find(".so"), std::string::npos);

    // The same entry points HDF5's loader calls.
    void *handle = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle, nullptr) << dlerror();
    auto get_type = reinterpret_cast<H5PL_type_t (*)()>(dlsym(handle, "H5PLget_plugin_type"));
    auto get_info = reinterpret_cast<const void *(*)()>(dlsym(handle, "H5PLget_plugin_info"));
    ASSERT_NE(get_type, nullptr);
    ASSERT_NE(get_info, nullptr);
    EXPECT_EQ(get_type(), H5PL_TYPE_VFD);
    const auto *cls = static_cast<const H5FD_class_t *>(get_info());
    ASSERT_NE(cls, nullptr) << error_stack_text();
    EXPECT_EQ(cls->version, H5FD_CLASS_VERSION);
    EXPECT_STREQ(cls->name, json.name.c_str());
    EXPECT_EQ(cls->value, json.value);
    EXPECT_EQ(cls->fc_degree, H5F_CLOSE_SEMI);
    EXPECT_EQ(cls->maxaddr, HADDR_MAX);
    // mandatory callbacks (H5FDregister's checks) and the ones MPI drivers need
    EXPECT_NE(cls->open, nullptr);
    EXPECT_NE(cls->close, nullptr);
    EXPECT_NE(cls->get_eoa, nullptr);
    EXPECT_NE(cls->set_eoa, nullptr);
    EXPECT_NE(cls->get_eof, nullptr);
    EXPECT_NE(cls->read, nullptr);
    EXPECT_NE(cls->write, nullptr);
    EXPECT_NE(cls->ctl, nullptr);
    EXPECT_NE(cls->del, nullptr);
    EXPECT_NE(cls->query, nullptr);
    EXPECT_NE(cls->get_handle, nullptr);
    EXPECT_NE(cls->read_vector, nullptr);
    EXPECT_NE(cls->write_vector, nullptr);
    EXPECT_EQ(cls->cmp, nullptr);  // no tentative open (as the built-in driver)
    EXPECT_EQ(cls->lock, nullptr); // no file locking (as the built-in driver)
    EXPECT_EQ(cls->sb_size, nullptr);
    dlclose(handle);

    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    const std::string running = std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
    EXPECT_NE(std::find(json.hdf5_versions.begin(), json.hdf5_versions.end(), running),
              json.hdf5_versions.end())
        << "h5plugin.json does not list the running HDF5 " << running;
}

} // namespace
