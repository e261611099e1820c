// The file's layout reaches the aggregation's file domains on a file system with per-file layouts
// (file/file_layout.hpp, docs/decisions.md D25): on the CephFS testbed (scripts/cephfs.sh), a file
// in a directory whose layout was set to a 1 MiB stripe unit and a file with the default 4 MiB
// unit. Each file's layout is read back through the other client's attribute, and every write the
// aggregators make (recorded through PMPI: the program exports its MPI_File_write_at) lies inside
// one window of whole units of that file: 1 MiB windows in the first, 4 MiB in the second (with a
// staging buffer of 1.5 MiB, which neither unit divides). test_layout.sh checks that
// stats=summary names both layouts. Skipped, saying why, elsewhere.
#include "../mpi/common.hpp"
#include "../mpi/write_recorder.hpp"

#include <sys/xattr.h>

#include <cstdlib>
#include <optional>
#include <string>

namespace {

using namespace mpiio_test;

constexpr std::uint64_t M = 1 << 20;

// Local. A CephFS layout field of `path` ("stripe_unit"), 0 when it cannot be read.
std::uint64_t layout_field(const std::string &path, const char *field) {
    char value[64] = {};
    const std::string name = std::string("ceph.file.layout.") + field;
    if (::getxattr(path.c_str(), name.c_str(), value, sizeof value - 1) <= 0)
        return 0;
    return std::strtoull(value, nullptr, 10);
}

// Collective. Writes 3 MiB per rank collectively into a new file at `path` (a contiguous dataset,
// the ranks' blocks in rank order) and checks every aggregator write against windows of `unit`.
void write_and_check(const std::string &path, std::uint64_t unit) {
    const int s = world_size(), r = world_rank();
    FaplOptions options;
    options.config = "collective_route=aggregate;write_behind=off;staging_buffer=1536K;stats=summary";
    Hid fapl = make_fapl(Driver::Mpiio, options);
    Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
    const hsize_t per_rank = 3 * M / sizeof(int), dims[1] = {per_rank * static_cast<hsize_t>(s)};
    Hid fspace(H5Screate_simple(1, dims, nullptr));
    Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(all_ranks(dset.valid())) << error_stack_text();
    const hsize_t start[1] = {per_rank * static_cast<hsize_t>(r)}, count[1] = {per_rank};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mspace(H5Screate_simple(1, count, nullptr));
    std::vector<int> mine(per_rank);
    for (hsize_t e = 0; e < per_rank; ++e)
        mine[e] = static_cast<int>(start[0] + e);
    std::optional<WriteRecorder> recording(std::in_place);
    const herr_t written = H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, mine.data());
    recording.reset();
    ASSERT_TRUE(all_ranks(written >= 0)) << error_stack_text();
    std::uint64_t longest = 0;
    for (const auto &[offset, bytes, memory_page_offset] : WriteRecorder::calls()) {
        const auto window = static_cast<std::uint64_t>(offset) / unit;
        EXPECT_LE(static_cast<std::uint64_t>(offset) + bytes, (window + 1) * unit)
            << "a write at " << offset << " of " << bytes << " bytes leaves its " << unit << "-byte window";
        longest = std::max(longest, bytes);
    }
    std::uint64_t longest_anywhere = 0;
    MPI_Allreduce(&longest, &longest_anywhere, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
    EXPECT_GT(longest_anywhere, unit / 2) << "the aggregators wrote whole units, not slivers";
    std::vector<int> got(dims[0], -1);
    ASSERT_GE(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, got.data()), 0);
    for (hsize_t e = 0; e < dims[0]; ++e)
        ASSERT_EQ(got[e], static_cast<int>(e)) << "element " << e;
}

TEST(CephLayout, EachFilesStripeUnitCutsItsWindows) {
    const char *kind = std::getenv("MPIIO_DFS_KIND");
    if (kind == nullptr || std::string(kind) != "cephfs")
        GTEST_SKIP() << "not on the CephFS testbed of scripts/cephfs.sh (MPIIO_DFS_KIND is not cephfs)";
    const std::string dir = test_dir(), small = dir + "/unit-1m";
    if (world_rank() == 0) {
        ASSERT_EQ(::mkdir(small.c_str(), 0755), 0);
        const char unit[] = "1048576";
        ASSERT_EQ(::setxattr(small.c_str(), "ceph.dir.layout.stripe_unit", unit, sizeof unit - 1, 0), 0)
            << "setting the directory's layout (the client needs the 'p' capability)";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const std::string one = small + "/layout.mpiio.h5", four = dir + "/layout.mpiio.h5";
    write_and_check(one, M);
    write_and_check(four, 4 * M);
    // Read through this rank's client (the odd ranks' is the other one): the files' own layouts.
    EXPECT_EQ(layout_field(one, "stripe_unit"), M);
    EXPECT_EQ(layout_field(four, "stripe_unit"), 4 * M);
}

} // namespace
