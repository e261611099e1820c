// The PMPI wrapper behind file_open_counter.hpp: counts each MPI_File_open call, then makes it.
#include "file_open_counter.hpp"

#include <mpi.h>

#include <atomic>

namespace {

std::atomic<long> g_calls{0}, g_self_calls{0};

} // namespace

namespace mpiio_test {

FileOpenCounts file_open_counts() { return FileOpenCounts{g_calls.load(), g_self_calls.load()}; }

} // namespace mpiio_test

extern "C" int MPI_File_open(MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh) {
    ++g_calls;
    // Only MPI_COMM_SELF itself compares identical: a file communicator duplicated from it (a FAPL
    // on MPI_COMM_SELF) is congruent, not identical.
    int same = MPI_UNEQUAL;
    if (PMPI_Comm_compare(comm, MPI_COMM_SELF, &same) == MPI_SUCCESS && same == MPI_IDENT)
        ++g_self_calls;
    return PMPI_File_open(comm, filename, amode, info, fh);
}
