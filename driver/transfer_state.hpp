// The library's transfer state (HDF5's private API context, "H5CX"), read through one adapter.
//
// Why: HDF5 1.14 switches between collective and independent transfers, and hands the MPI
// datatypes of its own collective path to the driver, only inside the API context; the
// application's DXPL can say COLLECTIVE while the library means INDEPENDENT (a hang if trusted),
// and on the selection-I/O-off path `size` is a count of a derived datatype that exists only there
// (wrong bytes if ignored). See ../shared/design/hdf5-1.14-contract.md section 3. The built-in
// driver reads the same getters. Nothing else in the project touches HDF5 internals.
//
// All functions are local (no communication) and must be called on the library's thread, inside a
// driver callback, because they read the calling thread's top context.
#pragma once

#include <mpi.h>

#include <hdf5.h>

#include <string>

namespace mpiio::transfer_state {

// Resolves the private getters in the already-loaded libhdf5 and checks its version.
// Returns an empty string on success, otherwise why the plugin must not register.
// Idempotent; called once from the plugin entry point.
std::string resolve();

// true once resolve() succeeded.
bool ready();

// Collective or independent, as the library means it for the current operation.
H5FD_mpio_xfer_t xfer_mode();

// Collective MPI_File_*_all or individual MPI_File_* under a collective view.
H5FD_mpio_collective_opt_t collective_opt();

struct CollDatatypes {
    MPI_Datatype buffer = MPI_BYTE;
    MPI_Datatype file = MPI_BYTE;
};
// The memory and file datatypes of the library's own collective path (MPI_BYTE otherwise).
CollDatatypes coll_datatypes();

// true when the library asks for "rank 0 reads, then broadcasts" (an optimisation it decides).
bool rank0_bcast();

// true while the library flushes a file between its own barriers (lets truncate skip one).
bool file_flushing();

// "major.minor.release" of the running libhdf5, read without calling the HDF5 API.
std::string library_version();

} // namespace mpiio::transfer_state
