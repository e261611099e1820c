#include "settings/storage.hpp"

#include <sys/statfs.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace mpiio {
namespace {

struct KnownFileSystem {
    std::int64_t magic; // statfs f_type (the kernel's <linux/magic.h> and the file systems' own)
    const char *name;
    StorageClass storage;
    bool in_memory = false; // the file's bytes live in memory: MPI_File_sync has no device to flush
    LayoutAttribute layout = LayoutAttribute::None; // where its files' layouts can be read
    // What collective_route=auto takes there when the file counts as shared storage (the class, or
    // storage=shared on a local file system: aggregate unless the row says else; D17).
    CollectiveRoute shared_route = CollectiveRoute::Aggregate;
};

constexpr std::int64_t kFuseMagic = 0x65735546;
// FUSE mounts all report FUSE's magic: the mount table's type names the daemon ("fuse.ceph-fuse"),
// and such a type gets a number of the driver's own, above every 32-bit magic.
constexpr std::int64_t kFuseSubtype = std::int64_t{1} << 32;
struct FuseSubtype {
    const char *mount_type; // the mount table's type after "fuse."
    std::int64_t code;
};
constexpr std::array<FuseSubtype, 3> kFuseSubtypes{{
    {"ceph-fuse", kFuseSubtype + 1},
    {"glusterfs", kFuseSubtype + 2},
    {"dfuse", kFuseSubtype + 3},
}};

// clang-format off
constexpr std::array<KnownFileSystem, 30> kKnown{{
    // In memory and on local disks: a call costs microseconds.
    {0x01021994, "tmpfs", StorageClass::Local, true},
    {0x858458f6, "ramfs", StorageClass::Local, true},
    {0xEF53, "ext4", StorageClass::Local},         {0x58465342, "xfs", StorageClass::Local},
    {0x9123683E, "btrfs", StorageClass::Local},    {0xF2F52010, "f2fs", StorageClass::Local},
    {0x794C7630, "overlayfs", StorageClass::Local},{0x2FC12FC1, "zfs", StorageClass::Local},
    {0x52654973, "reiserfs", StorageClass::Local}, {0x3153464A, "jfs", StorageClass::Local},
    {0xCA451A4E, "bcachefs", StorageClass::Local},
    // Over a network, parallel, or in user space (FUSE: GlusterFS, DAOS dfuse, s3fs, ...): a call
    // costs a round trip to a server or a daemon.
    {0x6969, "nfs", StorageClass::Shared},         {0x0BD00BD0, "lustre", StorageClass::Shared, false, LayoutAttribute::Lustre},
    {0x47504653, "gpfs", StorageClass::Shared},    {0x65735546, "fuse", StorageClass::Shared},
    {0x19830326, "beegfs", StorageClass::Shared},
    {0xAAD7AAEA, "panfs", StorageClass::Shared},   {0x20030528, "orangefs", StorageClass::Shared},
    {0xFE534D42, "smb2", StorageClass::Shared},    {0xFF534D42, "cifs", StorageClass::Shared},
    {0x517B, "smb", StorageClass::Shared},         {0x01021997, "9p", StorageClass::Shared},
    {0x5346414F, "afs", StorageClass::Shared},     {0x73757245, "coda", StorageClass::Shared},
    {0x7461636F, "ocfs2", StorageClass::Shared},   {0x01161970, "gfs2", StorageClass::Shared},
    // CephFS: its objects take no extent locks; each rank writing its own contiguous block kept
    // up with every MPI-IO layer where one aggregator fell behind ROMIO's (docs/decisions.md D17).
    {0x00C36400, "ceph", StorageClass::Shared, false, LayoutAttribute::Ceph, CollectiveRoute::AggregateInterleaved},
    // FUSE daemons the mount table names (kFuseSubtypes).
    {kFuseSubtype + 1, "cephfs (ceph-fuse)", StorageClass::Shared, false, LayoutAttribute::Ceph, CollectiveRoute::AggregateInterleaved},
    {kFuseSubtype + 2, "glusterfs (fuse)", StorageClass::Shared},
    {kFuseSubtype + 3, "daos (dfuse)", StorageClass::Shared},
}};
// clang-format on

const KnownFileSystem *known(std::int64_t magic) {
    for (const auto &fs : kKnown)
        if (fs.magic == magic)
            return &fs;
    return nullptr;
}

// A mount table path with its octal escapes ("\040" for a blank) undone.
std::string unescaped(const std::string &text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 3 < text.size()) {
            out += static_cast<char>(std::stoi(text.substr(i + 1, 3), nullptr, 8));
            i += 3;
        } else {
            out += text[i];
        }
    }
    return out;
}

} // namespace

std::int64_t fuse_code_from_mount_table(std::istream &table, const std::string &path) {
    std::string line, best_type;
    std::size_t best_length = 0;
    while (std::getline(table, line)) {
        std::istringstream fields(line);
        std::string id, parent, device, root, mount_point, word;
        fields >> id >> parent >> device >> root >> mount_point;
        while (fields >> word && word != "-") {
        }
        std::string type;
        fields >> type;
        const std::string point = unescaped(mount_point);
        const bool inside = path == point || (path.compare(0, point.size(), point) == 0 &&
                                              (point == "/" || path[point.size()] == '/'));
        if (inside && point.size() >= best_length) { // (the later of two mounts on one point is on top)
            best_length = point.size();
            best_type = type;
        }
    }
    for (const FuseSubtype &t : kFuseSubtypes)
        if (best_type == std::string("fuse.") + t.mount_type)
            return t.code;
    return kFuseMagic;
}

std::int64_t file_system_magic(const std::string &path) {
    struct statfs st {};
    std::error_code ec;
    std::filesystem::path asked = std::filesystem::weakly_canonical(path, ec);
    if (ec)
        asked = path;
    if (::statfs(asked.c_str(), &st) != 0) {
        asked = asked.parent_path();
        if (::statfs(asked.c_str(), &st) != 0)
            return 0;
    }
    const auto magic = static_cast<std::int64_t>(static_cast<std::uint32_t>(st.f_type));
    if (magic != kFuseMagic)
        return magic;
    std::ifstream table("/proc/self/mountinfo"); // (this process's mount namespace)
    return fuse_code_from_mount_table(table, asked.string());
}

StorageClass storage_class_of(std::int64_t magic) {
    const KnownFileSystem *fs = known(magic);
    return fs != nullptr ? fs->storage : StorageClass::Local;
}

std::string file_system_name(std::int64_t magic) {
    if (const KnownFileSystem *fs = known(magic))
        return fs->name;
    char text[32];
    std::snprintf(text, sizeof text, "type 0x%llx", static_cast<unsigned long long>(magic));
    return text;
}

LayoutAttribute layout_attribute_of(std::int64_t magic) {
    const KnownFileSystem *fs = known(magic);
    return fs != nullptr ? fs->layout : LayoutAttribute::None;
}

bool file_system_in_memory(std::int64_t magic) {
    const KnownFileSystem *fs = known(magic);
    return fs != nullptr && fs->in_memory;
}

const char *storage_class_name(StorageClass c) { return c == StorageClass::Shared ? "shared" : "local"; }

StorageTuning resolve_storage_tuning(const Config &config, std::int64_t magic) {
    StorageTuning t;
    t.file_system = file_system_name(magic);
    t.chosen_by_config = config.storage != StorageChoice::Auto;
    t.storage = config.storage == StorageChoice::Shared  ? StorageClass::Shared
                : config.storage == StorageChoice::Local ? StorageClass::Local
                                                         : storage_class_of(magic);
    const bool shared = t.storage == StorageClass::Shared;
    t.sieve_gap = config.sieve_gap.value_or(shared ? tuning::kSieveGapShared : tuning::kSieveGap);
    t.read_overlap_limit = config.read_overlap_limit.value_or(shared ? tuning::kReadOverlapLimitShared
                                                                     : tuning::kReadOverlapLimit);
    // On shared storage the writers of a file stay few, and an aggregator writes the holes past the
    // ranks' written end as zeros instead of reading them back: the driver's own aggregation under
    // every layer (docs/decisions.md D17, D20); on CephFS all but the writes of contiguous blocks that
    // ascend with the rank (route::policy_for).
    const KnownFileSystem *fs = known(magic);
    const CollectiveRoute shared_route = fs != nullptr ? fs->shared_route : CollectiveRoute::Aggregate;
    t.route = config.collective_route != CollectiveRoute::Auto ? config.collective_route
              : shared                                         ? shared_route
                                                               : CollectiveRoute::Auto;
    t.write_behind = config.write_behind == WriteBehindChoice::Auto
                         ? shared
                         : config.write_behind == WriteBehindChoice::On;
    // A view write is followed by MPI_File_sync of the rank's own handle (MPI's rule for its bytes
    // to be seen through the shared one): in memory a system call, on a local disk a flush of the
    // device (5.4 ms against 36 us for 8 short writes on this machine's ext4), on shared storage a
    // round trip, where each run stays a write of its own inside the MPI-IO layer anyway
    // (docs/decisions.md D23).
    t.view_writes = config.view_writes == ViewWrites::Auto
                        ? t.storage == StorageClass::Local && file_system_in_memory(magic)
                        : config.view_writes == ViewWrites::On;
    return t;
}

std::string describe(const StorageTuning &t) {
    return std::string(storage_class_name(t.storage)) + " (" +
           (t.chosen_by_config ? "storage=" + std::string(storage_class_name(t.storage)) + "; "
                               : std::string("from the file system; ")) +
           "file system: " + t.file_system + "): sieve_gap=" + bytes_text(t.sieve_gap) +
           " read_overlap_limit=" + std::to_string(t.read_overlap_limit) +
           " collective_route=" + route_name(t.route) + " write_behind=" + (t.write_behind ? "on" : "off") +
           " view_writes=" + (t.view_writes ? "on" : "off");
}

} // namespace mpiio
