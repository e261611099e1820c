#include "stats.hpp"

#include "error.hpp"

#include <array>
#include <cstdio>

namespace mpiio {

void print_stats_summary(MPI_Comm comm, int rank, const std::string &file_name, const Stats &mine) {
    const std::array<unsigned long long, 10> counts = {
        mine.independent_reads, mine.independent_writes, mine.collective_reads,
        mine.collective_writes, mine.rank0_bcast_reads,  mine.bytes_read,
        mine.bytes_written,     mine.vector_calls,       mine.syncs,
        mine.truncates};
    std::array<unsigned long long, 10> sums{};
    double max_seconds = 0;
    int size = 1;
    MPI_Comm_size(comm, &size);
    check_mpi(MPI_Reduce(counts.data(), sums.data(), static_cast<int>(counts.size()), MPI_UNSIGNED_LONG_LONG,
                         MPI_SUM, 0, comm),
              "MPI_Reduce (statistics)");
    check_mpi(MPI_Reduce(&mine.seconds_in_mpi_io, &max_seconds, 1, MPI_DOUBLE, MPI_MAX, 0, comm),
              "MPI_Reduce (statistics)");
    if (rank != 0)
        return;
    std::fprintf(stderr,
                 "mpiio stats: %s (%d ranks, sums over ranks)\n"
                 "  reads:  %llu independent, %llu collective, %llu rank0-bcast, %llu bytes\n"
                 "  writes: %llu independent, %llu collective, %llu bytes\n"
                 "  vector callbacks %llu, MPI_File_sync %llu, MPI_File_set_size %llu\n"
                 "  collective chunk I/O: %llu linked ops, %llu multi-chunk ops (%llu collective, "
                 "%llu independent chunks)\n"
                 "  max seconds in MPI-IO data calls on one rank: %.6f\n",
                 file_name.c_str(), size, sums[0], sums[2], sums[4], sums[5], sums[1], sums[3], sums[6],
                 sums[7], sums[8], sums[9],
                 // decisions are identical on every rank: report them once
                 static_cast<unsigned long long>(mine.linked_chunk_ops),
                 static_cast<unsigned long long>(mine.multi_chunk_ops),
                 static_cast<unsigned long long>(mine.collective_chunks),
                 static_cast<unsigned long long>(mine.independent_chunks), max_seconds);
}

} // namespace mpiio
