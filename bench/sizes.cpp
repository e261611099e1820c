#include "sizes.hpp"

namespace bench {

bool parse_size(const std::string &s, Size &out) {
    if (s == "tiny")
        out = Size::Tiny;
    else if (s == "small")
        out = Size::Small;
    else if (s == "medium")
        out = Size::Medium;
    else if (s == "large")
        out = Size::Large;
    else
        return false;
    return true;
}

const char *size_name(Size s) {
    switch (s) {
    case Size::Tiny:
        return "tiny";
    case Size::Small:
        return "small";
    case Size::Medium:
        return "medium";
    case Size::Large:
        return "large";
    }
    return "?";
}

namespace {

// clang-format off
const PatternDims kTiny = {
    .n1 = 1024, .n1_ci = 1024, .n1_ic = 1024,
    .d2 = {32, 32}, .d2_conv = {32, 32}, .d3 = {4, 16, 16},
    .s_block = 8, .s_stride = 16, .s_count = 32, .cs_n1 = 1024, .cs_stride = 2, .cs_block = 1,
    .d2_deflate = {32, 32}, .d2_small_chunks = {32, 32}, .small_chunk = {4, 8},
    .d2_irregular = {32, 32}, .tile = 8, .points_n1 = 1024, .points_div = 8,
    .sw_n1 = 1024, .sw_block = 64, .md_dsets = 6, .md_attrs = 4, .md_elems = 64,
    .mc_band = {32, 64}, .mc_chunk = {8, 8},
};
const PatternDims kSmall = {
    .n1 = 16384, .n1_ci = 16384, .n1_ic = 16384,
    .d2 = {128, 128}, .d2_conv = {128, 128}, .d3 = {16, 32, 32},
    .s_block = 32, .s_stride = 64, .s_count = 128, .cs_n1 = 2048, .cs_stride = 2, .cs_block = 1,
    .d2_deflate = {128, 128}, .d2_small_chunks = {128, 128}, .small_chunk = {16, 16},
    .d2_irregular = {128, 128}, .tile = 16, .points_n1 = 16384, .points_div = 8,
    .sw_n1 = 16384, .sw_block = 128, .md_dsets = 20, .md_attrs = 10, .md_elems = 256,
    .mc_band = {256, 1024}, .mc_chunk = {16, 16},
};
// Medium: small's phase times (10-50 ms for most patterns) scaled to about 0.1-0.5 s: the
// contiguous and regular patterns x16, ic1d x4, smallchunks, smallwrites x2, irregular and
// metadata x4; ci1d, deflate2d and points stay at small (already 0.15-0.45 s; ci1d's raw
// reference alone takes seconds). cs1d moves every element as its own 4-byte piece: 8 Ki
// particles per rank already take about 0.5 s per phase (256 Ki took 25-40 s). manychunks2d is
// many small chunks: 1,024 x 4,096 ints per rank in 16 x 16 chunks (16,384 chunks per rank).
const PatternDims kMedium = {
    .n1 = 262144, .n1_ci = 16384, .n1_ic = 65536,
    .d2 = {512, 512}, .d2_conv = {128, 128}, .d3 = {32, 64, 128},
    .s_block = 32, .s_stride = 64, .s_count = 2048, .cs_n1 = 8192, .cs_stride = 2, .cs_block = 1,
    .d2_deflate = {128, 128}, .d2_small_chunks = {256, 128}, .small_chunk = {16, 16},
    .d2_irregular = {256, 256}, .tile = 16, .points_n1 = 16384, .points_div = 8,
    .sw_n1 = 32768, .sw_block = 128, .md_dsets = 80, .md_attrs = 10, .md_elems = 256,
    .mc_band = {1024, 4096}, .mc_chunk = {16, 16},
};
// Large: 1 Mi particles per rank (h5bench DIM_1 = 1048576, 32 MiB per rank per time step), the
// size of the targets run (scripts/main.sh --targets); cs1d/coll then takes minutes per phase.
const PatternDims kLarge = {
    .n1 = 1048576, .n1_ci = 1048576, .n1_ic = 1048576,
    .d2 = {1024, 1024}, .d2_conv = {1024, 1024}, .d3 = {64, 64, 256},
    .s_block = 256, .s_stride = 512, .s_count = 1024, .cs_n1 = 1048576, .cs_stride = 2, .cs_block = 1,
    .d2_deflate = {1024, 1024}, .d2_small_chunks = {1024, 1024}, .small_chunk = {32, 32},
    .d2_irregular = {1024, 1024}, .tile = 64, .points_n1 = 1048576, .points_div = 128,
    .sw_n1 = 1048576, .sw_block = 1024, .md_dsets = 200, .md_attrs = 10, .md_elems = 4096,
    .mc_band = {2048, 4096}, .mc_chunk = {16, 16},
};
// clang-format on

} // namespace

const PatternDims &dims_for(Size s) {
    switch (s) {
    case Size::Tiny:
        return kTiny;
    case Size::Small:
        return kSmall;
    case Size::Medium:
        return kMedium;
    case Size::Large:
        break;
    }
    return kLarge;
}

} // namespace bench
