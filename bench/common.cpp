#include "common.hpp"

#include "subfiling.hpp"

#include <h5fd_mpiio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <sstream>

namespace bench {

namespace {
std::string g_context, g_repro;

std::string mpi_library() {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int len = 0;
    MPI_Get_library_version(lib, &len);
    std::string s(lib, strnlen(lib, sizeof lib));
    s.resize(std::min(s.find('\n'), s.size()));
    while (!s.empty() && (s.back() == ',' || s.back() == ' '))
        s.pop_back();
    return s;
}
} // namespace

const char *driver_name(Driver d) {
    static const char *const names[kNumDrivers] = {"mpio", "mpiio", "raw", "mpio2", "subfiling", "fpp"};
    return names[static_cast<int>(d)];
}

bool parse_drivers(const std::string &list, std::vector<Driver> &out) {
    out.clear();
    for (const std::string &name : split(list, ',')) {
        int d = 0;
        while (d < kNumDrivers && name != driver_name(static_cast<Driver>(d)))
            ++d;
        if (d == kNumDrivers)
            return false;
        out.push_back(static_cast<Driver>(d));
    }
    return !out.empty();
}

std::string Mode::name() const {
    if (coll_data == coll_md)
        return coll_data ? "coll" : "ind";
    return coll_data ? "cd" : "cm";
}

bool parse_mode(const std::string &s, Mode &out) {
    for (Mode m : {Mode{true, true}, Mode{false, false}, Mode{true, false}, Mode{false, true}})
        if (s == m.name()) {
            out = m;
            return true;
        }
    return false;
}

std::vector<std::string> split(const std::string &s, char sep) {
    std::vector<std::string> out;
    std::stringstream ss(s);
    std::string item;
    while (std::getline(ss, item, sep))
        if (!item.empty())
            out.push_back(item);
    return out;
}

bool parse_number(const char *s, double &v, double min, double max) {
    char *end = nullptr;
    const double x = std::strtod(s, &end);
    if (end == s || *end != '\0' || !(x >= min && x <= max))
        return false;
    v = x;
    return true;
}

bool parse_int(const char *s, int &v, int min) {
    double x = 0;
    if (!parse_number(s, x, min, 1e8) || x != static_cast<int>(x))
        return false;
    v = static_cast<int>(x);
    return true;
}

std::string fmt(const char *format, double v) {
    char b[64];
    std::snprintf(b, sizeof b, format, v);
    return b;
}

std::string ratio_str(double r) { return r > 0 ? fmt("%.2f", r) : "-"; }

int rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int nranks() {
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

hid_t driver_fapl(Driver d, const std::string &config) {
    const hid_t fapl = BENCH_H5(H5Pcreate(H5P_FILE_ACCESS));
    if (d == Driver::Subfiling)
        BENCH_H5(set_fapl_subfiling(fapl));
    else if (is_builtin(d))
        BENCH_H5(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    else
        BENCH_H5(H5Pset_fapl_mpiio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   config.empty() ? nullptr : config.c_str()));
    return fapl;
}

void check_plugin_loads(const std::string &config) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    herr_t rc = 0;
    H5E_BEGIN_TRY {
        rc =
            H5Pset_fapl_mpiio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL, config.empty() ? nullptr : config.c_str());
    }
    H5E_END_TRY
    H5Pclose(fapl);
    if (rc < 0) {
        const char *pp = std::getenv("HDF5_PLUGIN_PATH");
        fatal(std::string("cannot select the mpiio driver (H5Pset_fapl_mpiio failed); HDF5_PLUGIN_PATH=") +
              (pp ? pp : "(unset)") + " must contain libh5fd_mpiio.so");
    }
}

void set_context(const std::string &ctx, const std::string &repro) {
    g_context = ctx;
    g_repro = repro;
}

void fatal(const std::string &what) {
    std::fprintf(stderr, "\n[rank %d] FATAL during %s: %s\n", rank(), g_context.c_str(), what.c_str());
    if (!g_repro.empty())
        std::fprintf(stderr, "[rank %d] reproduce: %s\n", rank(), g_repro.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    std::abort();
}

void mpi_fatal(int rc, const char *call, const char *file, int line) {
    char msg[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fatal(std::string("MPI call failed: ") + call + " (" + file + ":" + std::to_string(line) + "): " + msg);
}

std::string loadavg() {
    double a[3] = {0, 0, 0};
    FILE *f = std::fopen("/proc/loadavg", "r");
    const bool ok = f != nullptr && std::fscanf(f, "%lf %lf %lf", &a[0], &a[1], &a[2]) == 3;
    if (f != nullptr)
        std::fclose(f);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a[0], a[1], a[2]);
    return ok ? buf : "";
}

bool is_mpich() { return mpi_library().find("MPICH") != std::string::npos; }

void collect_environment(RunInfo &info) {
    info.load_start = loadavg();
    const std::time_t t = std::time(nullptr);
    char b[256] = {0};
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&t));
    info.started = b;
    gethostname(b, sizeof b - 1);
    info.host = b;
    info.mpi_library = mpi_library();
    int level = MPI_THREAD_SINGLE;
    MPI_Query_thread(&level);
    info.thread_level = level == MPI_THREAD_MULTIPLE     ? "multiple"
                        : level == MPI_THREAD_SERIALIZED ? "serialized"
                        : level == MPI_THREAD_FUNNELED   ? "funneled"
                                                         : "single";
    if (is_mpich()) {
        info.io_layer = "mpich";
        info.io_component = "ROMIO (MPICH)";
    } else {
        // mpirun --mca io X exports OMPI_MCA_io=X to the ranks; Open MPI 4.1 defaults to OMPIO.
        const char *io = std::getenv("OMPI_MCA_io");
        info.io_layer = io ? io : "ompio";
        info.io_component = io ? io : "default (ompio)";
        if (const char *fc = std::getenv("OMPI_MCA_fcoll"))
            info.io_component += std::string(", fcoll=") + fc;
    }
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    info.hdf5_version = std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
    const char *pp = std::getenv("HDF5_PLUGIN_PATH");
    info.plugin_path = pp ? pp : "";
    info.ranks = nranks();
}

std::string short_library_name(const std::string &library) {
    std::string s = library.substr(0, library.find(','));
    // MPICH: "MPICH Version:\t4.0.2" -> "MPICH 4.0.2"
    if (const size_t v = s.find("Version:"); v != std::string::npos)
        s = s.substr(0, v) + s.substr(s.find_first_not_of(" \t", v + 8));
    return s;
}

std::string layer_title(const RunInfo &info) {
    if (info.io_layer == "mpich")
        return "MPICH ROMIO";
    return info.io_layer.rfind("romio", 0) == 0 ? "Open MPI ROMIO" : "Open MPI OMPIO";
}

std::string launcher() {
    if (is_mpich())
        return "mpirun.mpich -n " + std::to_string(nranks());
    std::string s = "mpirun -n " + std::to_string(nranks()) + " --oversubscribe --bind-to none";
    if (const char *v = std::getenv("OMPI_MCA_io"))
        s += std::string(" --mca io ") + v;
    return s;
}

std::string create_work_dir(const std::string &dir, const std::string &out) {
    std::string work;
    if (rank() == 0) {
        work = dir + "/h5bench_vfd." + std::to_string(getpid());
        for (const std::string &d : {work, out}) {
            bool ok = true; // mkdir -p
            for (size_t i = 1; i <= d.size() && ok; ++i)
                if (i == d.size() || d[i] == '/')
                    ok = mkdir(d.substr(0, i).c_str(), 0755) == 0 || errno == EEXIST;
            if (!ok) {
                std::fprintf(stderr, "h5bench_vfd: cannot create %s: %s\n", d.c_str(), std::strerror(errno));
                work.clear();
                break;
            }
        }
    }
    int n = static_cast<int>(work.size());
    BENCH_MPI(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD));
    work.resize(static_cast<size_t>(n));
    BENCH_MPI(MPI_Bcast(work.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD));
    return work;
}

void remove_file(const std::string &path) {
    if (rank() == 0)
        std::remove(path.c_str());
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

} // namespace bench
