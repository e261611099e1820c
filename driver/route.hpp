// The route of a collective transfer (ARCHITECTURE.md D12), decided from what every rank said in
// the transfer's one exchange. A pure function: identical inputs give the identical decision on
// every rank, which keeps the ranks' MPI calls matched.
#pragma once

#include "config.hpp"

#include <cstdint>
#include <span>

namespace mpiio::route {

// What each rank says: three words, {lo, hi, flags}; [lo, hi) is the file range the rank
// touches (lo == hi: nothing to move).
inline constexpr std::size_t kWords = 3;
enum Flag : std::int64_t {
    kContiguous = 1,         // the rank's file side is one contiguous range
    kIndependentCapable = 2, // its bytes can move with independent calls (no file view needed)
};

struct Decision {
    bool independent = false;   // every rank moves its own bytes with independent calls
    bool disjoint = true;       // no two ranks' ranges overlap (touching is fine)
    bool all_contiguous = true; // every rank's file side is one range (MPI I/O needs no view)
};

// `words`: kWords per rank, rank by rank. `individual_io`: the application asked for independent
// low-level calls under a collective transfer (H5Pset_dxpl_mpio_collective_opt INDIVIDUAL_IO).
// `overlap_limit` (at least 1): under `auto`, the ranks move their own bytes when their ranges
// add up to at most this many times the file range they cover together: 1 (writes) takes only
// disjoint ranges; reads pass config.read_overlap_limit (a rank reading on its own reads inside
// its own range only, so the ranks read at most that many times what MPI collective I/O would
// read once).
Decision decide(std::span<const std::int64_t> words, CollectiveRoute policy, bool individual_io,
                std::uint64_t overlap_limit);

} // namespace mpiio::route
