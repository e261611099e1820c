// The storage class a file's type gives, and the defaults each class gives the keys that depend on
// it (settings/storage.hpp); the configuration's own values win.
#include "settings/storage.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
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
    for (const char *policy : {"independent", "collective", "aggregate"}) { // an explicit route stays
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
