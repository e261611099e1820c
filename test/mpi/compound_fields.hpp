// A compound dataset written and read field by field, each rank its own block of records: the
// library reads the records back before it merges each field it writes, and reads the whole
// records for each field it reads. The case the aggregators' window copies (window_cache) and
// write-behind (write_behind) are for; their suites share it.
#pragma once

#include "common.hpp"

#include <utility>

namespace mpiio_test {

inline constexpr hsize_t kRecordsPerRank = 96;

// Rank `r`'s block of kRecordsPerRank elements of a 1-D dataset of `n` (the file space), and a
// memory space of one block.
inline std::pair<Hid, Hid> block_of(int r, hsize_t n) {
    const hsize_t dims[1] = {n}, start[1] = {static_cast<hsize_t>(r) * kRecordsPerRank},
                  count[1] = {kRecordsPerRank};
    Hid file_space(H5Screate_simple(1, dims, nullptr));
    H5Sselect_hyperslab(file_space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    return {std::move(file_space), Hid(H5Screate_simple(1, count, nullptr))};
}

// Collective. Creates `path` through `driver` (plugin `config`), writes a compound dataset
// {int a; int b; double c} field by field, then reads every field back and checks it. Returns this
// rank's plugin counters of both phases and a flush after them (zeros for the built-in driver).
inline H5FD_mpiio_stats_t write_and_read_fields(const std::string &path, Driver driver, const char *config) {
    struct Record {
        int a;
        int b;
        double c;
    };
    const hsize_t n = kRecordsPerRank * static_cast<hsize_t>(world_size()), dims[1] = {n};
    FaplOptions options;
    options.config = config;
    Hid fapl = make_fapl(driver, options);
    Hid collective = make_dxpl(H5FD_MPIO_COLLECTIVE);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    EXPECT_TRUE(all_ranks(file.valid())) << error_stack_text();
    if (!file.valid())
        return {};
    Hid records(H5Tcreate(H5T_COMPOUND, sizeof(Record)));
    H5Tinsert(records, "a", HOFFSET(Record, a), H5T_NATIVE_INT);
    H5Tinsert(records, "b", HOFFSET(Record, b), H5T_NATIVE_INT);
    H5Tinsert(records, "c", HOFFSET(Record, c), H5T_NATIVE_DOUBLE);
    Hid space(H5Screate_simple(1, dims, nullptr));
    Hid dset(H5Dcreate2(file, "records", records, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    EXPECT_TRUE(all_ranks(dset.valid())) << error_stack_text();
    auto [block, memory] = block_of(world_rank(), n);
    const hsize_t first = static_cast<hsize_t>(world_rank()) * kRecordsPerRank;
    H5FD_mpiio_stats_t before{}, after{};
    if (driver == Driver::Mpiio)
        before = stats_of(file);
    // One memory type per field: the field alone, so the library merges it into the records.
    auto field_type = [](const char *name, hid_t type, std::size_t size) {
        Hid t(H5Tcreate(H5T_COMPOUND, size));
        H5Tinsert(t, name, 0, type);
        return t;
    };
    std::vector<int> as(kRecordsPerRank), bs(kRecordsPerRank);
    std::vector<double> cs(kRecordsPerRank);
    for (hsize_t k = 0; k < kRecordsPerRank; ++k) {
        as[k] = value_at<int>(first + k, 1);
        bs[k] = value_at<int>(first + k, 2);
        cs[k] = static_cast<double>(value_at<int>(first + k, 3)) / 8;
    }
    Hid a_type = field_type("a", H5T_NATIVE_INT, sizeof(int)),
        b_type = field_type("b", H5T_NATIVE_INT, sizeof(int)),
        c_type = field_type("c", H5T_NATIVE_DOUBLE, sizeof(double));
    EXPECT_TRUE(all_ranks(H5Dwrite(dset, a_type, memory, block, collective, as.data()) >= 0))
        << error_stack_text();
    EXPECT_TRUE(all_ranks(H5Dwrite(dset, b_type, memory, block, collective, bs.data()) >= 0))
        << error_stack_text();
    EXPECT_TRUE(all_ranks(H5Dwrite(dset, c_type, memory, block, collective, cs.data()) >= 0))
        << error_stack_text();
    std::vector<int> got_a(kRecordsPerRank, -1), got_b(kRecordsPerRank, -1);
    std::vector<double> got_c(kRecordsPerRank, -1);
    EXPECT_TRUE(all_ranks(H5Dread(dset, a_type, memory, block, collective, got_a.data()) >= 0));
    EXPECT_TRUE(all_ranks(H5Dread(dset, b_type, memory, block, collective, got_b.data()) >= 0));
    EXPECT_TRUE(all_ranks(H5Dread(dset, c_type, memory, block, collective, got_c.data()) >= 0));
    EXPECT_EQ(got_a, as);
    EXPECT_EQ(got_b, bs);
    EXPECT_EQ(got_c, cs);
    if (driver != Driver::Mpiio)
        return {};
    dset.reset();
    EXPECT_TRUE(all_ranks(H5Fflush(file, H5F_SCOPE_LOCAL) >= 0))
        << error_stack_text(); // (kept bytes written)
    after = stats_of(file);
    H5FD_mpiio_stats_t delta{};
#define MPIIO_TEST_STATS_DELTA(type, name, description) delta.name = after.name - before.name;
    H5FD_MPIIO_STATS_FIELDS(MPIIO_TEST_STATS_DELTA)
#undef MPIIO_TEST_STATS_DELTA
    return delta;
}

} // namespace mpiio_test
