// Helpers shared by the MPI test suites: RAII for hid_t, per-test scratch directories, FAPLs for
// each driver, and the oracle every data test uses - the same program run on the built-in
// `mpio` driver, compared dataset by dataset.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <string>
#include <utility>
#include <vector>

namespace mpiio_test {

// Owns any HDF5 identifier (closed with H5Idec_ref, which works for every id type).
class Hid {
public:
    Hid() = default;
    explicit Hid(hid_t id) : id_(id) {}
    Hid(const Hid &) = delete;
    Hid &operator=(const Hid &) = delete;
    Hid(Hid &&o) noexcept : id_(std::exchange(o.id_, H5I_INVALID_HID)) {}
    Hid &operator=(Hid &&o) noexcept {
        if (this != &o) {
            reset();
            id_ = std::exchange(o.id_, H5I_INVALID_HID);
        }
        return *this;
    }
    ~Hid() { reset(); }
    hid_t get() const { return id_; }
    operator hid_t() const { return id_; }
    bool valid() const { return id_ >= 0; }
    void reset() {
        if (id_ >= 0 && H5Iis_valid(id_) > 0)
            H5Idec_ref(id_);
        id_ = H5I_INVALID_HID;
    }
    hid_t release() { return std::exchange(id_, H5I_INVALID_HID); }

private:
    hid_t id_ = H5I_INVALID_HID;
};

enum class Driver { Mpio, Mpiio };
const char *driver_name(Driver d);

int world_rank();
int world_size();

// true iff `ok` holds on every rank of `comm` (collective).
bool all_ranks(bool ok, MPI_Comm comm = MPI_COMM_WORLD);

// A fresh, empty directory for the running test, same path on every rank. The first call in a
// test is collective (it empties the directory); later calls in the same test return it as is.
// /dev/shm/mpiio-tests/<ctest name>/<suite>.<test>/ (or $MPIIO_TEST_DIR instead of /dev/shm).
std::string test_dir();
// <test_dir()>/<stem>.<driver>.h5
std::string test_file(const std::string &stem, Driver d);

// Local. Whether the test files are on shared storage, where every call is a round trip to a
// server and two clients writing one file take its locks in turn: scripts/test.sh --on-dfs sets
// MPIIO_TEST_SHARED_STORAGE=1 there. The cases made of many tiny calls then run smaller (fewer
// elements, rounds, files), keeping every route and pattern they exercise.
bool shared_storage();
// `local` on local storage (tmpfs), `shared` on shared storage.
template <class T> T storage_sized(T local, T shared) { return shared_storage() ? shared : local; }
// The route the default `collective_route=auto` resolves to for a file in `dir`, as the driver
// resolves it (settings/storage.hpp): "aggregate" (shared storage, under every MPI-IO layer) or
// "auto" (local storage: decided per transfer).
std::string auto_route(const std::string &dir);
// Local. Whether the driver counts the file system of `dir` as shared storage (settings/storage.hpp),
// which decides what its `auto` settings take there.
bool shared_storage_at(const std::string &dir);

struct FaplOptions {
    MPI_Comm comm = MPI_COMM_WORLD;
    const char *config = nullptr; // mpiio config string
    bool coll_metadata = false;   // H5Pset_all_coll_metadata_ops + H5Pset_coll_metadata_write
};
// A FAPL selecting the driver: H5Pset_fapl_mpio, or H5Pset_mpi_params + H5Pset_driver_by_name.
Hid make_fapl(Driver d, const FaplOptions &options = {});

// A DXPL in the given transfer mode, optionally with selection I/O forced on or off.
Hid make_dxpl(H5FD_mpio_xfer_t mode, H5D_selection_io_mode_t selection = H5D_SELECTION_IO_MODE_DEFAULT);

// Collective. Compares every dataset of two files (names, shapes, types and raw bytes) on rank 0
// through the sec2 driver and returns an empty string when they are equal, otherwise the first
// difference. The result is the same on every rank.
std::string compare_files(const std::string &a, const std::string &b);

// Local. The raw bytes of one dataset, read by this rank through the sec2 driver.
std::vector<unsigned char> read_dataset_sec2(const std::string &file, const std::string &dataset);

// Local. A hang becomes a failure: after `seconds` the process ends (exit 124, and with it the MPI
// job) printing which test on how many ranks was still running. disarm_watchdog() stops it; each
// test arms it in SetUp and disarms it in TearDown.
void arm_watchdog(unsigned seconds);
void disarm_watchdog();

// Collects the messages on HDF5's default error stack (to check that the driver named the
// problem). Local.
std::string error_stack_text();

} // namespace mpiio_test
