// The file's layout on its storage: the stripe (or lock, or block) unit in which the file system
// places and locks its bytes, and over how many servers a stripe spreads. The aggregating route
// cuts its windows from whole units and gives each unit one owner (aggregate/aggregation.hpp),
// so that no two clients write one unit in a transfer and a unit keeps its writer from one step
// to the next (on Lustre an extent lock, on GPFS a block token, on CephFS an object).
//
// Rank 0 asks the storage once per open (probe_layout), after the file exists, in the order a file
// system answers most precisely: CephFS's `ceph.file.layout` or Lustre's `lustre.lov` extended
// attribute (only on that file system: elsewhere the question would cost a round trip to the
// servers for nothing), the MPI-IO layer's `striping_unit`/`striping_factor` hints, then `st_blksize`
// (GPFS's block, NFS's transfer size, a local disk's page). The result travels with the open's
// broadcast (to_words/from_words), so every rank plans with the same layout; the configuration's
// `stripe_unit`/`stripe_count` override what was found.
#pragma once

#include "settings/config.hpp"
#include "settings/storage.hpp"

#include <mpi.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace mpiio {

enum class LayoutSource : std::int64_t {
    None,        // nothing could be asked (the file cannot be stat'ed)
    CephXattr,   // ceph.file.layout
    LustreXattr, // lustre.lov
    MpiHints,    // the MPI-IO layer's striping_unit / striping_factor
    BlockSize,   // st_blksize
    Config,      // stripe_unit= or stripe_count= in the configuration
};

struct FileLayout {
    std::uint64_t unit = 0;        // bytes: the stripe, lock or block unit (0: unknown)
    std::uint64_t count = 0;       // stripes a unit sequence spreads over (0: unknown or not striped)
    std::uint64_t object_size = 0; // CephFS: bytes per object (0 elsewhere)
    LayoutSource source = LayoutSource::None;
    // Whether the stripes are objects on separate servers each taking extent locks of its own
    // (Lustre, what the MPI-IO layer calls striping, or stripe_count= asking for it): then the
    // writers of a file are best a multiple or a divisor of `count` (aggregate/aggregation.hpp,
    // aggregator_count). CephFS's objects take no extent locks (the file's capabilities move
    // between clients as a whole), so its count is reported, not followed.
    bool count_is_servers = false;
};

// Pure. `stripe_unit=1048576 stripe_count=2 object_size=4194304 pool=...` (CephFS's xattr value).
std::optional<FileLayout> parse_ceph_layout(std::string_view text);
// Pure. A `lustre.lov` xattr value: a plain layout (v1 or v3) or a composite one (its first
// component's stripes; progressive layouts start small and grow, the first is what most writes
// of a new file meet).
std::optional<FileLayout> parse_lustre_layout(std::span<const unsigned char> bytes);

// Independent (rank 0 at open). The layout of the file at `path` on a file system whose layouts
// `attribute` tells (settings/storage.hpp), open as `fh` (its hints are asked only when no
// attribute told; MPI_FILE_NULL: not asked).
FileLayout probe_layout(const std::string &path, LayoutAttribute attribute, MPI_File fh);

// Pure. The configuration's stripe_unit / stripe_count over what was found.
FileLayout apply_layout_keys(FileLayout found, const Config &config);

// The layout as words of the open's broadcast, and back.
inline constexpr std::size_t kLayoutWords = 5;
std::array<std::int64_t, kLayoutWords> to_words(const FileLayout &layout);
FileLayout layout_from_words(std::span<const std::int64_t, kLayoutWords> words);

// One line for stats=summary: "stripe unit 1M x 2 (ceph.file.layout, object size 4M)".
std::string describe(const FileLayout &layout);

} // namespace mpiio
