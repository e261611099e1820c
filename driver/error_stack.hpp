// Errors leave the plugin only here: pushed once onto HDF5's default error stack under the
// driver's registered error class, with the source file and line where they were raised (after
// every RAII cleanup has run, because any HDF5 API call made during cleanup would clear the
// stack again). Local; never throws.
#pragma once

#include "common/error.hpp"

namespace mpiio {

// Pushes `error` (kind -> minor message, text, source location) for the callback `function`,
// registering the error class on first use.
void push_error(const char *function, const Error &error) noexcept;

// Unregisters the error class (driver terminate).
void release_error_class() noexcept;

} // namespace mpiio
