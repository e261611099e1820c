// MPI_File_open calls per H5Fcreate / H5Fopen, counted on every rank by a PMPI wrapper
// (file_open_counter.hpp): through the plugin no more than through the built-in driver, plus one
// on a rank that wrote through its own handle while the file was open (opened on the first view
// write, closed with the file: driver/io/mpi_io.hpp), and none more for metadata alone. Each
// workload runs step by step (create, then reopen) on both drivers; rank 0 prints every rank's
// counts, and the files must hold the same datasets.
#include "file_open_counter.hpp"
#include "h5fd_mpiio.h"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

namespace {

using namespace mpiio_test;

// One file open on this rank, from H5Fcreate / H5Fopen to H5Fclose.
struct Session {
    long opens = 0;                // MPI_File_open calls
    long own_opens = 0;            // of them on MPI_COMM_SELF: the plugin's own handle
    std::uint64_t view_writes = 0; // the plugin's writes through its own handle (its statistics)
    bool ok = false;               // the work and the close succeeded
};

// What a step may cost beyond the built-in driver's opens.
enum class Allowance {
    OwnHandleIfUsed, // one more on a rank that wrote through its own handle
    None,            // exactly the built-in driver's opens (metadata alone)
    OwnHandleUsed,   // many small regular runs: the case the own handle is for, which it must take
};

// One file open of a workload: H5Fcreate (flags H5F_ACC_TRUNC) or H5Fopen with `flags`, and what
// the program does with the file (collective; true when every call succeeded).
struct Step {
    const char *name;
    unsigned flags;
    Allowance allowance;
    std::function<bool(hid_t file)> work;
};

// Collective. Opens `path` as `step` says, runs its work, reads the plugin's statistics just
// before H5Fclose (the work has closed every object of the file by then) and counts the opens in
// between: the own handle is opened lazily, so the whole file open counts.
Session run_step(Driver d, const std::string &path, const Step &step, const FaplOptions &options) {
    Hid fapl = make_fapl(d, options);
    Session s;
    const FileOpenCounts before = file_open_counts();
    const hid_t file = (step.flags & H5F_ACC_TRUNC) ? H5Fcreate(path.c_str(), step.flags, H5P_DEFAULT, fapl)
                                                    : H5Fopen(path.c_str(), step.flags, fapl);
    if (file >= 0) {
        s.ok = step.work(file);
        if (d == Driver::Mpiio) {
            H5FD_mpiio_stats_t stats{};
            s.ok = H5Fget_mpiio_stats(file, &stats) >= 0 && s.ok;
            s.view_writes = stats.view_writes;
        }
        s.ok = H5Fclose(file) >= 0 && s.ok;
    }
    const FileOpenCounts after = file_open_counts();
    s.opens = after.calls - before.calls;
    s.own_opens = after.self_calls - before.self_calls;
    return s;
}

// Collective. Rank 0 prints every rank's counts of one step.
void print_counts(const std::string &workload, const Step &step, const Session &mpio, const Session &mpiio) {
    const long mine[4] = {mpio.opens, mpiio.opens, mpiio.own_opens, static_cast<long>(mpiio.view_writes)};
    std::vector<long> all(4 * static_cast<std::size_t>(world_size()));
    MPI_Gather(mine, 4, MPI_LONG, all.data(), 4, MPI_LONG, 0, MPI_COMM_WORLD);
    if (world_rank() != 0)
        return;
    const char *layer = std::getenv("MPIIO_TEST_IO");
    for (int r = 0; r < world_size(); ++r) {
        const long *c = &all[4 * static_cast<std::size_t>(r)];
        std::printf("[opens] %s %s %s rank %d: MPI_File_open mpio %ld, mpiio %ld (own handle %ld; view "
                    "writes %ld)\n",
                    layer ? layer : "-", workload.c_str(), step.name, r, c[0], c[1], c[2], c[3]);
    }
    std::fflush(stdout);
}

// Whether the file configuration is the default one: CI reruns the suites with settings appended
// (MPIIO_TEST_CONFIG), and a forced sync makes the own handle unusable.
bool default_settings() {
    const char *config = std::getenv("MPIIO_TEST_CONFIG");
    return (config == nullptr || *config == '\0') && std::getenv("HDF5_DO_MPI_FILE_SYNC") == nullptr;
}

// Local. The rule for one step on this rank.
void check_step(const std::string &workload, const Step &step, const Session &mpio, const Session &mpiio) {
    const std::string where =
        workload + " / " + step.name + ", rank " + std::to_string(world_rank()) + ": mpio " +
        std::to_string(mpio.opens) + " opens, mpiio " + std::to_string(mpiio.opens) + " (own handle " +
        std::to_string(mpiio.own_opens) + ", view writes " + std::to_string(mpiio.view_writes) + ")";
    EXPECT_TRUE(mpio.ok) << where << ": the built-in driver's run failed";
    EXPECT_TRUE(mpiio.ok) << where << ": the plugin's run failed";
    const bool used_own_handle = mpiio.view_writes > 0;
    EXPECT_LE(mpiio.opens, mpio.opens + (used_own_handle ? 1 : 0)) << where;
    EXPECT_LE(mpiio.own_opens, used_own_handle ? 1 : 0) << where;
    EXPECT_EQ(mpiio.opens - mpiio.own_opens, mpio.opens) << where << ": the shared handle";
    if (step.allowance == Allowance::None) {
        EXPECT_EQ(mpiio.opens, mpio.opens) << where << ": metadata alone";
        EXPECT_EQ(mpiio.own_opens, 0) << where << ": metadata alone";
    }
    if (step.allowance == Allowance::OwnHandleUsed && default_settings()) {
        EXPECT_GT(mpiio.view_writes, 0u) << where << ": many small regular runs";
        EXPECT_EQ(mpiio.own_opens, 1) << where << ": many small regular runs";
    }
}

// Collective. Every step on the built-in driver, then on the plugin, each with a file of its own;
// then the counts are printed and checked step by step, and the files compared.
void run_workload(const std::string &workload, const std::vector<Step> &steps, FaplOptions options = {}) {
    const std::string dir = test_dir();
    std::vector<Session> sessions[2];
    for (const Driver d : {Driver::Mpio, Driver::Mpiio}) {
        const std::string path = dir + "/" + workload + "." + driver_name(d) + ".h5";
        for (const Step &step : steps)
            sessions[d == Driver::Mpiio].push_back(run_step(d, path, step, options));
    }
    for (std::size_t i = 0; i < steps.size(); ++i) {
        print_counts(workload, steps[i], sessions[0][i], sessions[1][i]);
        check_step(workload, steps[i], sessions[0][i], sessions[1][i]);
    }
    EXPECT_EQ(compare_files(dir + "/" + workload + ".mpio.h5", dir + "/" + workload + ".mpiio.h5"), "");
}

// --- attributes ---------------------------------------------------------------------------------

bool write_int_attr(hid_t obj, const char *name, int value, bool create = true) {
    Hid space(H5Screate(H5S_SCALAR));
    Hid attr(create ? H5Acreate2(obj, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT)
                    : H5Aopen(obj, name, H5P_DEFAULT));
    return attr.valid() && H5Awrite(attr, H5T_NATIVE_INT, &value) >= 0;
}

bool int_attr_is(hid_t obj, const char *name, int expected) {
    int v = 0;
    Hid attr(H5Aopen(obj, name, H5P_DEFAULT));
    return attr.valid() && H5Aread(attr, H5T_NATIVE_INT, &v) >= 0 && v == expected;
}

bool write_scale_attr(hid_t obj, int g) {
    const hsize_t four[1] = {4};
    Hid space(H5Screate_simple(1, four, nullptr));
    Hid attr(H5Acreate2(obj, "scale", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT));
    const double v[4] = {g + 0.5, g + 1.5, g + 2.5, g + 3.5};
    return attr.valid() && H5Awrite(attr, H5T_NATIVE_DOUBLE, v) >= 0;
}

bool scale_attr_is(hid_t obj, int g) {
    double v[4] = {};
    Hid attr(H5Aopen(obj, "scale", H5P_DEFAULT));
    return attr.valid() && H5Aread(attr, H5T_NATIVE_DOUBLE, v) >= 0 && v[0] == g + 0.5 && v[3] == g + 3.5;
}

// --- the mixed workload: groups, attributes, contiguous and chunked 2-D datasets -------------------

constexpr hsize_t kCols = 64;
// Rank r's rows: 5 + r of them (uneven, so that the blocks straddle the 8-row chunks).
hsize_t first_row(int r) {
    hsize_t row = 0;
    for (int k = 0; k < r; ++k)
        row += 5 + static_cast<hsize_t>(k);
    return row;
}
hsize_t row_count(int r) { return 5 + static_cast<hsize_t>(r); }

int cell(hsize_t row, hsize_t col, int salt) {
    return static_cast<int>(row * kCols + col + 1) + 1000000 * salt;
}

// Collective. Writes rank `owner`'s row block of `dset` with `salt`'s values, or reads it and
// compares.
bool rows_io(hid_t dset, int owner, bool write, H5FD_mpio_xfer_t mode, int salt) {
    Hid fspace(H5Dget_space(dset));
    const hsize_t start[2] = {first_row(owner), 0}, count[2] = {row_count(owner), kCols};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mspace(H5Screate_simple(2, count, nullptr));
    Hid dxpl = make_dxpl(mode);
    std::vector<int> expected(count[0] * kCols), got(expected.size());
    for (hsize_t r = 0; r < count[0]; ++r)
        for (hsize_t c = 0; c < kCols; ++c)
            expected[r * kCols + c] = cell(start[0] + r, c, salt);
    if (write)
        return H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, expected.data()) >= 0;
    return H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, got.data()) >= 0 && got == expected;
}

struct MixedDataset {
    const char *path;
    bool chunked;
    H5FD_mpio_xfer_t mode;
};
constexpr MixedDataset kMixed[] = {{"contiguous_collective", false, H5FD_MPIO_COLLECTIVE},
                                   {"group/chunked_collective", true, H5FD_MPIO_COLLECTIVE},
                                   {"contiguous_independent", false, H5FD_MPIO_INDEPENDENT},
                                   {"group/sub/chunked_independent", true, H5FD_MPIO_INDEPENDENT}};

bool mixed_create(hid_t file) {
    const int rank = world_rank(), size = world_size();
    Hid group(H5Gcreate2(file, "group", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    Hid sub(H5Gcreate2(group, "sub", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    bool ok =
        group.valid() && sub.valid() && write_int_attr(file, "ranks", size) && write_scale_attr(group, 1);
    const hsize_t dims[2] = {first_row(size), kCols}, chunk[2] = {std::min<hsize_t>(8, dims[0]), 16};
    Hid space(H5Screate_simple(2, dims, nullptr));
    Hid chunked(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_chunk(chunked, 2, chunk);
    for (int i = 0; i < 4; ++i) {
        const MixedDataset &m = kMixed[i];
        Hid dset(H5Dcreate2(file, m.path, H5T_STD_I32LE, space, H5P_DEFAULT,
                            m.chunked ? chunked.get() : H5P_DEFAULT, H5P_DEFAULT));
        ok = dset.valid() && rows_io(dset, rank, true, m.mode, i) && ok;
    }
    return ok;
}

// Each rank reads its neighbour's rows: another rank's writes must be there.
bool mixed_read_back(hid_t file) {
    const int neighbour = (world_rank() + 1) % world_size();
    Hid group(H5Gopen2(file, "group", H5P_DEFAULT));
    bool ok = int_attr_is(file, "ranks", world_size()) && scale_attr_is(group, 1);
    for (int i = 0; i < 4; ++i) {
        Hid dset(H5Dopen2(file, kMixed[i].path, H5P_DEFAULT));
        ok = dset.valid() && rows_io(dset, neighbour, false, kMixed[i].mode, i) && ok;
    }
    return ok;
}

std::vector<Step> mixed_steps() {
    return {{"create", H5F_ACC_TRUNC, Allowance::OwnHandleIfUsed, mixed_create},
            {"reopen read-only", H5F_ACC_RDONLY, Allowance::OwnHandleIfUsed, mixed_read_back}};
}

// --- metadata alone ----------------------------------------------------------------------------------
// A file of groups with attributes, each group with a dataset of 16 KiB between the groups'
// metadata, so that the metadata lies in many short pieces far apart and each rank's share of a
// collective metadata flush is many short runs (what a view write takes). The datasets are written
// at creation, each rank a block of every one (one range per rank: no view write); the next open
// writes metadata alone: attributes changed and added.

constexpr int kGroups = 64;
constexpr hsize_t kSpacerInts = 4096;

std::string group_name(int g) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "g%02d", g);
    return buf;
}

// Collective. Writes rank `owner`'s block of group g's spacer, or reads it and compares.
bool spacer_io(hid_t dset, int owner, bool write, int g) {
    const auto size = static_cast<hsize_t>(world_size()), r = static_cast<hsize_t>(owner);
    const hsize_t start[1] = {kSpacerInts * r / size}, count[1] = {kSpacerInts * (r + 1) / size - start[0]};
    Hid fspace(H5Dget_space(dset));
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mspace(H5Screate_simple(1, count, nullptr));
    Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
    std::vector<int> expected(count[0]), got(count[0]);
    for (hsize_t k = 0; k < count[0]; ++k)
        expected[k] = static_cast<int>(start[0] + k + 1) + 100000 * g;
    if (write)
        return H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, expected.data()) >= 0;
    return H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, got.data()) >= 0 && got == expected;
}

bool metadata_create(hid_t file) {
    const hsize_t n[1] = {kSpacerInts};
    Hid space(H5Screate_simple(1, n, nullptr));
    bool ok = true;
    for (int g = 0; g < kGroups; ++g) {
        Hid group(H5Gcreate2(file, group_name(g).c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        Hid spacer(H5Dcreate2(group, "spacer", H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ok = group.valid() && spacer.valid() && write_int_attr(group, "index", g) &&
             write_scale_attr(group, g) && spacer_io(spacer, world_rank(), true, g) && ok;
    }
    return ok;
}

bool metadata_update(hid_t file) {
    bool ok = true;
    for (int g = 0; g < kGroups; ++g) {
        Hid group(H5Gopen2(file, group_name(g).c_str(), H5P_DEFAULT));
        ok = group.valid() && write_int_attr(group, "index", 1000 + g, false) &&
             write_int_attr(group, "added", -g) && ok;
    }
    return ok;
}

// Each rank reads its neighbour's block of every spacer.
bool metadata_read_back(hid_t file) {
    const int neighbour = (world_rank() + 1) % world_size();
    bool ok = true;
    for (int g = 0; g < kGroups; ++g) {
        Hid group(H5Gopen2(file, group_name(g).c_str(), H5P_DEFAULT));
        Hid spacer(H5Dopen2(group, "spacer", H5P_DEFAULT));
        ok = group.valid() && spacer.valid() && int_attr_is(group, "index", 1000 + g) &&
             int_attr_is(group, "added", -g) && scale_attr_is(group, g) &&
             spacer_io(spacer, neighbour, false, g) && ok;
    }
    return ok;
}

std::vector<Step> metadata_steps() {
    return {{"create", H5F_ACC_TRUNC, Allowance::OwnHandleIfUsed, metadata_create},
            {"reopen read-write (metadata alone)", H5F_ACC_RDWR, Allowance::None, metadata_update},
            {"reopen read-only", H5F_ACC_RDONLY, Allowance::None, metadata_read_back}};
}

// --- independent strided writes: many small regular runs --------------------------------------------
// Rank r writes columns [32 r, 32 r + 32) of every row: 64 runs of 128 bytes 8 KiB apart (holes
// too wide to bridge, also on one rank), in two datasets, one of them twice, with a flush (sync,
// truncate) and a new dataset (a larger end of allocation) in between; the next open writes and
// flushes again. The own handle is opened once per file open.

constexpr hsize_t kStridedRows = 64, kStridedCols = 2048, kRunInts = 32;

bool columns_io(hid_t dset, int owner, bool write, int salt) {
    Hid fspace(H5Dget_space(dset));
    const hsize_t start[2] = {0, kRunInts * static_cast<hsize_t>(owner)}, count[2] = {kStridedRows, kRunInts};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
    Hid mspace(H5Screate_simple(2, count, nullptr));
    Hid dxpl = make_dxpl(H5FD_MPIO_INDEPENDENT);
    std::vector<int> expected(kStridedRows * kRunInts), got(expected.size());
    for (hsize_t r = 0; r < kStridedRows; ++r)
        for (hsize_t c = 0; c < kRunInts; ++c)
            expected[r * kRunInts + c] =
                static_cast<int>(r * kStridedCols + start[1] + c + 1) + 1000000 * salt;
    if (write)
        return H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, expected.data()) >= 0;
    return H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, got.data()) >= 0 && got == expected;
}

Hid strided_dataset(hid_t file, const char *name) {
    const hsize_t dims[2] = {kStridedRows, kStridedCols};
    Hid space(H5Screate_simple(2, dims, nullptr));
    return Hid(H5Dcreate2(file, name, H5T_STD_I32LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
}

bool strided_create(hid_t file) {
    const int rank = world_rank();
    Hid first = strided_dataset(file, "strided");
    bool ok = first.valid() && columns_io(first, rank, true, 1);
    ok = H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0 && ok;
    Hid second = strided_dataset(file, "strided2");
    ok = second.valid() && columns_io(second, rank, true, 2) && ok;
    return columns_io(first, rank, true, 3) && ok;
}

bool strided_update(hid_t file) {
    const int rank = world_rank(), neighbour = (rank + 1) % world_size();
    Hid first(H5Dopen2(file, "strided", H5P_DEFAULT));
    Hid second(H5Dopen2(file, "strided2", H5P_DEFAULT));
    bool ok = first.valid() && second.valid() && columns_io(second, rank, true, 4);
    ok = H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0 && ok;
    MPI_Barrier(MPI_COMM_WORLD); // the neighbour's columns are written and flushed
    return columns_io(first, neighbour, false, 3) && columns_io(second, neighbour, false, 4) && ok;
}

std::vector<Step> strided_steps() {
    return {{"create", H5F_ACC_TRUNC, Allowance::OwnHandleUsed, strided_create},
            {"reopen read-write", H5F_ACC_RDWR, Allowance::OwnHandleUsed, strided_update}};
}

} // namespace

TEST(Opens, MixedWorkload) { run_workload("mixed", mixed_steps()); }

TEST(Opens, MixedWorkloadCollectiveMetadata) {
    FaplOptions options;
    options.coll_metadata = true;
    run_workload("mixed_coll_md", mixed_steps(), options);
}

TEST(Opens, MetadataWorkload) { run_workload("metadata", metadata_steps()); }

// The library writes the metadata cache's entries as one collective vector write per flush, each
// rank its share: many short pieces per rank.
TEST(Opens, MetadataWorkloadCollectiveMetadata) {
    FaplOptions options;
    options.coll_metadata = true;
    run_workload("metadata_coll_md", metadata_steps(), options);
}

// view_writes=on: the own handle is this workload's subject, whatever the default takes on the
// storage under the test (the dfs stage runs it on shared storage).
TEST(Opens, StridedIndependentWrites) {
    FaplOptions options;
    options.config = "view_writes=on";
    run_workload("strided", strided_steps(), options);
}
