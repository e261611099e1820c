#include "test_support.hpp"

#include "settings/storage.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <unistd.h>

namespace mpiio_test {

const char *driver_name(Driver d) { return d == Driver::Mpio ? "mpio" : "mpiio"; }

int world_rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int world_size() {
    int s = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
}

bool all_ranks(bool ok, MPI_Comm comm) {
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, comm);
    return all == 1;
}

namespace {
char g_watchdog_message[512];
extern "C" void watchdog_fired(int) {
    const ssize_t ignored = write(2, g_watchdog_message, std::strlen(g_watchdog_message));
    (void)ignored;
    _exit(124);
}
} // namespace

void arm_watchdog(unsigned seconds) {
    const auto *info = testing::UnitTest::GetInstance()->current_test_info();
    std::snprintf(g_watchdog_message, sizeof g_watchdog_message,
                  "\n[rank %d] WATCHDOG: %s.%s on %d ranks still running after %u s: a hang\n", world_rank(),
                  info ? info->test_suite_name() : "?", info ? info->name() : "?", world_size(), seconds);
    std::signal(SIGALRM, watchdog_fired);
    alarm(seconds);
}

void disarm_watchdog() { alarm(0); }

std::string test_dir() {
    const auto *info = testing::UnitTest::GetInstance()->current_test_info();
    const char *base = std::getenv("MPIIO_TEST_DIR");
    const char *ctest = std::getenv("MPIIO_TEST_NAME");
    std::filesystem::path dir =
        std::filesystem::path(base ? base : "/dev/shm") / "mpiio-tests" / (ctest ? ctest : "manual") /
        (std::string(info ? info->test_suite_name() : "suite") + "." + (info ? info->name() : "test"));
    const std::string text = dir.string();
    // Created (emptied) once per test: later calls in the same test return the same directory.
    static std::string current;
    if (text == current)
        return text;
    current = text;
    MPI_Barrier(MPI_COMM_WORLD);
    if (world_rank() == 0) {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
        std::filesystem::create_directories(dir, ec);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return text;
}

std::string test_file(const std::string &stem, Driver d) {
    return test_dir() + "/" + stem + "." + driver_name(d) + ".h5";
}

bool shared_storage() {
    const char *shared = std::getenv("MPIIO_TEST_SHARED_STORAGE");
    return shared != nullptr && std::strcmp(shared, "1") == 0;
}

std::string auto_route(const std::string &dir) {
    return mpiio::route_name(
        mpiio::resolve_storage_tuning(mpiio::Config{}, mpiio::file_system_magic(dir)).route);
}

bool shared_storage_at(const std::string &dir) {
    return mpiio::storage_class_of(mpiio::file_system_magic(dir)) == mpiio::StorageClass::Shared;
}

Hid make_fapl(Driver d, const FaplOptions &options) {
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    if (d == Driver::Mpio) {
        H5Pset_fapl_mpio(fapl, options.comm, MPI_INFO_NULL);
    } else {
        H5Pset_mpi_params(fapl, options.comm, MPI_INFO_NULL);
        // MPIIO_TEST_CONFIG is appended to every test's configuration: CI reruns suites with
        // settings forced that way (for example collective_route=independent).
        std::string config = options.config ? options.config : "";
        if (const char *extra = std::getenv("MPIIO_TEST_CONFIG"); extra != nullptr && *extra != '\0')
            config += (config.empty() ? "" : ";") + std::string(extra);
        if (H5Pset_driver_by_name(fapl, "mpiio", config.empty() ? nullptr : config.c_str()) < 0)
            ADD_FAILURE() << "H5Pset_driver_by_name(mpiio) failed: is HDF5_PLUGIN_PATH set?";
    }
    if (options.coll_metadata) {
        H5Pset_all_coll_metadata_ops(fapl, true);
        H5Pset_coll_metadata_write(fapl, true);
    }
    return fapl;
}

Hid make_dxpl(H5FD_mpio_xfer_t mode, H5D_selection_io_mode_t selection) {
    Hid dxpl(H5Pcreate(H5P_DATASET_XFER));
    H5Pset_dxpl_mpio(dxpl, mode);
    if (selection != H5D_SELECTION_IO_MODE_DEFAULT)
        H5Pset_selection_io(dxpl, selection);
    return dxpl;
}

namespace {

struct DatasetImage {
    std::string shape;
    std::vector<unsigned char> bytes;
};

herr_t collect_dataset(hid_t obj, const char *name, const H5O_info2_t *info, void *op_data) {
    auto &out = *static_cast<std::map<std::string, DatasetImage> *>(op_data);
    if (info->type != H5O_TYPE_DATASET)
        return 0;
    Hid dset(H5Dopen2(obj, name, H5P_DEFAULT));
    Hid space(H5Dget_space(dset));
    Hid ftype(H5Dget_type(dset));
    Hid mtype(H5Tget_native_type(ftype, H5T_DIR_ASCEND));
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(static_cast<size_t>(rank > 0 ? rank : 0));
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    DatasetImage img;
    img.shape = "rank " + std::to_string(rank) + " dims";
    for (hsize_t d : dims)
        img.shape += " " + std::to_string(d);
    img.shape += " type size " + std::to_string(H5Tget_size(mtype));
    const hssize_t n = H5Sget_simple_extent_npoints(space);
    img.bytes.resize(static_cast<size_t>(n) * H5Tget_size(mtype));
    if (n > 0 && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, img.bytes.data()) < 0)
        img.shape += " (unreadable)";
    out[name] = std::move(img);
    return 0;
}

std::map<std::string, DatasetImage> read_all_datasets(const std::string &file, std::string &error) {
    std::map<std::string, DatasetImage> out;
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_fapl_sec2(fapl);
    Hid f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl));
    if (!f.valid()) {
        error = "cannot open " + file + " with sec2";
        return out;
    }
    H5Ovisit3(f, H5_INDEX_NAME, H5_ITER_INC, collect_dataset, &out, H5O_INFO_BASIC);
    return out;
}

} // namespace

std::string compare_files(const std::string &a, const std::string &b) {
    std::string diff;
    if (world_rank() == 0) {
        std::string err_a, err_b;
        auto da = read_all_datasets(a, err_a);
        auto db = read_all_datasets(b, err_b);
        if (!err_a.empty() || !err_b.empty())
            diff = err_a + " " + err_b;
        else if (da.size() != db.size())
            diff = "dataset count differs: " + std::to_string(da.size()) + " vs " + std::to_string(db.size());
        else if (da.empty())
            diff = "no datasets in " + a;
        for (auto ia = da.begin(), ib = db.begin(); diff.empty() && ia != da.end(); ++ia, ++ib) {
            if (ia->first != ib->first)
                diff = "dataset names differ: " + ia->first + " vs " + ib->first;
            else if (ia->second.shape != ib->second.shape)
                diff = ia->first + ": " + ia->second.shape + " vs " + ib->second.shape;
            else if (ia->second.bytes != ib->second.bytes) {
                size_t i = 0;
                while (ia->second.bytes[i] == ib->second.bytes[i])
                    ++i;
                diff = ia->first + ": first differing byte at " + std::to_string(i) + " of " +
                       std::to_string(ia->second.bytes.size());
            }
        }
    }
    int length = static_cast<int>(diff.size());
    MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
    diff.resize(static_cast<size_t>(length));
    MPI_Bcast(diff.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
    return diff;
}

std::vector<unsigned char> read_dataset_sec2(const std::string &file, const std::string &dataset) {
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    H5Pset_fapl_sec2(fapl);
    Hid f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, fapl));
    if (!f.valid())
        return {};
    Hid dset(H5Dopen2(f, dataset.c_str(), H5P_DEFAULT));
    if (!dset.valid())
        return {};
    Hid space(H5Dget_space(dset));
    Hid ftype(H5Dget_type(dset));
    Hid mtype(H5Tget_native_type(ftype, H5T_DIR_ASCEND));
    std::vector<unsigned char> bytes(static_cast<size_t>(H5Sget_simple_extent_npoints(space)) *
                                     H5Tget_size(mtype));
    if (!bytes.empty() && H5Dread(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) < 0)
        return {};
    return bytes;
}

std::string error_stack_text() {
    std::string text;
    H5Ewalk2(
        H5E_DEFAULT, H5E_WALK_DOWNWARD,
        [](unsigned, const H5E_error2_t *e, void *data) -> herr_t {
            auto &out = *static_cast<std::string *>(data);
            out += std::string(e->func_name ? e->func_name : "?") + ": " + (e->desc ? e->desc : "") + "\n";
            return 0;
        },
        &text);
    return text;
}

} // namespace mpiio_test
