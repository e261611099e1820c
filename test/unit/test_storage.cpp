// The storage class a file's type gives, and the defaults each class gives the keys that depend on
// it (settings/storage.hpp); the configuration's own values win.
#include "settings/storage.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>
#include <string>

using mpiio::Config;
using mpiio::StorageClass;

namespace {

constexpr std::int64_t kTmpfs = 0x01021994, kExt4 = 0xEF53, kNfs = 0x6969, kLustre = 0x0BD00BD0,
                       kGpfs = 0x47504653, kFuse = 0x65735546;

TEST(StorageClass, FromTheFileSystemType) {
    EXPECT_EQ(mpiio::storage_class_of(kTmpfs), StorageClass::Local);
    EXPECT_EQ(mpiio::storage_class_of(kExt4), StorageClass::Local);
    for (std::int64_t shared : {kNfs, kLustre, kGpfs, kFuse})
        EXPECT_EQ(mpiio::storage_class_of(shared), StorageClass::Shared) << std::hex << shared;
    EXPECT_EQ(mpiio::storage_class_of(0), StorageClass::Local); // statfs failed: the first-measured class
    EXPECT_EQ(mpiio::storage_class_of(0x12345678), StorageClass::Local);
    EXPECT_EQ(mpiio::file_system_name(kLustre), "lustre");
    EXPECT_EQ(mpiio::file_system_name(0x12345678), "type 0x12345678");
}

TEST(StorageClass, OfThisMachinesDirectories) {
    // /dev/shm is tmpfs on every Linux the project supports; a missing file is asked of its directory.
    EXPECT_EQ(mpiio::file_system_magic("/dev/shm"), kTmpfs);
    EXPECT_EQ(mpiio::file_system_magic("/dev/shm/no-such-file-here.h5"), kTmpfs);
    EXPECT_EQ(mpiio::file_system_magic("/no-such-directory/x.h5"), 0);
}

// FUSE mounts all report one magic number: the mount table names the daemon, so CephFS's and
// GlusterFS's clients are told apart (and from other FUSE file systems, still shared storage).
TEST(StorageClass, FuseDaemonsByTheMountTable) {
    const std::string table =
        "22 1 0:21 / / rw,relatime - ext4 /dev/vda rw\n"
        "40 22 0:40 / /mnt/cephfs/c1 rw,nosuid - fuse.ceph-fuse ceph-fuse rw,user_id=0\n"
        "41 22 0:41 / /mnt/cephfs/c2 rw,nosuid - fuse.ceph-fuse ceph-fuse rw,user_id=0\n"
        "42 22 0:42 / /tmp/g\\040vol rw - fuse.glusterfs 10.0.0.1:/v rw\n"
        "43 22 0:43 / /mnt/other rw shared:7 - fuse.sshfs host: rw\n"
        "44 40 0:44 / /mnt/cephfs/c1/sub rw - tmpfs tmpfs rw\n";
    auto code = [&](const char *path) {
        std::istringstream in(table);
        return mpiio::fuse_code_from_mount_table(in, path);
    };
    EXPECT_EQ(mpiio::file_system_name(code("/mnt/cephfs/c1/x.h5")), "cephfs (ceph-fuse)");
    EXPECT_EQ(mpiio::file_system_name(code("/mnt/cephfs/c2")), "cephfs (ceph-fuse)");
    EXPECT_EQ(mpiio::file_system_name(code("/tmp/g vol/d/x.h5")), "glusterfs (fuse)") << "escaped blank";
    EXPECT_EQ(code("/mnt/other/x.h5"), kFuse) << "an unnamed daemon stays FUSE";
    EXPECT_EQ(code("/mnt/cephfs/c10/x.h5"), kFuse) << "c1 is not a prefix of c10's path";
    EXPECT_EQ(code("/mnt/cephfs/c1/sub/x.h5"), kFuse) << "the deepest mount holds the path";
    for (const char *path : {"/mnt/cephfs/c1/x.h5", "/tmp/g vol/x"})
        EXPECT_EQ(mpiio::storage_class_of(code(path)), StorageClass::Shared) << path;
}

TEST(StorageTuning, DefaultsFollowTheClass) {
    const Config defaults;
    const auto local = mpiio::resolve_storage_tuning(defaults, kTmpfs);
    EXPECT_EQ(local.storage, StorageClass::Local);
    EXPECT_EQ(local.sieve_gap, mpiio::tuning::kSieveGap);
    EXPECT_EQ(local.read_overlap_limit, mpiio::tuning::kReadOverlapLimit);
    EXPECT_FALSE(local.chosen_by_config);
    const auto shared = mpiio::resolve_storage_tuning(defaults, kLustre);
    EXPECT_EQ(shared.storage, StorageClass::Shared);
    EXPECT_EQ(shared.sieve_gap, mpiio::tuning::kSieveGapShared);
    EXPECT_EQ(shared.read_overlap_limit, mpiio::tuning::kReadOverlapLimitShared);
    EXPECT_NE(mpiio::tuning::kSieveGapShared, mpiio::tuning::kSieveGap);
    // auto: the per-transfer rule on local storage, the driver's own aggregation on shared (under
    // every MPI-IO layer); an explicit choice is still taken.
    EXPECT_EQ(local.route, mpiio::CollectiveRoute::Auto);
    EXPECT_EQ(shared.route, mpiio::CollectiveRoute::Aggregate);
    EXPECT_NE(mpiio::describe(shared).find("collective_route=aggregate"), std::string::npos)
        << mpiio::describe(shared);
    EXPECT_EQ(
        mpiio::resolve_storage_tuning(mpiio::parse_config("collective_route=collective"), kLustre).route,
        mpiio::CollectiveRoute::Collective);
    // CephFS (kernel client or ceph-fuse): aggregated unless the ranks' blocks ascend with the rank
    // (docs/decisions.md D17); GlusterFS and other FUSE mounts keep `aggregate`.
    std::istringstream mounts("40 22 0:40 / /mnt/c rw - fuse.ceph-fuse ceph-fuse rw\n"
                              "42 22 0:42 / /mnt/g rw - fuse.glusterfs h:/v rw\n");
    const std::int64_t ceph_fuse = mpiio::fuse_code_from_mount_table(mounts, "/mnt/c/x.h5");
    for (std::int64_t ceph : {std::int64_t{0x00C36400}, ceph_fuse}) {
        const auto t = mpiio::resolve_storage_tuning(defaults, ceph);
        EXPECT_EQ(t.route, mpiio::CollectiveRoute::AggregateInterleaved) << std::hex << ceph;
        EXPECT_NE(mpiio::describe(t).find("collective_route=aggregate_interleaved"), std::string::npos)
            << mpiio::describe(t);
    }
    mounts.clear();
    mounts.seekg(0);
    const std::int64_t gluster = mpiio::fuse_code_from_mount_table(mounts, "/mnt/g/x.h5");
    EXPECT_EQ(mpiio::file_system_name(gluster), "glusterfs (fuse)");
    for (std::int64_t other : {gluster, kFuse, kGpfs})
        EXPECT_EQ(mpiio::resolve_storage_tuning(defaults, other).route, mpiio::CollectiveRoute::Aggregate)
            << std::hex << other;
    EXPECT_EQ(
        mpiio::resolve_storage_tuning(mpiio::parse_config("collective_route=aggregate"), ceph_fuse).route,
        mpiio::CollectiveRoute::Aggregate);
    EXPECT_NE(mpiio::describe(shared).find("shared (from the file system; file system: lustre)"),
              std::string::npos)
        << mpiio::describe(shared);
    // write_behind=auto: on shared storage only; on / off taken on either.
    EXPECT_FALSE(local.write_behind);
    EXPECT_TRUE(shared.write_behind);
    EXPECT_NE(mpiio::describe(shared).find("write_behind=on"), std::string::npos) << mpiio::describe(shared);
    EXPECT_TRUE(mpiio::resolve_storage_tuning(mpiio::parse_config("write_behind=on"), kTmpfs).write_behind);
    EXPECT_FALSE(
        mpiio::resolve_storage_tuning(mpiio::parse_config("write_behind=off"), kLustre).write_behind);
}

// view_writes=auto: only where the file lies in memory (the sync after a view write costs nothing
// there; a disk flushes its device, shared storage makes a round trip); on / off taken anywhere.
TEST(StorageTuning, ViewWritesOnlyInMemoryByDefault) {
    const Config defaults;
    EXPECT_TRUE(mpiio::file_system_in_memory(kTmpfs));
    EXPECT_FALSE(mpiio::file_system_in_memory(kExt4));
    EXPECT_TRUE(mpiio::resolve_storage_tuning(defaults, kTmpfs).view_writes);
    for (std::int64_t fs : {kExt4, kNfs, kLustre, kGpfs, kFuse, std::int64_t{0}})
        EXPECT_FALSE(mpiio::resolve_storage_tuning(defaults, fs).view_writes) << std::hex << fs;
    EXPECT_FALSE(mpiio::resolve_storage_tuning(mpiio::parse_config("storage=shared"), kTmpfs).view_writes);
    EXPECT_TRUE(mpiio::resolve_storage_tuning(mpiio::parse_config("view_writes=on"), kLustre).view_writes);
    EXPECT_FALSE(mpiio::resolve_storage_tuning(mpiio::parse_config("view_writes=off"), kTmpfs).view_writes);
    EXPECT_NE(mpiio::describe(mpiio::resolve_storage_tuning(defaults, kTmpfs)).find("view_writes=on"),
              std::string::npos);
}

TEST(StorageTuning, ConfigurationWins) {
    Config c = mpiio::parse_config("storage=shared");
    const auto forced = mpiio::resolve_storage_tuning(c, kTmpfs);
    EXPECT_EQ(forced.storage, StorageClass::Shared);
    EXPECT_TRUE(forced.chosen_by_config);
    EXPECT_EQ(forced.sieve_gap, mpiio::tuning::kSieveGapShared);
    c = mpiio::parse_config("storage=local;sieve_gap=1M;read_overlap_limit=2");
    const auto own = mpiio::resolve_storage_tuning(c, kLustre);
    EXPECT_EQ(own.storage, StorageClass::Local);
    EXPECT_EQ(own.sieve_gap, std::size_t{1} << 20);
    EXPECT_EQ(own.read_overlap_limit, 2u);
    EXPECT_NE(mpiio::describe(own).find("sieve_gap=1M read_overlap_limit=2"), std::string::npos)
        << mpiio::describe(own);
    for (const char *policy :
         {"independent", "collective", "aggregate", "aggregate_interleaved"}) { // an explicit route stays
        c = mpiio::parse_config(std::string("collective_route=") + policy);
        for (std::int64_t fs : {kTmpfs, kLustre})
            EXPECT_EQ(mpiio::resolve_storage_tuning(c, fs).route, c.collective_route)
                << policy << std::hex << fs;
    }
    c = mpiio::parse_config("storage=local");
    EXPECT_EQ(mpiio::resolve_storage_tuning(c, kFuse).route, mpiio::CollectiveRoute::Auto);
    c = mpiio::parse_config("sieve_gap=0");
    EXPECT_EQ(mpiio::resolve_storage_tuning(c, kLustre).sieve_gap, 0u);
}

} // namespace
