// Reads into memory misaligned with the file (driver/kernel_copy.hpp): the vector copy against
// memcpy at every relative alignment, and MpiIo::read_bytes with the bounce forced on against the
// file's bytes: which reads bounce (a slow position, up to the bounce limit), that they make the
// same call at the same address, and that a short read past the end of the file reads zeros.
#include "independent_engine.hpp"
#include "kernel_copy.hpp"
#include "mpi_io.hpp"

#include "self_file.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {

using mpiio::CallRecord;
using mpiio::MpiIo;
using mpiio::SlowCopyPhases;

constexpr std::size_t K = 1024;
constexpr std::size_t kFileBytes = 256 * K;

char pattern(std::size_t k) { return static_cast<char>((k * 13 + 5) & 0xff); }

TEST(CopyUnaligned, EqualsMemcpyAtEveryAlignmentAndLength) {
    std::vector<char> src(8 * K + 128), dst(8 * K + 128), want(8 * K + 128);
    for (std::size_t k = 0; k < src.size(); ++k)
        src[k] = pattern(k);
    const std::size_t lengths[] = {0, 1, 15, 16, 63, 64, 65, 127, 128, 200, 4095, 4096, 4097, 8 * K};
    for (std::size_t s = 0; s < 64; s += 3)
        for (std::size_t d = 0; d < 64; d += 5)
            for (std::size_t n : lengths) {
                std::fill(dst.begin(), dst.end(), '\x5a');
                want = dst;
                std::memcpy(want.data() + d, src.data() + s, n);
                mpiio::copy_unaligned(dst.data() + d, src.data() + s, n);
                ASSERT_EQ(dst, want) << "source +" << s << ", destination +" << d << ", " << n << " bytes";
            }
}

TEST(SlowCopyPhases, ClassifiesByPositionRelativeToTheFile) {
    alignas(4096) static char memory[3 * 4096];
    const SlowCopyPhases low{true, false}, high{false, true}, both{true, true};
    EXPECT_FALSE(both.slow(memory, 0));              // co-aligned
    EXPECT_FALSE(both.slow(memory + 16, 4096 + 16)); // 16 - 4112 = -4096: co-aligned
    EXPECT_TRUE(low.slow(memory + 16, 0));           // 16 ahead: h5perf's buffer, page-aligned blocks
    EXPECT_TRUE(low.slow(memory + 4096 + 8, 0));     // 4104 ahead = 8 (mod 4096)
    EXPECT_FALSE(high.slow(memory + 16, 0));
    EXPECT_TRUE(high.slow(memory + 48, 0));
    EXPECT_TRUE(low.slow(memory + 16 + 2048, 2048));
    // The source's position within its page counts, not only within 64 bytes: 16 bytes off within
    // 64 but 2064 ahead within the page (h5perf's unaligned dataset at 2 KiB) is not slow, nor 64
    // or more ahead, nor behind (0 - 16 = 4080: the destination 16 bytes behind).
    EXPECT_FALSE(both.slow(memory + 16, 2048));
    EXPECT_FALSE(both.slow(memory + 64, 0));
    EXPECT_FALSE(both.slow(memory + 100, 20)); // 80 ahead
    EXPECT_FALSE(both.slow(memory, 16));
    EXPECT_FALSE(both.slow(memory + 16, 64));
    EXPECT_FALSE(SlowCopyPhases{}.slow(memory + 8, 0));
    // The probe answers (whatever this CPU is) and answers the same every time.
    const SlowCopyPhases probed = mpiio::probe_slow_copy_phases();
    EXPECT_EQ(probed.low, mpiio::probe_slow_copy_phases().low);
    EXPECT_EQ(probed.high, mpiio::probe_slow_copy_phases().high);
}

// A file of kFileBytes pattern bytes on MPI_COMM_SELF, read through an MpiIo whose bounce is on.
class BounceTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::vector<char> init(kFileBytes);
        for (std::size_t k = 0; k < kFileBytes; ++k)
            init[k] = pattern(k);
        path_ = mpiio::test::create_self_file("bounce", init, &fh_);
        ASSERT_NE(fh_, MPI_FILE_NULL) << path_;
        io_.bind(&fh_, mpiio::OwnHandleSettings{path_, MPI_INFO_NULL, false, false}, kFileBytes);
        io_.bounce_reads(SlowCopyPhases{true, true});
    }
    void TearDown() override {
        MPI_File_close(&fh_);
        ::unlink(path_.c_str());
    }

    std::string path_;
    MPI_File fh_ = MPI_FILE_NULL;
    MpiIo io_;
};

TEST_F(BounceTest, ShortMisalignedReadsBounceAndReadTheFilesBytes) {
    alignas(4096) static char memory[80 * K];
    std::vector<CallRecord> calls;
    for (int logged = 0; logged < 2; ++logged) { // unlogged: byte_call's lean path; logged: call
        io_.record_calls(logged ? &calls : nullptr);
        for (std::size_t phase : {std::size_t{0}, std::size_t{1}, std::size_t{16}, std::size_t{40},
                                  std::size_t{63}, std::size_t{64}, 2 * K + 16, 4 * K + 8})
            for (std::size_t addr : {std::size_t{0}, std::size_t{3}, 2 * K, 4 * K + 16, 100 * K + 1})
                for (std::size_t bytes : {std::size_t{1}, 2 * K - 1, 2 * K, 4 * K, 64 * K - 1, 64 * K}) {
                    char *buf = memory + phase;
                    std::memset(memory, 0, sizeof memory);
                    calls.clear();
                    const std::uint64_t before = io_.bounced_reads();
                    ASSERT_EQ(io_.read_bytes(addr, buf, bytes), bytes);
                    const std::size_t ahead = (phase + 4 * K - addr % (4 * K)) % (4 * K); // mod 4096
                    const bool misaligned = ahead != 0 && ahead < 64;
                    const bool bounces = misaligned && bytes >= MpiIo::kBounceFrom; // all under 4 MiB
                    EXPECT_EQ(io_.bounced_reads() - before, bounces ? 1u : 0u)
                        << "memory +" << phase << ", address " << addr << ", " << bytes << " bytes";
                    if (bounces) { // the kernel's copy co-aligned: the slot at the address's phase
                        const auto slot = reinterpret_cast<std::uintptr_t>(io_.last_bounce_slot());
                        EXPECT_EQ((slot - addr) % 64, 0u) << "bounce slot for address " << addr;
                    }
                    for (std::size_t k = 0; k < bytes; ++k)
                        ASSERT_EQ(buf[k], pattern(addr + k))
                            << "byte " << k << " of " << bytes << " at " << addr << " into memory +" << phase;
                    EXPECT_EQ(buf[bytes], 0) << "wrote past the read's end";
                    if (logged) {
                        EXPECT_EQ(calls, (std::vector<CallRecord>{{'r', addr, bytes}}))
                            << "one call, its address";
                    }
                }
    }
    io_.record_calls(nullptr);
}

TEST_F(BounceTest, BouncedReadsPastTheEndReadZeros) {
    alignas(4096) static char memory[8 * K];
    std::memset(memory, 'x', sizeof memory);
    char *buf = memory + (kFileBytes - 100) % (4 * K) + 16; // 16 bytes ahead of the file (mod 4096)
    const std::uint64_t before = io_.bounced_reads();
    EXPECT_EQ(io_.read_bytes(kFileBytes - 100, buf, 4 * K), 100u);
    EXPECT_EQ(io_.bounced_reads() - before, 1u);
    for (std::size_t k = 0; k < 100; ++k)
        ASSERT_EQ(buf[k], pattern(kFileBytes - 100 + k));
    for (std::size_t k = 100; k < 4 * K; ++k)
        ASSERT_EQ(buf[k], 0) << "byte " << k << " past the end of the file";
    EXPECT_EQ(buf[4 * K], 'x');
}

// Long reads bounce up to the limit (staging_buffer at open, at least kBounceLongestFloor), one
// call each; a longer one goes straight into memory.
TEST_F(BounceTest, LongReadsBounceUpToTheLimit) {
    static std::vector<char> memory(2 * kFileBytes);
    char *page = memory.data() + (4 * K - reinterpret_cast<std::uintptr_t>(memory.data()) % (4 * K));
    std::vector<CallRecord> calls;
    io_.record_calls(&calls);
    io_.bounce_reads(SlowCopyPhases{true, true}, 128 * K);
    for (std::size_t bytes : {64 * K, 128 * K, 128 * K + 1, kFileBytes - 4 * K}) {
        char *buf = page + 16; // 16 bytes ahead of address 4 KiB (mod 4096)
        std::fill(memory.begin(), memory.end(), 'x');
        calls.clear();
        const std::uint64_t before = io_.bounced_reads();
        ASSERT_EQ(io_.read_bytes(4 * K, buf, bytes), bytes);
        EXPECT_EQ(io_.bounced_reads() - before, bytes <= 128 * K ? 1u : 0u) << bytes << " bytes";
        EXPECT_EQ(calls, (std::vector<CallRecord>{{'r', 4 * K, bytes}})) << "one call, its address";
        for (std::size_t k = 0; k < bytes; ++k)
            ASSERT_EQ(buf[k], pattern(4 * K + k)) << "byte " << k << " of " << bytes;
        EXPECT_EQ(buf[bytes], 'x') << "wrote past the read's end";
    }
    // Below the floor the limit is the floor; a long read past the end of the file reads zeros; above
    // the cap the limit is the cap.
    io_.bounce_reads(SlowCopyPhases{true, true}, 1);
    std::fill(memory.begin(), memory.end(), 'x');
    const std::uint64_t before = io_.bounced_reads();
    ASSERT_EQ(io_.read_bytes(kFileBytes - 4 * K, page + 16, 64 * K), 4 * K);
    EXPECT_EQ(io_.bounced_reads() - before, 1u) << "64 KiB at a limit below the floor";
    for (std::size_t k = 0; k < 4 * K; ++k)
        ASSERT_EQ(page[16 + k], pattern(kFileBytes - 4 * K + k));
    for (std::size_t k = 4 * K; k < 64 * K; ++k)
        ASSERT_EQ(page[16 + k], 0) << "byte " << k << " past the end of the file";
    ASSERT_EQ(io_.read_bytes(0, page + 16, 64 * K + 1), 64 * K + 1);
    EXPECT_EQ(io_.bounced_reads() - before, 1u) << "64 KiB + 1 above the floor";
    EXPECT_EQ(io_.bounce_longest(), MpiIo::kBounceLongestFloor);
    io_.bounce_reads(SlowCopyPhases{true, true}, std::size_t{1} << 40);
    EXPECT_EQ(io_.bounce_longest(), MpiIo::kBounceLongestCap) << "one MPI count at most";
    io_.record_calls(nullptr);
}

TEST_F(BounceTest, OffReadsStraightIntoMemory) {
    alignas(4096) static char memory[8 * K];
    io_.bounce_reads(SlowCopyPhases{});
    EXPECT_EQ(io_.read_bytes(0, memory + 16, 4 * K), 4 * K);
    EXPECT_EQ(io_.bounced_reads(), 0u);
    for (std::size_t k = 0; k < 4 * K; ++k)
        ASSERT_EQ(memory[16 + k], pattern(k));
}

// The staged read path's span (read into the staging buffer at the file's phase, copied out) at
// every phase of memory and file: reads bridge 1 KiB holes between 1 KiB runs.
TEST_F(BounceTest, StagedSpansReadTheFilesBytesAtEveryPhase) {
    mpiio::IndependentEngine engine;
    engine.bind(&io_, mpiio::IndependentLimits{4 * K * K, 4 * K});
    alignas(64) static char memory[16 * K];
    for (std::size_t phase : {0, 8, 16, 33})
        for (std::size_t base : {std::size_t{0}, std::size_t{5}, 4 * K + 24}) {
            std::memset(memory, 0, sizeof memory);
            std::vector<mpiio::Run> runs;
            for (std::size_t i = 0; i < 6; ++i)
                runs.push_back({base + 2 * K * i, K, memory + phase + K * i});
            mpiio::IoRequest request = mpiio::IoRequest::runs(runs);
            const std::uint64_t before = io_.bounced_reads();
            engine.move(request, mpiio::Direction::Read, false);
            EXPECT_EQ(io_.bounced_reads(), before) << "the span's buffer is at the file's phase: no bounce";
            for (const mpiio::Run &r : runs)
                for (std::size_t k = 0; k < r.size; ++k)
                    ASSERT_EQ(r.buf[k], pattern(r.addr + k)) << "memory +" << phase << ", run at " << r.addr;
        }
}

} // namespace
