// The two symbols HDF5's plugin loader looks up (and the only ones this library exports).
#include "hdf5/hdf5_internals.hpp"
#include "plugin/callbacks.hpp"
#include "plugin/error_stack.hpp"
#include "plugin/mpi_family.hpp"

#include <H5PLextern.h>

extern "C" {

H5PLUGIN_DLL H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_VFD; }

// Refuses to hand out the class (the library then reports the plugin as unusable) when the
// running libhdf5 uses another MPI family, or is not a release this driver was tested with
// (hdf5_internals.hpp). The MPI check comes first: it makes no MPI call, and nothing else may run before it.
H5PLUGIN_DLL const void *H5PLget_plugin_info(void) {
    std::string problem = mpiio::mpi_family_mismatch();
    if (problem.empty())
        problem = mpiio::hdf5_internals::resolve();
    if (!problem.empty()) {
        mpiio::push_error("H5PLget_plugin_info", mpiio::Error(mpiio::ErrorKind::Unsupported, problem));
        return nullptr;
    }
    return &mpiio::driver_class();
}

} // extern "C"
