// How big each pattern is at each --size. One place, so the table of sizes can be read at once.
#pragma once

#include <cstdint>
#include <string>

namespace bench {

// tiny: smoke tests. small: phases of 10-50 ms (the default before medium).
// medium (default): sized per pattern so that every timed phase lasts about 0.1-0.5 s with 4
// ranks on a 2-core machine, long enough for the median to be stable.
// large: h5bench's "large" sizing, 1 Mi particles per rank (DIM_1 = 1048576) for the 1-D h5bench
// patterns, the size of the targets run (scripts/main.sh --targets).
enum class Size { Tiny, Small, Medium, Large };
bool parse_size(const std::string &s, Size &out);
const char *size_name(Size s);

// Per-rank dimensions of every pattern family at one size.
struct PatternDims {
    uint64_t n1;                         // cc1d, ii1d: h5bench DIM_1 (particles per rank)
    uint64_t n1_ci;                      // ci1d: DIM_1 (read-modify-write of records dominates)
    uint64_t n1_ic;                      // ic1d: DIM_1 (HDF5 type conversion dominates)
    uint64_t d2[2];                      // cc2d, ii2d, block2d, chunked2d: 2D block per rank
    uint64_t d2_conv[2];                 // ci2d, ic2d
    uint64_t d3[3];                      // cc3d: 3D block per rank
    uint64_t s_block, s_stride, s_count; // strided1d
    uint64_t cs_n1;                      // cs1d: h5bench DIM_1 (every element is its own piece)
    uint64_t cs_stride, cs_block;        // cs1d: h5bench STRIDE_SIZE, BLOCK_SIZE
    uint64_t d2_deflate[2];              // deflate2d (gzip dominates)
    uint64_t d2_small_chunks[2];         // smallchunks: block per rank
    uint64_t small_chunk[2];             // smallchunks: chunk dims
    uint64_t d2_irregular[2];            // irregular: band per rank
    uint64_t tile;                       // irregular: tile edge
    uint64_t points_n1;                  // points: dataset elements per rank
    uint64_t points_div;                 // points: a rank selects about 1/points_div of its share
    uint64_t sw_n1, sw_block;            // smallwrites: elements per rank, elements per write
    int md_dsets, md_attrs;              // metadata: datasets per step, attributes per dataset
    uint64_t md_elems;                   // metadata: elements per rank per dataset
    uint64_t mc_band[2];                 // manychunks2d: rows per rank x columns (one int dataset)
    uint64_t mc_chunk[2];                // manychunks2d: chunk dims
};
const PatternDims &dims_for(Size s);

} // namespace bench
