// The collective chunk I/O decision of parallel HDF5 (docs/decisions.md D6), as a pure function.
//
// HDF5 1.14 ignores its chunk knobs once the driver does selection I/O (it always behaves as
// linked-chunk); this module restores them for the mpiio driver. No MPI, no HDF5 calls: the
// caller gathers the facts (see what_to_gather; plan.hpp) and driver/ runs the plan's steps.
//
// Algorithm (precedence as in H5D__piece_io / H5D__obtain_mpio_mode, H5Dmpio.c):
//  1. An explicit choice (H5Pset_dxpl_mpio_chunk_opt or config chunk_opt=linked|multi) wins.
//  2. Otherwise, with a threshold T > 0 (H5Pset_dxpl_mpio_chunk_opt_num, config chunk_opt_num):
//     linked-chunk I/O when the average number of chunks per process (total chunk selections over
//     all ranks / number of ranks, integer division) is >= T, multi-chunk I/O otherwise. T = 0 (the
//     library's default) means linked-chunk without any communication.
//  3. In multi-chunk I/O each chunk touched by any rank is collective when the number of ranks
//     touching it exceeds max(1, nranks * R / 100) for the ratio R (H5Pset_dxpl_mpio_chunk_opt_ratio,
//     config chunk_opt_ratio, default 60), independent otherwise; R = 0 makes every chunk
//     collective. Chunks no rank touches take no part.
#pragma once

#include <cstdint>
#include <vector>

namespace mpiio::chunkio {

enum class Mode { Default, Linked, Multi };

struct Knobs {
    Mode mode = Mode::Default;
    unsigned linked_threshold = 0;  // average chunks per process for linked-chunk I/O (0: always)
    unsigned collective_ratio = 60; // percent of ranks that makes a chunk collective
};

// One chunk (or other piece) touched by at least one rank, in global address order.
struct ChunkUse {
    std::uint64_t address;
    int ranks; // how many ranks have a selection in it
};

enum class ChunkIo { Collective, Independent };

struct Plan {
    enum class Kind { Linked, Multi } kind = Kind::Linked;
    std::vector<ChunkIo> per_chunk; // Multi only: aligned with the ChunkUse list
};

// What the caller must gather before deciding, given the knobs.
enum class Gather {
    Nothing,           // linked-chunk, decided locally
    TotalCount,        // the sum over ranks of the number of chunks each selected
    PerChunkRankCount, // the global chunk list with the number of ranks per chunk
};
Gather what_to_gather(const Knobs &knobs);

// Step 2 only: with the total known, is the plan linked (true) or multi-chunk (false)?
bool linked_by_threshold(const Knobs &knobs, std::uint64_t total_chunk_selections, int nranks);

// The multi-chunk plan for a global chunk list.
Plan multi_chunk_plan(const Knobs &knobs, const std::vector<ChunkUse> &chunks, int nranks);

} // namespace mpiio::chunkio
