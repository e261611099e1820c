// The transfers of one collective chunked operation: gathers exactly the global facts the knobs
// need, decides (decision.hpp), and lists the transfers for driver/ to make. Every rank gets a
// plan with the same steps in the same order (its own pieces in each), so their collective calls
// match. No call back into driver/.
#pragma once

#include "decision.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace mpiio::chunkio {

inline constexpr std::size_t kNoPiece = std::numeric_limits<std::size_t>::max();

// One transfer. Piece indices refer to this rank's pieces (the local address list).
struct Step {
    enum class Kind {
        CollectiveAll, // every rank, one collective transfer of all its pieces (linked-chunk I/O)
        CollectiveOne, // every rank, one collective transfer of one chunk: `piece`, or kNoPiece
        Independent,   // this rank alone: `pieces`, with no other rank taking part
    };
    Kind kind = Kind::CollectiveAll;
    std::size_t piece = kNoPiece;
    std::vector<std::size_t> pieces;
    bool collective() const { return kind != Kind::Independent; }
};

struct ChunkPlan {
    Plan::Kind kind = Plan::Kind::Linked;
    std::vector<Step> steps;
    std::uint64_t collective_chunks = 0;  // multi-chunk: chunks transferred collectively
    std::uint64_t independent_chunks = 0; // multi-chunk: chunks each rank transferred alone
    // Whether some collective step follows the independent one: if not, an error of the
    // independent step needs an agreement of its own at the end. The same on every rank.
    bool collective_after_independent() const;
};

// Collective over `comm`. `local_addresses`: this rank's pieces, ascending and unique; a rank
// whose preparation failed passes none (it joins every collective step with nothing). Linked-chunk
// I/O needs no communication (default knobs); the threshold costs one MPI_Allgather of counts,
// multi-chunk I/O one MPI_Allgatherv of every rank's chunk addresses too. Multi-chunk plans list
// the independent chunks first (no communication), then one collective step per collective chunk,
// in global address order.
ChunkPlan plan_chunk_io(MPI_Comm comm, const Knobs &knobs, const std::vector<std::uint64_t> &local_addresses);

} // namespace mpiio::chunkio
