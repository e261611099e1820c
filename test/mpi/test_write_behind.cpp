// Write-behind (config write_behind, aggregate/write_behind.hpp): a collective rewrite of the
// bytes the last collective transfer moved stays in the aggregators' memory and is written once
// later. The files must equal the built-in driver's (compound datasets written field by field,
// the case it is for, also over several windows), a rank must see and keep its own writes made
// independently in between, and other ranks' bytes must be in the file after H5Fflush. The counters
// prove each test really deferred a write. 1-4 ranks, OMPIO and ROMIO, on the aggregating route.
#include "compound_fields.hpp"

namespace {

using namespace mpiio_test;

constexpr hsize_t kPerRank = kRecordsPerRank;

std::string config_with(const char *write_behind, const char *extra = "") {
    return std::string("collective_route=aggregate;write_behind=") + write_behind + extra;
}

struct Counters {
    std::uint64_t kept = 0, replaced = 0, written = 0; // every rank's, summed
};

// Collective. write_and_read_fields (compound_fields.hpp), its write-behind counters.
Counters field_counters(const std::string &path, Driver driver, const std::string &config) {
    const H5FD_mpiio_stats_t d = write_and_read_fields(path, driver, config.c_str());
    return {summed(d.deferred_windows), summed(d.deferred_bytes_replaced), summed(d.bytes_written)};
}

// Collective. A fresh `path` through `driver` with write_behind on.
Hid create_file(const std::string &path, Driver driver) {
    const std::string config = config_with("on");
    FaplOptions options;
    options.config = config.c_str();
    Hid fapl = make_fapl(driver, options);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    EXPECT_TRUE(all_ranks(file.valid())) << error_stack_text();
    return file;
}

TEST(WriteBehind, CompoundFieldsMatchTheBuiltinDriverWithEachRecordWrittenOnce) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    for (const char *staging : {"", ";staging_buffer=64"}) {
        SCOPED_TRACE(staging);
        const std::string tag = staging[0] ? "_tiny" : "";
        const std::string builtin = path_in(test_dir(), "fields" + tag, Driver::Mpio);
        const std::string deferred = path_in(test_dir(), "deferred" + tag, Driver::Mpiio);
        const std::string direct = path_in(test_dir(), "direct" + tag, Driver::Mpiio);
        field_counters(builtin, Driver::Mpio, "");
        const Counters on = field_counters(deferred, Driver::Mpiio, config_with("on", staging));
        const Counters off = field_counters(direct, Driver::Mpiio, config_with("off", staging));
        EXPECT_EQ(compare_files(builtin, deferred), "");
        EXPECT_EQ(compare_files(builtin, direct), "");
        const std::string forced = set_by_environment("write_behind");
        if (forced.empty() || forced == "on") {
            EXPECT_GT(on.kept, 0u) << "no write was deferred";
            EXPECT_GT(on.replaced, 0u) << "no kept window was replaced by the next field's write";
        }
        if (forced.empty()) {
            EXPECT_LT(on.written, off.written) << "deferring wrote as many bytes as writing each field";
            EXPECT_EQ(off.kept, 0u) << "write_behind=off deferred a write";
        }
    }
}

// aggregate_interleaved (auto on CephFS) aggregates every read, and a write of the last transfer's
// range, so the library's read and rewrite of each field are answered and deferred as under
// `aggregate` (sieve_gap=0: the test's blocks are short).
TEST(WriteBehind, CompoundFieldsAreDeferredUnderAggregateInterleavedToo) {
    if (route_forced_by_environment())
        GTEST_SKIP() << "the environment forces another route";
    if (!set_by_environment("write_behind").empty())
        GTEST_SKIP() << "the environment sets write_behind";
    const std::string builtin = path_in(test_dir(), "fields_interleaved", Driver::Mpio);
    const std::string plugin = path_in(test_dir(), "deferred_interleaved", Driver::Mpiio);
    field_counters(builtin, Driver::Mpio, "");
    const Counters on = field_counters(plugin, Driver::Mpiio,
                                       "collective_route=aggregate_interleaved;write_behind=on;sieve_gap=0");
    EXPECT_EQ(compare_files(builtin, plugin), "");
    EXPECT_GT(on.kept, 0u) << "no write was deferred";
    EXPECT_GT(on.replaced, 0u) << "no kept window was replaced by the next field's write";
}

// Collective. Opens a fresh `path` through `driver` with a dataset of ints, kPerRank per rank;
// each rank reads its block collectively (zeros: nothing was written) and writes it collectively
// with `collective_values` (a rewrite of the bytes just read: deferred), then `between(file, dset)`
// runs, then the file is closed. Returns the write-behind windows kept, every rank's.
template <class Between>
std::uint64_t read_then_rewrite(const std::string &path, Driver driver,
                                const std::vector<int> &collective_values, Between &&between) {
    const hsize_t n = kPerRank * static_cast<hsize_t>(world_size()), dims[1] = {n};
    Hid collective = make_dxpl(H5FD_MPIO_COLLECTIVE);
    Hid file = create_file(path, driver);
    if (!file.valid())
        return 0;
    Hid space(H5Screate_simple(1, dims, nullptr));
    Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    auto [block, memory] = block_of(world_rank(), n);
    std::vector<int> scratch(kPerRank, -1);
    EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, memory, block, collective, scratch.data()) >= 0));
    EXPECT_TRUE(
        all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, memory, block, collective, collective_values.data()) >= 0))
        << error_stack_text();
    std::uint64_t kept = 0;
    if (driver == Driver::Mpiio)
        kept = summed(stats_of(file).deferred_windows);
    between(file.get(), dset.get());
    dset.reset();
    EXPECT_TRUE(all_ranks(H5Fclose(file.release()) >= 0)) << error_stack_text();
    return kept;
}

std::vector<int> block_values(int r, int salt) {
    std::vector<int> v(kPerRank);
    for (hsize_t k = 0; k < kPerRank; ++k)
        v[k] = value_at<int>(static_cast<hsize_t>(r) * kPerRank + k, salt);
    return v;
}

// A rank reads its own block independently after its deferred collective write (it must see its
// bytes), then rewrites the first half independently (that write must survive the write-out at
// close): the file equals the built-in driver's after the same calls.
TEST(WriteBehind, ARankSeesAndKeepsItsOwnIndependentWritesAfterADeferredOne) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    const std::vector<int> mine = block_values(world_rank(), 5), half = block_values(world_rank(), 6);
    Hid independent = make_dxpl(H5FD_MPIO_INDEPENDENT);
    std::uint64_t kept = 0;
    for (Driver driver : kDrivers) {
        const std::string path = path_in(test_dir(), "own", driver);
        const std::uint64_t k = read_then_rewrite(path, driver, mine, [&](hid_t, hid_t dset) {
            const hsize_t n = kPerRank * static_cast<hsize_t>(world_size());
            auto [block, memory] = block_of(world_rank(), n);
            std::vector<int> got(kPerRank, -1);
            EXPECT_GE(H5Dread(dset, H5T_NATIVE_INT, memory, block, independent, got.data()), 0);
            EXPECT_EQ(got, mine) << driver_name(driver)
                                 << ": a rank's independent read missed its own collective write";
            const hsize_t start[1] = {static_cast<hsize_t>(world_rank()) * kPerRank},
                          count[1] = {kPerRank / 2};
            H5Sselect_hyperslab(block, H5S_SELECT_SET, start, nullptr, count, nullptr);
            Hid half_memory(H5Screate_simple(1, count, nullptr));
            EXPECT_GE(H5Dwrite(dset, H5T_NATIVE_INT, half_memory, block, independent, half.data()), 0);
        });
        if (driver == Driver::Mpiio)
            kept = k;
    }
    if (set_by_environment("write_behind") != "off") {
        EXPECT_GT(kept, 0u) << "the collective write was not deferred: the test proves nothing";
    }
    EXPECT_EQ(
        compare_files(path_in(test_dir(), "own", Driver::Mpio), path_in(test_dir(), "own", Driver::Mpiio)),
        "");
    std::vector<int> expected;
    for (int r = 0; r < world_size(); ++r) {
        std::vector<int> own = block_values(r, 5);
        const std::vector<int> first = block_values(r, 6);
        std::copy(first.begin(), first.begin() + kPerRank / 2, own.begin());
        expected.insert(expected.end(), own.begin(), own.end());
    }
    EXPECT_TRUE(dataset_equals_on_rank0(path_in(test_dir(), "own", Driver::Mpiio), "d", as_bytes(expected)));
}

// After the deferred write every rank writes the first elements of the next rank's block
// independently: the write-out at close must not put the older collective bytes back over them
// (the built-in driver writes at once, so the independent bytes are the newer).
TEST(WriteBehind, AnotherRanksLaterIndependentWriteIsNotOverwritten) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    constexpr hsize_t kTouched = 10;
    const int next = (world_rank() + 1) % world_size();
    Hid independent = make_dxpl(H5FD_MPIO_INDEPENDENT);
    const std::vector<int> later = block_values(next, 9);
    std::uint64_t kept = 0;
    for (Driver driver : kDrivers) {
        const std::string path = path_in(test_dir(), "crossed", driver);
        const std::uint64_t k =
            read_then_rewrite(path, driver, block_values(world_rank(), 8), [&](hid_t, hid_t dset) {
                MPI_Barrier(MPI_COMM_WORLD); // (every rank's collective write is done)
                const hsize_t n = kPerRank * static_cast<hsize_t>(world_size());
                auto [block, memory] = block_of(next, n);
                const hsize_t start[1] = {static_cast<hsize_t>(next) * kPerRank}, count[1] = {kTouched};
                H5Sselect_hyperslab(block, H5S_SELECT_SET, start, nullptr, count, nullptr);
                Hid few(H5Screate_simple(1, count, nullptr));
                EXPECT_GE(H5Dwrite(dset, H5T_NATIVE_INT, few, block, independent, later.data()), 0);
                MPI_Barrier(MPI_COMM_WORLD);
            });
        if (driver == Driver::Mpiio)
            kept = k;
    }
    if (set_by_environment("write_behind") != "off") {
        EXPECT_GT(kept, 0u) << "the collective write was not deferred: the test proves nothing";
    }
    EXPECT_EQ(compare_files(path_in(test_dir(), "crossed", Driver::Mpio),
                            path_in(test_dir(), "crossed", Driver::Mpiio)),
              "");
    std::vector<int> expected;
    for (int r = 0; r < world_size(); ++r) {
        std::vector<int> own = block_values(r, 8);
        const std::vector<int> touched = block_values(r, 9);
        std::copy(touched.begin(), touched.begin() + kTouched, own.begin());
        expected.insert(expected.end(), own.begin(), own.end());
    }
    EXPECT_TRUE(
        dataset_equals_on_rank0(path_in(test_dir(), "crossed", Driver::Mpiio), "d", as_bytes(expected)));
}

// After H5Fflush every rank reads the next rank's block independently: MPI makes other ranks'
// writes visible there, so the aggregators' kept bytes must be in the file by then.
TEST(WriteBehind, OtherRanksBytesAreInTheFileAfterAFlush) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    const int next = (world_rank() + 1) % world_size();
    Hid independent = make_dxpl(H5FD_MPIO_INDEPENDENT);
    const std::string path = path_in(test_dir(), "flushed", Driver::Mpiio);
    const std::uint64_t kept =
        read_then_rewrite(path, Driver::Mpiio, block_values(world_rank(), 7), [&](hid_t file, hid_t dset) {
            EXPECT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_LOCAL) >= 0)) << error_stack_text();
            MPI_Barrier(MPI_COMM_WORLD);
            const hsize_t n = kPerRank * static_cast<hsize_t>(world_size());
            auto [block, memory] = block_of(next, n);
            std::vector<int> got(kPerRank, -1);
            EXPECT_GE(H5Dread(dset, H5T_NATIVE_INT, memory, block, independent, got.data()), 0);
            EXPECT_EQ(got, block_values(next, 7))
                << "rank " << next << "'s collective write is not in the file after H5Fflush";
        });
    if (set_by_environment("write_behind") != "off") {
        EXPECT_GT(kept, 0u) << "the collective write was not deferred: the test proves nothing";
    }
}

// MPI's atomic mode set after a deferred write (H5Fset_mpi_atomicity goes to the MPI handle, not to
// the driver): the next collective step, even a read of the very bytes kept, writes them out, so
// that another rank's independent read in atomic mode then finds them in the file.
TEST(WriteBehind, AtomicModeSetAfterADeferredWriteHasItWrittenAtTheNextCollectiveStep) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    const int next = (world_rank() + 1) % world_size();
    Hid collective = make_dxpl(H5FD_MPIO_COLLECTIVE), independent = make_dxpl(H5FD_MPIO_INDEPENDENT);
    std::uint64_t kept = 0;
    for (Driver driver : kDrivers) {
        const std::string path = path_in(test_dir(), "atomic", driver);
        const std::uint64_t k =
            read_then_rewrite(path, driver, block_values(world_rank(), 3), [&](hid_t file, hid_t dset) {
                EXPECT_TRUE(all_ranks(H5Fset_mpi_atomicity(file, true) >= 0)) << error_stack_text();
                const hsize_t n = kPerRank * static_cast<hsize_t>(world_size());
                auto [block, memory] = block_of(world_rank(), n);
                std::vector<int> got(kPerRank, -1);
                EXPECT_TRUE(
                    all_ranks(H5Dread(dset, H5T_NATIVE_INT, memory, block, collective, got.data()) >= 0));
                EXPECT_EQ(got, block_values(world_rank(), 3));
                MPI_Barrier(MPI_COMM_WORLD);
                auto [theirs, their_memory] = block_of(next, n);
                std::fill(got.begin(), got.end(), -1);
                EXPECT_GE(H5Dread(dset, H5T_NATIVE_INT, their_memory, theirs, independent, got.data()), 0);
                EXPECT_EQ(got, block_values(next, 3))
                    << driver_name(driver) << ": in atomic mode rank " << next
                    << "'s collective write is not in the file after the next collective step";
                EXPECT_TRUE(all_ranks(H5Fset_mpi_atomicity(file, false) >= 0)) << error_stack_text();
            });
        if (driver == Driver::Mpiio)
            kept = k;
    }
    if (set_by_environment("write_behind") != "off") {
        EXPECT_GT(kept, 0u) << "the collective write was not deferred: the test proves nothing";
    }
}

// The file's MPI handle in the application's hands (H5Fget_vfd_handle): a rank reads its own kept
// bytes through it at once; after H5Fflush (and MPI's sync-barrier-sync on the handle) every rank
// reads the next rank's; and from then on the file defers no write.
TEST(WriteBehind, TheFilesHandleSeesTheKeptBytesAndEndsWriteBehind) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    const int next = (world_rank() + 1) % world_size();
    Hid collective = make_dxpl(H5FD_MPIO_COLLECTIVE);
    std::uint64_t kept = 0, kept_later = 0;
    for (Driver driver : kDrivers) {
        const std::string path = path_in(test_dir(), "handle", driver);
        const std::uint64_t k =
            read_then_rewrite(path, driver, block_values(world_rank(), 4), [&](hid_t file, hid_t dset) {
                const haddr_t at = H5Dget_offset(dset);
                void *handle = nullptr;
                ASSERT_TRUE(all_ranks(H5Fget_vfd_handle(file, H5P_DEFAULT, &handle) >= 0 &&
                                      handle != nullptr && at != HADDR_UNDEF))
                    << error_stack_text();
                const MPI_File fh = *static_cast<MPI_File *>(handle);
                auto read_block = [&](int r) {
                    std::vector<int> got(kPerRank, -1);
                    const auto offset =
                        static_cast<MPI_Offset>(at + static_cast<hsize_t>(r) * kPerRank * sizeof(int));
                    EXPECT_EQ(MPI_File_read_at(fh, offset, got.data(), static_cast<int>(kPerRank), MPI_INT,
                                               MPI_STATUS_IGNORE),
                              MPI_SUCCESS);
                    return got;
                };
                EXPECT_EQ(read_block(world_rank()), block_values(world_rank(), 4))
                    << driver_name(driver) << ": the handle does not show this rank's own kept bytes";
                EXPECT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_LOCAL) >= 0)) << error_stack_text();
                MPI_File_sync(fh);
                MPI_Barrier(MPI_COMM_WORLD);
                MPI_File_sync(fh);
                EXPECT_EQ(read_block(next), block_values(next, 4))
                    << driver_name(driver) << ": after H5Fflush the handle does not show rank " << next
                    << "'s";
                // The same read and rewrite again: no longer deferred.
                const hsize_t n = kPerRank * static_cast<hsize_t>(world_size());
                auto [block, memory] = block_of(world_rank(), n);
                std::vector<int> scratch(kPerRank, -1);
                const std::vector<int> again = block_values(world_rank(), 5);
                EXPECT_TRUE(
                    all_ranks(H5Dread(dset, H5T_NATIVE_INT, memory, block, collective, scratch.data()) >= 0));
                EXPECT_TRUE(
                    all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, memory, block, collective, again.data()) >= 0));
                if (driver == Driver::Mpiio)
                    kept_later = summed(stats_of(file).deferred_windows);
                EXPECT_EQ(read_block(world_rank()), again) << driver_name(driver);
            });
        if (driver == Driver::Mpiio)
            kept = k;
    }
    if (set_by_environment("write_behind") != "off") {
        EXPECT_GT(kept, 0u) << "the collective write was not deferred: the test proves nothing";
    }
    EXPECT_EQ(kept_later, kept) << "a write was deferred after the file's handle went to the application";
    EXPECT_EQ(compare_files(path_in(test_dir(), "handle", Driver::Mpio),
                            path_in(test_dir(), "handle", Driver::Mpiio)),
              "");
}

} // namespace
