// How a rank moves its own bytes (docs/decisions.md D16): the independent engine's decisions, as pure
// functions of a request's shape and the limits below. No MPI, no HDF5: the unit tests feed them
// tables (test/unit/test_independent_plan.cpp) and independent_engine.cpp carries the calls out.
//
// The cost model: one MPI-IO call costs about as much as moving `sieve_gap` bytes (the
// config key sieve_gap; measured with bench/mpiio_call_cost, see docs/architecture.md). So a read
// bridges a hole between two stretches of wanted bytes when the hole plus the stretch after it is
// at most sieve_gap bytes (the hole is read, the stretch copied once more out of the staging
// buffer, against the call saved), and a write - which must read a bridged range back first and
// write it whole - when the hole twice plus the stretch after it is at most sieve_gap, and only
// where no other rank writes inside the range (the collective route's disjoint extents, or a file
// of one rank). Bytes at or past `zeros_from` (no rank has written there: a hole or past the end of
// file, docs/architecture.md) need no read back: a hole there costs its bytes once, written as
// zeros. Many unbridged stretches shorter than sieve_gap on average are written as one call through
// the rank's own file view.
#pragma once

#include "io/direction.hpp"
#include "settings/tuning.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mpiio {

struct IndependentLimits {
    std::size_t staging_buffer = tuning::kStagingBuffer; // config staging_buffer: most bytes staged at once
    std::size_t sieve_gap = tuning::kSieveGap;           // config sieve_gap: bytes worth one MPI-IO call
    bool host_copies = true; // config host_copies: the engine may copy the caller's bytes

    // The engine's constants (settings/tuning.hpp says what each stands for and where it was
    // measured). Explicit byte runs (vector I/O) are always copied by memcpy, whatever
    // kEngineCopyBelow says: their segments cost nothing to list.
    static constexpr std::size_t kOwnCallBytes = tuning::kOwnCallBytes;
    static constexpr std::uint64_t kEngineCopyBelow = tuning::kEngineCopyBelow;
    static constexpr std::size_t kViewWriteMinRuns = tuning::kViewWriteMinRuns;
    static constexpr std::size_t kViewWriteMaxRuns = tuning::kViewWriteMaxRuns;
    static constexpr std::size_t kGroupSegments = tuning::kGroupSegments;
};

// The shape of a request, as the strategy needs it.
struct RequestShape {
    std::size_t bytes = 0;         // payload
    std::uint64_t span = 0;        // extent: first to one past the last file byte
    std::uint64_t file_blocks = 0; // contiguous file blocks (runs) described
    std::uint64_t mem_blocks = 0;  // contiguous memory blocks
    bool file_contiguous = false;  // one file range
    bool one_memory_type = false;  // the memory side is one buffer or one existing datatype
    // Writes: the first byte from which the file is known to hold zeros no rank wrote (a bridged
    // write reads back only what lies below it). UINT64_MAX: nothing is known.
    std::uint64_t zeros_from = UINT64_MAX;
    std::uint64_t lo = 0; // the extent's first file byte (with `span`: where zeros_from falls)
};

enum class Strategy {
    Nothing,
    OneCall,    // one call: the file side is one range and the memory side one type
    SieveTyped, // the whole extent through one buffer, copied by MPI's datatype engine (runs: memcpy)
    Staged,     // segments through the staging buffer, a group at a time (plan_group)
    RunByRun,   // a call per run straight from/to the caller's memory (host_copies=off)
};

// Local, pure. `may_bridge`: no other rank writes inside this request's extent meanwhile. Without
// host copies only OneCall (MPI's datatypes describe the memory) and RunByRun remain.
Strategy choose_strategy(const RequestShape &shape, Direction dir, bool may_bridge,
                         const IndependentLimits &limits);

// A segment of a staged group: file address, length, and whether its memory directly follows the
// previous segment's (so that consecutive segments can be written straight from memory).
struct PlannedSegment {
    std::uint64_t addr = 0;
    std::size_t len = 0;
    bool memory_follows = false;
};

// One call of a staged group. Segments [first, last) of the group.
struct GroupCall {
    enum class Kind {
        Straight,  // one segment straight from/to the caller's memory
        ReadSpan,  // read [lo, hi) into the staging buffer (then copy the segments out, or in)
        WriteSpan, // write the staging buffer's [lo, hi) (segments copied in first)
        ViewWrite, // the segments as one call through the rank's own view (from the staging
                   // buffer, or from memory when `from_memory`)
    };
    Kind kind = Kind::Straight;
    std::size_t first = 0, last = 0;
    std::uint64_t lo = 0, hi = 0;
    bool from_memory = false; // ViewWrite: the segments' memory is one block
};

// Local, pure. The calls that move a group of ascending, disjoint segments spanning at most
// staging_buffer bytes (a segment of kOwnCallBytes or more always moves on its own). Reads list
// ReadSpans and Straights (copy out afterwards); writes list ReadSpans first (holes to bridge), then
// WriteSpans, ViewWrites and Straights (copy in before the writes). kViewWriteMinRuns or more
// unbridged stretches shorter than sieve_gap on average go through the rank's own view
// (`view_usable`). `zeros_from`: as RequestShape's (a bridged write reads back nothing from there).
std::vector<GroupCall> plan_group(std::span<const PlannedSegment> segments, Direction dir, bool may_bridge,
                                  bool view_usable, const IndependentLimits &limits,
                                  std::uint64_t zeros_from = UINT64_MAX);

} // namespace mpiio
