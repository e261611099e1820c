// A scratch file on MPI_COMM_SELF in /dev/shm holding given bytes: the file the unit tests of the
// engine and of MpiIo move bytes against, without HDF5.
#pragma once

#include <mpi.h>
#include <unistd.h>

#include <cstddef>
#include <string>
#include <vector>

namespace mpiio::test {

// Local. Creates `/dev/shm/mpiio-<tag>-<pid>.bin` holding `bytes` (fh: the open handle,
// MPI_FILE_NULL when it fails) and returns its path.
inline std::string create_self_file(const std::string &tag, const std::vector<char> &bytes, MPI_File *fh) {
    const std::string path = "/dev/shm/mpiio-" + tag + "-" + std::to_string(::getpid()) + ".bin";
    if (MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, fh) !=
        MPI_SUCCESS) {
        *fh = MPI_FILE_NULL;
        return path;
    }
    MPI_Status st;
    if (MPI_File_write_at(*fh, 0, bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, &st) !=
        MPI_SUCCESS) {
        MPI_File_close(fh);
        *fh = MPI_FILE_NULL;
    }
    return path;
}

} // namespace mpiio::test
