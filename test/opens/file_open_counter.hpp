// MPI_File_open calls made by anything in the process (the application, HDF5's built-in driver,
// the plugin), counted by the PMPI wrapper in file_open_counter.cpp. The program links with
// ENABLE_EXPORTS so that the plugin, which HDF5 loads with dlopen, calls the wrapper too.
#pragma once

namespace mpiio_test {

struct FileOpenCounts {
    long calls = 0;      // MPI_File_open calls, failed ones included
    long self_calls = 0; // of them on MPI_COMM_SELF itself (the plugin's own handle)
};

// This process's counts since it started. Local.
FileOpenCounts file_open_counts();

} // namespace mpiio_test
