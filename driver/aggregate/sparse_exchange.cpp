// See sparse_exchange.hpp.
#include "aggregate/sparse_exchange.hpp"

#include "common/error.hpp"

#include <algorithm>
#include <thread>

namespace mpiio {

std::vector<WordMessage> sparse_exchange(MPI_Comm comm, std::span<const WordMessage> outgoing, int tag) {
    // Synchronous sends: one completes only once its message was received, so that a rank enters
    // the barrier when every rank it sent to has its message.
    std::vector<MPI_Request> sends(outgoing.size(), MPI_REQUEST_NULL);
    for (std::size_t i = 0; i < outgoing.size(); ++i)
        check_mpi(MPI_Issend(outgoing[i].words.data(), static_cast<int>(outgoing[i].words.size()),
                             MPI_INT64_T, outgoing[i].rank, tag, comm, &sends[i]),
                  "MPI_Issend (aggregation pieces)");
    std::vector<WordMessage> received;
    MPI_Request barrier = MPI_REQUEST_NULL;
    for (;;) {
        int arrived = 0;
        MPI_Status status;
        check_mpi(MPI_Iprobe(MPI_ANY_SOURCE, tag, comm, &arrived, &status),
                  "MPI_Iprobe (aggregation pieces)");
        if (arrived) {
            int count = 0;
            check_mpi(MPI_Get_count(&status, MPI_INT64_T, &count), "MPI_Get_count (aggregation pieces)");
            WordMessage m{status.MPI_SOURCE, std::vector<std::int64_t>(static_cast<std::size_t>(count))};
            check_mpi(
                MPI_Recv(m.words.data(), count, MPI_INT64_T, status.MPI_SOURCE, tag, comm, MPI_STATUS_IGNORE),
                "MPI_Recv (aggregation pieces)");
            received.push_back(std::move(m));
            continue;
        }
        if (barrier == MPI_REQUEST_NULL) {
            int sent = 0;
            check_mpi(MPI_Testall(static_cast<int>(sends.size()), sends.data(), &sent, MPI_STATUSES_IGNORE),
                      "MPI_Testall (aggregation pieces)");
            if (sent)
                check_mpi(MPI_Ibarrier(comm, &barrier), "MPI_Ibarrier (aggregation pieces)");
        } else {
            int done = 0;
            check_mpi(MPI_Test(&barrier, &done, MPI_STATUS_IGNORE), "MPI_Test (aggregation pieces)");
            if (done)
                break;
        }
        std::this_thread::yield(); // (ranks may share cores: the ones still sending need them)
    }
    std::sort(received.begin(), received.end(),
              [](const WordMessage &a, const WordMessage &b) { return a.rank < b.rank; });
    return received;
}

} // namespace mpiio
