// The driver class HDF5 registers: every callback is a noexcept trampoline into the C++ code.
#pragma once

#include <H5FDdevelop.h>

namespace mpiio {

// The class table (name "mpiio", value H5FD_MPIIO_VALUE). Static storage; HDF5 copies it.
const H5FD_class_t &driver_class();

// The feature flags reported by query, with or without a file (HDF5 asks both ways).
unsigned long feature_flags();

} // namespace mpiio
