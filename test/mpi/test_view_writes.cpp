// Independent writes of many small runs as one call through the rank's own file view
// (driver/io/mpi_io.hpp): never a byte between the runs is written, so ranks writing interleaved
// elements at the same time all keep their bytes; the view is used where it may be (8 runs or
// more, not in MPI atomic mode, not with view_writes=off, by default not for irregular runs under
// Open MPI's ROMIO) and the file equals the built-in driver's. The tests of the view's mechanism
// set view_writes=on, which uses it under every layer.
#include "common.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <string>

namespace {

using namespace mpiio_test;

// Interleaved elements per rank, rounds of the concurrent writes, and irregular blocks per rank (a
// region of 10 elements each, at most a tenth of per_rank(): the default case puts them in the
// interleaved dataset). On shared storage each element the built-in driver (and rank 0, in calls
// of 7) writes is a round trip under the clients' lock on the file (more than 300 s for the suite
// on 2 ranks), so there they are fewer: still more than the view's threshold of 8 runs, and rank
// 0's calls of 7 still run while the others write their views.
hsize_t per_rank() { return storage_sized<hsize_t>(20000, 200); }
int rounds() { return storage_sized(12, 3); }
hsize_t uneven_blocks_per_rank() { return storage_sized<hsize_t>(300, 20); }

// A new file with one 1-D dataset "d" of `n` ints. Collective.
struct IntFile {
    Hid file, fspace, dset;
};
IntFile create_int_file(Driver d, const std::string &path, hsize_t n, const char *config = nullptr) {
    IntFile f;
    FaplOptions options;
    options.config = config;
    Hid fapl = make_fapl(d, options);
    f.file = Hid(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    f.fspace = Hid(H5Screate_simple(1, &n, nullptr));
    f.dset = Hid(H5Dcreate2(f.file, "d", H5T_STD_I32LE, f.fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    return f;
}

// Element k * s + r of the dataset belongs to rank r: the ranks' elements interleave one by one,
// so every rank's file extent covers every other rank's elements.
struct Interleaved : IntFile {
    Hid mine, mspace;
};

Interleaved open_interleaved(Driver d, const std::string &path, const char *config) {
    const int rank = world_rank(), size = world_size();
    Interleaved f;
    static_cast<IntFile &>(f) = create_int_file(d, path, per_rank() * static_cast<hsize_t>(size), config);
    const hsize_t start[1] = {static_cast<hsize_t>(rank)}, stride[1] = {static_cast<hsize_t>(size)},
                  count[1] = {per_rank()};
    f.mine = Hid(H5Scopy(f.fspace));
    H5Sselect_hyperslab(f.mine, H5S_SELECT_SET, start, stride, count, nullptr);
    f.mspace = Hid(H5Screate_simple(1, count, nullptr));
    return f;
}

// The values of round `round` for this rank's elements.
std::vector<int> round_values(int round) {
    const int rank = world_rank(), size = world_size();
    return values_at<int>(hyperslab_indices({per_rank() * static_cast<hsize_t>(size)},
                                            {static_cast<hsize_t>(rank)}, {static_cast<hsize_t>(size)},
                                            {per_rank()}),
                          round);
}

// Writes this rank's elements with H5Dwrite calls of `per_call` elements each (the last may be
// shorter). Local.
bool write_in_calls(const Interleaved &f, hid_t dxpl, const std::vector<int> &values, hsize_t per_call) {
    const int rank = world_rank(), size = world_size();
    for (hsize_t first = 0; first < per_rank(); first += per_call) {
        const hsize_t n = std::min(per_call, per_rank() - first);
        const hsize_t start[1] = {first * static_cast<hsize_t>(size) + static_cast<hsize_t>(rank)},
                      stride[1] = {static_cast<hsize_t>(size)}, count[1] = {n};
        Hid sel(H5Scopy(f.fspace));
        Hid mem(H5Screate_simple(1, count, nullptr));
        if (H5Sselect_hyperslab(sel, H5S_SELECT_SET, start, stride, count, nullptr) < 0 ||
            H5Dwrite(f.dset, H5T_NATIVE_INT, mem, sel, dxpl, values.data() + first) < 0)
            return false;
    }
    return true;
}

// Every rank writes its interleaved elements at the same moment, independently, round after
// round: rank 0 in calls of 7 elements (below the view threshold: a plain MPI_File_write_at per
// element, which takes no lock), the others in one call each (a view write). After each round every
// element must hold its own rank's value of that round. A view write that rewrote the bytes
// between its runs (data sieving: read the extent, merge, write it back, under an fcntl lock that
// plain writes ignore) would put back rank 0's values of the previous round.
TEST(ViewWrites, ConcurrentInterleavedIndependentWritesKeepEveryRanksBytes) {
    const int size = world_size();
    const std::string dir = test_dir();
    for (const char *config : {"view_writes=on", "view_writes=off"}) {
        for (Driver d : kDrivers) {
            SCOPED_TRACE(std::string(driver_name(d)) + " " + config);
            const std::string path = path_in(dir, std::string("interleaved-") + config, d);
            {
                Interleaved f = open_interleaved(d, path, config);
                ASSERT_TRUE(all_ranks(f.dset.valid()));
                Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
                for (int round = 1; round <= rounds(); ++round) {
                    const std::vector<int> values = round_values(round);
                    MPI_Barrier(MPI_COMM_WORLD);
                    ASSERT_TRUE(
                        all_ranks(write_in_calls(f, indep, values, world_rank() == 0 ? 7 : per_rank())));
                    MPI_Barrier(MPI_COMM_WORLD);
                    std::vector<int> back(per_rank(), -1);
                    ASSERT_TRUE(all_ranks(
                        H5Dread(f.dset, H5T_NATIVE_INT, f.mspace, f.mine, indep, back.data()) >= 0));
                    ASSERT_TRUE(all_ranks(back == values))
                        << "round " << round
                        << ": a rank's elements were overwritten by another rank's write";
                }
                if (d == Driver::Mpiio) {
                    const auto s = stats_of(f.file);
                    const bool on = std::string(config) == "view_writes=on";
                    // Rank 0 writes 7 runs per call; a lone rank bridges its gaps (nobody else
                    // writes): neither needs a view.
                    EXPECT_EQ(s.view_writes > 0, on && size > 1 && world_rank() != 0)
                        << "view writes: " << s.view_writes;
                }
            }
            EXPECT_TRUE(dataset_equals_on_rank0(
                path, "d", expected_dataset<int>(per_rank() * static_cast<hsize_t>(size), rounds())));
        }
    }
}

// The view is for 8 runs or more: fewer go a call each. In MPI atomic mode every write goes through
// the shared handle (a second handle would not be atomic with it). Both give the built-in
// driver's file.
TEST(ViewWrites, UsedOnlyWhereItMayBe) {
    const int size = world_size();
    if (size == 1)
        GTEST_SKIP() << "one rank bridges its gaps: no view writes to check";
    const std::string dir = test_dir();
    for (Driver d : kDrivers) {
        const std::string path = path_in(dir, "where", d);
        {
            Interleaved f = open_interleaved(d, path, "view_writes=on");
            ASSERT_TRUE(all_ranks(f.dset.valid()));
            Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
            const std::vector<int> all = round_values(0);
            // 7 elements: below the threshold.
            const hsize_t start[1] = {static_cast<hsize_t>(world_rank())},
                          stride[1] = {static_cast<hsize_t>(size)}, seven[1] = {7};
            Hid few(H5Scopy(f.fspace));
            H5Sselect_hyperslab(few, H5S_SELECT_SET, start, stride, seven, nullptr);
            Hid few_mem(H5Screate_simple(1, seven, nullptr));
            H5FD_mpiio_stats_t s0{}, s1{}, s2{}, s3{};
            if (d == Driver::Mpiio)
                s0 = stats_of(f.file);
            ASSERT_TRUE(all_ranks(H5Dwrite(f.dset, H5T_NATIVE_INT, few_mem, few, indep, all.data()) >= 0));
            if (d == Driver::Mpiio) {
                s1 = stats_of(f.file);
                EXPECT_EQ(s1.view_writes, s0.view_writes) << "7 runs went through the view";
                EXPECT_EQ(s1.independent_writes - s0.independent_writes, 7u);
            }
            ASSERT_TRUE(all_ranks(H5Fset_mpi_atomicity(f.file, true) >= 0)) << error_stack_text();
            ASSERT_TRUE(
                all_ranks(H5Dwrite(f.dset, H5T_NATIVE_INT, f.mspace, f.mine, indep, all.data()) >= 0));
            if (d == Driver::Mpiio) {
                s2 = stats_of(f.file);
                EXPECT_EQ(s2.view_writes, s1.view_writes) << "a view write in atomic mode";
            }
            ASSERT_TRUE(all_ranks(H5Fset_mpi_atomicity(f.file, false) >= 0)) << error_stack_text();
            const std::vector<int> again = round_values(3);
            ASSERT_TRUE(
                all_ranks(H5Dwrite(f.dset, H5T_NATIVE_INT, f.mspace, f.mine, indep, again.data()) >= 0));
            if (d == Driver::Mpiio) {
                s3 = stats_of(f.file);
                EXPECT_EQ(s3.view_writes, s2.view_writes + 1)
                    << per_rank() << " runs did not go as one view write";
            }
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    EXPECT_EQ(compare_files(path_in(dir, "where", Driver::Mpio), path_in(dir, "where", Driver::Mpiio)), "");
}

// Uneven runs (blocks of 1, 2 and 3 elements at uneven gaps: the hindexed view) from a memory
// selection with holes of its own (the runs' bytes gathered first), then H5Fflush (MPI_File_sync
// on the rank's own handle too) and a read through the shared handle: the built-in driver's file.
TEST(ViewWrites, UnevenRunsFromStridedMemoryMatchTheBuiltinDriver) {
    const int rank = world_rank(), size = world_size();
    const std::string dir = test_dir();
    const hsize_t blocks = uneven_blocks_per_rank(), region = blocks * 10; // per rank; a block fits in 10
    for (Driver d : kDrivers) {
        const std::string path = path_in(dir, "uneven", d);
        const IntFile f = create_int_file(d, path, region * static_cast<hsize_t>(size), "view_writes=on");
        ASSERT_TRUE(all_ranks(f.dset.valid()));
        const hid_t file = f.file, fspace = f.fspace, dset = f.dset;
        // Block b of this rank: 1 + b % 3 elements at element 10 * b + b % 4 of its region.
        Hid sel(H5Scopy(fspace));
        H5Sselect_none(sel);
        std::vector<hsize_t> indices;
        for (hsize_t b = 0; b < blocks; ++b) {
            const hsize_t start[1] = {region * static_cast<hsize_t>(rank) + 10 * b + b % 4},
                          count[1] = {1 + b % 3};
            H5Sselect_hyperslab(sel, H5S_SELECT_OR, start, nullptr, count, nullptr);
            for (hsize_t k = 0; k < count[0]; ++k)
                indices.push_back(start[0] + k);
        }
        // Memory: every other int of a buffer twice the size.
        const hsize_t mem_dims[1] = {2 * indices.size()}, mem_start[1] = {0}, mem_stride[1] = {2},
                      mem_count[1] = {indices.size()};
        Hid mspace(H5Screate_simple(1, mem_dims, nullptr));
        H5Sselect_hyperslab(mspace, H5S_SELECT_SET, mem_start, mem_stride, mem_count, nullptr);
        std::vector<int> buffer(2 * indices.size(), -7);
        const std::vector<int> values = values_at<int>(indices);
        for (size_t k = 0; k < values.size(); ++k)
            buffer[2 * k] = values[k];
        Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
        const H5FD_mpiio_stats_t before = d == Driver::Mpiio ? stats_of(file) : H5FD_mpiio_stats_t{};
        ASSERT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, sel, indep, buffer.data()) >= 0));
        if (d == Driver::Mpiio) {
            EXPECT_EQ(stats_of(file).view_writes - before.view_writes, size > 1 ? 1u : 0u);
        }
        ASSERT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0)) << error_stack_text();
        std::vector<int> back(2 * indices.size(), -1);
        ASSERT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, mspace, sel, indep, back.data()) >= 0));
        for (size_t k = 0; k < values.size(); ++k)
            EXPECT_EQ(back[2 * k], values[k]) << "element " << indices[k];
    }
    EXPECT_EQ(compare_files(path_in(dir, "uneven", Driver::Mpio), path_in(dir, "uneven", Driver::Mpiio)), "");
}

// True when this process's files are opened by Open MPI's ROMIO: Open MPI started with ROMIO as
// its io component (`mpirun --mca io romio321`, as the test registration does). Local.
bool open_mpi_romio() {
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
    int length = 0;
    MPI_Get_library_version(version, &length);
    if (std::string(version).find("Open MPI") == std::string::npos)
        return false;
    const char *io = std::getenv("OMPI_MCA_io"); // a list, or ^list to exclude
    return io != nullptr && io[0] != '^' && std::string(io).find("romio") != std::string::npos &&
           std::string(io).find("ompio") == std::string::npos;
}

// This rank's `blocks` irregular blocks (1 + b % 3 elements at element 10 * b + b % 4 of its
// region of 10 * blocks elements) as a file selection of `fspace`, and their indices. Local.
Hid uneven_blocks(hid_t fspace, hsize_t blocks, std::vector<hsize_t> &indices) {
    const hsize_t region = 10 * blocks, base = region * static_cast<hsize_t>(world_rank());
    Hid sel(H5Scopy(fspace));
    H5Sselect_none(sel);
    for (hsize_t b = 0; b < blocks; ++b) {
        const hsize_t start[1] = {base + 10 * b + b % 4}, count[1] = {1 + b % 3};
        H5Sselect_hyperslab(sel, H5S_SELECT_OR, start, nullptr, count, nullptr);
        for (hsize_t k = 0; k < count[0]; ++k)
            indices.push_back(start[0] + k);
    }
    return sel;
}

// The default (view_writes=auto): the view where it costs less than a call per run. Regular runs
// (an hvector view) everywhere; irregular runs (an hindexed view) under OMPIO and MPICH, not under
// Open MPI's ROMIO, which duplicates and flattens the view's type at every set_view: there they go
// a call each. Same file as the built-in driver either way. On shared storage what auto takes is
// the storage's choice (settings/storage.hpp) rather than the layer's: there the case sets
// view_writes=on and checks that both views are written, under every layer.
TEST(ViewWrites, DefaultSkipsOnlyIrregularViewsUnderOpenMpisRomio) {
    const int size = world_size();
    if (size == 1)
        GTEST_SKIP() << "one rank bridges its gaps: no view write to check";
    const hsize_t blocks = uneven_blocks_per_rank(); // runs per rank, 2 elements each on average
    const std::string dir = test_dir();
    const bool shared = shared_storage_at(dir);
    const bool romio = open_mpi_romio() && !shared; // irregular runs a call each
    const char *layer = shared ? "view_writes=on" : romio ? "Open MPI's ROMIO" : "OMPIO or MPICH";
    for (Driver d : kDrivers) {
        const std::string path = path_in(dir, "default", d);
        {
            Interleaved f = open_interleaved(d, path, shared ? "view_writes=on" : nullptr);
            ASSERT_TRUE(all_ranks(f.dset.valid()));
            Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
            const std::vector<int> values = round_values(4);
            ASSERT_TRUE(
                all_ranks(H5Dwrite(f.dset, H5T_NATIVE_INT, f.mspace, f.mine, indep, values.data()) >= 0))
                << error_stack_text();
            std::vector<hsize_t> indices;
            Hid sel = uneven_blocks(f.fspace, blocks, indices);
            const hsize_t n[1] = {indices.size()};
            Hid mspace(H5Screate_simple(1, n, nullptr));
            const std::vector<int> uneven = values_at<int>(indices, 9);
            const H5FD_mpiio_stats_t before = d == Driver::Mpiio ? stats_of(f.file) : H5FD_mpiio_stats_t{};
            ASSERT_TRUE(all_ranks(H5Dwrite(f.dset, H5T_NATIVE_INT, mspace, sel, indep, uneven.data()) >= 0))
                << error_stack_text();
            if (d == Driver::Mpiio) {
                const auto s = stats_of(f.file);
                EXPECT_EQ(before.view_writes, 1u) << "regular runs, " << layer;
                EXPECT_EQ(before.independent_writes, 1u) << "regular runs, " << layer;
                EXPECT_EQ(s.view_writes - before.view_writes, romio ? 0u : 1u) << "irregular runs, " << layer;
                EXPECT_EQ(s.independent_writes - before.independent_writes, romio ? blocks : 1u)
                    << "irregular runs, " << layer;
            }
            std::vector<int> back(indices.size(), -1);
            ASSERT_TRUE(all_ranks(H5Dread(f.dset, H5T_NATIVE_INT, mspace, sel, indep, back.data()) >= 0));
            EXPECT_EQ(back, uneven);
            MPI_Barrier(MPI_COMM_WORLD);
        }
    }
    EXPECT_EQ(compare_files(path_in(dir, "default", Driver::Mpio), path_in(dir, "default", Driver::Mpiio)),
              "");
}

// Restores the working directory it found, whatever the test does. Local.
struct WorkingDirectory {
    char saved[PATH_MAX] = {};
    WorkingDirectory() {
        if (::getcwd(saved, sizeof saved) == nullptr)
            saved[0] = '\0';
    }
    ~WorkingDirectory() {
        if (saved[0] != '\0' && ::chdir(saved) != 0)
            std::perror("chdir back");
    }
};

// A file opened by a relative name, then a chdir before the first view write: the rank's own
// handle (opened lazily, at that write) must still open the file the library opened, not a new one
// under the new working directory.
TEST(ViewWrites, RelativeNameMeansTheOpenedFileAfterChdir) {
    if (world_size() == 1)
        GTEST_SKIP() << "one rank bridges its gaps: no view write to check";
    const std::string dir = test_dir();
    const std::string name = "relative-view.h5", elsewhere = dir + "/elsewhere";
    if (world_rank() == 0)
        ::mkdir(elsewhere.c_str(), 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    WorkingDirectory restore;
    ASSERT_TRUE(all_ranks(::chdir(dir.c_str()) == 0));
    {
        Interleaved f = open_interleaved(Driver::Mpiio, name, "view_writes=on");
        ASSERT_TRUE(all_ranks(f.dset.valid()));
        ASSERT_TRUE(all_ranks(::chdir(elsewhere.c_str()) == 0));
        Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
        const std::vector<int> values = round_values(5);
        ASSERT_TRUE(all_ranks(H5Dwrite(f.dset, H5T_NATIVE_INT, f.mspace, f.mine, indep, values.data()) >= 0))
            << error_stack_text();
        EXPECT_EQ(stats_of(f.file).view_writes, 1u);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_NE(::access((elsewhere + "/" + name).c_str(), F_OK), 0) << "the view write created a second file";
    EXPECT_TRUE(dataset_equals_on_rank0(
        dir + "/" + name, "d", expected_dataset<int>(per_rank() * static_cast<hsize_t>(world_size()), 5)));
}

// MPI makes bytes written through one handle visible through another only after MPI_File_sync on
// the writing one: every view write syncs the rank's own handle before it returns, so that the
// rank's next read through the shared handle (any route) finds its bytes (on a network file system
// the two handles need not see each other's writes otherwise).
TEST(ViewWrites, EveryViewWriteSyncsItsHandleBeforeReturning) {
    if (world_size() == 1)
        GTEST_SKIP() << "one rank bridges its gaps: no view write to check";
    const std::string dir = test_dir();
    const std::string path = path_in(dir, "synced", Driver::Mpiio);
    Interleaved f = open_interleaved(Driver::Mpiio, path, "view_writes=on");
    ASSERT_TRUE(all_ranks(f.dset.valid()));
    Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
    for (int round = 1; round <= 3; ++round) {
        const std::vector<int> values = round_values(round);
        ASSERT_TRUE(all_ranks(H5Dwrite(f.dset, H5T_NATIVE_INT, f.mspace, f.mine, indep, values.data()) >= 0))
            << error_stack_text();
        const auto s = stats_of(f.file);
        EXPECT_EQ(s.view_writes, static_cast<uint64_t>(round));
        EXPECT_EQ(s.own_handle_syncs, s.view_writes) << "a view write returned before its handle was synced";
        std::vector<int> back(per_rank(), -1);
        ASSERT_TRUE(all_ranks(H5Dread(f.dset, H5T_NATIVE_INT, f.mspace, f.mine, indep, back.data()) >= 0));
        EXPECT_EQ(back, values) << "round " << round;
    }
}

// The directory of a file opened by a relative name is renamed and a decoy of the same name takes
// its place before the first view write: the rank's own handle (opened at that write) must still
// write the file the library opened, which the name and the old working directory's path no longer
// reach (a mount over the directory, a job wrapper's bind mount, does the same).
TEST(ViewWrites, OwnHandleWritesTheOpenedFileAfterItsDirectoryMoved) {
    if (world_size() == 1)
        GTEST_SKIP() << "one rank bridges its gaps: no view write to check";
    const std::string dir = test_dir();
    const std::string place = dir + "/place", moved = dir + "/moved", name = "moving-view.h5";
    if (world_rank() == 0)
        ::mkdir(place.c_str(), 0755);
    MPI_Barrier(MPI_COMM_WORLD);
    WorkingDirectory restore;
    ASSERT_TRUE(all_ranks(::chdir(place.c_str()) == 0));
    {
        Interleaved f = open_interleaved(Driver::Mpiio, name, "view_writes=on");
        ASSERT_TRUE(all_ranks(f.dset.valid()));
        ASSERT_TRUE(all_ranks(H5Fflush(f.file, H5F_SCOPE_GLOBAL) >= 0)) << error_stack_text();
        MPI_Barrier(MPI_COMM_WORLD);
        bool moved_ok = true;
        if (world_rank() == 0) { // the decoy: a copy of the file as it is now
            moved_ok = ::rename(place.c_str(), moved.c_str()) == 0 && ::mkdir(place.c_str(), 0755) == 0;
            std::error_code ec;
            std::filesystem::copy_file(moved + "/" + name, place + "/" + name, ec);
            moved_ok = moved_ok && !ec;
        }
        ASSERT_TRUE(all_ranks(moved_ok));
        Hid indep = make_dxpl(H5FD_MPIO_INDEPENDENT);
        const std::vector<int> values = round_values(6);
        ASSERT_TRUE(all_ranks(H5Dwrite(f.dset, H5T_NATIVE_INT, f.mspace, f.mine, indep, values.data()) >= 0))
            << error_stack_text();
        EXPECT_EQ(stats_of(f.file).view_writes, 1u);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    EXPECT_TRUE(dataset_equals_on_rank0(
        moved + "/" + name, "d", expected_dataset<int>(per_rank() * static_cast<hsize_t>(world_size()), 6)))
        << "the view write did not reach the file the library opened";
    EXPECT_TRUE(dataset_equals_on_rank0(
        place + "/" + name, "d",
        std::vector<unsigned char>(per_rank() * static_cast<size_t>(world_size()) * sizeof(int), 0)))
        << "the view write went to the decoy";
}

} // namespace
