// MPI start-up for programs that never call MPI_Init themselves (serial tools such as h5dump run
// with HDF5_DRIVER=mpiio). The driver initialises MPI only then, and finalises only what it
// started, when HDF5 terminates the driver class.
#pragma once

namespace mpiio {

// Local. Initialises MPI if nobody has; throws Error if MPI was already finalised.
void ensure_mpi_initialized();

// Called from the class terminate callback: MPI_Finalize iff ensure_mpi_initialized() started MPI.
void finalize_mpi_if_ours() noexcept;

} // namespace mpiio
