// The one error type of mpiio-vfd, shared by every layer (docs/decisions.md D13).
//
// Errors travel as exceptions inside the plugin and leave it only through the callback
// trampolines (driver/plugin/callbacks.cpp), which push them once onto HDF5's error stack with the
// source file and line where they were raised. Every function here is local (no communication).
#pragma once

#include <mpi.h>

#include <source_location>
#include <stdexcept>
#include <string>

namespace mpiio {

// The single table of error kinds: X(enumerator, minor message on the HDF5 error stack).
#define MPIIO_ERROR_KINDS(X)                                                                                 \
    X(Config, "invalid driver configuration")                                                                \
    X(Mpi, "MPI call failed")                                                                                \
    X(Hdf5, "HDF5 call failed")                                                                              \
    X(OtherRank, "failed on another rank")                                                                   \
    X(Io, "I/O transfer failed")                                                                             \
    X(Selection, "invalid or inconsistent selection")                                                        \
    X(NotMonotonic, "file selection is not in ascending order")                                              \
    X(Unsupported, "unsupported request")                                                                    \
    X(Internal, "internal error")

// NotMonotonic is a signal inside the plugin (a file type would not be ascending: duplicate
// points, overlapping pieces); callers catch it and fall back to byte runs.
enum class ErrorKind {
#define MPIIO_ERROR_KIND_ENUM(name, text) name,
    MPIIO_ERROR_KINDS(MPIIO_ERROR_KIND_ENUM)
#undef MPIIO_ERROR_KIND_ENUM
};

// The minor message of `kind` ("MPI call failed", ...).
const char *error_kind_text(ErrorKind kind) noexcept;

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string &message,
          std::source_location where = std::source_location::current())
        : std::runtime_error(message), kind_(kind), where_(where) {}
    ErrorKind kind() const noexcept { return kind_; }
    // Where the error was raised (file:line on the HDF5 error stack).
    const std::source_location &where() const noexcept { return where_; }

private:
    ErrorKind kind_;
    std::source_location where_;
};

// Text of an MPI error code, e.g. "MPI_ERR_NO_SUCH_FILE: no such file or directory".
std::string mpi_error_string(int code);

// Throws Error(Mpi, "<what> failed: <MPI error string>") unless code == MPI_SUCCESS.
inline void check_mpi(int code, const char *what,
                      std::source_location where = std::source_location::current()) {
    if (code != MPI_SUCCESS)
        throw Error(ErrorKind::Mpi, std::string(what) + " failed: " + mpi_error_string(code), where);
}

// Throws Error(Hdf5, "<what> failed") when an HDF5 call returned a negative value (HDF5 has
// pushed its own entry onto the error stack); returns the value otherwise.
template <typename T>
inline T check_h5(T value, const char *what, std::source_location where = std::source_location::current()) {
    if (value < 0)
        throw Error(ErrorKind::Hdf5, std::string(what) + " failed", where);
    return value;
}

} // namespace mpiio
