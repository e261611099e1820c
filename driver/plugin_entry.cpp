// The two symbols HDF5's plugin loader looks up (and the only ones this library exports).
#include "callbacks.hpp"
#include "error_stack.hpp"
#include "hdf5_internals.hpp"

#include <H5PLextern.h>

extern "C" {

H5PLUGIN_DLL H5PL_type_t H5PLget_plugin_type(void) { return H5PL_TYPE_VFD; }

// Refuses to hand out the class (the library then reports the plugin as unusable) when the
// running libhdf5 is not a release this driver was tested with.
H5PLUGIN_DLL const void *H5PLget_plugin_info(void) {
    const std::string problem = mpiio::hdf5_internals::resolve();
    if (!problem.empty()) {
        mpiio::push_error("H5PLget_plugin_info", mpiio::Error(mpiio::ErrorKind::Unsupported, problem));
        return nullptr;
    }
    return &mpiio::driver_class();
}

} // extern "C"
