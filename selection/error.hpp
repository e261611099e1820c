// Errors of the selection module. selection/ must not depend on driver/ code, so it has its own
// exception type; it derives from std::runtime_error, which the driver's callback trampolines
// already catch. The driver is expected to catch Error with kind() == NotMonotonic itself and fall
// back to per-piece I/O; every other kind is a real failure.
#pragma once

#include <stdexcept>
#include <string>

namespace mpiio::selection {

enum class ErrorKind {
    Hdf5,         // a public H5S call failed (HDF5 has pushed its own error stack entry)
    Mpi,          // an MPI datatype call failed
    Mismatch,     // file and memory selections select different numbers of elements
    NotMonotonic, // a file-side type would not be monotonically non-decreasing (duplicate points,
                  // overlapping pieces): the caller should fall back to another I/O path
    Unsupported,  // selection this module cannot describe (unlimited count, extent beyond 2^62 bytes)
    Internal,     // broken invariant
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string &message) : std::runtime_error(message), kind_(kind) {}
    ErrorKind kind() const noexcept { return kind_; }

private:
    ErrorKind kind_;
};

// Throws Error(Mpi) unless code == MPI_SUCCESS. Local.
void check_mpi(int code, const char *what);

// Throws Error(Hdf5) when an HDF5 call returned a negative value. Local.
template <typename T> inline T check_h5(T value, const char *what) {
    if (value < 0)
        throw Error(ErrorKind::Hdf5, std::string(what) + " failed");
    return value;
}

} // namespace mpiio::selection
