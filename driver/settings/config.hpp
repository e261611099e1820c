// The driver's configuration string: `HDF5_DRIVER_CONFIG` or the argument of
// H5Pset_driver_by_name(fapl, "mpiio", config). Entries are `key=value`, separated by `;`
// (blanks around keys and values are ignored). One key table (config.cpp) defines every key: its
// parser, its default, its canonical text and its documentation; docs/configuration.md, the
// README's key table and h5plugin.json are generated from it (settings/config_reference.hpp) and a
// unit test checks they match. Unknown keys and bad values are errors naming them.
#pragma once

#include "settings/tuning.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mpiio {

enum class CommChoice { World, Self }; // communicator when the FAPL carries none
enum class SyncPolicy { Auto, Flush, Never };
enum class StatsMode { Off, Summary };
// How a collective transfer moves its bytes (docs/decisions.md D12). auto: each rank moves its own
// extent independently when no two ranks' extents overlap (reads: when they overlap within
// read_overlap_limit), MPI collective I/O otherwise;
// collective: always MPI collective I/O; independent: always each rank on its own (writes then
// bridge holes only when the extents are disjoint); aggregate: a few aggregator ranks move every
// rank's bytes (aggregate/aggregation.hpp); aggregate_interleaved: aggregate, but where every rank's
// file side is one contiguous block and the blocks ascend with the rank, each rank writes its own.
// On shared storage auto is aggregate under every MPI-IO layer, aggregate_interleaved on CephFS
// (settings/storage.hpp).
enum class CollectiveRoute { Auto, Collective, Independent, Aggregate, AggregateInterleaved };
// Independent writes of many short runs through the rank's own file view (mpi_io.hpp). auto: where
// the view costs less than a call per run: always under OMPIO and MPICH's ROMIO; under Open MPI's
// ROMIO, which flattens the view's type through the MPI API at every set_view, only for regular
// runs (an hvector view; mpi_layer.hpp, docs/measurements.md,
// "D23 view writes under each MPI-IO layer (view_writes=auto)").
enum class ViewWrites { Auto, On, Off };
// Whether the driver may copy the caller's bytes with the CPU (staging, sieving, packing runs for a
// view write). off: every byte moves through MPI calls on the caller's buffer, as buffers in device
// memory need with a CUDA-aware MPI-IO layer (docs/decisions.md D18).
enum class HostCopies { On, Off };
// Whether the aggregators keep a collective rewrite of the bytes the last collective transfer moved
// in memory and write it once later (aggregate/write_behind.hpp). auto: on shared storage.
enum class WriteBehindChoice { Auto, On, Off };
// Which storage class's defaults a file takes (settings/storage.hpp). auto: from the type of the
// file system the file lies on (rank 0's statfs at open); local, shared: as named.
enum class StorageChoice { Auto, Local, Shared };

struct Config {
    CommChoice comm = CommChoice::World;
    // auto:  MPI_File_sync on H5Fflush, and after every collective write when the MPI-IO layer
    //        says writes are not immediately visible (hint romio_visibility_immediate=false or
    //        HDF5_DO_MPI_FILE_SYNC), exactly like the built-in driver;
    // flush: MPI_File_sync on H5Fflush only; never: no MPI_File_sync at all (MPI_File_close
    //        still makes the data visible) - for scratch files on tmpfs.
    SyncPolicy sync = SyncPolicy::Auto;
    StatsMode stats = StatsMode::Off;
    // Independent transfers: requests contiguous in the file (and, for reads - and writes when
    // the file has a single rank - separated by at most sieve_gap bytes) are staged through one
    // buffer of at most staging_buffer bytes and moved with one MPI call.
    std::size_t staging_buffer = tuning::kStagingBuffer;
    // Most bytes an aggregator of the aggregating route keeps of its earlier transfers, to answer
    // collective reads of the same bytes without reading the file; 0: none (window_cache.hpp).
    std::size_t window_cache = tuning::kWindowCache;
    // Unset: the storage class's default (settings/storage.hpp, resolve_storage_tuning).
    std::optional<std::size_t> sieve_gap;
    CollectiveRoute collective_route = CollectiveRoute::Auto;
    // Under `auto`, a collective read whose ranks' extents overlap still goes rank by rank when
    // the extents add up to at most this many times the file range they cover together (route.hpp);
    // 1: only disjoint extents, as for writes.
    // Unset: the storage class's default.
    std::optional<unsigned> read_overlap_limit;
    // The file's layout as the aggregating route cuts it (file/file_layout.hpp); unset: the
    // storage's own (layout xattrs, the MPI-IO layer's striping hints, st_blksize).
    std::optional<std::size_t> stripe_unit;
    std::optional<unsigned> stripe_count;
    // How many ranks aggregate (aggregate/aggregation.hpp, aggregator_count); unset: one per
    // node, fitted to the stripe count where the servers lock stripes, at most the cb_nodes hint.
    std::optional<unsigned> aggregators;
    StorageChoice storage = StorageChoice::Auto;
    // Independent writes of many small runs as one call through the rank's own file view
    // (mpi_io.hpp, independent_plan.hpp).
    ViewWrites view_writes = ViewWrites::Auto;
    HostCopies host_copies = HostCopies::On;
    WriteBehindChoice write_behind = WriteBehindChoice::Auto;
    // Collective chunk I/O knobs; when set they override the application's DXPL
    // (H5Pset_dxpl_mpio_chunk_opt, _num, _ratio). See chunkio/decision.hpp.
    enum class ChunkOpt { Default, Linked, Multi };
    std::optional<ChunkOpt> chunk_opt;
    std::optional<unsigned> chunk_opt_num;
    std::optional<unsigned> chunk_opt_ratio;
    // MPI-IO hints given as hint.<name>=<value>, passed to MPI_File_open in order.
    std::vector<std::pair<std::string, std::string>> hints;

    // A canonical text of the parsed settings, identical for equal configurations; used to
    // check that every rank runs with the same configuration.
    std::string canonical() const;
};

// Parses `text` (may be empty). Throws Error(Config) naming the first bad entry.
Config parse_config(const std::string &text);

// One line per key: "key = values: meaning", for error messages and documentation.
std::string config_keys_help();

// A key's documentation, one entry of the key table. The texts are Markdown (`code` in backticks).
struct KeyDoc {
    const char *values;    // accepted values: "a | b" for names, else a description ("bytes, K/M/G suffix")
    const char *fallback;  // the default value as written ("" where the storage class or the DXPL decides)
    const char *on_local;  // what the default is on local storage (tmpfs, ramfs, local disks)
    const char *on_shared; // ... and on shared storage (network, parallel, FUSE file systems)
    const char *summary;   // one sentence, at most 30 words
    const char *meaning;   // the full explanation
};

// A key as the documentation generators see it (settings/config_reference.hpp).
struct KeyEntry {
    const char *key;
    const char *type; // "choice", "bytes", "number" or "string"
    KeyDoc doc;
};

// Every key of the key table, in its order.
std::vector<KeyEntry> config_key_entries();

// Every key's documented default as "key=value" entries ("" for keys without one), so a test can
// check that parsing the documented defaults gives Config{}.
std::string config_default_text();

// The configuration's name of a route policy ("auto", "collective", "independent", "aggregate").
std::string route_name(CollectiveRoute route);

// Bytes as the configuration writes them: "4M", "64K", or a plain number.
std::string bytes_text(std::uint64_t n);

// 64-bit FNV-1a hash (used to compare canonical configurations across ranks).
std::uint64_t fnv1a(const std::string &text);

} // namespace mpiio
