#include "subfiling.hpp"

#include <mpi.h>
#include <sys/stat.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

extern char **environ;

namespace bench {

namespace {

std::string bytes_text(uint64_t b) {
    char s[32];
    if (b < 1024)
        std::snprintf(s, sizeof s, "%llu B", static_cast<unsigned long long>(b));
    else
        std::snprintf(s, sizeof s, b < (1u << 20) ? "%.1f KiB" : "%.1f MiB",
                      static_cast<double>(b) / (b < (1u << 20) ? 1024.0 : 1024.0 * 1024.0));
    return s;
}

} // namespace

#ifdef H5_HAVE_SUBFILING_VFD

bool subfiling_built() { return true; }

herr_t set_fapl_subfiling(hid_t fapl) { return H5Pset_fapl_subfiling(fapl, nullptr); }

std::string subfiling_unusable(int provided) {
    if (provided == MPI_THREAD_MULTIPLE)
        return "";
    const char *names[] = {"MPI_THREAD_SINGLE", "MPI_THREAD_FUNNELED", "MPI_THREAD_SERIALIZED"};
    const int levels[] = {MPI_THREAD_SINGLE, MPI_THREAD_FUNNELED, MPI_THREAD_SERIALIZED};
    std::string got = std::to_string(provided);
    for (int i = 0; i < 3; ++i)
        got = provided == levels[i] ? names[i] : got;
    return "the subfiling driver needs MPI_THREAD_MULTIPLE (its I/O concentrators are threads calling MPI); "
           "this MPI provides only " +
           got;
}

std::string subfiling_config_text() {
    std::string s;
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5FD_subfiling_config_t cfg{};
    H5FD_ioc_config_t ioc{};
    if (fapl >= 0 && set_fapl_subfiling(fapl) >= 0 && H5Pget_fapl_subfiling(fapl, &cfg) >= 0) {
        const H5FD_subfiling_params_t &p = cfg.shared_cfg;
        s = "H5Pset_fapl_subfiling(fapl, NULL): I/O concentrators " +
            std::string(p.ioc_selection == SELECT_IOC_ONE_PER_NODE
                            ? "one per node"
                            : "selection " + std::to_string(p.ioc_selection)) +
            ", stripe size " + bytes_text(static_cast<uint64_t>(p.stripe_size)) + ", stripe count " +
            (p.stripe_count < 0 ? std::string("= concentrators") : std::to_string(p.stripe_count));
        if (cfg.ioc_fapl_id >= 0) {
            if (H5Pget_fapl_ioc(cfg.ioc_fapl_id, &ioc) >= 0)
                s += ", " + std::to_string(ioc.thread_pool_size) + " worker threads per concentrator";
            H5Pclose(cfg.ioc_fapl_id);
        }
    }
    if (fapl >= 0)
        H5Pclose(fapl);
    for (char **e = environ; e != nullptr && *e != nullptr; ++e) // settings that override the defaults
        if (std::strncmp(*e, "H5FD_SUBFILING_", 15) == 0 || std::strncmp(*e, "H5FD_IOC_", 9) == 0 ||
            std::strncmp(*e, "H5_REQUIRE_IOC=", 15) == 0)
            s += std::string("; ") + *e;
    return s;
}

#else

bool subfiling_built() { return false; }

herr_t set_fapl_subfiling(hid_t) { return -1; }

std::string subfiling_unusable(int) {
    return "this HDF5 was built without the subfiling driver (HDF5_ENABLE_SUBFILING_VFD=ON builds it; "
           "scripts/setup.sh does for the project's stock HDF5)";
}

std::string subfiling_config_text() { return ""; }

#endif

std::vector<SubfiledFile> subfiled_files(const std::string &stub) {
    namespace fs = std::filesystem;
    std::vector<SubfiledFile> out;
    struct stat st {};
    if (stat(stub.c_str(), &st) != 0)
        return out;
    out.push_back({stub, static_cast<uint64_t>(st.st_size)});
    const fs::path p(stub);
    // <name>.subfile_<inode> then "_<i>_of_<n>" (a subfile) or ".config"
    const std::string stem = p.filename().string() + ".subfile_" + std::to_string(st.st_ino);
    std::vector<fs::path> dirs{p.parent_path().empty() ? fs::path(".") : p.parent_path()};
    for (const char *var : {"H5FD_SUBFILING_SUBFILE_PREFIX", "H5FD_SUBFILING_CONFIG_FILE_PREFIX"})
        if (const char *v = std::getenv(var); v != nullptr && *v != '\0')
            dirs.emplace_back(v);
    std::error_code ec;
    for (size_t d = 0; d < dirs.size(); ++d) {
        bool seen = false; // the same directory named twice
        for (size_t e = 0; e < d; ++e)
            seen |= fs::equivalent(dirs[d], dirs[e], ec);
        for (fs::directory_iterator it(dirs[d], ec), end; !seen && !ec && it != end; it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (name.size() > stem.size() && name.compare(0, stem.size(), stem) == 0 &&
                (name[stem.size()] == '_' || name[stem.size()] == '.'))
                out.push_back({it->path().string(), static_cast<uint64_t>(it->file_size(ec))});
        }
    }
    return out;
}

std::string describe_subfiled(const std::vector<SubfiledFile> &files) {
    if (files.empty())
        return "no file";
    uint64_t sub = 0, config = 0;
    int nsub = 0;
    for (size_t i = 1; i < files.size(); ++i) {
        const bool is_config = std::string_view(files[i].path).ends_with(".config");
        (is_config ? config : sub) += files[i].bytes;
        nsub += is_config ? 0 : 1;
    }
    return "stub " + bytes_text(files[0].bytes) + " + " + std::to_string(nsub) +
           (nsub == 1 ? " subfile " : " subfiles ") + bytes_text(sub) + " + config " + bytes_text(config);
}

} // namespace bench
