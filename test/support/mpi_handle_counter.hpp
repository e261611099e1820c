// Live MPI handles created through the public MPI API by anything in the process (the driver,
// HDF5's built-in driver, the application), counted by PMPI wrappers in mpi_handle_counter.cpp.
// Link the program with ENABLE_EXPORTS so that libraries loaded later (the plugin, opened by HDF5
// with dlopen) resolve MPI_* to these wrappers too. MPI-internal objects made without the public
// API are not seen; resident memory covers those.
#pragma once

#include <string>

namespace mpiio_test {

struct MpiHandleCounts {
    long comms = 0;   // MPI_Comm_dup/split/create/... minus MPI_Comm_free
    long types = 0;   // derived datatypes created minus MPI_Type_free
    long infos = 0;   // MPI_Info_create/dup, MPI_File_get_info, MPI_Comm_get_info minus MPI_Info_free
    long groups = 0;  // MPI_Comm_group, MPI_Group_incl/excl/... minus MPI_Group_free
    long files = 0;   // successful MPI_File_open minus MPI_File_close
    long created = 0; // handles of any kind created since the start (to prove the wrappers run)

    bool same_live(const MpiHandleCounts &o) const {
        return comms == o.comms && types == o.types && infos == o.infos && groups == o.groups &&
               files == o.files;
    }
    std::string text() const;
};

// This process's counts (local).
MpiHandleCounts mpi_handle_counts();

} // namespace mpiio_test
