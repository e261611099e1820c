// Shared vocabulary of the driver benchmark: drivers, modes, fatal errors.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <string>

namespace bench {

// The three ways the same bytes reach the file, and the built-in driver once more as a control:
// mpio2/mpio is an A/A comparison whose spread shows how far two identical drivers drift apart
// on this machine, next to mpiio/mpio.
enum class Driver { Mpio, Mpiio, Raw, Mpio2 };
constexpr int kNumDrivers = 4;
const char *driver_name(Driver d); // "mpio", "mpiio", "raw", "mpio2"
inline bool is_builtin(Driver d) { return d == Driver::Mpio || d == Driver::Mpio2; }

// Transfer and metadata modes of a case.
struct Mode {
    bool coll_data = true;    // H5Pset_dxpl_mpio(COLLECTIVE) / MPI_File_*_all
    bool coll_md = true;      // H5Pset_all_coll_metadata_ops + H5Pset_coll_metadata_write
    std::string name() const; // coll | ind | cd (coll data, ind md) | cm (ind data, coll md)
};
bool parse_mode(const std::string &s, Mode &out);

int rank();
int nranks();

// Local. A new file access property list on MPI_COMM_WORLD selecting driver `d`: the built-in
// mpio driver, or the mpiio plugin with `config` (none when empty). The caller closes it.
hid_t driver_fapl(Driver d, const std::string &config);

// Prints "[rank r] FATAL: what" to stderr and aborts the whole job (used for HDF5 and MPI
// errors, after which ranks may disagree about which collective comes next).
[[noreturn]] void fatal(const std::string &what);

// Checks for HDF5 calls (negative return = failure) and MPI calls (non-success).
#define BENCH_H5(call)                                                                                       \
    ([&]() {                                                                                                 \
        auto bench_rv_ = (call);                                                                             \
        if (bench_rv_ < 0)                                                                                   \
            ::bench::fatal(std::string("HDF5 call failed: ") + #call + " (" + __FILE__ + ":" +               \
                           std::to_string(__LINE__) + ")");                                                  \
        return bench_rv_;                                                                                    \
    }())
#define BENCH_MPI(call)                                                                                      \
    do {                                                                                                     \
        int bench_rc_ = (call);                                                                              \
        if (bench_rc_ != MPI_SUCCESS)                                                                        \
            ::bench::mpi_fatal(bench_rc_, #call, __FILE__, __LINE__);                                        \
    } while (0)
[[noreturn]] void mpi_fatal(int rc, const char *call, const char *file, int line);

// Context printed with a fatal error: which case / driver / phase was running, and a command
// line that reproduces just that case with just that driver.
void set_context(const std::string &ctx, const std::string &repro = "");
const std::string &context();

} // namespace bench
