// Shared vocabulary of the driver benchmarks: drivers, modes, fatal errors, the run's
// environment and its work directory.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

// The three ways the same bytes reach the file, and the built-in driver once more as a control:
// mpio2/mpio is an A/A comparison whose spread shows how far two identical drivers drift apart
// on this machine, next to mpiio/mpio. HDF5's subfiling driver is the other choice a user has
// inside HDF5: the same file as a stub plus subfiles written by I/O concentrator
// threads; it runs only when asked for (subfiling.hpp). fpp is the ceiling on shared storage: the
// same bytes, each rank in a file of its own with POSIX calls (fpp_kernel.hpp); only when asked.
enum class Driver { Mpio, Mpiio, Raw, Mpio2, Subfiling, Fpp };
constexpr int kNumDrivers = 6;
const char *driver_name(Driver d); // "mpio", "mpiio", "raw", "mpio2", "subfiling", "fpp"
inline bool is_builtin(Driver d) { return d == Driver::Mpio || d == Driver::Mpio2; }
inline bool is_hdf5(Driver d) { return d != Driver::Raw && d != Driver::Fpp; } // writes an HDF5 file
// "mpio,raw" -> {Mpio, Raw}; false on an unknown name or an empty list.
bool parse_drivers(const std::string &list, std::vector<Driver> &out);
inline bool has_driver(const std::vector<Driver> &list, Driver d) {
    for (Driver x : list)
        if (x == d)
            return true;
    return false;
}

// Transfer and metadata modes of a case.
struct Mode {
    bool coll_data = true;    // H5Pset_dxpl_mpio(COLLECTIVE) / MPI_File_*_all
    bool coll_md = true;      // H5Pset_all_coll_metadata_ops + H5Pset_coll_metadata_write
    std::string name() const; // coll | ind | cd (coll data, ind md) | cm (ind data, coll md)
};
bool parse_mode(const std::string &s, Mode &out);

std::vector<std::string> split(const std::string &s, char sep); // empty items dropped
// A whole number >= min (and <= 1e8), or a number in [min, max]; false on anything else.
bool parse_int(const char *s, int &v, int min);
bool parse_number(const char *s, double &v, double min, double max);
std::string fmt(const char *format, double v); // snprintf of one number
std::string ratio_str(double r);               // "0.95"; "-" when not measured
int rank();
int nranks();
constexpr double kMiB = 1024.0 * 1024.0;

// MPI_Init / MPI_Finalize for the whole program. `thread_multiple`: MPI_Init_thread asking for
// MPI_THREAD_MULTIPLE, which only the subfiling driver needs; every other run initialises MPI as
// before, because the thread level can change the cost of every MPI call the other drivers make.
struct MpiSession {
    explicit MpiSession(int &argc, char **&argv, bool thread_multiple = false) {
        if (thread_multiple)
            MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        else
            MPI_Init(&argc, &argv);
        MPI_Query_thread(&provided);
    }
    ~MpiSession() { MPI_Finalize(); }
    int provided = MPI_THREAD_SINGLE; // the thread level MPI gave
    MpiSession(const MpiSession &) = delete;
    MpiSession &operator=(const MpiSession &) = delete;
};

// Local. A new file access property list on MPI_COMM_WORLD selecting driver `d`: the built-in
// mpio driver, the mpiio plugin with `config` (none when empty) or subfiling in its default
// configuration. The caller closes it.
hid_t driver_fapl(Driver d, const std::string &config);
// Collective. Aborts with a clear message when the mpiio driver cannot be selected (plugin not
// found on HDF5_PLUGIN_PATH).
void check_plugin_loads(const std::string &config);

// Prints "[rank r] FATAL: what" to stderr and aborts the whole job (used for HDF5 and MPI
// errors, after which ranks may disagree about which collective comes next).
[[noreturn]] void fatal(const std::string &what);
[[noreturn]] void mpi_fatal(int rc, const char *call, const char *file, int line);

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

// Context printed with a fatal error: which case / driver / phase was running, and a command
// line that reproduces just that case with just that driver.
void set_context(const std::string &ctx, const std::string &repro = "");

// What the run happens in, and the options that shape it (recorded with the results).
struct RunInfo {
    std::string started, host, mpi_library, hdf5_version, plugin_path, size, dir, label;
    std::string io_layer;     // ompio | romio321 | mpich: names the published table
    std::string io_component; // as shown: "default (ompio)", "romio321", "ROMIO (MPICH)"
    std::string plugin_config;
    std::string load_start, load_end; // /proc/loadavg (1, 5, 15 min) at start and end
    std::string thread_level;         // what MPI provides: "single", ..., "multiple" (subfiling runs)
    std::string subfiling_config;     // subfiling_config_text() when subfiling runs, else empty
    int ranks = 0, timesteps = 0, reps = 0, warmup = 0, confirm_reps = 0;
    double min_phase_s = 0; // --min-phase (0: every case at `timesteps`)
    double total_s = 0;
};
// Local. MPI library, MPI-IO layer, thread level, HDF5 version, plugin path, host, start time and
// load.
void collect_environment(RunInfo &info);
std::string loadavg(); // "0.18 1.60 2.24"; "" when unavailable
bool is_mpich();
// "Open MPI v4.1.4" or "MPICH 4.0.2": the first part of MPI_Get_library_version's string.
std::string short_library_name(const std::string &library);
// "Open MPI OMPIO", "Open MPI ROMIO" or "MPICH ROMIO".
std::string layer_title(const RunInfo &info);
// "mpirun -n 4 --oversubscribe --bind-to none --mca io romio321" or "mpirun.mpich -n 2".
std::string launcher();

// Collective. Creates <dir>/h5bench_vfd.<pid of rank 0> and the output directory (rank 0) and
// returns the work directory on every rank; "" (on every rank) when either cannot be created.
std::string create_work_dir(const std::string &dir, const std::string &out);
// Collective. Rank 0 removes the file; everybody waits so no rank reuses the name too early.
void remove_file(const std::string &path);

} // namespace bench
