// Errors leave the plugin only here: pushed once onto HDF5's default error stack under the
// driver's registered error class, with the source file and line where they were raised (after
// every RAII cleanup has run, because any HDF5 API call made during cleanup would clear the
// stack again). Local; never throws.
#pragma once

#include "common/agreement.hpp"
#include "common/error.hpp"

#include <utility>

namespace mpiio {

// Pushes `error` (kind -> minor message, text, source location) for the callback `function`,
// registering the error class on first use.
void push_error(const char *function, const Error &error) noexcept;

// Runs `body`; if it throws, pushes the error once for `function` and returns false. Local; every
// C entry point of the driver is a call of this.
template <class Body> bool guarded(const char *function, Body &&body) noexcept {
    if (std::optional<Error> error = capture(std::forward<Body>(body))) {
        push_error(function, *error);
        return false;
    }
    return true;
}

// Unregisters the error class (driver terminate).
void release_error_class() noexcept;

} // namespace mpiio
