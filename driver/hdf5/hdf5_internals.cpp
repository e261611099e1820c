// Items 1 and 2 of hdf5_internals.hpp: the context getters and the version guard.
#include "hdf5/hdf5_internals.hpp"

#include <dlfcn.h>

#include <cstdio>
#include <cstring>

// The getters are exported by libhdf5 (H5_DLL) but declared only in the uninstalled
// H5CXprivate.h, so their signatures are restated here (HDF5 1.14: H5CXprivate.h:91-111; the same
// declarations in the 2.x development tree, and exported by Debian's 2.2.0 builds,
// libhdf5_openmpi.so.320 and libhdf5_mpich.so.320, under the symbol version HDF5_MPI_1.10.3).
namespace {

using GetXferMode = herr_t (*)(H5FD_mpio_xfer_t *);
using GetCollDatatypes = herr_t (*)(MPI_Datatype *, MPI_Datatype *);
using GetCollOpt = herr_t (*)(H5FD_mpio_collective_opt_t *);
using GetBool = bool (*)();

struct Getters {
    GetXferMode xfer_mode = nullptr;
    GetCollDatatypes coll_datatypes = nullptr;
    GetCollOpt coll_opt = nullptr;
    GetBool rank0_bcast = nullptr;
    GetBool file_flushing = nullptr;
};

Getters g_getters;
bool g_ready = false;
std::string g_version;

// The libhdf5 that is already mapped into this process: the one that defines H5open.
void *loaded_libhdf5() {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&H5open), &info) == 0 || info.dli_fname == nullptr)
        return nullptr;
    return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

template <class Fn> bool resolve_one(void *lib, const char *name, Fn &out, std::string &missing) {
    out = reinterpret_cast<Fn>(dlsym(lib, name));
    if (out == nullptr) {
        if (!missing.empty())
            missing += ", ";
        missing += name;
    }
    return out != nullptr;
}

} // namespace

namespace mpiio::hdf5_internals {

std::string library_version() {
    if (!g_version.empty())
        return g_version;
    // H5get_libversion would be simplest, but this runs while the library may still be
    // initialising itself (HDF5_DRIVER loads the plugin from H5P's init), so read the version
    // string the library stores ("HDF5 library version: 1.14.5 ...") instead.
    void *lib = loaded_libhdf5();
    if (lib == nullptr)
        return {};
    const char *info = static_cast<const char *>(dlsym(lib, "H5_lib_vers_info_g"));
    unsigned maj = 0, min = 0, rel = 0;
    // The first "N.N.N" in the text (the "5" of "HDF5" is not one).
    for (const char *p = info; p != nullptr && *p != '\0'; ++p) {
        if (*p >= '0' && *p <= '9' && std::sscanf(p, "%u.%u.%u", &maj, &min, &rel) == 3) {
            g_version = std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
            break;
        }
    }
    dlclose(lib);
    return g_version;
}

std::span<const char *const> accepted_versions() {
    // Each release here has passed the suites of its CI stages (docs/stacks.md): 1.14.5 and 1.14.6
    // built by the project (and Debian 13's 1.14.5), 2.2.0 as Debian unstable builds it.
    // h5plugin.json's "hdf5_versions" lists the same releases (unit.hdf5_internals checks).
    static constexpr const char *kTested[] = {"1.14.5", "1.14.6", "2.2.0"};
    return kTested;
}

std::string foreign_libhdf5() {
    // The program's own libhdf5 is the first H5open in the global scope; the plugin's references
    // bind to the libhdf5 it was linked against. They differ when a program linked against another
    // HDF5 build loads the plugin: Debian's h5dump (libhdf5_serial) with HDF5_DRIVER=mpiio maps
    // libhdf5_openmpi beside its own, and the library symbol versions (HDF5_MPI_* against
    // HDF5_SERIAL_*) bind the plugin to that second, never-initialised copy.
    const void *program_h5open = dlsym(RTLD_DEFAULT, "H5open");
    const void *own_h5open = reinterpret_cast<const void *>(&H5open);
    if (program_h5open == nullptr || program_h5open == own_h5open)
        return {};
    Dl_info program{}, own{};
    const bool named = dladdr(program_h5open, &program) != 0 && dladdr(own_h5open, &own) != 0 &&
                       program.dli_fname != nullptr && own.dli_fname != nullptr;
    return "the program runs libhdf5 " + std::string(named ? program.dli_fname : "(unknown)") +
           " but mpiio is linked against " + (named ? own.dli_fname : "another one") +
           ": one process cannot use two HDF5 libraries (a serial tool cannot load the MPI-IO "
           "driver; use the plugin with programs linked against the parallel HDF5 it was built for)";
}

std::string resolve() {
    if (g_ready)
        return {};
    if (std::string other = foreign_libhdf5(); !other.empty())
        return other;
    const std::string version = library_version();
    std::string tested;
    bool accepted = false;
    for (const char *v : accepted_versions()) {
        accepted = accepted || version == v;
        tested += (tested.empty() ? "" : ", ") + std::string(v);
    }
    if (!accepted)
        return "mpiio " MPIIO_VFD_VERSION " supports HDF5 " + tested +
               " (the releases it is tested with) but the running library is " +
               (version.empty() ? std::string("of unknown version") : version);

    void *lib = loaded_libhdf5();
    if (lib == nullptr)
        return "cannot locate the loaded libhdf5 (dladdr/dlopen failed)";
    std::string missing;
    resolve_one(lib, "H5CX_get_io_xfer_mode", g_getters.xfer_mode, missing);
    resolve_one(lib, "H5CX_get_mpi_coll_datatypes", g_getters.coll_datatypes, missing);
    resolve_one(lib, "H5CX_get_mpio_coll_opt", g_getters.coll_opt, missing);
    resolve_one(lib, "H5CX_get_mpio_rank0_bcast", g_getters.rank0_bcast, missing);
    resolve_one(lib, "H5CX_get_mpi_file_flushing", g_getters.file_flushing, missing);
    if (missing.empty()) { // both optional: the public API answers without them
        install_dataspace_reader(lib);
        install_fapl_reader(lib);
    }
    dlclose(lib); // the library stays mapped: the application holds it
    if (!missing.empty())
        return "libhdf5 " + version + " lacks the transfer-state getters " + missing +
               " (is it a parallel build?)";
    g_ready = true;
    return {};
}

bool ready() { return g_ready; }

H5FD_mpio_xfer_t xfer_mode() {
    H5FD_mpio_xfer_t mode = H5FD_MPIO_INDEPENDENT;
    if (g_getters.xfer_mode == nullptr || g_getters.xfer_mode(&mode) < 0)
        return H5FD_MPIO_INDEPENDENT;
    return mode;
}

H5FD_mpio_collective_opt_t collective_opt() {
    H5FD_mpio_collective_opt_t opt = H5FD_MPIO_COLLECTIVE_IO;
    if (g_getters.coll_opt == nullptr || g_getters.coll_opt(&opt) < 0)
        return H5FD_MPIO_COLLECTIVE_IO;
    return opt;
}

CollDatatypes coll_datatypes() {
    CollDatatypes types;
    if (g_getters.coll_datatypes == nullptr || g_getters.coll_datatypes(&types.buffer, &types.file) < 0)
        return CollDatatypes{};
    return types;
}

bool rank0_bcast() { return g_getters.rank0_bcast != nullptr && g_getters.rank0_bcast(); }

bool file_flushing() { return g_getters.file_flushing != nullptr && g_getters.file_flushing(); }

} // namespace mpiio::hdf5_internals
