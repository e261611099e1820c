// The aggregators' copies of earlier transfers (config window_cache, aggregate/window_cache.hpp):
// a collective read of bytes an aggregated transfer just moved is answered from the aggregator's
// memory, and never after any rank changed the file. Compound datasets written and read field by
// field (the library reads the records back before each field it writes, and reads whole records
// for each field it reads) give files equal to the built-in driver's and read calls saved; a write
// by another rank between two collective reads is what the second one returns. 1-4 ranks, under
// OMPIO and ROMIO, on the aggregating route (the default on shared storage).
#include "compound_fields.hpp"

namespace {

using namespace mpiio_test;

constexpr hsize_t kPerRank = kRecordsPerRank;

std::pair<Hid, Hid> own_block(hsize_t n) { return block_of(world_rank(), n); }

struct FieldCalls {
    std::uint64_t cached = 0; // windows answered from an aggregator's copy, every rank
    std::uint64_t reads = 0;  // read calls, every rank
};

// Collective. write_and_read_fields (compound_fields.hpp), its read calls counted.
FieldCalls field_calls(const std::string &path, Driver driver, const char *config) {
    const H5FD_mpiio_stats_t d = write_and_read_fields(path, driver, config);
    return {summed(d.cached_window_reads), summed(d.independent_reads + d.collective_reads)};
}

TEST(WindowCache, CompoundFieldsMatchTheBuiltinDriverAndReuseTheWrittenRecords) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    for (const char *staging : {"", ";staging_buffer=64"}) {
        SCOPED_TRACE(staging);
        const std::string with = std::string("collective_route=aggregate") + staging;
        const std::string without = with + ";window_cache=0";
        const std::string builtin = path_in(test_dir(), staging[0] ? "fields_tiny" : "fields", Driver::Mpio);
        const std::string cached = path_in(test_dir(), staging[0] ? "fields_tiny" : "fields", Driver::Mpiio);
        const std::string uncached =
            path_in(test_dir(), staging[0] ? "uncached_tiny" : "uncached", Driver::Mpiio);
        field_calls(builtin, Driver::Mpio, nullptr);
        const FieldCalls on = field_calls(cached, Driver::Mpiio, with.c_str());
        const FieldCalls off = field_calls(uncached, Driver::Mpiio, without.c_str());
        EXPECT_EQ(compare_files(builtin, cached), "");
        EXPECT_EQ(compare_files(builtin, uncached), "");
        // The writes of fields b and c read the records fields a and b left, the reads of b and c
        // the records the read of a moved: at least those four transfers' windows come from memory.
        EXPECT_GE(on.cached, 4u) << "no collective read was answered from the aggregator's copy";
        EXPECT_LT(on.reads, off.reads);
        EXPECT_EQ(off.cached, 0u) << "window_cache=0 still answered reads from a copy";
    }
}

// Between two collective reads of the same bytes, the last rank overwrites every third element
// on its own: the second read returns its bytes, not the aggregator's copy of the first.
// "unsynced": no MPI_File_sync anywhere (sync=never), so only the count of the rank's own write
// tells the aggregators (MPI makes another rank's write visible without a sync only on storage
// that shows it at once: local storage only); "flushed": the write is flushed (a sync on every
// rank, on any storage); "handle": the last rank writes behind the library's back through the
// file's MPI handle (H5Fget_vfd_handle), then the file is flushed without a sync (sync=never:
// only the flush tells the aggregators; local storage only, as the first).
TEST(WindowCache, AnotherRanksWriteBetweenTwoReadsIsRead) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    const int s = world_size(), r = world_rank();
    const hsize_t n = kPerRank * static_cast<hsize_t>(s), dims[1] = {n};
    const bool local = auto_route(test_dir()) == "auto";
    for (const char *variant : {"unsynced", "flushed", "handle"}) {
        const bool flushed = std::strcmp(variant, "flushed") == 0;
        const bool through_handle = std::strcmp(variant, "handle") == 0;
        if (!flushed && !local)
            continue;
        SCOPED_TRACE(variant);
        FaplOptions options;
        options.config = flushed ? "collective_route=aggregate" : "collective_route=aggregate;sync=never";
        Hid fapl = make_fapl(Driver::Mpiio, options);
        Hid collective = make_dxpl(H5FD_MPIO_COLLECTIVE), independent = make_dxpl(H5FD_MPIO_INDEPENDENT);
        Hid file(
            H5Fcreate(path_in(test_dir(), variant, Driver::Mpiio).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        Hid space(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(dset.valid()));
        auto [block, memory] = own_block(n);
        const hsize_t first = static_cast<hsize_t>(r) * kPerRank;
        std::vector<int> values(kPerRank), got(kPerRank, -1);
        for (hsize_t k = 0; k < kPerRank; ++k)
            values[k] = value_at<int>(first + k, 4);
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, memory, block, collective, values.data()) >= 0))
            << error_stack_text();
        // (the file's metadata written now: no write of the library's own comes between the reads)
        EXPECT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_LOCAL) >= 0)) << error_stack_text();
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, memory, block, collective, values.data()) >= 0))
            << error_stack_text();
        const auto before = stats_of(file);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, memory, block, collective, got.data()) >= 0));
        EXPECT_EQ(got, values);
        const auto after = stats_of(file);
        EXPECT_GT(summed(after.cached_window_reads - before.cached_window_reads), 0u)
            << "the first read was not answered from the aggregator's copy: the test tests nothing";

        const hsize_t third_start[1] = {0}, third_stride[1] = {3}, third_count[1] = {(n + 2) / 3};
        Hid thirds(H5Screate_simple(1, dims, nullptr));
        ASSERT_GE(
            H5Sselect_hyperslab(thirds, H5S_SELECT_SET, third_start, third_stride, third_count, nullptr), 0);
        Hid thirds_memory(H5Screate_simple(1, third_count, nullptr));
        std::vector<int> overwrite(third_count[0]);
        for (hsize_t k = 0; k < third_count[0]; ++k)
            overwrite[k] = ~value_at<int>(3 * k, 4);
        bool written = true;
        if (r == s - 1 && !through_handle)
            written =
                H5Dwrite(dset, H5T_NATIVE_INT, thirds_memory, thirds, independent, overwrite.data()) >= 0;
        if (r == s - 1 && through_handle) { // element 3k at the dataset's offset + 12k
            void *handle = nullptr;
            const haddr_t at = H5Dget_offset(dset);
            written = H5Fget_vfd_handle(file, fapl, &handle) >= 0 && handle != nullptr && at != HADDR_UNDEF;
            for (hsize_t k = 0; written && k < third_count[0]; ++k)
                written = MPI_File_write_at(*static_cast<MPI_File *>(handle),
                                            static_cast<MPI_Offset>(at + 3 * k * sizeof(int)), &overwrite[k],
                                            1, MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS;
        }
        EXPECT_TRUE(all_ranks(written)) << error_stack_text();
        if (flushed || through_handle) {
            EXPECT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_LOCAL) >= 0)) << error_stack_text();
        }

        std::fill(got.begin(), got.end(), -1);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, memory, block, collective, got.data()) >= 0));
        std::vector<int> want = values;
        for (hsize_t k = 0; k < kPerRank; ++k)
            if ((first + k) % 3 == 0)
                want[k] = ~value_at<int>(first + k, 4);
        EXPECT_EQ(got, want);
    }
}

} // namespace
