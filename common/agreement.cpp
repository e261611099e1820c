#include "common/agreement.hpp"

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>

namespace mpiio {
[[noreturn]] void raise_agreed_failure(MPI_Comm comm, int first, const std::optional<Error> &local_error) {
    std::string message = local_error ? local_error->what() : std::string();
    int length = static_cast<int>(message.size());
    check_mpi(MPI_Bcast(&length, 1, MPI_INT, first, comm), "MPI_Bcast (error agreement)");
    message.resize(static_cast<size_t>(length));
    check_mpi(MPI_Bcast(message.data(), length, MPI_CHAR, first, comm), "MPI_Bcast (error agreement)");
    if (local_error)
        throw *local_error;
    throw Error(ErrorKind::OtherRank, "rank " + std::to_string(first) + " failed: " + message);
}

void agree(MPI_Comm comm, const std::optional<Error> &local_error) {
    allreduce_max_agreeing(comm, {}, local_error); // the agreement word alone
}

void allgather_agreeing(MPI_Comm comm, std::span<const std::int64_t> mine,
                        const std::optional<Error> &local_error, std::vector<std::int64_t> &all) {
    int nranks = 1;
    check_mpi(MPI_Comm_size(comm, &nranks), "MPI_Comm_size");
    const size_t width = mine.size() + 1; // the words, then the error flag
    std::int64_t send[16];
    if (width > std::size(send))
        throw Error(ErrorKind::Internal, "allgather_agreeing: too many words per rank");
    std::copy(mine.begin(), mine.end(), send);
    send[mine.size()] = local_error ? 1 : 0;
    all.resize(width * static_cast<size_t>(nranks));
    check_mpi(MPI_Allgather(send, static_cast<int>(width), MPI_INT64_T, all.data(), static_cast<int>(width),
                            MPI_INT64_T, comm),
              "MPI_Allgather (exchange and error agreement)");
    for (int r = 0; r < nranks; ++r)
        if (all[static_cast<size_t>(r) * width + mine.size()] != 0)
            raise_agreed_failure(comm, r, local_error);
    // Drop the flags so callers see `mine.size()` words per rank.
    size_t out = 0;
    for (int r = 0; r < nranks; ++r)
        for (size_t w = 0; w < mine.size(); ++w)
            all[out++] = all[static_cast<size_t>(r) * width + w];
    all.resize(out);
}

void allreduce_max_agreeing(MPI_Comm comm, std::span<std::int64_t> words,
                            const std::optional<Error> &local_error) {
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    std::int64_t send[16], result[16];
    const size_t width = words.size() + 1; // the words, then the failing-rank word
    if (width > std::size(send))
        throw Error(ErrorKind::Internal, "allreduce_max_agreeing: too many words");
    std::copy(words.begin(), words.end(), send);
    // The maximum of INT64_MAX - rank over the failing ranks names the lowest one.
    send[words.size()] = local_error ? INT64_MAX - rank : INT64_MIN;
    check_mpi(MPI_Allreduce(send, result, static_cast<int>(width), MPI_INT64_T, MPI_MAX, comm),
              "MPI_Allreduce (exchange and error agreement)");
    std::copy(result, result + words.size(), words.begin());
    if (result[words.size()] != INT64_MIN)
        raise_agreed_failure(comm, static_cast<int>(INT64_MAX - result[words.size()]), local_error);
}

void bcast_from_rank0_agreeing(MPI_Comm comm, std::span<std::int64_t> words,
                               const std::optional<Error> &rank0_error) {
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    std::int64_t buffer[16];
    const size_t width = words.size() + 1; // the words, then whether rank 0 failed
    if (width > std::size(buffer))
        throw Error(ErrorKind::Internal, "bcast_from_rank0_agreeing: too many words");
    std::copy(words.begin(), words.end(), buffer);
    buffer[words.size()] = rank == 0 && rank0_error ? 1 : 0;
    check_mpi(MPI_Bcast(buffer, static_cast<int>(width), MPI_INT64_T, 0, comm),
              "MPI_Bcast (rank 0's words and its outcome)");
    std::copy(buffer, buffer + words.size(), words.begin());
    if (buffer[words.size()] != 0)
        raise_agreed_failure(comm, 0, rank == 0 ? rank0_error : std::nullopt);
}

} // namespace mpiio
