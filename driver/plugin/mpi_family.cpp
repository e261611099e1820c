// See mpi_family.hpp for why this file exists.
#include "plugin/mpi_family.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <dlfcn.h>

#include <cstring>

namespace {

#define MPIIO_STRINGIFY2(x) #x
#define MPIIO_STRINGIFY(x) MPIIO_STRINGIFY2(x)

enum class Family { OpenMpi, Mpich, OtherMpi, NoMpi };

// The family this plugin was compiled for, from the macros of the mpi.h it was compiled with.
#if defined(OPEN_MPI)
constexpr Family kBuiltFamily = Family::OpenMpi;
constexpr const char *kBuiltName = "Open MPI " MPIIO_STRINGIFY(OMPI_MAJOR_VERSION) "." MPIIO_STRINGIFY(
    OMPI_MINOR_VERSION) "." MPIIO_STRINGIFY(OMPI_RELEASE_VERSION);
#elif defined(MPICH_VERSION)
constexpr Family kBuiltFamily = Family::Mpich;
constexpr const char *kBuiltName = "MPICH " MPICH_VERSION " (MPICH family)";
#else
#error "mpiio-vfd supports Open MPI and the MPICH family (MPICH, Intel MPI, MVAPICH, Cray MPICH)"
#endif

const char *family_name(Family f) {
    switch (f) {
    case Family::OpenMpi:
        return "Open MPI";
    case Family::Mpich:
        return "an MPICH-family MPI";
    case Family::OtherMpi:
        return "an MPI that is neither Open MPI nor MPICH-family";
    case Family::NoMpi:
        break;
    }
    return "no MPI (a serial HDF5)";
}

// The libhdf5 (or the executable that links it) mapped into this process; a dlsym on this handle
// searches it and its own dependencies, i.e. the MPI library libhdf5 itself calls.
void *loaded_libhdf5(std::string &path) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void *>(&H5open), &info) == 0 || info.dli_fname == nullptr)
        return nullptr;
    path = info.dli_fname;
    return dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
}

// Each family exports a symbol the other does not: Open MPI's predefined-object storage, and
// MPICH's internal error constructor (shared by its derivatives).
Family family_of(void *lib) {
    if (dlsym(lib, "ompi_mpi_comm_world") != nullptr)
        return Family::OpenMpi;
    if (dlsym(lib, "MPIR_Err_create_code") != nullptr)
        return Family::Mpich;
    if (dlsym(lib, "MPI_Init") != nullptr)
        return Family::OtherMpi;
    return Family::NoMpi;
}

// "<first line of MPI_Get_library_version>, <library file>" of the MPI libhdf5 calls.
// MPI_Get_library_version may be called before MPI_Init (MPI-3.0 section 8.1.1); it is called
// through libhdf5's MPI, never the plugin's.
std::string describe_mpi_of(void *lib) {
    std::string text;
    using GetVersion = int (*)(char *, int *);
    if (auto get = reinterpret_cast<GetVersion>(dlsym(lib, "MPI_Get_library_version"))) {
        // Larger than any family's MPI_MAX_LIBRARY_VERSION_STRING (Open MPI 256, MPICH 8192).
        static char buffer[16384];
        int length = 0;
        if (get(buffer, &length) == 0 && length > 0 && length < static_cast<int>(sizeof buffer)) {
            buffer[length] = '\0';
            text.assign(buffer, std::strcspn(buffer, "\n"));
            for (char &c : text) // MPICH's "MPICH Version:\t4.0.2"
                if (c == '\t')
                    c = ' ';
            if (text.size() > 80)
                text = text.substr(0, 77) + "...";
        }
    }
    Dl_info info{};
    void *init = dlsym(lib, "MPI_Init");
    if (init != nullptr && dladdr(init, &info) != 0 && info.dli_fname != nullptr)
        text += (text.empty() ? "" : ", ") + std::string(info.dli_fname);
    return text;
}

} // namespace

namespace mpiio {

std::string mpi_family_mismatch() {
    std::string hdf5_path;
    void *lib = loaded_libhdf5(hdf5_path);
    if (lib == nullptr)
        return {}; // cannot tell; the version check that follows reports a missing libhdf5
    const Family found = family_of(lib);
    std::string message;
    if (found != kBuiltFamily) {
        message = std::string("mpiio " MPIIO_VFD_VERSION " was built for ") + kBuiltName + " but libhdf5 (" +
                  hdf5_path + ") uses " + family_name(found);
        if (found != Family::NoMpi)
            message += " (" + describe_mpi_of(lib) + ")";
        message += ": MPI handles of one cannot be passed to the other. Use the mpiio plugin built "
                   "against the MPI this HDF5 was built with (cmake -DHDF5_ROOT=<this HDF5> "
                   "-DMPI_HOME=<its MPI>).";
    }
    dlclose(lib); // the library stays mapped: the application holds it
    return message;
}

} // namespace mpiio
