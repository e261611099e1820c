// The file's layout as the storage reports it (file/file_layout.hpp): CephFS's and Lustre's layout
// attributes parsed, the configuration's keys over them, the open's broadcast words, and what a
// local file system gives (st_blksize).
#include "file/file_layout.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <vector>

using mpiio::FileLayout;
using mpiio::LayoutSource;

namespace {

constexpr std::uint64_t M = 1 << 20;

TEST(FileLayout, CephLayoutAttribute) {
    const auto l =
        mpiio::parse_ceph_layout("stripe_unit=1048576 stripe_count=2 object_size=4194304 pool=cephfs_data");
    ASSERT_TRUE(l);
    EXPECT_EQ(l->unit, M);
    EXPECT_EQ(l->count, 2u);
    EXPECT_EQ(l->object_size, 4 * M);
    EXPECT_EQ(l->source, LayoutSource::CephXattr);
    EXPECT_FALSE(l->count_is_servers) << "CephFS's objects take no extent locks";
    EXPECT_EQ(mpiio::describe(*l), "stripe unit 1M x 2 stripes (ceph.file.layout, object size 4M)");
    EXPECT_FALSE(mpiio::parse_ceph_layout("pool=cephfs_data"));
    EXPECT_FALSE(mpiio::parse_ceph_layout(""));
    EXPECT_EQ(mpiio::parse_ceph_layout("stripe_unit=4194304 stripe_count=1 object_size=4194304 "
                                       "pool=p pool_namespace=")
                  ->unit,
              4 * M);
}

// A Lustre layout's bytes (little-endian): magic, pattern, a 16-byte object id, stripe size, count.
std::vector<unsigned char> lov(std::uint32_t magic, std::uint32_t stripe_size, std::uint16_t count) {
    std::vector<unsigned char> b(32 + 24 * count, 0);
    auto put = [&](std::size_t at, std::uint64_t v, std::size_t width) {
        for (std::size_t i = 0; i < width; ++i)
            b[at + i] = static_cast<unsigned char>(v >> (8 * i));
    };
    put(0, magic, 4);
    put(4, 1, 4); // RAID0
    put(24, stripe_size, 4);
    put(28, count, 2);
    return b;
}

TEST(FileLayout, LustreLayoutAttribute) {
    const auto v1 = mpiio::parse_lustre_layout(lov(0x0BD10BD0, 4 * M, 8));
    ASSERT_TRUE(v1);
    EXPECT_EQ(v1->unit, 4 * M);
    EXPECT_EQ(v1->count, 8u);
    EXPECT_TRUE(v1->count_is_servers);
    EXPECT_EQ(mpiio::describe(*v1), "stripe unit 4M x 8 servers (lustre.lov)");
    const auto v3 = mpiio::parse_lustre_layout(lov(0x0BD30BD0, M, 1));
    ASSERT_TRUE(v3);
    EXPECT_EQ(v3->unit, M);
    EXPECT_EQ(v3->count, 1u);
    EXPECT_FALSE(mpiio::parse_lustre_layout(lov(0x12345678, M, 1))) << "not a layout";
    EXPECT_FALSE(mpiio::parse_lustre_layout(std::vector<unsigned char>(10, 0))) << "too short";

    // A composite (progressive) layout: a 32-byte header, 48-byte entries, the first component's
    // plain layout where its entry says.
    std::vector<unsigned char> comp(32 + 2 * 48, 0);
    comp[0] = 0xD0, comp[1] = 0x0B, comp[2] = 0xD6, comp[3] = 0x0B; // 0x0BD60BD0
    comp[14] = 2;                                                   // two components
    const auto first = lov(0x0BD10BD0, M, 1), second = lov(0x0BD10BD0, 16 * M, 4);
    const std::size_t at = comp.size();
    comp[32 + 24] = static_cast<unsigned char>(at);
    comp.insert(comp.end(), first.begin(), first.end());
    comp.insert(comp.end(), second.begin(), second.end());
    const auto pfl = mpiio::parse_lustre_layout(comp);
    ASSERT_TRUE(pfl);
    EXPECT_EQ(pfl->unit, M);
    EXPECT_EQ(pfl->count, 1u);
}

TEST(FileLayout, ConfigurationKeysWin) {
    FileLayout ceph = *mpiio::parse_ceph_layout("stripe_unit=4194304 stripe_count=1 object_size=4194304");
    mpiio::Config c = mpiio::parse_config("stripe_unit=1M");
    FileLayout l = mpiio::apply_layout_keys(ceph, c);
    EXPECT_EQ(l.unit, M);
    EXPECT_EQ(l.source, LayoutSource::Config);
    EXPECT_FALSE(l.count_is_servers) << "a unit alone asks for no servers' rule";
    c = mpiio::parse_config("stripe_count=4");
    l = mpiio::apply_layout_keys(ceph, c);
    EXPECT_EQ(l.unit, 4 * M);
    EXPECT_EQ(l.count, 4u);
    EXPECT_TRUE(l.count_is_servers);
    EXPECT_EQ(mpiio::apply_layout_keys(ceph, mpiio::Config{}).source, LayoutSource::CephXattr);
}

TEST(FileLayout, TravelsAsWords) {
    const FileLayout l{M, 8, 0, LayoutSource::LustreXattr, true};
    const auto words = mpiio::to_words(l);
    const FileLayout back = mpiio::layout_from_words(words);
    EXPECT_EQ(back.unit, l.unit);
    EXPECT_EQ(back.count, l.count);
    EXPECT_EQ(back.source, l.source);
    EXPECT_EQ(back.count_is_servers, l.count_is_servers);
}

// A local file system has no layout attributes: the block size stands for the unit.
TEST(FileLayout, LocalFilesGiveTheirBlockSize) {
    const std::string path = "/dev/shm/mpiio-layout-" + std::to_string(::getpid());
    std::ofstream(path) << "x";
    const FileLayout l = mpiio::probe_layout(path, mpiio::LayoutAttribute::None, MPI_FILE_NULL);
    ::unlink(path.c_str());
    EXPECT_EQ(l.source, LayoutSource::BlockSize);
    EXPECT_GT(l.unit, 0u);
    EXPECT_EQ(l.count, 0u);
    EXPECT_EQ(
        mpiio::probe_layout("/no-such-directory/x.h5", mpiio::LayoutAttribute::None, MPI_FILE_NULL).source,
        LayoutSource::None);
}

} // namespace
