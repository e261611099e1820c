// Many files open at once in one process: files on MPI_COMM_WORLD, on split communicators (even
// and odd ranks) and on MPI_COMM_SELF, alternating between the mpiio plugin and the built-in mpio
// driver, all open together while their writes interleave. Every file gets its own contents and
// an attribute naming it, so a write that lands in the wrong file (cross-talk through a shared
// handle, cache or staging buffer) is caught when every file is reopened and checked. After the
// files are closed, no descriptor and no MPI handle may remain.
//
// MPIIO_MANYFILES_PER_KIND (default 100) files of each kind: 3x that many open per process.
#include "mpi_handle_counter.hpp"
#include "process_usage.hpp"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

using namespace mpiio_test;

namespace {

constexpr hsize_t kPerRank = 600; // ints each rank of a file's communicator writes
constexpr hsize_t kChunk = 256;   // every other file is chunked

int files_per_kind() {
    const char *v = std::getenv("MPIIO_MANYFILES_PER_KIND");
    return v != nullptr ? std::atoi(v) : 100;
}

enum class Kind { World, Split, Self };

struct OpenFile {
    std::string path;
    Kind kind;
    Driver driver;
    int id;        // unique over all files of all ranks
    MPI_Comm comm; // not owned
    int comm_rank = 0, comm_size = 1;
    Hid file, dset;
};

int value(int file_id, hsize_t index) {
    return static_cast<int>(static_cast<unsigned>(file_id) * 1000003u + static_cast<unsigned>(index));
}

// One collective (over the file's communicator) write of half of this rank's block.
bool write_half(OpenFile &f, int half) {
    const hsize_t half_len = kPerRank / 2;
    const hsize_t start[1] = {kPerRank * static_cast<hsize_t>(f.comm_rank) +
                              half_len * static_cast<hsize_t>(half)};
    const hsize_t count[1] = {half_len};
    Hid space(H5Dget_space(f.dset));
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mem(H5Screate_simple(1, count, nullptr));
    std::vector<int> buf(half_len);
    for (hsize_t i = 0; i < half_len; ++i)
        buf[i] = value(f.id, start[0] + i);
    // Collective on world and split files, independent on the rest, to mix both paths.
    Hid dxpl = make_dxpl(f.id % 3 == 2 ? H5FD_MPIO_INDEPENDENT : H5FD_MPIO_COLLECTIVE);
    return H5Dwrite(f.dset, H5T_NATIVE_INT, mem, space, dxpl, buf.data()) >= 0;
}

// Creates the file with one dataset and an attribute holding its id (collective on f.comm).
bool create(OpenFile &f) {
    Hid fapl = make_fapl(f.driver, {f.comm});
    f.file = Hid(H5Fcreate(f.path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    if (!f.file.valid())
        return false;
    const hsize_t dims[1] = {kPerRank * static_cast<hsize_t>(f.comm_size)};
    Hid space(H5Screate_simple(1, dims, nullptr));
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
    if (f.id % 2 == 1) {
        const hsize_t chunk[1] = {kChunk};
        H5Pset_chunk(dcpl, 1, chunk);
    }
    f.dset = Hid(H5Dcreate2(f.file, "data", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    Hid aspace(H5Screate(H5S_SCALAR));
    Hid attr(H5Acreate2(f.file, "file_id", H5T_NATIVE_INT, aspace, H5P_DEFAULT, H5P_DEFAULT));
    return f.dset.valid() && attr.valid() && H5Awrite(attr, H5T_NATIVE_INT, &f.id) >= 0;
}

// Reopens the file read-only and checks the attribute and every element (collective on f.comm).
std::string verify(OpenFile &f) {
    Hid fapl = make_fapl(f.driver, {f.comm});
    f.file = Hid(H5Fopen(f.path.c_str(), H5F_ACC_RDONLY, fapl));
    if (!f.file.valid())
        return "cannot reopen";
    Hid attr(H5Aopen(f.file, "file_id", H5P_DEFAULT));
    int id = -1;
    if (!attr.valid() || H5Aread(attr, H5T_NATIVE_INT, &id) < 0 || id != f.id)
        return "attribute says file " + std::to_string(id);
    f.dset = Hid(H5Dopen2(f.file, "data", H5P_DEFAULT));
    const hsize_t n = kPerRank * static_cast<hsize_t>(f.comm_size);
    std::vector<int> got(n, -1);
    if (H5Dread(f.dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, got.data()) < 0)
        return "read failed";
    for (hsize_t i = 0; i < n; ++i)
        if (got[i] != value(f.id, i))
            return "element " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " +
                   std::to_string(value(f.id, i)) + " (value of file " + std::to_string(got[i] / 1000003) +
                   ")";
    return {};
}

void close_all(std::vector<OpenFile> &files) {
    for (auto &f : files) {
        f.dset.reset();
        if (f.file.valid()) {
            EXPECT_GE(H5Fclose(f.file.release()), 0) << f.path;
        }
    }
}

// Local. How many of `comms` hold different ranks or orders (MPI_Comm_compare: not congruent).
long distinct_groups(const std::vector<MPI_Comm> &comms) {
    std::vector<MPI_Comm> seen;
    for (MPI_Comm c : comms) {
        bool known = false;
        for (MPI_Comm s : seen) {
            int result = MPI_UNEQUAL;
            MPI_Comm_compare(c, s, &result);
            known = known || result == MPI_IDENT || result == MPI_CONGRUENT;
        }
        if (!known)
            seen.push_back(c);
    }
    return static_cast<long>(seen.size());
}

TEST(ManyFiles, HundredsOpenAtOnceOnWorldSplitAndSelfMixedWithBuiltInDriver) {
    const std::string dir = test_dir();
    const int rank = world_rank(), size = world_size(), per_kind = files_per_kind();
    MPI_Comm split = MPI_COMM_NULL;
    MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &split);
    int split_rank = 0, split_size = 1;
    MPI_Comm_rank(split, &split_rank);
    MPI_Comm_size(split, &split_size);

    const long fds_before = open_fd_count();
    const MpiHandleCounts handles_before = mpi_handle_counts();

    // Interleaved order (world i, split i, self i, ...): the same on every rank, so collectives on
    // the different communicators never wait on each other.
    std::vector<OpenFile> files;
    for (int i = 0; i < per_kind; ++i) {
        const Driver d = i % 2 == 0 ? Driver::Mpiio : Driver::Mpio;
        const Driver other = d == Driver::Mpiio ? Driver::Mpio : Driver::Mpiio;
        files.push_back({dir + "/world" + std::to_string(i) + ".h5",
                         Kind::World,
                         d,
                         3 * i * (size + 2),
                         MPI_COMM_WORLD,
                         rank,
                         size,
                         {},
                         {}});
        files.push_back({dir + "/split" + std::to_string(rank % 2) + "_" + std::to_string(i) + ".h5",
                         Kind::Split,
                         other,
                         3 * i * (size + 2) + 1 + rank % 2,
                         split,
                         split_rank,
                         split_size,
                         {},
                         {}});
        files.push_back({dir + "/self" + std::to_string(rank) + "_" + std::to_string(i) + ".h5",
                         Kind::Self,
                         d,
                         3 * i * (size + 2) + 3 + rank,
                         MPI_COMM_SELF,
                         0,
                         1,
                         {},
                         {}});
    }
    for (auto &f : files)
        ASSERT_TRUE(create(f)) << "create " << f.path;
    EXPECT_GE(open_fd_count() - fds_before, static_cast<long>(files.size()))
        << "expected at least one descriptor per open file";
    for (int half = 0; half < 2; ++half)
        for (auto &f : files)
            ASSERT_TRUE(write_half(f, half)) << "write " << f.path;
    // Flush every third file while all stay open.
    for (size_t i = 0; i < files.size(); i += 3)
        EXPECT_GE(H5Fflush(files[i].file, H5F_SCOPE_LOCAL), 0) << files[i].path;
    close_all(files);

    // The plugin keeps the communicator of the last file closed over each group of ranks for the
    // next open (driver/file/comm_pool.hpp): one per distinct group among world, split and self, and
    // nothing else may stay.
    std::vector<MPI_Comm> plugin_comms; // the communicators of the files the plugin opened
    for (const auto &f : files)
        if (f.driver == Driver::Mpiio)
            plugin_comms.push_back(f.comm);
    MpiHandleCounts expected_after = handles_before;
    expected_after.comms += distinct_groups(plugin_comms);
    EXPECT_EQ(open_fd_count(), fds_before) << "descriptors left after closing every file";
    EXPECT_TRUE(mpi_handle_counts().same_live(expected_after))
        << "MPI handles expected: " << expected_after.text() << "; after: " << mpi_handle_counts().text();

    // Reopen all at once and check every file's contents.
    for (auto &f : files) {
        const std::string problem = verify(f);
        EXPECT_TRUE(problem.empty()) << f.path << " (" << driver_name(f.driver) << "): " << problem;
    }
    close_all(files);
    EXPECT_EQ(open_fd_count(), fds_before) << "descriptors left after the read pass";
    EXPECT_TRUE(mpi_handle_counts().same_live(expected_after))
        << "MPI handles expected: " << expected_after.text() << "; after: " << mpi_handle_counts().text();
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0);
    MPI_Comm_free(&split);
}

} // namespace
