// Every collective chunk I/O mode on 1-4 ranks: chunks touched by one, some and all ranks, ranks
// without chunks, partial edge chunks; knobs through the DXPL and through the config string.
// Each case writes and reads the same data through the built-in mpio driver and through mpiio,
// compares the files, and checks what the driver reports it did.
#include "h5fd_mpiio.h"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace {

using namespace mpiio_test;

// 30 x 30 ints in 8 x 8 chunks: a 4 x 4 chunk grid whose last row and column are partial. On shared
// storage, where the multi-chunk mode's calls per chunk are round trips (35 s for its five cases on
// 2 ranks), 12 x 12: a 2 x 2 grid, partial the same way.
hsize_t grid() { return storage_sized<hsize_t>(30, 12); }
constexpr hsize_t kChunk = 8;
hsize_t chunk_count() {
    const hsize_t per_side = (grid() + kChunk - 1) / kChunk;
    return per_side * per_side;
}

enum class Layout {
    RowsPerRank,        // each rank a band of rows: chunks shared by neighbouring ranks
    AllRanksEveryChunk, // columns split among ranks: every chunk touched by every rank
    OnlyRankZero,       // rank 0 alone selects: other ranks have no chunks
};

// This rank's file selection for a layout.
void select(hid_t space, Layout layout) {
    const hsize_t rank = static_cast<hsize_t>(world_rank()), size = static_cast<hsize_t>(world_size());
    switch (layout) {
    case Layout::RowsPerRank: {
        const hsize_t rows = (grid() + size - 1) / size;
        const hsize_t start[2] = {rank * rows, 0};
        const hsize_t count[2] = {std::min(rows, grid() - std::min(grid(), rank * rows)), grid()};
        if (count[0] == 0)
            H5Sselect_none(space);
        else
            H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
        break;
    }
    case Layout::AllRanksEveryChunk: {
        const hsize_t start[2] = {0, rank}, stride[2] = {1, size},
                      count[2] = {grid(), (grid() - rank + size - 1) / size};
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, nullptr);
        break;
    }
    case Layout::OnlyRankZero:
        if (rank == 0)
            H5Sselect_all(space);
        else
            H5Sselect_none(space);
        break;
    }
}

struct Outcome {
    std::string file;
    H5D_mpio_actual_chunk_opt_mode_t chunk_opt = H5D_MPIO_NO_CHUNK_OPTIMIZATION;
    H5D_mpio_actual_io_mode_t io_mode = H5D_MPIO_NO_COLLECTIVE;
    H5FD_mpiio_stats_t stats{};
};

struct Knobs {
    H5FD_mpio_chunk_opt_t opt = H5FD_MPIO_CHUNK_DEFAULT;
    unsigned num = 0, ratio = 60;
    const char *config = nullptr;
};

Outcome run(Driver driver, Layout layout, const Knobs &knobs, const std::string &stem) {
    Outcome out;
    out.file = test_file(stem, driver);
    FaplOptions fo;
    fo.config = knobs.config;
    Hid fapl = make_fapl(driver, fo);
    Hid file(H5Fcreate(out.file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    EXPECT_TRUE(file.valid());
    const hsize_t dims[2] = {grid(), grid()}, chunk[2] = {kChunk, kChunk};
    Hid fspace(H5Screate_simple(2, dims, nullptr));
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
    H5Pset_chunk(dcpl, 2, chunk);
    Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    select(fspace, layout);
    const hsize_t n = static_cast<hsize_t>(H5Sget_select_npoints(fspace));
    Hid mspace(H5Screate_simple(1, &n, nullptr));
    if (n == 0)
        H5Sselect_none(mspace);
    // Values identify the element: row-major index of the selected element in the dataset.
    std::vector<int> values(n), back(n, -1);
    {
        std::vector<hsize_t> coords;
        Hid iter(H5Ssel_iter_create(fspace, sizeof(int), 0));
        std::vector<hsize_t> off(4096);
        std::vector<size_t> len(4096);
        size_t k = 0;
        while (true) {
            size_t nseq = 0, nbytes = 0;
            H5Ssel_iter_get_seq_list(iter, off.size(), SIZE_MAX, &nseq, &nbytes, off.data(), len.data());
            if (nseq == 0)
                break;
            for (size_t s = 0; s < nseq; ++s)
                for (size_t b = 0; b < len[s]; b += sizeof(int))
                    values[k++] = static_cast<int>((off[s] + b) / sizeof(int)) + 1;
        }
        EXPECT_EQ(k, n);
    }
    Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
    H5Pset_dxpl_mpio_chunk_opt(dxpl, knobs.opt);
    H5Pset_dxpl_mpio_chunk_opt_num(dxpl, knobs.num);
    H5Pset_dxpl_mpio_chunk_opt_ratio(dxpl, knobs.ratio);
    EXPECT_GE(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, values.data()), 0);
    H5Pget_mpio_actual_chunk_opt_mode(dxpl, &out.chunk_opt);
    H5Pget_mpio_actual_io_mode(dxpl, &out.io_mode);
    EXPECT_GE(H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, back.data()), 0);
    EXPECT_EQ(values, back) << "read back differs on rank " << world_rank();
    if (driver == Driver::Mpiio)
        EXPECT_GE(H5Fget_mpiio_stats(file, &out.stats), 0);
    return out;
}

struct Case {
    const char *name;
    Layout layout;
    Knobs knobs;
    bool expect_multi;
};

void check_case(const Case &c) {
    SCOPED_TRACE(c.name);
    Outcome builtin = run(Driver::Mpio, c.layout, c.knobs, c.name);
    Outcome mine = run(Driver::Mpiio, c.layout, c.knobs, c.name);
    EXPECT_EQ(compare_files(builtin.file, mine.file), "");
    if (c.expect_multi) {
        EXPECT_EQ(mine.chunk_opt, H5D_MPIO_MULTI_CHUNK);
        EXPECT_EQ(mine.stats.multi_chunk_ops, 2u); // the write and the read
        EXPECT_EQ(mine.stats.linked_chunk_ops, 0u);
        const uint64_t chunks = mine.stats.collective_chunks + mine.stats.independent_chunks;
        EXPECT_GT(chunks, 0u);
        const H5D_mpio_actual_io_mode_t expected =
            mine.stats.independent_chunks == 0  ? H5D_MPIO_CHUNK_COLLECTIVE
            : mine.stats.collective_chunks == 0 ? H5D_MPIO_CHUNK_INDEPENDENT
                                                : H5D_MPIO_CHUNK_MIXED;
        EXPECT_EQ(mine.io_mode, expected);
    } else {
        EXPECT_EQ(mine.chunk_opt, H5D_MPIO_LINK_CHUNK);
        EXPECT_EQ(mine.stats.linked_chunk_ops, 2u);
        EXPECT_EQ(mine.stats.multi_chunk_ops, 0u);
    }
}

TEST(ChunkModes, DefaultIsLinked) {
    check_case({"default_rows", Layout::RowsPerRank, {}, false});
    check_case({"default_all", Layout::AllRanksEveryChunk, {}, false});
    check_case({"default_rank0", Layout::OnlyRankZero, {}, false});
}

TEST(ChunkModes, ExplicitLinkedThroughDxpl) {
    check_case({"linked_rows", Layout::RowsPerRank, {H5FD_MPIO_CHUNK_ONE_IO, 1000, 60, nullptr}, false});
}

TEST(ChunkModes, ExplicitMultiThroughDxpl) {
    check_case({"multi_rows", Layout::RowsPerRank, {H5FD_MPIO_CHUNK_MULTI_IO, 0, 60, nullptr}, true});
    check_case({"multi_all", Layout::AllRanksEveryChunk, {H5FD_MPIO_CHUNK_MULTI_IO, 0, 60, nullptr}, true});
    check_case({"multi_rank0", Layout::OnlyRankZero, {H5FD_MPIO_CHUNK_MULTI_IO, 0, 60, nullptr}, true});
    check_case({"multi_ratio0", Layout::RowsPerRank, {H5FD_MPIO_CHUNK_MULTI_IO, 0, 0, nullptr}, true});
    check_case(
        {"multi_ratio100", Layout::AllRanksEveryChunk, {H5FD_MPIO_CHUNK_MULTI_IO, 0, 100, nullptr}, true});
}

TEST(ChunkModes, ThresholdThroughDxpl) {
    // With a threshold above the average chunks per rank the plan is multi-chunk.
    check_case(
        {"threshold_multi", Layout::AllRanksEveryChunk, {H5FD_MPIO_CHUNK_DEFAULT, 1000, 60, nullptr}, true});
    check_case(
        {"threshold_linked", Layout::AllRanksEveryChunk, {H5FD_MPIO_CHUNK_DEFAULT, 1, 60, nullptr}, false});
}

TEST(ChunkModes, ConfigOverridesDxpl) {
    check_case(
        {"config_multi", Layout::RowsPerRank, {H5FD_MPIO_CHUNK_ONE_IO, 0, 60, "chunk_opt=multi"}, true});
    check_case({"config_linked",
                Layout::AllRanksEveryChunk,
                {H5FD_MPIO_CHUNK_MULTI_IO, 0, 60, "chunk_opt=linked"},
                false});
    check_case(
        {"config_num", Layout::RowsPerRank, {H5FD_MPIO_CHUNK_DEFAULT, 0, 60, "chunk_opt_num=1000"}, true});
    check_case({"config_ratio",
                Layout::AllRanksEveryChunk,
                {H5FD_MPIO_CHUNK_MULTI_IO, 0, 60, "chunk_opt_ratio=0"},
                true});
}

TEST(ChunkModes, RatioDecidesPerChunk) {
    // Every rank touches every chunk: with ratio 0 all chunks are collective; with ratio 100 none is
    // (nobody exceeds all ranks), so each rank writes its parts independently.
    FaplOptions fo;
    fo.config = "chunk_opt=multi;chunk_opt_ratio=0";
    Outcome all = run(Driver::Mpiio, Layout::AllRanksEveryChunk, {H5FD_MPIO_CHUNK_DEFAULT, 0, 60, fo.config},
                      "ratio_all");
    EXPECT_EQ(all.stats.independent_chunks, 0u);
    EXPECT_EQ(all.stats.collective_chunks, 2u * chunk_count());
    Outcome none = run(Driver::Mpiio, Layout::AllRanksEveryChunk,
                       {H5FD_MPIO_CHUNK_DEFAULT, 0, 60, "chunk_opt=multi;chunk_opt_ratio=100"}, "ratio_none");
    EXPECT_EQ(none.stats.collective_chunks, 0u);
    EXPECT_EQ(none.stats.independent_chunks, 2u * chunk_count());
}

} // namespace
