#include "environment.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

namespace bench {

namespace {

std::string timestamp() {
    std::time_t t = std::time(nullptr);
    char b[64];
    std::strftime(b, sizeof b, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&t));
    return b;
}

std::string mpi_library() {
    char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {0};
    int len = 0;
    MPI_Get_library_version(lib, &len);
    std::string s(lib, strnlen(lib, sizeof lib));
    if (size_t nl = s.find('\n'); nl != std::string::npos)
        s.resize(nl);
    while (!s.empty() && (s.back() == ',' || s.back() == ' '))
        s.pop_back();
    return s;
}

bool is_mpich(const std::string &library) { return library.find("MPICH") != std::string::npos; }

} // namespace

std::string loadavg() {
    FILE *f = std::fopen("/proc/loadavg", "r");
    if (f == nullptr)
        return "";
    double a = 0, b = 0, c = 0;
    const int n = std::fscanf(f, "%lf %lf %lf", &a, &b, &c);
    std::fclose(f);
    if (n != 3)
        return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f", a, b, c);
    return buf;
}

void collect_environment(RunInfo &info) {
    info.load_start = loadavg();
    info.started = timestamp();
    char host[256] = {0};
    gethostname(host, sizeof host - 1);
    info.host = host;
    info.mpi_library = mpi_library();
    if (is_mpich(info.mpi_library)) {
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

RunInfo collect_run_info(const Options &opt) {
    RunInfo info;
    collect_environment(info);
    info.plugin_config = opt.plugin_config;
    info.size = size_name(opt.size);
    info.dir = opt.dir;
    info.label = opt.label;
    info.timesteps = opt.timesteps;
    info.min_phase_s = opt.min_phase_s;
    info.reps = opt.reps;
    info.warmup = opt.warmup;
    return info;
}

std::string short_library_name(const std::string &library) {
    std::string s = library.substr(0, library.find(','));
    // MPICH: "MPICH Version:\t4.0.2" -> "MPICH 4.0.2"
    if (const size_t v = s.find("Version:"); v != std::string::npos) {
        size_t k = v + 8;
        while (k < s.size() && (s[k] == ' ' || s[k] == '\t'))
            ++k;
        s = s.substr(0, v) + s.substr(k);
    }
    return s;
}

std::string layer_title(const RunInfo &info) {
    if (info.io_layer == "mpich")
        return "MPICH ROMIO";
    if (info.io_layer.rfind("romio", 0) == 0)
        return "Open MPI ROMIO";
    return "Open MPI OMPIO";
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

std::string repro_command(const Options &opt, const std::string &case_id, const std::string &drivers,
                          int timesteps) {
    std::string launcher;
    if (is_mpich(mpi_library())) {
        launcher = "mpirun.mpich -n " + std::to_string(nranks());
    } else {
        launcher = "mpirun -n " + std::to_string(nranks()) + " --oversubscribe --bind-to none";
        if (const char *v = std::getenv("OMPI_MCA_io"))
            launcher += std::string(" --mca io ") + v;
    }
    const char *pp = std::getenv("HDF5_PLUGIN_PATH");
    return "HDF5_PLUGIN_PATH=" + std::string(pp ? pp : "<plugin dir>") + " " + launcher +
           " h5bench_vfd --patterns " + case_id + " --drivers " + drivers + " --size " + size_name(opt.size) +
           " --timesteps " + std::to_string(timesteps) + " --reps 1 --warmup 0 --dir " + opt.dir +
           (opt.plugin_config.empty() ? "" : " --plugin-config '" + opt.plugin_config + "'");
}

} // namespace bench
