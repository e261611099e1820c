// The driver's tuning profile: every threshold of the data path, in one table, each with where it
// was measured and what it stands for. The first five are the defaults of configuration keys
// (which override them per file; two of them per storage class, settings/storage.hpp); the others
// are constants. Each was measured on the project's machines (2-core AMD EPYC and 16-core Intel
// Xeon, tmpfs, Open MPI 4.1 OMPIO and ROMIO, MPICH 4.0; docs/measurements.md), the shared-storage
// values on the GlusterFS testbed of scripts/dfs.sh (docs/architecture.md, "Storage classes"), and
// each stands for a property of the MPI-IO layers or the cost of a call, not of one CPU: none
// decides anything by the processor it runs on.
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpiio::tuning {

// --- defaults of configuration keys --------------------------------------------------------------
// staging_buffer: most bytes a rank's own transfer stages at once. 4 MiB: above it the copy costs
// more than the calls it saves on every layer measured (bench/call_cost, docs/architecture.md).
inline constexpr std::size_t kStagingBuffer = std::size_t{4} << 20;
// window_cache: most bytes an aggregator keeps of its earlier transfers for collective reads of the
// same bytes (aggregate/window_cache.hpp). 16 MiB: a compound dataset's records of four ranks at
// the benchmark's small and medium sizes (2 MiB per transfer) several times over, at four windows'
// memory.
inline constexpr std::size_t kWindowCache = std::size_t{16} << 20;
// sieve_gap: bytes that cost as much to move as one MPI-IO call. On tmpfs a call is worth 1.4-10 KB
// on every layer (bench/call_cost: OMPIO, ROMIO, MPICH; 1 and 4 ranks); 4 KiB lies inside.
inline constexpr std::size_t kSieveGap = 4096;
// read_overlap_limit: how many times the bytes a collective read may fetch rank by rank before MPI
// collective I/O pays (interleaved reads 2-9x faster rank by rank up to 4 ranks on every layer).
inline constexpr unsigned kReadOverlapLimit = 4;
// The same two on shared storage (settings/storage.hpp: network, parallel and FUSE file systems),
// where a call costs a round trip to a server: on the GlusterFS testbed a call is worth 35-140 KB on
// every layer (bench/call_cost, 1 and 4 ranks over two clients); 64 KiB lies inside. Overlapping
// reads rank by rank were not measured there: the local value stands.
inline constexpr std::size_t kSieveGapShared = std::size_t{64} << 10;
inline constexpr unsigned kReadOverlapLimitShared = 4;

// --- constants of the independent engine -------------------------------------------------------
// A segment this long moves with a call of its own, straight from or to the caller's memory: one
// more call costs less than a second copy of every byte (ROMIO's collective chunk fill and h5perf's
// chunked collective write lost to the built-in driver when such runs were copied:
// docs/measurements.md, "The cost model of a rank's own transfers (sieve_gap)").
inline constexpr std::size_t kOwnCallBytes = std::size_t{64} << 10;
// Mean bytes per block below which a sieved range's bytes are copied by MPI's datatype engine
// rather than by memcpy per segment: MPICH 4.0's engine copies byte blocks a byte at a time (125 us
// against memcpy's 13 us for 256 KiB in 128-byte blocks); for 2048 blocks of 4 bytes Open MPI's
// takes 6-10 us where listing the segments alone costs more. A property of the MPI libraries.
inline constexpr std::uint64_t kEngineCopyBelow = 64;
// Fewest unbridged stretches of a write that go as one call through the rank's own file view
// instead of a call each (the view adds a set_view and a derived type to the one call), and most
// (a bound on the view's type map).
inline constexpr std::size_t kViewWriteMinRuns = 8;
inline constexpr std::size_t kViewWriteMaxRuns = std::size_t{1} << 20;
// Most segments planned as one group (bounds the engine's segment buffer: 1.5 MiB).
inline constexpr std::size_t kGroupSegments = std::size_t{1} << 16;

// --- memory kept between operations -------------------------------------------------------------
// Segment and run lists longer than these are freed after an operation that needed them (a time
// step's lists are reused; one huge request does not pin its memory while the file is open).
inline constexpr std::size_t kKeepSegments = std::size_t{1} << 12;
inline constexpr std::size_t kKeepRuns = std::size_t{1} << 16;

} // namespace mpiio::tuning
