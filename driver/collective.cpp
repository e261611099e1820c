#include "collective.hpp"

#include <climits>
#include <string>

namespace mpiio {

void agree(MPI_Comm comm, const std::optional<Error> &local_error) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    const int mine = local_error ? rank : INT_MAX;
    int first = INT_MAX;
    check_mpi(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm), "MPI_Allreduce (error agreement)");
    if (first == INT_MAX)
        return;

    // Share the first failing rank's message so every rank reports the real cause.
    std::string message = local_error ? local_error->what() : std::string();
    int length = static_cast<int>(message.size());
    check_mpi(MPI_Bcast(&length, 1, MPI_INT, first, comm), "MPI_Bcast (error agreement)");
    message.resize(static_cast<size_t>(length));
    check_mpi(MPI_Bcast(message.data(), length, MPI_CHAR, first, comm), "MPI_Bcast (error agreement)");
    if (local_error)
        throw *local_error;
    throw Error(ErrorKind::OtherRank, "rank " + std::to_string(first) + " failed: " + message);
}

} // namespace mpiio
