// The independent engine's decisions as tables (driver/independent/independent_plan.hpp): which strategy a
// request's shape gets, and which calls a staged group of segments becomes. No MPI, no HDF5.
#include "independent/independent_plan.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using mpiio::Direction;
using mpiio::GroupCall;
using mpiio::IndependentLimits;
using mpiio::PlannedSegment;
using mpiio::RequestShape;
using mpiio::Strategy;

constexpr std::size_t K = 1024;

IndependentLimits limits() { return IndependentLimits{4 * K * K, 4 * K}; }

struct StrategyRow {
    const char *what;
    RequestShape shape;
    Direction dir;
    bool may_bridge;
    Strategy expected;
};

TEST(IndependentPlan, StrategyTable) {
    const std::vector<StrategyRow> rows = {
        {"nothing to move", {0, 0, 0, 0, false, false}, Direction::Read, true, Strategy::Nothing},
        {"one range, one buffer", {4096, 4096, 1, 1, true, true}, Direction::Write, false, Strategy::OneCall},
        {"one range, memory of 4-byte pieces: MPI's engine in one call",
         {4096, 4096, 1, 1024, true, false},
         Direction::Read,
         true,
         Strategy::OneCall},
        {"one range, memory of 1 KiB pieces: staged",
         {64 * K, 64 * K, 1, 64, true, false},
         Direction::Write,
         false,
         Strategy::Staged},
        {"every other 4-byte element, read: sieved",
         {4096, 8188, 1024, 1, false, true},
         Direction::Read,
         true,
         Strategy::SieveTyped},
        {"every other 4-byte element, write in own extent: sieved",
         {4096, 8188, 1024, 1, false, true},
         Direction::Write,
         true,
         Strategy::SieveTyped},
        {"every other 4-byte element, write beside other ranks: staged",
         {4096, 8188, 1024, 1, false, true},
         Direction::Write,
         false,
         Strategy::Staged},
        {"4-byte elements 1 MiB apart: calls cost less than the holes",
         {4096, 1024 * K * K, 1024, 1, false, true},
         Direction::Read,
         true,
         Strategy::Staged},
        {"4 KiB blocks 16 KiB apart (h5perf interleaved read): per run",
         {256 * K, 1012 * K, 64, 1, false, true},
         Direction::Read,
         true,
         Strategy::Staged},
        {"64-byte rows (long enough for memcpy): staged even when dense",
         {64 * K, 128 * K, 1024, 1024, false, false},
         Direction::Read,
         true,
         Strategy::Staged},
    };
    for (const StrategyRow &r : rows)
        EXPECT_EQ(mpiio::choose_strategy(r.shape, r.dir, r.may_bridge, limits()), r.expected) << r.what;
}

// host_copies=off: a file range stays one call (MPI's datatypes describe the caller's memory);
// anything else goes a call per run, whatever the cost model would sieve or stage.
TEST(IndependentPlan, WithoutHostCopiesOnlyOneCallOrRunByRun) {
    IndependentLimits no_copies = limits();
    no_copies.host_copies = false;
    const std::vector<StrategyRow> rows = {
        {"nothing to move", {0, 0, 0, 0, false, false}, Direction::Read, true, Strategy::Nothing},
        {"one range, memory of 1 KiB pieces",
         {64 * K, 64 * K, 1, 64, true, false},
         Direction::Write,
         false,
         Strategy::OneCall},
        {"every other 4-byte element, read",
         {4096, 8188, 1024, 1, false, true},
         Direction::Read,
         true,
         Strategy::RunByRun},
        {"every other 4-byte element, write in own extent",
         {4096, 8188, 1024, 1, false, true},
         Direction::Write,
         true,
         Strategy::RunByRun},
        {"4 KiB blocks 16 KiB apart",
         {256 * K, 1012 * K, 64, 1, false, true},
         Direction::Read,
         true,
         Strategy::RunByRun},
    };
    for (const StrategyRow &r : rows)
        EXPECT_EQ(mpiio::choose_strategy(r.shape, r.dir, r.may_bridge, no_copies), r.expected) << r.what;
}

// A readable form of a call list: "D 0+10" straight (GroupCall::Kind::Straight), "R 0+100" read span, "W ..."
// write span, "V 0+100" view write ("V*" straight from memory).
std::string calls(const std::vector<GroupCall> &cs) {
    std::string out;
    for (const GroupCall &c : cs) {
        if (!out.empty())
            out += ", ";
        switch (c.kind) {
        case GroupCall::Kind::Straight:
            out += "D";
            break;
        case GroupCall::Kind::ReadSpan:
            out += "R";
            break;
        case GroupCall::Kind::WriteSpan:
            out += "W";
            break;
        case GroupCall::Kind::ViewWrite:
            out += c.from_memory ? "V*" : "V";
            break;
        }
        out += " " + std::to_string(c.lo) + "+" + std::to_string(c.hi - c.lo);
    }
    return out;
}

// `n` segments of `len` bytes, `stride` apart from `first`; memory contiguous when `follows`.
std::vector<PlannedSegment> strided(std::size_t n, std::size_t len, std::size_t stride, std::size_t first = 0,
                                    bool follows = false) {
    std::vector<PlannedSegment> out;
    for (std::size_t i = 0; i < n; ++i)
        out.push_back(PlannedSegment{first + i * stride, len, follows && i > 0});
    return out;
}

TEST(IndependentPlan, ReadsBridgeHolesUpToTheGapCost) {
    // 1 KiB runs 1 KiB apart: one read of the whole range.
    EXPECT_EQ(calls(mpiio::plan_group(strided(4, K, 2 * K), Direction::Read, true, false, limits())),
              "R 0+7168");
    // 1 KiB runs 8 KiB apart: a call each, straight into memory.
    EXPECT_EQ(calls(mpiio::plan_group(strided(3, K, 9 * K), Direction::Read, true, false, limits())),
              "D 0+1024, D 9216+1024, D 18432+1024");
    // A hole that with the stretch after it makes exactly the gap cost is bridged, one byte more
    // is not.
    std::vector<PlannedSegment> two = {{0, 100, false}, {4 * K, 100, false}, {8 * K + 101, 100, false}};
    EXPECT_EQ(calls(mpiio::plan_group(two, Direction::Read, true, false, limits())), "R 0+4196, D 8293+100");
    // 4 KiB blocks 4 KiB apart (h5perf's interleaved read on 2 ranks): a call each.
    EXPECT_EQ(calls(mpiio::plan_group(strided(3, 4 * K, 8 * K), Direction::Read, true, false, limits())),
              "D 0+4096, D 8192+4096, D 16384+4096");
}

TEST(IndependentPlan, FileAdjacentSegmentsFormOneStretch) {
    // Sixteen 64-byte rows of a chunk, contiguous in the file, scattered in memory: one call.
    const auto rows = strided(16, 64, 64);
    EXPECT_EQ(calls(mpiio::plan_group(rows, Direction::Read, true, false, limits())), "R 0+1024");
    EXPECT_EQ(calls(mpiio::plan_group(rows, Direction::Write, false, false, limits())), "W 0+1024");
}

TEST(IndependentPlan, WritesBridgeOnlyWhereAllowedAndWorthIt) {
    const auto small = strided(64, K, 2 * K); // 1 KiB runs, 1 KiB holes
    // In the rank's own extent: read back once, write once.
    EXPECT_EQ(calls(mpiio::plan_group(small, Direction::Write, true, false, limits())),
              "R 0+130048, W 0+130048");
    // Beside other ranks' bytes: never bridged; many runs through the rank's own view.
    EXPECT_EQ(calls(mpiio::plan_group(small, Direction::Write, false, true, limits())), "V 0+130048");
    // ... straight from memory when the runs' memory is one block.
    EXPECT_EQ(
        calls(mpiio::plan_group(strided(64, K, 2 * K, 0, true), Direction::Write, false, true, limits())),
        "V* 0+130048");
    // Runs of the gap cost or longer beside other ranks' bytes: a call each (h5perf's interleaved
    // write of 4 KiB blocks), the view only pays for shorter ones.
    EXPECT_EQ(calls(mpiio::plan_group(strided(8, 4 * K, 8 * K), Direction::Write, false, true, limits())),
              "D 0+4096, D 8192+4096, D 16384+4096, D 24576+4096, D 32768+4096, D 40960+4096, D 49152+4096, "
              "D 57344+4096");
    // Without the view (atomic mode, or too few runs): a call per run.
    EXPECT_EQ(calls(mpiio::plan_group(strided(3, K, 2 * K), Direction::Write, false, true, limits())),
              "D 0+1024, D 2048+1024, D 4096+1024");
    // Stretches longer than the gap cost with short holes between them (chunk rows between B-tree
    // nodes): bridging would read back and rewrite every stretch to save a call each, so each
    // stretch is written on its own.
    std::vector<PlannedSegment> chunks;
    for (std::size_t s = 0; s < 3; ++s)
        for (std::size_t row = 0; row < 48; ++row)
            chunks.push_back(PlannedSegment{s * 4 * K + row * 64, 64, false});
    EXPECT_EQ(calls(mpiio::plan_group(chunks, Direction::Write, true, false, limits())),
              "W 0+3072, W 4096+3072, W 8192+3072");
    // In the rank's own extent, long stretches a call each rather than through the view (an extra
    // open of the file), short sparse ones through the view.
    EXPECT_EQ(calls(mpiio::plan_group(strided(16, 8 * K, 12 * K), Direction::Write, true, true, limits())),
              "D 0+8192, D 12288+8192, D 24576+8192, D 36864+8192, D 49152+8192, D 61440+8192, D 73728+8192, "
              "D 86016+8192, D 98304+8192, D 110592+8192, D 122880+8192, D 135168+8192, D 147456+8192, "
              "D 159744+8192, D 172032+8192, D 184320+8192");
    EXPECT_EQ(calls(mpiio::plan_group(strided(16, 100, 8 * K), Direction::Write, true, true, limits())),
              "V 0+122980");
    // Two stretches never pay for a read-back: the same calls either way.
    EXPECT_EQ(calls(mpiio::plan_group(strided(2, 16, 32), Direction::Write, true, false, limits())),
              "D 0+16, D 32+16");
}

// Past the written end (bytes no rank wrote: zeros) a bridged write reads nothing back: a hole
// costs its bytes once, written as zeros, so holes up to sieve_gap join and two stretches already
// pay. Below it the read back counts as before.
TEST(IndependentPlan, WritesPastTheWrittenEndBridgeWithoutReadingBack) {
    const IndependentLimits shared{4 * K * K, 64 * K}; // a call worth 64 KiB (shared storage)
    // Four ranks' bands (128-byte pieces 256 bytes apart over 32 KiB, the rest of each 64 KiB band
    // unwritten), as an aggregator receives them.
    std::vector<PlannedSegment> bands;
    for (std::size_t r = 0; r < 4; ++r)
        for (const PlannedSegment &s : strided(128, 128, 256, r * 64 * K))
            bands.push_back(s);
    // Written before: each band read back and written on its own (its 32 KiB hole to the next
    // band twice costs more than a call).
    EXPECT_EQ(calls(mpiio::plan_group(bands, Direction::Write, true, false, shared)),
              "R 0+32640, R 65536+32640, R 131072+32640, R 196608+32640, W 0+32640, W 65536+32640, "
              "W 131072+32640, W 196608+32640");
    // Never written: one write of the four bands and the zeros between them (the span's read back
    // lies past the written end: zeros, no call).
    EXPECT_EQ(calls(mpiio::plan_group(bands, Direction::Write, true, false, shared, 0)),
              "R 0+229248, W 0+229248");
    // Written up to the second band's end: the first two read back, joined by their 32 KiB hole
    // only when it and the read back of the second band fit in a call; the rest joins as zeros.
    EXPECT_EQ(calls(mpiio::plan_group(bands, Direction::Write, true, false, shared, 64 * K + 32640)),
              "R 0+32640, R 65536+163712, W 0+32640, W 65536+163712");
    // Two stretches in the gap cost's reach: one call when nothing is read back, two otherwise.
    EXPECT_EQ(calls(mpiio::plan_group(strided(2, 16, 32), Direction::Write, true, false, limits(), 0)),
              "R 0+48, W 0+48");
    EXPECT_EQ(calls(mpiio::plan_group(strided(2, 16, 32), Direction::Write, true, false, limits(), 32)),
              "D 0+16, D 32+16");
    // Not where another rank may write in between: no bridging, whatever is known to be zeros.
    EXPECT_EQ(calls(mpiio::plan_group(strided(3, K, 2 * K), Direction::Write, false, false, limits(), 0)),
              "D 0+1024, D 2048+1024, D 4096+1024");
    // Sieving short blocks: two elements a hole apart pay for one sieved call only without a read
    // back.
    RequestShape two{8, 12, 2, 1, false, true};
    EXPECT_EQ(mpiio::choose_strategy(two, Direction::Write, true, limits()), Strategy::Staged);
    two.zeros_from = 0;
    EXPECT_EQ(mpiio::choose_strategy(two, Direction::Write, true, limits()), Strategy::SieveTyped);
    two.lo = 4096; // zeros only from past the extent: read back as before
    two.zeros_from = 4096 + 12;
    EXPECT_EQ(mpiio::choose_strategy(two, Direction::Write, true, limits()), Strategy::Staged);
}

TEST(IndependentPlan, LongSegmentsMoveOnTheirOwn) {
    std::vector<PlannedSegment> mixed = {
        {0, 100, false}, {200, 64 * K, false}, {200 + 64 * K + 10, 100, false}};
    EXPECT_EQ(calls(mpiio::plan_group(mixed, Direction::Read, true, false, limits())),
              "D 0+100, D 200+65536, D 65746+100");
    EXPECT_EQ(calls(mpiio::plan_group(mixed, Direction::Write, true, false, limits())),
              "D 0+100, D 200+65536, D 65746+100");
}

} // namespace
