// The state of a deferred collective write (aggregate/write_behind.hpp): which runs an aggregator
// writes out when some ranks already wrote their own pieces, which reads its windows answer, when
// a rank's independent call must write its own part first, and the memory bound.
#include "aggregate/write_behind.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace {

using ByteRun = mpiio::Run;
using mpiio::WriteBehind;
using mpiio::aggregation::Group;
using mpiio::aggregation::Range;

// A window of 40 bytes from file byte 100: rank 0 sent [100,110) and [120,130) (one strided
// group), rank 1 sent [110,120), rank 2 [130,140).
WriteBehind with_window(std::vector<char> &bytes) {
    bytes.resize(40);
    std::iota(bytes.begin(), bytes.end(), 0);
    const std::vector<Group> groups{
        {100, 10, 20, 2, nullptr, 0}, {110, 10, 0, 1, nullptr, 0}, {130, 10, 0, 1, nullptr, 0}};
    const std::vector<int> rank_of{0, 1, 2}; // (groups[i] from rank i)
    WriteBehind wb;
    EXPECT_TRUE(wb.keep_window(0, 100, bytes.data(), bytes.size(), groups, rank_of, 1 << 20));
    return wb;
}

TEST(WriteBehindState, WriteOutLeavesOutTheRanksThatWroteTheirOwn) {
    std::vector<char> bytes;
    WriteBehind wb = with_window(bytes);
    WriteBehind::Window &w = wb.windows().front();
    const std::vector<std::int64_t> none{0, 0, 0};
    bool partial = true;
    std::vector<ByteRun> runs = WriteBehind::write_out_runs(w, none, {}, partial);
    EXPECT_FALSE(partial);
    ASSERT_EQ(runs.size(), 1u); // every piece: one range
    EXPECT_EQ(runs[0].addr, 100u);
    EXPECT_EQ(runs[0].size, 40u);
    EXPECT_EQ(runs[0].buf, w.bytes.data());
    const std::vector<std::int64_t> rank1_wrote{0, 1, 0};
    runs = WriteBehind::write_out_runs(w, rank1_wrote, {}, partial);
    EXPECT_TRUE(partial);
    ASSERT_EQ(runs.size(), 2u); // [100,110) and [120,140): rank 1's hole left alone
    EXPECT_EQ(runs[0].addr, 100u);
    EXPECT_EQ(runs[0].size, 10u);
    EXPECT_EQ(runs[1].addr, 120u);
    EXPECT_EQ(runs[1].size, 20u);
    EXPECT_EQ(runs[1].buf, w.bytes.data() + 20);
    EXPECT_TRUE(WriteBehind::write_out_runs(w, std::vector<std::int64_t>{1, 1, 1}, {}, partial).empty());
}

TEST(WriteBehindState, WriteOutLeavesOutWhatIndependentWritesTouchedSince) {
    std::vector<char> bytes;
    WriteBehind wb = with_window(bytes);
    WriteBehind::Window &w = wb.windows().front();
    const std::vector<Range> since{{95, 102}, {115, 118}, {139, 150}};
    bool partial = false;
    const std::vector<ByteRun> runs = WriteBehind::write_out_runs(w, {}, since, partial);
    EXPECT_TRUE(partial);
    ASSERT_EQ(runs.size(), 2u); // [102,115) and [118,139)
    EXPECT_EQ(runs[0].addr, 102u);
    EXPECT_EQ(runs[0].size, 13u);
    EXPECT_EQ(runs[0].buf, w.bytes.data() + 2);
    EXPECT_EQ(runs[1].addr, 118u);
    EXPECT_EQ(runs[1].size, 21u);
}

TEST(WriteBehindState, NotesOnlyWritesInsideThePendingRange) {
    WriteBehind wb;
    wb.note_independent_write(0, 10); // nothing pending: nothing noted
    EXPECT_TRUE(wb.written_ranges().empty());
    wb.start({100, 200, 100});
    wb.note_independent_write(0, 10);
    wb.note_independent_write(90, 110);
    wb.note_independent_write(105, 120); // overlaps the last: one range
    wb.note_independent_write(190, 300);
    ASSERT_EQ(wb.written_ranges().size(), 2u);
    EXPECT_EQ(wb.written_ranges()[0].lo, 100u);
    EXPECT_EQ(wb.written_ranges()[0].hi, 120u);
    EXPECT_EQ(wb.written_ranges()[1].lo, 190u);
    EXPECT_EQ(wb.written_ranges()[1].hi, 200u);
}

TEST(WriteBehindState, ServesOnlyReadsItHoldsWholly) {
    std::vector<char> bytes;
    WriteBehind wb = with_window(bytes);
    char got[8] = {};
    const ByteRun inside[1] = {{112, 8, got}};
    EXPECT_TRUE(wb.serve(0, inside));
    EXPECT_EQ(got[0], 12);
    EXPECT_EQ(got[7], 19);
    const ByteRun past[1] = {{136, 8, got}};
    EXPECT_FALSE(wb.serve(0, past));
    EXPECT_FALSE(wb.serve(1, inside)); // another round's window
}

TEST(WriteBehindState, CoversNeedsEveryByte) {
    const std::vector<Range> outer{{0, 10}, {20, 30}};
    EXPECT_TRUE(WriteBehind::covers(outer, std::vector<Range>{{2, 5}, {20, 30}}));
    EXPECT_FALSE(WriteBehind::covers(outer, std::vector<Range>{{5, 12}}));
    EXPECT_FALSE(WriteBehind::covers(outer, std::vector<Range>{{30, 31}}));
}

TEST(WriteBehindState, MemoryBoundAndReplacement) {
    std::vector<char> bytes(64, 'x');
    const std::vector<Group> groups{{0, 64, 0, 1, nullptr, 0}};
    const std::vector<int> rank_of{0};
    WriteBehind wb;
    EXPECT_TRUE(wb.keep_window(0, 0, bytes.data(), 64, groups, rank_of, 100));
    EXPECT_FALSE(wb.keep_window(1, 64, bytes.data(), 64, groups, rank_of, 100)) << "passed the limit";
    wb.drop(0);
    EXPECT_EQ(wb.window(0), nullptr);
    EXPECT_TRUE(wb.keep_window(1, 64, bytes.data(), 64, groups, rank_of, 100));
}

TEST(WriteBehindState, OnlyCallsOnTheOwnPiecesThemselvesWriteThemFirst) {
    std::vector<char> mine(16, 'm');
    const std::vector<mpiio::aggregation::Segment> segments{{200, mine.data(), 8}, {300, mine.data() + 8, 8}};
    WriteBehind wb;
    ASSERT_TRUE(wb.keep_own(segments));
    wb.start({200, 308, 16});
    EXPECT_FALSE(wb.own_waiting_in(208, 300)) << "a call between the pieces (metadata) touches none";
    EXPECT_TRUE(wb.own_waiting_in(207, 300));
    EXPECT_TRUE(wb.own_waiting_in(250, 301));
    EXPECT_FALSE(wb.own_waiting_in(308, 400));
}

TEST(WriteBehindState, OwnPartWaitsUntilWritten) {
    std::vector<char> mine(16, 'm');
    const std::vector<mpiio::aggregation::Segment> segments{{200, mine.data(), 8}, {208, mine.data() + 8, 8}};
    WriteBehind wb;
    ASSERT_TRUE(wb.keep_own(segments));
    EXPECT_FALSE(wb.own_waiting_in(200, 216)) << "nothing is pending before start()";
    wb.start({200, 216, 16});
    EXPECT_TRUE(wb.own_waiting_in(210, 300));
    EXPECT_TRUE(wb.touches_pending(215, 300));
    EXPECT_FALSE(wb.own_waiting_in(216, 300)); // past its range
    EXPECT_FALSE(wb.own_waiting_in(0, 200));
    ASSERT_EQ(wb.own_runs().size(), 1u); // touching pieces: one run over the copy
    EXPECT_EQ(wb.own_runs()[0].size, 16u);
    EXPECT_NE(wb.own_runs()[0].buf, mine.data()); // a copy: the caller may reuse its buffer
    wb.mark_own_written();
    EXPECT_FALSE(wb.own_waiting_in(200, 216));
    wb.start({200, 216, 16}); // a rewrite of the same bytes waits again
    EXPECT_TRUE(wb.own_waiting_in(200, 216));
    wb.clear();
    EXPECT_FALSE(wb.active());
    EXPECT_FALSE(wb.own_waiting_in(200, 216));
}

} // namespace
