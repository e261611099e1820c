#include "decision.hpp"

#include <algorithm>

namespace mpiio::chunkio {

Gather what_to_gather(const Knobs &knobs) {
    switch (knobs.mode) {
    case Mode::Linked:
        return Gather::Nothing;
    case Mode::Multi:
        return Gather::PerChunkRankCount;
    case Mode::Default:
        break;
    }
    return knobs.linked_threshold == 0 ? Gather::Nothing : Gather::TotalCount;
}

bool linked_by_threshold(const Knobs &knobs, std::uint64_t total_chunk_selections, int nranks) {
    if (knobs.linked_threshold == 0)
        return true;
    const std::uint64_t average = total_chunk_selections / static_cast<std::uint64_t>(std::max(nranks, 1));
    return average >= knobs.linked_threshold;
}

Plan multi_chunk_plan(const Knobs &knobs, const std::vector<ChunkUse> &chunks, int nranks) {
    Plan plan;
    plan.kind = Plan::Kind::Multi;
    plan.per_chunk.reserve(chunks.size());
    const unsigned threshold = static_cast<unsigned>(std::max(nranks, 0)) * knobs.collective_ratio / 100;
    for (const ChunkUse &c : chunks) {
        const bool collective =
            knobs.collective_ratio == 0 || static_cast<unsigned>(c.ranks) > std::max(1u, threshold);
        plan.per_chunk.push_back(collective ? ChunkIo::Collective : ChunkIo::Independent);
    }
    return plan;
}

} // namespace mpiio::chunkio
