// See comm_pool.hpp.
#include "file/comm_pool.hpp"

#include "common/error.hpp"
#include "common/mpi_handle.hpp"

#include <algorithm>
#include <vector>

namespace mpiio {
namespace {

// At most one communicator per group of ranks (the driver is used from one thread at a time:
// MPI_THREAD_SERIALIZED at most, docs/hdf5-facts.md section 3). Its capacity always has room for every
// communicator out in a file (g_out), so that returning one never allocates: a return that failed
// on one rank alone would break the pool's agreement (comm_pool.hpp). Never destroyed: at exit
// HDF5 may close files and terminate the driver after this library's static destructors ran.
std::vector<MPI_Comm> &g_kept = *new std::vector<MPI_Comm>();
std::size_t g_out = 0;

// Local. Whether `a` and `b` hold the same ranks in the same order.
bool congruent(MPI_Comm a, MPI_Comm b) {
    int result = MPI_UNEQUAL;
    return MPI_Comm_compare(a, b, &result) == MPI_SUCCESS && (result == MPI_IDENT || result == MPI_CONGRUENT);
}

} // namespace

void FileComm::release() noexcept {
    if (comm_ == MPI_COMM_NULL)
        return;
    MPI_Comm comm = std::exchange(comm_, MPI_COMM_NULL);
    --g_out;
    if (!mpi_usable())
        return;
    if (keep_ && std::none_of(g_kept.begin(), g_kept.end(), [&](MPI_Comm k) { return congruent(k, comm); })) {
        g_kept.push_back(comm); // within the capacity reserved when it was handed out
        return;
    }
    MPI_Comm_free(&comm);
}

FileComm file_comm_for(MPI_Comm parent) {
    int topology = MPI_UNDEFINED;
    check_mpi(MPI_Topo_test(parent, &topology), "MPI_Topo_test");
    const bool keep = topology == MPI_UNDEFINED; // the same on every rank: a property of the communicator
    if (keep)
        for (auto it = g_kept.begin(); it != g_kept.end(); ++it)
            if (congruent(*it, parent)) {
                const MPI_Comm comm = *it;
                g_kept.erase(it);
                ++g_out;
                return FileComm(comm, true);
            }
    // An allocation failure here leaves the other ranks in MPI_Comm_dup, as any failure of one rank
    // before the open's agreement does (the driver does not recover from running out of memory).
    g_kept.reserve(g_kept.size() + g_out + 1);
    MPI_Comm comm = MPI_COMM_NULL;
    check_mpi(MPI_Comm_dup(parent, &comm), "MPI_Comm_dup");
    ++g_out;
    FileComm file_comm(comm, keep);
    check_mpi(MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
    return file_comm;
}

void free_kept_file_comms() noexcept {
    if (mpi_usable())
        for (MPI_Comm &comm : g_kept)
            MPI_Comm_free(&comm);
    g_kept.clear();
}

int kept_file_comms() { return static_cast<int>(g_kept.size()); }

} // namespace mpiio
