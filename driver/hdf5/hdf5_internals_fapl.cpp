// Item 7 of hdf5_internals.hpp: the FAPL's communicator, info and config string as the list holds
// them.
//
// The public getter H5Pget_mpi_params hands out duplicates: MPI_Comm_dup is a collective call
// (a context id agreed among the ranks: two to three allreduces in Open MPI) and, with the API
// entry around it, about 12,000 instructions per H5Fopen. The driver duplicates the communicator
// itself only when it keeps no congruent one from an earlier file (comm_pool.hpp), so it reads the
// stored values without a copy (the built-in driver's open copies them with H5P_get,
// H5FDmpio.c:836-839), through the private functions the library exports (H5_DLL).
#include "hdf5/hdf5_internals.hpp"

#include <dlfcn.h>

namespace mpiio::hdf5_internals {
namespace {

// Declared in the uninstalled H5Iprivate.h:91 and H5Pprivate.h:168-184 (HDF5 1.14.5; the same in
// 1.14.6; Debian's 2.2.0 builds export them with these arguments, read from their machine code:
// H5P_object_verify, not used here, gained a third one in 2.x). H5P_genplist_t is opaque here:
// only pointers pass through.
struct H5P_genplist_t;
using ObjectVerify = void *(*)(hid_t, H5I_type_t);
using Peek = herr_t (*)(H5P_genplist_t *, const char *, void *);
using PeekConfig = const char *(*)(H5P_genplist_t *);

struct FaplFunctions {
    ObjectVerify object_verify = nullptr; // H5Iint.c:707 (the list of an id of a property list)
    Peek peek = nullptr;                  // H5Pint.c:4520 (no 'get' callback: no duplicate; fails
                                          // for a list without the property: not a FAPL)
    PeekConfig peek_config = nullptr;     // H5Pfapl.c:1564 (checks the FAPL class itself)
};

FaplFunctions g_fapl;

// The property names of H5Fprivate.h:284-285.
constexpr char kCommProperty[] = "mpi_params_comm";
constexpr char kInfoProperty[] = "mpi_params_info";

} // namespace

bool install_fapl_reader(void *libhdf5) {
    FaplFunctions fns;
    fns.object_verify = reinterpret_cast<ObjectVerify>(dlsym(libhdf5, "H5I_object_verify"));
    fns.peek = reinterpret_cast<Peek>(dlsym(libhdf5, "H5P_peek"));
    fns.peek_config = reinterpret_cast<PeekConfig>(dlsym(libhdf5, "H5P_peek_driver_config_str"));
    if (fns.object_verify == nullptr || fns.peek == nullptr || fns.peek_config == nullptr)
        return false; // the public getters keep answering: slower, never wrong
    g_fapl = fns;
    return true;
}

bool fapl_reader_installed() { return g_fapl.peek != nullptr; }

bool peek_fapl(hid_t fapl_id, FaplSettings &out) {
    if (g_fapl.peek == nullptr)
        return false;
    auto *plist = static_cast<H5P_genplist_t *>(g_fapl.object_verify(fapl_id, H5I_GENPROP_LST));
    if (plist == nullptr)
        return false;
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    if (g_fapl.peek(plist, kCommProperty, &comm) < 0 || g_fapl.peek(plist, kInfoProperty, &info) < 0)
        return false;
    out.comm = comm;
    out.info = info;
    out.config = g_fapl.peek_config(plist); // nullptr: no config string (or none readable)
    return true;
}

} // namespace mpiio::hdf5_internals
