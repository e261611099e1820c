// Errors inside the driver travel as mpiio::Error exceptions and leave through the callback
// trampolines, which push them once onto HDF5's default error stack (after every RAII cleanup has
// run, because any HDF5 API call made during cleanup would clear the stack again).
#pragma once

#include <mpi.h>

#include <stdexcept>
#include <string>

namespace mpiio {

// What went wrong, as the minor message of the error pushed to HDF5.
enum class ErrorKind {
    Config,      // the config string or an argument is invalid
    Mpi,         // an MPI call failed
    OtherRank,   // a collective operation failed on another rank
    Io,          // short or failed transfer
    Unsupported, // a request this driver does not support
    Internal,    // anything else (allocation failure, broken invariant)
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string &message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const noexcept { return kind_; }

private:
    ErrorKind kind_;
};

// Text of an MPI error code, e.g. "MPI_ERR_NO_SUCH_FILE: no such file or directory".
std::string mpi_error_string(int code);

// Throws Error(Mpi, "<what> failed: <MPI error string>") unless code == MPI_SUCCESS.
inline void check_mpi(int code, const char *what) {
    if (code != MPI_SUCCESS)
        throw Error(ErrorKind::Mpi, std::string(what) + " failed: " + mpi_error_string(code));
}

// Pushes one error onto HDF5's default error stack under the driver's registered error class
// (registering it on first use). Local; never throws.
void push_error(const char *function, ErrorKind kind, const std::string &message) noexcept;

// Unregisters the error class (driver terminate).
void release_error_class() noexcept;

} // namespace mpiio
