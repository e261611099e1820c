// The independent engine on its own (driver/independent/independent_engine.hpp): requests of every source
// (one range, byte runs, typed pieces) against an MPI_COMM_SELF file on tmpfs, no HDF5 file. Each
// row names the MPI-IO calls the request must produce and checks every byte of the file and of
// memory afterwards.
#include "independent/independent_engine.hpp"
#include "independent/independent_plan.hpp"
#include "io/mpi_layer.hpp"
#include "selection/indexed_type.hpp"
#include "selection/mpi_build.hpp"
#include "selection/point_selection.hpp"

#include "self_file.hpp"

#include <gtest/gtest.h>
#include <mpi.h>
#include <unistd.h>

#include <cstring>
#include <numeric>
#include <string>
#include <vector>

namespace {

using mpiio::CallRecord;
using mpiio::Direction;
using mpiio::IoRequest;
using mpiio::Run;
namespace sel = mpiio::selection;

constexpr std::size_t K = 1024;
constexpr std::size_t kFileBytes = 512 * K;

char pattern(std::size_t k) { return static_cast<char>((k * 7 + 3) & 0xff); }

// A file of kFileBytes pattern bytes on MPI_COMM_SELF, with its choke point and engine.
class EngineTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::vector<char> init(kFileBytes);
        for (std::size_t k = 0; k < kFileBytes; ++k)
            init[k] = pattern(k);
        path_ = mpiio::test::create_self_file("engine", init, &fh_);
        ASSERT_NE(fh_, MPI_FILE_NULL) << path_;
        expected_ = init;
        MPI_Info_create(&info_);
        // The view's mechanism under every layer (view_writes=on); AutoViewWrites... checks auto.
        io_.bind(&fh_, mpiio::OwnHandleSettings{path_, info_, true, true}, kFileBytes);
        engine_.bind(&io_, mpiio::IndependentLimits{4 * K * K, 4 * K});
        io_.record_calls(&calls_);
    }
    void TearDown() override {
        io_.record_calls(nullptr);
        io_.close_own_handle(path_);
        MPI_File_close(&fh_);
        MPI_Info_free(&info_);
        ::unlink(path_.c_str());
    }

    // Moves the request and returns its calls as "r 0+100, w 200+8": kind (mpi_io.hpp CallRecord),
    // file address, bytes moved.
    std::string move(IoRequest request, Direction dir, bool may_bridge) {
        calls_.clear();
        engine_.move(request, dir, may_bridge);
        std::string out;
        for (const CallRecord &c : calls_)
            out += (out.empty() ? "" : ", ") + std::string(1, c.kind) + " " + std::to_string(c.addr) + "+" +
                   std::to_string(c.bytes);
        return out;
    }

    // The file must hold `value` in every byte of `runs` from now on.
    void expect_written(const std::vector<mpiio::Run> &runs, char value) {
        for (const mpiio::Run &r : runs)
            std::fill(expected_.begin() + static_cast<long>(r.addr),
                      expected_.begin() + static_cast<long>(r.addr + r.size), value);
    }

    // One typed piece: `values` as every other 4-byte element of the file from `addr` on.
    static std::vector<sel::TypedPiece> every_other_element(haddr_t addr, std::vector<int> &values) {
        sel::Runs every_other;
        for (std::size_t i = 0; i < values.size(); ++i)
            every_other.push(static_cast<MPI_Aint>(8 * i), 4);
        return {{static_cast<MPI_Offset>(addr), values.data(),
                 sel::TypePair{sel::build_from_runs(std::move(every_other), nullptr),
                               sel::contiguous_spec(0, static_cast<MPI_Count>(4 * values.size())), nullptr}}};
    }
    // The file must hold that piece's values from now on.
    void expect_every_other_element(haddr_t addr, const std::vector<int> &values) {
        for (std::size_t i = 0; i < values.size(); ++i)
            std::memcpy(expected_.data() + addr + 8 * i, &values[i], 4);
    }

    // The whole file equals `expected_`.
    void check_file() {
        std::vector<char> back(kFileBytes);
        MPI_Status st;
        ASSERT_EQ(MPI_File_read_at(fh_, 0, back.data(), static_cast<int>(kFileBytes), MPI_BYTE, &st),
                  MPI_SUCCESS);
        for (std::size_t k = 0; k < kFileBytes; ++k)
            ASSERT_EQ(back[k], expected_[k]) << "file byte " << k;
    }

    std::string path_;
    MPI_File fh_ = MPI_FILE_NULL;
    MPI_Info info_ = MPI_INFO_NULL;
    mpiio::MpiIo io_;
    mpiio::IndependentEngine engine_;
    std::vector<CallRecord> calls_;
    std::vector<char> expected_; // what the file must hold
};

// `n` runs of `len` bytes `stride` apart from `first`, each with its own memory in `memory`
// (filled with `salt` values when writing).
std::vector<Run> strided_runs(std::vector<char> &memory, std::size_t n, std::size_t len, std::size_t stride,
                              std::size_t first = 0) {
    memory.resize(n * len);
    std::vector<Run> runs;
    for (std::size_t i = 0; i < n; ++i)
        runs.push_back(Run{first + i * stride, len, memory.data() + i * len});
    return runs;
}

TEST_F(EngineTest, OneRangeIsOneCall) {
    std::vector<char> data(100, 'x');
    EXPECT_EQ(move(IoRequest::contiguous(1000, data.data(), 100), Direction::Write, false), "w 1000+100");
    std::fill(expected_.begin() + 1000, expected_.begin() + 1100, 'x');
    check_file();
    std::vector<char> back(100);
    EXPECT_EQ(move(IoRequest::contiguous(1000, back.data(), 100), Direction::Read, true), "r 1000+100");
    EXPECT_EQ(back, data);
}

TEST_F(EngineTest, ReadsBridgeShortHolesAndReadLongOnesRunByRun) {
    std::vector<char> memory;
    auto runs = strided_runs(memory, 4, K, 2 * K, 100);
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Read, true), "r 100+7168");
    for (std::size_t i = 0; i < 4; ++i)
        for (std::size_t b = 0; b < K; ++b)
            ASSERT_EQ(memory[i * K + b], pattern(100 + i * 2 * K + b));
    runs = strided_runs(memory, 3, K, 16 * K);
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Read, true), "r 0+1024, r 16384+1024, r 32768+1024");
    EXPECT_EQ(memory[2 * K + 5], pattern(32 * K + 5));
}

// Reads stream (IndependentEngine::stream_segments): a block that shares its call with no other
// is read straight into memory, the others go through plan_group. The calls must be the plan's
// for the whole list, and every byte must arrive.
TEST_F(EngineTest, StreamedReadsMakeThePlansCalls) {
    std::vector<char> memory(100 * K, 0);
    char *m = memory.data();
    const std::vector<mpiio::Run> runs = {
        {0, K, m},                   // a stretch with the next (file-adjacent, memory apart)
        {K, K, m + 2 * K},           //
        {3 * K, 512, m + 4 * K},     // hole 1 KiB + 512 bytes <= sieve_gap: joins the span
        {12 * K, K, m + 5 * K},      // hole 8.5 KiB: a call of its own
        {20 * K, 64 * K, m + 6 * K}, // kOwnCallBytes: straight into memory
        {84 * K, K, m + 70 * K},     // file-adjacent to the long one, yet a call of its own
        {100 * K, 2 * K, m + 72 * K},
        {103 * K, K, m + 74 * K},  // hole 1 KiB + 1 KiB: joins
        {150 * K, K, m + 80 * K}}; // a call of its own, the last
    std::vector<mpiio::PlannedSegment> segments;
    for (std::size_t i = 0; i < runs.size(); ++i)
        segments.push_back(
            {runs[i].addr, runs[i].size, i > 0 && runs[i - 1].buf + runs[i - 1].size == runs[i].buf});
    std::string want;
    for (const mpiio::GroupCall &c : mpiio::plan_group(segments, Direction::Read, true, false,
                                                       mpiio::IndependentLimits{4 * K * K, 4 * K}))
        want += (want.empty() ? "r " : ", r ") + std::to_string(c.lo) + "+" + std::to_string(c.hi - c.lo);
    EXPECT_EQ(want, "r 0+3584, r 12288+1024, r 20480+65536, r 86016+1024, r 102400+4096, r 153600+1024");
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Read, true), want);
    for (const mpiio::Run &r : runs)
        for (std::size_t b = 0; b < r.size; ++b)
            ASSERT_EQ(r.buf[b], pattern(r.addr + b)) << "file byte " << r.addr + b;
}

TEST_F(EngineTest, WritesRewriteHolesOnlyWhenAllowed) {
    std::vector<char> memory;
    auto runs = strided_runs(memory, 64, K, 2 * K);
    std::fill(memory.begin(), memory.end(), 'a');
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Write, true), "r 0+130048, w 0+130048");
    expect_written(runs, 'a');
    check_file();
    std::fill(memory.begin(), memory.end(), 'b');
    runs = strided_runs(memory, 64, K, 2 * K, 200 * K);
    std::fill(memory.begin(), memory.end(), 'b');
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Write, false), "v 204800+65536");
    expect_written(runs, 'b');
    MPI_File_sync(fh_); // the view write went through the rank's own handle
    check_file();
}

// view_writes=auto: the same runs through the rank's own view only where the layer writes a view
// of irregular runs for less than a call per run (mpi_layer.hpp: not Open MPI's ROMIO), else a
// call per run and no own handle.
TEST_F(EngineTest, AutoViewWritesOnlyWhereTheLayerSavesCalls) {
    mpiio::MpiIo io;
    io.bind(&fh_, mpiio::OwnHandleSettings{path_, info_, true, false}, kFileBytes);
    io.record_calls(&calls_);
    mpiio::IndependentEngine engine;
    engine.bind(&io, mpiio::IndependentLimits{4 * K * K, 4 * K});
    std::vector<char> memory;
    const auto runs = strided_runs(memory, 64, K, 2 * K, 200 * K);
    std::fill(memory.begin(), memory.end(), 'c');
    calls_.clear();
    IoRequest request = IoRequest::runs(runs);
    engine.move(request, Direction::Write, false);
    const bool view = mpiio::irregular_view_writes_pay_off(fh_);
    ASSERT_EQ(calls_.size(), view ? 1u : 64u);
    for (const CallRecord &c : calls_)
        EXPECT_EQ(c.kind, view ? 'v' : 'w');
    io.record_calls(nullptr);
    io.close_own_handle(path_);
    expect_written(runs, 'c');
    MPI_File_sync(fh_);
    check_file();
}

// The library's metadata (a vector write of the metadata cache) never opens the rank's own handle:
// the same runs that raw data writes through a view go a call each while the handle is closed,
// and through the view once raw data has opened it.
TEST_F(EngineTest, MetadataTakesTheOwnHandleOnlyOnceRawDataOpenedIt) {
    mpiio::MpiIo io;
    io.bind(&fh_, mpiio::OwnHandleSettings{path_, info_, true, true}, kFileBytes); // view_writes=on
    io.record_calls(&calls_);
    mpiio::IndependentEngine engine;
    engine.bind(&io, mpiio::IndependentLimits{4 * K * K, 4 * K});
    mpiio::RequestBuilder requests;
    std::vector<char> memory;
    auto write = [&](std::size_t first, bool metadata, char value) {
        const auto runs = strided_runs(memory, 16, K, 2 * K, first);
        std::fill(memory.begin(), memory.end(), value);
        std::vector<haddr_t> addrs;
        std::vector<std::size_t> sizes;
        std::vector<char *> bufs;
        for (const mpiio::Run &r : runs) {
            addrs.push_back(r.addr);
            sizes.push_back(r.size);
            bufs.push_back(r.buf);
        }
        calls_.clear();
        IoRequest request = requests.vector(static_cast<uint32_t>(runs.size()), addrs.data(), sizes.data(),
                                            bufs.data(), metadata);
        EXPECT_EQ(request.metadata(), metadata);
        engine.move(request, Direction::Write, false);
        expect_written(runs, value);
        std::string kinds;
        for (const CallRecord &c : calls_)
            kinds += c.kind;
        return kinds;
    };
    EXPECT_EQ(write(0, true, 'm'), std::string(16, 'w')) << "metadata, no handle open";
    EXPECT_EQ(write(100 * K, false, 'd'), "v") << "raw data opens the handle";
    EXPECT_EQ(write(200 * K, true, 'n'), "v") << "metadata, the handle open";
    io.record_calls(nullptr);
    io.close_own_handle(path_);
    MPI_File_sync(fh_);
    check_file();
}

// A write that may neither bridge nor use a view goes stretch by stretch as the segments arrive,
// without a plan: the same calls as the planned path (below kViewWriteMinRuns stretches, where the
// plan takes no view either). Stretches: two file-adjacent segments with separate memory (one
// staged call), a lone segment (straight from memory), a 64 KiB segment (a call of its own) and a
// segment file-adjacent to it (a stretch of its own: long segments join nothing), then two 40 KiB
// runs adjacent in file and memory (merged into one 80 KiB segment: long, so on its own too) and a
// segment file-adjacent to them with separate memory.
TEST_F(EngineTest, WritesWithoutBridgeOrViewGoStretchByStretch) {
    std::vector<char> memory(170 * K);
    for (std::size_t k = 0; k < memory.size(); ++k)
        memory[k] = static_cast<char>('A' + k % 23);
    const std::vector<mpiio::Run> runs = {{0, K, memory.data()},
                                          {K, K, memory.data() + 2 * K},
                                          {4 * K, K, memory.data() + 4 * K},
                                          {8 * K, 64 * K, memory.data() + 6 * K},
                                          {72 * K, K, memory.data() + 70 * K},
                                          {80 * K, 40 * K, memory.data() + 72 * K},
                                          {120 * K, 40 * K, memory.data() + 112 * K},
                                          {160 * K, K, memory.data() + 160 * K}};
    const char *want = "w 0+2048, w 4096+1024, w 8192+65536, w 73728+1024, w 81920+81920, w 163840+1024";
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Write, false), want) << "planned";
    mpiio::MpiIo io;
    io.bind(&fh_, mpiio::OwnHandleSettings{path_, info_, false, false}, kFileBytes); // view_writes=off
    io.record_calls(&calls_);
    mpiio::IndependentEngine engine;
    engine.bind(&io, mpiio::IndependentLimits{4 * K * K, 4 * K});
    for (int round = 0; round < 2; ++round) {
        for (char &c : memory)
            c = static_cast<char>(c + 1);
        calls_.clear();
        IoRequest request = IoRequest::runs(runs);
        engine.move(request, Direction::Write, false);
        std::string got;
        for (const CallRecord &c : calls_)
            got += (got.empty() ? "" : ", ") + std::string(1, c.kind) + " " + std::to_string(c.addr) + "+" +
                   std::to_string(c.bytes);
        EXPECT_EQ(got, want) << "stretch by stretch, round " << round;
        for (const mpiio::Run &r : runs)
            std::copy(r.buf, r.buf + r.size, expected_.begin() + static_cast<long>(r.addr));
        check_file();
    }
    io.record_calls(nullptr);
}

// A stretch-by-stretch write whose memory cuts its file runs finer (a typed piece: two file runs
// of 4 KiB, memory eight blocks of 1 KiB, 1 KiB apart) goes through the group, not the stream:
// each file run is one call, its blocks copied into the staging buffer, and nothing between the
// runs is written.
TEST_F(EngineTest, StretchWritesOfScatteredMemoryGoThroughTheGroup) {
    sel::Runs file_runs, mem_runs;
    file_runs.push(0, 4 * K);
    file_runs.push(8 * K, 4 * K);
    for (std::size_t i = 0; i < 8; ++i)
        mem_runs.push(static_cast<MPI_Aint>(2 * K * i), K);
    std::vector<char> memory(16 * K);
    for (std::size_t k = 0; k < memory.size(); ++k)
        memory[k] = static_cast<char>('a' + k % 26);
    std::vector<sel::TypedPiece> piece{
        {0, memory.data(),
         sel::TypePair{sel::build_from_runs(std::move(file_runs), nullptr),
                       sel::build_from_runs(std::move(mem_runs), nullptr), nullptr}}};
    const sel::CombinedFacts facts = sel::combine_facts(piece);
    mpiio::MpiIo io;
    io.bind(&fh_, mpiio::OwnHandleSettings{path_, info_, false, false}, kFileBytes); // view_writes=off
    io.record_calls(&calls_);
    mpiio::IndependentEngine engine;
    engine.bind(&io, mpiio::IndependentLimits{4 * K * K, 4 * K});
    calls_.clear();
    IoRequest request = IoRequest::pieces(piece, facts);
    engine.move(request, Direction::Write, false);
    io.record_calls(nullptr);
    std::string got;
    for (const CallRecord &c : calls_)
        got += (got.empty() ? "" : ", ") + std::string(1, c.kind) + " " + std::to_string(c.addr) + "+" +
               std::to_string(c.bytes);
    EXPECT_EQ(got, "w 0+4096, w 8192+4096");
    for (std::size_t i = 0; i < 8; ++i) { // block i of memory to file byte K * i (+ 4 KiB from the 5th)
        const std::size_t at = (i < 4 ? 0 : 4 * K) + K * i;
        std::copy(memory.begin() + static_cast<long>(2 * K * i),
                  memory.begin() + static_cast<long>(2 * K * i + K),
                  expected_.begin() + static_cast<long>(at));
    }
    check_file();
}

TEST_F(EngineTest, LongSegmentsMoveStraightFromMemory) {
    std::vector<char> memory;
    auto runs = strided_runs(memory, 3, 64 * K, 65 * K);
    std::fill(memory.begin(), memory.end(), 'c');
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Write, true),
              "w 0+65536, w 66560+65536, w 133120+65536");
    expect_written(runs, 'c');
    check_file();
}

// Every other 4-byte element of the first 8 KiB: short blocks, dense - one sieved call each way,
// bytes copied by MPI's datatype engine.
TEST_F(EngineTest, ShortDenseBlocksAreSieved) {
    std::vector<int> values(1024);
    std::iota(values.begin(), values.end(), 7000);
    std::vector<sel::TypedPiece> piece = every_other_element(0, values);
    const sel::CombinedFacts facts = sel::combine_facts(piece);
    EXPECT_EQ(move(IoRequest::pieces(piece, facts), Direction::Write, true), "r 0+8188, w 0+8188");
    expect_every_other_element(0, values);
    check_file();
    std::vector<int> back(1024, -1);
    piece[0].buffer = back.data();
    EXPECT_EQ(move(IoRequest::pieces(piece, facts), Direction::Read, true), "r 0+8188");
    EXPECT_EQ(back, values);
}

// Vector I/O of short compressed chunks (t_filters_parallel): file-adjacent runs of 15-51 bytes,
// each in its own buffer, scattered in memory in no particular order. They are sieved as one range
// and copied run by run; every byte of every run arrives, the last one included (MPICH 4.0.2's
// datatype engine once packed one byte short here).
TEST_F(EngineTest, ShortAdjacentRunsInScatteredBuffersArriveWhole) {
    const std::vector<std::size_t> lengths = {50, 51, 15, 20, 20, 20, 17, 51};
    std::vector<std::vector<char>> buffers;
    for (std::size_t i = 0; i < lengths.size(); ++i)
        buffers.emplace_back(lengths[i] + 64 * ((i * 5) % 7)); // different sizes: scattered heap blocks
    std::vector<mpiio::Run> runs;
    std::size_t addr = 3000;
    for (std::size_t i : {3, 0, 6, 1, 7, 2, 5, 4}) { // file order differs from memory order
        runs.push_back(mpiio::Run{addr, lengths[i], buffers[i].data()});
        addr += lengths[i];
    }
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Read, true), "r 3000+" + std::to_string(addr - 3000));
    for (const mpiio::Run &r : runs)
        for (std::size_t k = 0; k < r.size; ++k)
            ASSERT_EQ(r.buf[k], pattern(r.addr + k)) << "run at " << r.addr << ", byte " << k;
    for (std::size_t j = 0; j < runs.size(); ++j) {
        std::fill(runs[j].buf, runs[j].buf + runs[j].size, static_cast<char>(0x40 + j));
        expect_written({runs[j]}, static_cast<char>(0x40 + j));
    }
    move(IoRequest::runs(runs), Direction::Write, true);
    check_file();
}

// The engine's own buffers hold file bytes at the file offset's offset within a page (FUSE with
// direct I/O cuts a call at the memory's pages: anywhere else, each piece of a write ends inside a
// stripe the servers read first). Runs sieved as one range, typed pieces sieved, short runs
// gathered into one write without bridging: every call's memory has its file offset's page offset.
TEST_F(EngineTest, OwnBuffersSitAtTheFileOffsetsPageOffset) {
    auto page_offset = [](std::uintptr_t x) { return x % mpiio::ScratchBuffer::kAlignment; };
    auto expect_placed = [&](const std::string &what) {
        ASSERT_FALSE(calls_.empty()) << what;
        for (const CallRecord &c : calls_)
            EXPECT_EQ(page_offset(reinterpret_cast<std::uintptr_t>(c.memory)), page_offset(c.addr))
                << what << ": call " << c.kind << " " << c.addr << "+" << c.bytes;
    };
    std::vector<std::vector<char>> buffers;
    std::vector<mpiio::Run> runs;
    for (std::size_t i = 0, addr = 3000; i < 6; ++i, addr += 40) {
        buffers.emplace_back(40, static_cast<char>(0x20 + i));
        runs.push_back(mpiio::Run{addr, 40, buffers.back().data()});
        expect_written({runs.back()}, static_cast<char>(0x20 + i));
    }
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Write, true), "r 3000+240, w 3000+240");
    expect_placed("runs, bridged");
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Write, false), "w 3000+240");
    expect_placed("runs, not bridged");
    EXPECT_EQ(move(IoRequest::runs(runs), Direction::Read, true), "r 3000+240");
    expect_placed("runs, read");

    std::vector<int> values(256);
    std::iota(values.begin(), values.end(), 9000);
    const std::vector<sel::TypedPiece> piece = every_other_element(2144, values);
    const sel::CombinedFacts facts = sel::combine_facts(piece);
    EXPECT_EQ(move(IoRequest::pieces(piece, facts), Direction::Write, true), "r 2144+2044, w 2144+2044");
    expect_placed("typed pieces, sieved");
    expect_every_other_element(2144, values);
    check_file();
}

// Points named out of order and twice: the file gets each element once, from its last occurrence;
// a read gives every occurrence the element's value.
TEST_F(EngineTest, DuplicatePointsKeepTheirLastValue) {
    sel::Runs points; // elements 5, 2, 5, 9, 2 (4 bytes each), in this order
    for (std::size_t e : {5, 2, 5, 9, 2})
        points.disp.push_back(static_cast<MPI_Aint>(4 * e)), points.len.push_back(4);
    sel::PairedRuns paired = sel::pair_sorted(std::move(points), nullptr, 4);
    ASSERT_EQ(paired.duplicates.size(), 2u);
    const std::vector<int> values = {50, 20, 51, 90, 21};
    sel::TypePair types{sel::build_from_runs(std::move(paired.file), nullptr),
                        sel::build_from_runs(std::move(paired.mem), nullptr),
                        std::make_shared<const std::vector<sel::DuplicateCopy>>(paired.duplicates)};
    std::vector<sel::TypedPiece> piece{{1000, values.data(), types}};
    const sel::CombinedFacts facts = sel::combine_facts(piece);
    move(IoRequest::pieces(piece, facts), Direction::Write, false);
    for (auto [e, v] : {std::pair{2, 21}, {5, 51}, {9, 90}})
        std::memcpy(expected_.data() + 1000 + 4 * e, &v, 4);
    MPI_File_sync(fh_);
    check_file();
    std::vector<int> back(5, -1);
    piece[0].buffer = back.data();
    move(IoRequest::pieces(piece, facts), Direction::Read, true);
    EXPECT_EQ(back, (std::vector<int>{51, 21, 51, 90, 21}));
}

TEST_F(EngineTest, ReadsPastTheEndOfTheFileReadZeros) {
    std::vector<char> back(200, 'z');
    EXPECT_EQ(move(IoRequest::contiguous(kFileBytes - 100, back.data(), 200), Direction::Read, true),
              "r 524188+200");
    for (std::size_t k = 0; k < 100; ++k)
        ASSERT_EQ(back[k], pattern(kFileBytes - 100 + k));
    for (std::size_t k = 100; k < 200; ++k)
        ASSERT_EQ(back[k], 0) << k;
}

// Without a call log (as in every file but a test's) run-by-run calls take MpiIo's lean path
// (byte_call): the same bytes, zeros past the end of the file, the same statistics and end of
// file as the logged path that every other test here sees.
TEST_F(EngineTest, UnloggedRunByRunCallsMoveAndCountAsLogged) {
    io_.record_calls(nullptr);
    const mpiio::Stats before = io_.stats();
    std::vector<char> memory;
    auto runs = strided_runs(memory, 3, 8 * K, 64 * K, 1000); // apart: a call each
    for (std::size_t k = 0; k < memory.size(); ++k)
        memory[k] = static_cast<char>('a' + k % 19);
    IoRequest write = IoRequest::runs(runs);
    engine_.move(write, Direction::Write, false);
    for (const mpiio::Run &r : runs)
        std::copy(r.buf, r.buf + r.size, expected_.begin() + static_cast<long>(r.addr));
    check_file();
    EXPECT_EQ(io_.stats().independent_writes - before.independent_writes, 3u);
    EXPECT_EQ(io_.stats().bytes_written - before.bytes_written, 3 * 8 * K);
    EXPECT_EQ(io_.eof(), kFileBytes); // inside the file

    // Two runs apart, the second one 100 bytes before the end of the file and 200 long.
    std::vector<char> back(8 * K + 200, 'z');
    const std::vector<mpiio::Run> reads = {{1000, 8 * K, back.data()},
                                           {kFileBytes - 100, 200, back.data() + 8 * K}};
    IoRequest read = IoRequest::runs(reads);
    engine_.move(read, Direction::Read, true);
    for (std::size_t k = 0; k < 8 * K; ++k)
        ASSERT_EQ(back[k], memory[k]) << k;
    for (std::size_t k = 0; k < 100; ++k)
        ASSERT_EQ(back[8 * K + k], pattern(kFileBytes - 100 + k)) << k;
    for (std::size_t k = 100; k < 200; ++k)
        ASSERT_EQ(back[8 * K + k], 0) << "past the end of the file, byte " << k;
    EXPECT_EQ(io_.stats().independent_reads - before.independent_reads, 2u);
    EXPECT_EQ(io_.stats().bytes_read - before.bytes_read, 8 * K + 100);

    std::vector<char> tail(100, 't'); // past the end: the end of file follows
    IoRequest grow = IoRequest::contiguous(kFileBytes + 1000, tail.data(), tail.size());
    engine_.move(grow, Direction::Write, false);
    EXPECT_EQ(io_.eof(), kFileBytes + 1100);
    io_.record_calls(&calls_);
}

} // namespace
