#include "executor.hpp"

#include "common/agreement.hpp"

#include <algorithm>
#include <exception>
#include <numeric>
#include <string>

namespace mpiio::chunkio {
namespace {

// Collective. The piece counts of every rank (one MPI_Allgather).
std::vector<int> gather_counts(MPI_Comm comm, std::size_t local_count, int nranks) {
    std::vector<int> counts(static_cast<std::size_t>(nranks));
    const int mine = static_cast<int>(local_count);
    check_mpi(MPI_Allgather(&mine, 1, MPI_INT, counts.data(), 1, MPI_INT, comm), "MPI_Allgather");
    return counts;
}

// Collective. Every rank's piece addresses (one MPI_Allgatherv), folded into the global list of
// chunks with the number of ranks touching each, in address order.
std::vector<ChunkUse> gather_chunk_uses(MPI_Comm comm, const std::vector<std::uint64_t> &local,
                                        const std::vector<int> &counts) {
    std::vector<int> displs(counts.size());
    std::exclusive_scan(counts.begin(), counts.end(), displs.begin(), 0);
    std::vector<std::uint64_t> all(static_cast<std::size_t>(displs.back() + counts.back()));
    check_mpi(MPI_Allgatherv(local.data(), static_cast<int>(local.size()), MPI_UINT64_T, all.data(),
                             counts.data(), displs.data(), MPI_UINT64_T, comm),
              "MPI_Allgatherv");
    std::sort(all.begin(), all.end());
    std::vector<ChunkUse> uses;
    for (std::uint64_t a : all) {
        if (!uses.empty() && uses.back().address == a)
            ++uses.back().ranks;
        else
            uses.push_back(ChunkUse{a, 1});
    }
    return uses;
}

Report run_multi(MPI_Comm comm, const Plan &plan, const std::vector<ChunkUse> &chunks,
                 const std::vector<std::uint64_t> &local, Transport &transport, std::exception_ptr held) {
    Report report;
    report.kind = Plan::Kind::Multi;
    // Independent chunks first (no communication); a failure there must not stop this rank from
    // joining the collective chunks, so it is held and agreed on at the end.
    std::vector<std::size_t> independent;
    std::size_t li = 0;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        const bool mine = li < local.size() && local[li] == chunks[c].address;
        if (plan.per_chunk[c] == ChunkIo::Independent) {
            ++report.independent_chunks;
            if (mine)
                independent.push_back(li);
        } else {
            ++report.collective_chunks;
        }
        if (mine)
            ++li;
    }
    if (!independent.empty() && !held) {
        try {
            transport.independent(independent);
        } catch (...) {
            held = std::current_exception();
        }
    }
    // One collective transfer per collective chunk, in global address order on every rank.
    li = 0;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        const bool mine = li < local.size() && local[li] == chunks[c].address;
        if (plan.per_chunk[c] == ChunkIo::Collective) {
            const std::size_t one[1] = {li};
            transport.collective(std::span<const std::size_t>(one, mine ? 1 : 0));
            ++report.collective_calls;
        }
        if (mine)
            ++li;
    }
    // The independent chunks had no agreement of their own: one for the whole operation.
    std::optional<Error> failure;
    if (held)
        failure = capture([&] { std::rethrow_exception(held); });
    agree(comm, failure);
    return report;
}

} // namespace

Report execute(MPI_Comm comm, const Knobs &knobs, const std::vector<std::uint64_t> &local_in,
               Transport &transport, std::exception_ptr local_failure) {
    static const std::vector<std::uint64_t> kNone;
    const std::vector<std::uint64_t> &local = local_failure ? kNone : local_in;
    int nranks = 1;
    check_mpi(MPI_Comm_size(comm, &nranks), "MPI_Comm_size");
    const Gather need = what_to_gather(knobs);
    bool linked = need == Gather::Nothing;
    std::vector<int> counts;
    if (!linked) {
        counts = gather_counts(comm, local.size(), nranks);
        if (need == Gather::TotalCount) {
            const auto total = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
            linked = linked_by_threshold(knobs, total, nranks);
        }
    }
    if (linked) {
        transport.collective_all(); // agrees on errors: a local failure was handed to the transport
        if (local_failure)
            std::rethrow_exception(local_failure);
        Report report;
        report.collective_calls = 1;
        return report;
    }
    const std::vector<ChunkUse> chunks = gather_chunk_uses(comm, local, counts);
    return run_multi(comm, multi_chunk_plan(knobs, chunks, nranks), chunks, local, transport, local_failure);
}

} // namespace mpiio::chunkio
