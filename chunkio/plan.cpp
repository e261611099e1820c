#include "plan.hpp"

#include "common/error.hpp"

#include <algorithm>
#include <numeric>

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

// Local. The steps of a multi-chunk plan for this rank.
ChunkPlan multi_chunk_steps(const Plan &decided, const std::vector<ChunkUse> &chunks,
                            const std::vector<std::uint64_t> &local) {
    ChunkPlan out;
    out.kind = Plan::Kind::Multi;
    Step independent{Step::Kind::Independent, kNoPiece, {}};
    std::vector<Step> collective;
    std::size_t li = 0;
    for (std::size_t c = 0; c < chunks.size(); ++c) {
        const bool mine = li < local.size() && local[li] == chunks[c].address;
        if (decided.per_chunk[c] == ChunkIo::Independent) {
            ++out.independent_chunks;
            if (mine)
                independent.pieces.push_back(li);
        } else {
            ++out.collective_chunks;
            collective.push_back(Step{Step::Kind::CollectiveOne, mine ? li : kNoPiece, {}});
        }
        if (mine)
            ++li;
    }
    out.steps.push_back(std::move(independent));
    std::move(collective.begin(), collective.end(), std::back_inserter(out.steps));
    return out;
}

} // namespace

bool ChunkPlan::collective_after_independent() const {
    bool independent_seen = false;
    for (const Step &s : steps) {
        if (!s.collective())
            independent_seen = true;
        else if (independent_seen)
            return true;
    }
    return !independent_seen; // no independent step: nothing waits for an agreement
}

ChunkPlan plan_chunk_io(MPI_Comm comm, const Knobs &knobs, const std::vector<std::uint64_t> &local) {
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
        ChunkPlan out;
        out.steps.push_back(Step{Step::Kind::CollectiveAll, kNoPiece, {}});
        return out;
    }
    const std::vector<ChunkUse> chunks = gather_chunk_uses(comm, local, counts);
    return multi_chunk_steps(multi_chunk_plan(knobs, chunks, nranks), chunks, local);
}

} // namespace mpiio::chunkio
