// The storage a file lies on, and the defaults of the keys whose best value depends on it
// (docs/architecture.md, "Storage classes"). What a call costs against a byte decides the cost
// model of a rank's own transfers: on tmpfs and local disks a call costs a few microseconds, on a
// network or FUSE file system a round trip to a server (hundreds of microseconds), so there a call
// is worth tens of KiB of bytes instead of a few.
//
// Rank 0 asks the operating system for the file system's type (statfs) once per open (for a FUSE
// mount, which all report one magic number, the mount table's type names the daemon: CephFS's
// ceph-fuse, GlusterFS, DAOS's dfuse); that number reaches every rank with the open's broadcast, and every
// rank derives the class from it alone (a pure function), so all ranks choose the same defaults.
#pragma once

#include "settings/config.hpp"

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>

namespace mpiio {

enum class StorageClass {
    Local,  // tmpfs, ramfs and local disk file systems: a call costs microseconds
    Shared, // network, parallel and FUSE file systems: a call costs a round trip to a server
};

// Independent. The file system type (statfs f_type) of `path`, or of its directory when `path`
// does not exist (yet); 0 when neither can be asked. A FUSE mount whose daemon the mount table
// names gets a number of the driver's own (above 32 bits), so that stats=summary names it.
std::int64_t file_system_magic(const std::string &path);

// Pure. The code of the FUSE daemon serving `path` (an absolute, canonical path) by the mount
// table `table` (/proc/self/mountinfo's format: the longest mount point that holds the path, its
// type after " - "), or FUSE's magic number when the daemon is not one the driver names.
std::int64_t fuse_code_from_mount_table(std::istream &table, const std::string &path);

// The class of a file system by its type; an unknown type (0 included) counts as local, the class
// the defaults were first measured on.
StorageClass storage_class_of(std::int64_t magic);

// Which extended attribute tells a file's layout on a file system (file/file_layout.hpp).
enum class LayoutAttribute { None, Ceph, Lustre };
LayoutAttribute layout_attribute_of(std::int64_t magic);

// Whether a known file system type keeps its files in memory (tmpfs, ramfs).
bool file_system_in_memory(std::int64_t magic);

// A short name of a known file system type ("tmpfs", "lustre", "fuse", ...) or its number in hex.
std::string file_system_name(std::int64_t magic);

const char *storage_class_name(StorageClass c);

// The storage-dependent settings of one open file: the configuration's where it sets them, the
// class's defaults otherwise.
struct StorageTuning {
    StorageClass storage = StorageClass::Local;
    bool chosen_by_config = false; // storage=local|shared rather than the file system's type
    std::string file_system;       // file_system_name() of what rank 0 found
    std::size_t sieve_gap = tuning::kSieveGap;
    unsigned read_overlap_limit = tuning::kReadOverlapLimit;
    // The route policy of collective transfers. `collective_route=auto` resolves per class: on local
    // storage it stays Auto (disjoint extents move rank by rank); on shared storage it is
    // Aggregate, the driver's own aggregation under every MPI-IO layer: few writers on the servers
    // (every rank writing its own extent made each client take the servers' locks in turn), and no
    // read-back of holes the ranks never wrote, which the layers' collective writes make
    // (docs/architecture.md, "Storage classes").
    CollectiveRoute route = CollectiveRoute::Auto;
    // Whether the aggregators defer a collective rewrite of the same bytes (config write_behind;
    // aggregate/write_behind.hpp): auto takes it on shared storage, where each write of the same
    // records again costs the servers the bytes and the round trips; on local storage a write costs
    // about the copy the aggregator would keep.
    bool write_behind = false;
    // Whether a rank's independent write of many small runs may go as one call through a view of
    // its own handle (config view_writes; independent_engine.hpp): auto takes it where the file
    // lies in memory (tmpfs, ramfs), the only storage where the sync that makes the second
    // handle's bytes visible through the first costs nothing.
    bool view_writes = false;
};

// Pure: the same inputs give the same tuning on every rank.
StorageTuning resolve_storage_tuning(const Config &config, std::int64_t magic);

// One line for stats=summary: the class, why it was chosen, and the values in effect.
std::string describe(const StorageTuning &t);

} // namespace mpiio
