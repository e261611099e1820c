// The aggregators' copies of their last transfers (aggregate/window_cache.hpp): a read is
// answered only when one kept round holds every byte of it, with those bytes; the copy never
// holds more than its limit.
#include "aggregate/window_cache.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace {

using Piece = mpiio::Run; // (gtest's Test::Run hides the name inside a test)
using mpiio::WindowCache;

// Bytes whose value tells their file address (mod 251).
std::vector<char> file_bytes(std::uint64_t lo, std::size_t n) {
    std::vector<char> b(n);
    for (std::size_t i = 0; i < n; ++i)
        b[i] = static_cast<char>((lo + i) % 251);
    return b;
}

// Runs over `memory` for the file ranges [lo, hi) given, packed one after the other.
std::vector<Piece> runs_over(std::vector<char> &memory,
                             const std::vector<std::pair<std::uint64_t, std::uint64_t>> &ranges) {
    std::size_t total = 0;
    for (const auto &[lo, hi] : ranges)
        total += hi - lo;
    memory.assign(total, 0);
    std::vector<Piece> runs;
    std::size_t at = 0;
    for (const auto &[lo, hi] : ranges) {
        runs.push_back(Piece{lo, static_cast<std::size_t>(hi - lo), memory.data() + at});
        at += hi - lo;
    }
    return runs;
}

// Fills each run's memory with the file's bytes.
void fill(const std::vector<Piece> &runs) {
    for (const Piece &r : runs) {
        const std::vector<char> b = file_bytes(r.addr, r.size);
        std::copy(b.begin(), b.end(), r.buf);
    }
}

bool holds_file_bytes(const std::vector<Piece> &runs) {
    for (const Piece &r : runs)
        if (std::vector<char>(r.buf, r.buf + r.size) != file_bytes(r.addr, r.size))
            return false;
    return true;
}

TEST(WindowCache, ServesOnlyReadsOneKeptRoundHoldsWhole) {
    WindowCache cache;
    cache.set_limit(1 << 20);
    std::vector<char> written;
    const std::vector<Piece> kept = runs_over(written, {{100, 164}, {200, 264}, {300, 428}});
    fill(kept);
    cache.keep(kept);
    EXPECT_EQ(cache.bytes(), 256u);

    std::vector<char> memory;
    std::vector<Piece> inside = runs_over(memory, {{110, 120}, {200, 264}, {400, 428}});
    ASSERT_TRUE(cache.serve(inside));
    EXPECT_TRUE(holds_file_bytes(inside));

    for (const auto &ranges : std::vector<std::vector<std::pair<std::uint64_t, std::uint64_t>>>{
             {{150, 170}},             // past a slot's end: its last bytes were not kept
             {{164, 200}},             // the hole between two slots
             {{90, 110}},              // before the first slot
             {{110, 120}, {420, 440}}, // one run inside, one past the end
             {{160, 210}},             // across a hole into the next slot
         }) {
        std::vector<Piece> outside = runs_over(memory, ranges);
        EXPECT_FALSE(cache.serve(outside)) << ranges.front().first;
        EXPECT_TRUE(std::all_of(memory.begin(), memory.end(), [](char c) { return c == 0; }))
            << "a refused read was copied into";
    }
}

TEST(WindowCache, ARoundIsServedWholeFromOneRoundNotPiecedTogether) {
    WindowCache cache;
    cache.set_limit(1 << 20);
    std::vector<char> a, b;
    std::vector<Piece> first = runs_over(a, {{0, 100}}), second = runs_over(b, {{100, 200}});
    fill(first);
    fill(second);
    cache.keep(first);
    cache.keep(second);
    std::vector<char> memory;
    std::vector<Piece> each = runs_over(memory, {{150, 180}});
    EXPECT_TRUE(cache.serve(each));
    EXPECT_TRUE(holds_file_bytes(each));
    std::vector<Piece> both = runs_over(memory, {{50, 60}, {150, 160}});
    EXPECT_FALSE(cache.serve(both));
}

TEST(WindowCache, KeepsAtMostItsLimitDroppingTheOldestRounds) {
    WindowCache cache;
    cache.set_limit(256);
    std::vector<char> m1, m2, m3, big;
    std::vector<Piece> r1 = runs_over(m1, {{0, 128}}), r2 = runs_over(m2, {{1000, 1128}}),
                       r3 = runs_over(m3, {{2000, 2100}}), too_big = runs_over(big, {{5000, 5300}});
    for (auto *r : {&r1, &r2, &r3, &too_big})
        fill(*r);
    cache.keep(r1);
    cache.keep(r2);
    EXPECT_EQ(cache.bytes(), 256u);
    cache.keep(r3); // r1 goes
    EXPECT_EQ(cache.bytes(), 228u);
    std::vector<char> memory;
    std::vector<Piece> read1 = runs_over(memory, {{0, 10}});
    EXPECT_FALSE(cache.serve(read1));
    std::vector<Piece> read2 = runs_over(memory, {{1000, 1010}});
    EXPECT_TRUE(cache.serve(read2));
    cache.keep(too_big); // larger than the limit: not kept, the others stay
    EXPECT_EQ(cache.bytes(), 228u);
    std::vector<Piece> read_big = runs_over(memory, {{5000, 5010}});
    EXPECT_FALSE(cache.serve(read_big));

    cache.clear();
    EXPECT_EQ(cache.bytes(), 0u);
    EXPECT_FALSE(cache.serve(read2));
    cache.set_limit(0); // off: nothing is kept
    cache.keep(r2);
    EXPECT_EQ(cache.bytes(), 0u);
    EXPECT_FALSE(cache.serve(read2));
}

} // namespace
