// The aggregating route's file domains (aggregate/aggregation.hpp): every write an aggregator
// makes lies inside one window of whole stripe units, a window's writer is fixed by its file
// offset (the same rank at every time step, whatever range the step covers), and the number of
// aggregators follows the `aggregators` key and the `cb_nodes` hint. The program wraps
// MPI_File_write_at through PMPI (it exports the wrapper: the plugin binds to it) and records the
// calls the plugin makes during each H5Dwrite; the file's bytes are checked too.
#include "common.hpp"
#include "write_recorder.hpp"

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>

#include <unistd.h>

namespace {

using namespace mpiio_test;

constexpr std::uint64_t kUnit = 64 * 1024; // the stripe unit the file is given (stripe_unit=64K)

// Collective. Every rank's recorded calls, as (rank, offset, bytes, the memory's page offset), on
// every rank.
std::vector<std::array<std::int64_t, 4>> all_calls() {
    std::vector<std::int64_t> mine;
    for (const WriteCall &c : WriteRecorder::calls())
        mine.insert(mine.end(), {world_rank(), c.offset, static_cast<std::int64_t>(c.bytes),
                                 static_cast<std::int64_t>(c.memory_page_offset)});
    int n = static_cast<int>(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(world_size())), at(counts.size());
    MPI_Allgather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
    int total = 0;
    for (std::size_t r = 0; r < counts.size(); ++r) {
        at[r] = total;
        total += counts[r];
    }
    std::vector<std::int64_t> words(static_cast<std::size_t>(total));
    MPI_Allgatherv(mine.data(), n, MPI_INT64_T, words.data(), counts.data(), at.data(), MPI_INT64_T,
                   MPI_COMM_WORLD);
    std::vector<std::array<std::int64_t, 4>> calls;
    for (std::size_t w = 0; w + 4 <= words.size(); w += 4)
        calls.push_back({words[w], words[w + 1], words[w + 2], words[w + 3]});
    return calls;
}

// Collective. How many hosts the ranks run on, by their host names (the multihost suite puts
// them on two simulated hosts; a launch on one machine has one).
int host_count() {
    std::array<char, 256> name{};
    gethostname(name.data(), name.size() - 1);
    std::vector<char> names(name.size() * static_cast<std::size_t>(world_size()));
    MPI_Allgather(name.data(), static_cast<int>(name.size()), MPI_CHAR, names.data(),
                  static_cast<int>(name.size()), MPI_CHAR, MPI_COMM_WORLD);
    std::set<std::string> hosts;
    for (std::size_t at = 0; at < names.size(); at += name.size())
        hosts.emplace(names.data() + at);
    return static_cast<int>(hosts.size());
}

// Collective. How many ranks moved an aggregator window of `file`.
int aggregators_of(hid_t file) {
    H5FD_mpiio_stats_t stats{};
    H5Fget_mpiio_stats(file, &stats);
    int mine = stats.aggregator_windows > 0 ? 1 : 0, ranks = 0;
    MPI_Allreduce(&mine, &ranks, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return ranks;
}

// Two time steps of one contiguous dataset, the second shifted by one and a half units: each
// window's writes come from one rank, the same in both steps, the one its offset names (with
// `aggregators` = the ranks, all on this node, aggregator index a is rank a); every write lies
// inside its window, from memory at its file offset's page offset (scratch_buffer.hpp: FUSE with
// direct I/O cuts a call at the memory's pages; the dataset does not start on a page).
TEST(FileDomains, EachStripeUnitHasOneWriterFixedByItsOffset) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    const int s = world_size(), r = world_rank();
    const std::string config = "collective_route=aggregate;write_behind=off;window_cache=0;stripe_unit=64K;"
                               "staging_buffer=100K;aggregators=" +
                               std::to_string(s);
    FaplOptions options;
    options.config = config.c_str();
    Hid fapl = make_fapl(Driver::Mpiio, options);
    Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
    const std::string path = test_file("domains", Driver::Mpiio);
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
    const hsize_t per_rank = 3 * kUnit / sizeof(int), n = per_rank * static_cast<hsize_t>(s) + kUnit;
    const hsize_t dims[1] = {n};
    Hid fspace(H5Screate_simple(1, dims, nullptr));
    Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    ASSERT_TRUE(all_ranks(dset.valid()));
    std::map<std::int64_t, std::int64_t> writer_of_window; // window index -> rank, over both steps
    std::vector<int> want(n, 0);
    for (const hsize_t shift : {hsize_t{0}, 3 * kUnit / 2 / sizeof(int)}) {
        SCOPED_TRACE(testing::Message() << "shifted by " << shift << " elements");
        const hsize_t start[1] = {shift + per_rank * static_cast<hsize_t>(r)}, count[1] = {per_rank};
        ASSERT_GE(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr), 0);
        Hid mspace(H5Screate_simple(1, count, nullptr));
        std::vector<int> mine(per_rank);
        for (hsize_t e = 0; e < per_rank; ++e)
            mine[e] = static_cast<int>(shift + 7 * (start[0] + e));
        for (int q = 0; q < s; ++q)
            for (hsize_t e = 0; e < per_rank; ++e)
                want[shift + per_rank * static_cast<hsize_t>(q) + e] =
                    static_cast<int>(shift + 7 * (shift + per_rank * static_cast<hsize_t>(q) + e));
        std::optional<WriteRecorder> recording(std::in_place);
        const herr_t written = H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, mine.data());
        recording.reset();
        ASSERT_TRUE(all_ranks(written >= 0)) << error_stack_text();
        const auto calls = all_calls();
        ASSERT_FALSE(calls.empty());
        for (const auto &[rank, offset, bytes, memory_page_offset] : calls) {
            const std::int64_t window = offset / static_cast<std::int64_t>(kUnit);
            EXPECT_EQ(memory_page_offset, offset % 4096) << "rank " << rank << "'s write at " << offset;
            EXPECT_LE(offset + bytes, (window + 1) * static_cast<std::int64_t>(kUnit))
                << "rank " << rank << "'s write at " << offset << " (" << bytes
                << " bytes) leaves its window";
            EXPECT_EQ(rank, window % s) << "window " << window << " written by rank " << rank;
            const auto [it, first] = writer_of_window.emplace(window, rank);
            EXPECT_EQ(it->second, rank) << "window " << window << " changed its writer";
        }
    }
    EXPECT_EQ(aggregators_of(file), s);
    std::vector<int> got(n, -1);
    ASSERT_GE(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, got.data()), 0);
    EXPECT_EQ(got, want);
}

// The number of aggregators: one per host unasked (the hosts counted by name, not by what the MPI
// calls a node: MPICH 5.0 made every rank a node of its own), the key asks (more than one per
// node), the cb_nodes hint caps it. (8 KiB windows, whatever unit the file system reports: every
// aggregator gets windows.)
TEST(FileDomains, AggregatorCountFollowsTheKeyAndCbNodes) {
    if (route_forced_by_environment("aggregate"))
        GTEST_SKIP() << "the environment forces another route";
    const int s = world_size(), r = world_rank(), hosts = host_count();
    struct Row {
        const char *config;
        int want;
    };
    for (const Row &row : std::vector<Row>{{"aggregators=4", std::min(4, s)},
                                           {"aggregators=4;hint.cb_nodes=2", std::min(2, s)},
                                           {"hint.cb_nodes=1", 1},
                                           {"", hosts}}) {
        SCOPED_TRACE(row.config);
        const std::string config =
            std::string("collective_route=aggregate;write_behind=off;staging_buffer=4K;stripe_unit=8K;") +
            row.config;
        FaplOptions options;
        options.config = config.c_str();
        Hid fapl = make_fapl(Driver::Mpiio, options);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        Hid file(H5Fcreate(test_file("count", Driver::Mpiio).c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        constexpr hsize_t per_rank = 4096;
        const hsize_t dims[1] = {per_rank * static_cast<hsize_t>(s)};
        Hid fspace(H5Screate_simple(1, dims, nullptr));
        Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        const hsize_t start[1] = {per_rank * static_cast<hsize_t>(r)}, count[1] = {per_rank};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
        Hid mspace(H5Screate_simple(1, count, nullptr));
        std::vector<int> mine(per_rank, r + 1);
        ASSERT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, mine.data()) >= 0));
        EXPECT_EQ(aggregators_of(file), row.want);
    }
}

} // namespace
