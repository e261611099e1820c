#include "settings/storage.hpp"

#include <sys/statfs.h>

#include <array>
#include <cstdio>
#include <filesystem>

namespace mpiio {
namespace {

struct KnownFileSystem {
    std::int64_t magic; // statfs f_type (the kernel's <linux/magic.h> and the file systems' own)
    const char *name;
    StorageClass storage;
    bool in_memory = false; // the file's bytes live in memory: MPI_File_sync has no device to flush
};

// clang-format off
constexpr std::array<KnownFileSystem, 27> kKnown{{
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
    {0x6969, "nfs", StorageClass::Shared},         {0x0BD00BD0, "lustre", StorageClass::Shared},
    {0x47504653, "gpfs", StorageClass::Shared},    {0x65735546, "fuse", StorageClass::Shared},
    {0x00C36400, "ceph", StorageClass::Shared},    {0x19830326, "beegfs", StorageClass::Shared},
    {0xAAD7AAEA, "panfs", StorageClass::Shared},   {0x20030528, "orangefs", StorageClass::Shared},
    {0xFE534D42, "smb2", StorageClass::Shared},    {0xFF534D42, "cifs", StorageClass::Shared},
    {0x517B, "smb", StorageClass::Shared},         {0x01021997, "9p", StorageClass::Shared},
    {0x5346414F, "afs", StorageClass::Shared},     {0x73757245, "coda", StorageClass::Shared},
    {0x7461636F, "ocfs2", StorageClass::Shared},   {0x01161970, "gfs2", StorageClass::Shared},
}};
// clang-format on

const KnownFileSystem *known(std::int64_t magic) {
    for (const auto &fs : kKnown)
        if (fs.magic == magic)
            return &fs;
    return nullptr;
}

std::string bytes_text(std::size_t n) {
    if (n != 0 && n % (std::size_t{1} << 20) == 0)
        return std::to_string(n >> 20) + "M";
    if (n != 0 && n % 1024 == 0)
        return std::to_string(n >> 10) + "K";
    return std::to_string(n);
}

} // namespace

std::int64_t file_system_magic(const std::string &path) {
    struct statfs st {};
    if (::statfs(path.c_str(), &st) == 0)
        return static_cast<std::int64_t>(static_cast<std::uint32_t>(st.f_type));
    std::error_code ec;
    const std::filesystem::path parent = std::filesystem::absolute(path, ec).parent_path();
    if (!ec && ::statfs(parent.c_str(), &st) == 0)
        return static_cast<std::int64_t>(static_cast<std::uint32_t>(st.f_type));
    return 0;
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
    // every layer (docs/decisions.md D17, D20).
    t.route = config.collective_route != CollectiveRoute::Auto ? config.collective_route
              : shared                                         ? CollectiveRoute::Aggregate
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
