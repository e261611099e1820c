// The MPI family check: the plugin and the libhdf5 it is loaded into must use the same MPI.
//
// Why: the plugin hands MPI handles (communicators, infos, datatypes) to libhdf5 and gets them
// back. Open MPI's handles are pointers to library objects, the MPICH family's (MPICH, Intel MPI,
// MVAPICH, Cray MPICH) are integers; a plugin built for one and loaded into an HDF5 linked against
// the other would crash inside MPI on its first call. Worse, the plugin's calls would resolve to
// the other library's functions (the application's libraries come first in symbol lookup), so the
// check must not call MPI at all through the plugin's own linkage.
#pragma once

#include <string>

namespace mpiio {

// Local; makes no MPI call through the plugin's own linkage. Returns an empty string when the
// libhdf5 mapped into this process is linked against the MPI family this plugin was built for,
// otherwise why the plugin must not register, naming both MPIs.
std::string mpi_family_mismatch();

} // namespace mpiio
