// The route of a collective transfer (docs/decisions.md D12), decided from what the ranks said about
// their extents. Pure functions: identical inputs give the identical decision on every rank, which
// keeps the ranks' MPI calls matched.
//
// Two forms of what the ranks say (collective_engine.cpp exchanges them):
//  - the summary: every rank's extent folded, in rank order, into a fixed number of words by one
//    MPI_Allreduce (combine() is associative, not commutative). Whatever the number of ranks P, each
//    rank sends and receives the same few words; it decides the common cases (extents that ascend
//    with the rank, extents that certainly overlap) on its own (decide_from_summary);
//  - the full exchange: every rank's {lo, hi, flags} (an MPI_Allgather, 24 x P bytes per rank),
//    needed only when the summary cannot decide (decide). Both give the same decision.
#pragma once

#include "settings/config.hpp"

#include <climits>
#include <cstdint>
#include <optional>
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
    // The aggregating route is asked for (CollectiveRoute::Aggregate) and possible (no rank needs a
    // file view, the application did not ask for independent calls): the transfer takes it.
    bool aggregate = false;
};

// `policy`: what policy_for() gives (aggregate_interleaved is resolved there, per transfer).
// `words`: kWords per rank, rank by rank. `individual_io`: the application asked for independent
// low-level calls under a collective transfer (H5Pset_dxpl_mpio_collective_opt INDIVIDUAL_IO).
// `overlap_limit` (at least 1): under `auto`, the ranks move their own bytes when their ranges
// add up to at most this many times the file range they cover together: 1 (writes) takes only
// disjoint ranges; reads pass config.read_overlap_limit (a rank reading on its own reads inside
// its own range only, so the ranks read at most that many times what MPI collective I/O would
// read once).
Decision decide(std::span<const std::int64_t> words, CollectiveRoute policy, bool individual_io,
                std::uint64_t overlap_limit);

// What a run of consecutive ranks' extents are, as far as the route needs to know. A rank with
// nothing to move has no extent (`any` 0). Plain int64 words so that MPI can reduce them as one
// contiguous datatype.
struct ExtentSummary {
    std::int64_t any = 0;      // some rank of the run touches bytes
    std::int64_t ordered = 1;  // their extents ascend in rank order without overlapping
    std::int64_t first_lo = 0; // the first non-empty extent's lo, in rank order
    std::int64_t last_hi = 0;  // the last non-empty extent's hi
    std::int64_t min_lo = 0;   // over the non-empty extents
    std::int64_t max_hi = 0;
    std::int64_t total = 0;               // the extents' lengths added up (saturating)
    std::int64_t longest = 0;             // the longest extent
    std::int64_t shortest = INT64_MAX;    // the shortest non-empty extent
    std::int64_t all_contiguous = 1;      // every non-empty extent is one contiguous range
    std::int64_t all_capable = 1;         // every non-empty extent can move with independent calls
    std::int64_t failed_rank = INT64_MAX; // the lowest rank that failed to prepare
    // The highest MpiIo::written_end of the ranks (set by the caller, not by summarize): no rank
    // ever wrote a byte at or past it, so a write's holes there are zeros without reading them back.
    std::int64_t written_end = 0;
    // Whether some rank changed or synced the file since the last aggregated transfer (set by the
    // caller): the aggregators then drop their copies of earlier transfers (window_cache.hpp).
    std::int64_t changed = 0;
    // The bytes the ranks move, added up (saturating; set by the caller, not by summarize).
    std::int64_t bytes = 0;
    // Whether some rank handed the file's MPI handle to the application (set by the caller): from
    // then on the file keeps no copies and no deferred writes (collective_engine.hpp).
    std::int64_t handle_out = 0;
};
inline constexpr int kSummaryWords = static_cast<int>(sizeof(ExtentSummary) / sizeof(std::int64_t));

// One rank's summary: [lo, hi) and its flags, `failed` when its preparation failed.
ExtentSummary summarize(std::int64_t lo, std::int64_t hi, std::int64_t flags, int rank, bool failed);

// `right` becomes the summary of `left`'s ranks followed by `right`'s (left: the lower ranks).
void combine(const ExtentSummary &left, ExtentSummary &right);

// The policy this transfer takes under `policy`: collective_route=aggregate_interleaved (auto on
// CephFS) is `independent` for a write where every rank's file side is one contiguous block of at
// least `min_block` bytes and the blocks ascend with the rank (each rank its own part of a dataset,
// a call worth its bytes), `aggregate` otherwise: for every read (aggregators read whole windows
// in file order, which a client's readahead turns into whole-object reads; each rank reading its
// own 1 MiB blocks cost the servers 611 reads where the built-in driver's cost 48,
// docs/measurements.md), and when the transfer moves the very range the last collective transfer
// moved (`repeats_last`: the library's read-merge-write of a compound dataset's records, once per
// field, which the aggregators answer from their copies and write once: window_cache,
// write_behind). Any other policy is itself. Pure.
CollectiveRoute policy_for(const ExtentSummary &summary, CollectiveRoute policy, std::int64_t min_block,
                           bool write, bool repeats_last);

// Whether the ranks' extents tile one file range without holes: they ascend with the rank, each is
// one contiguous range, and they add up to the range from the first to the last. An MPI collective
// write of such extents leaves the MPI-IO layer no hole to read back and rewrite.
bool gapless(const ExtentSummary &summary);

// Whether the ranks' bytes add up to the whole range their extents lie in: then a collective write
// leaves no hole in it for the MPI-IO layer to read back (2-D blocks tiling a dataset), unless two
// ranks write the same bytes, which MPI leaves undefined. Weaker than gapless(): the extents may
// interleave and have holes of their own.
bool covers_its_range(const ExtentSummary &summary);

// The decision, when the summary is enough for it: the same Decision decide() gives on the full
// exchange, in every field the transfer uses (`independent`, `all_contiguous`, and `disjoint` when
// `need_disjoint`, i.e. for writes). Empty when only the full exchange can tell.
std::optional<Decision> decide_from_summary(const ExtentSummary &summary, CollectiveRoute policy,
                                            bool individual_io, std::uint64_t overlap_limit,
                                            bool need_disjoint);

} // namespace mpiio::route
