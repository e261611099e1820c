#include "patterns.hpp"

#include "pattern_builders.hpp"

#include <algorithm>
#include <stdexcept>

namespace bench {

uint64_t DsetSpec::nelems() const {
    uint64_t n = 1;
    for (uint64_t d : dims)
        n *= d;
    return n;
}

bool CaseSpec::compressed() const {
    return std::any_of(dsets.begin(), dsets.end(), [](const DsetSpec &d) { return d.deflate > 0; });
}

int CaseSpec::deflate_level() const {
    for (const DsetSpec &d : dsets)
        if (d.deflate > 0)
            return d.deflate;
    return 0;
}

uint64_t CaseSpec::bytes_per_step() const {
    uint64_t b = 0;
    for (const Access &a : accesses)
        b += a.count * (a.mem == MemKind::Record ? 32 : 4);
    return b;
}

const std::vector<PatternInfo> &pattern_table() {
    // clang-format off
    static const std::vector<PatternInfo> table = {
        {"cc1d", "h5bench CONTIG/CONTIG 1D: 8 datasets, one block per rank", "coll,ind,cd,cm",
         "coll,ind,cd,cm", true, build_cc1d},
        {"cc2d", "h5bench CONTIG/CONTIG 2D: rank = band of rows", "coll,ind", "coll,ind,cd,cm", true, build_cc2d},
        {"cc3d", "h5bench CONTIG/CONTIG 3D: rank = slab in dim 0", "coll,ind", "coll,ind,cd,cm", true, build_cc3d},
        {"cs1d", "h5bench CONTIG/STRIDED 1D: STRIDE_SIZE=2, BLOCK_SIZE=1, BLOCK_CNT=DIM_1/3 (every other element)",
         "coll,ind", "coll,ind,cd,cm", true, build_cs1d},
        {"ci1d", "h5bench CONTIG/INTERLEAVED 1D: 8 one-field writes into a compound dataset", "coll",
         "coll,ind,cd,cm", true, build_ci1d},
        {"ci2d", "h5bench CONTIG/INTERLEAVED 2D", "coll", "coll,ind,cd,cm", false, build_ci2d},
        {"ic1d", "h5bench INTERLEAVED/CONTIG 1D: 8 datasets written from an array of records", "coll",
         "coll,ind,cd,cm", true, build_ic1d},
        {"ic2d", "h5bench INTERLEAVED/CONTIG 2D", "coll", "coll,ind,cd,cm", false, build_ic2d},
        {"ii1d", "h5bench INTERLEAVED/INTERLEAVED 1D: one compound dataset, one write", "coll",
         "coll,ind,cd,cm", true, build_ii1d},
        {"ii2d", "h5bench INTERLEAVED/INTERLEAVED 2D", "coll", "coll,ind,cd,cm", false, build_ii2d},
        {"strided1d", "1D regular hyperslab with gaps, larger blocks than cs1d (block = stride / 2 = 32 or 256)",
         "coll,ind", "coll,ind,cd,cm", true, build_strided1d},
        {"block2d", "2D block decomposition on a process grid (subarray view)", "coll,ind", "coll,ind,cd,cm",
         true, build_block2d},
        {"chunked2d", "cc2d with chunked layout, 4 chunks per rank per dataset", "coll,ind", "coll,ind,cd,cm",
         true, build_chunked2d},
        {"deflate2d", "chunked2d with gzip (h5bench COMPRESS=YES; collective only)", "coll", "coll,cd", true,
         build_deflate2d},
        {"smallchunks", "cc2d with many small chunks (1 KiB small, 4 KiB large)", "coll,ind",
         "coll,ind,cd,cm", true, build_smallchunks},
        {"irregular", "2D union of random rectangles (irregular hyperslab)", "coll,ind", "coll,ind,cd,cm",
         true, build_irregular},
        {"points", "1D point selection: 1/8 (large: 1/128) of the elements, scattered over all ranks",
         "coll,ind", "coll,ind,cd,cm", true, build_points},
        {"smallwrites", "many small H5Dwrite calls per rank, blocks of all ranks interleaved", "ind",
         "coll,ind,cd,cm", true, build_smallwrites},
        {"metadata", "metadata heavy: many small datasets with 10 attributes each", "coll,ind",
         "coll,ind,cd,cm", true, build_metadata},
    };
    // clang-format on
    return table;
}

const PatternInfo *find_pattern(const std::string &name) {
    for (const PatternInfo &p : pattern_table())
        if (name == p.name)
            return &p;
    return nullptr;
}

CaseSpec build_case(const std::string &pattern, const Mode &mode, Size size, int timesteps, int r, int p) {
    const PatternInfo *info = find_pattern(pattern);
    if (info == nullptr)
        throw std::runtime_error("unknown pattern " + pattern);
    CaseSpec c;
    c.pattern = pattern;
    c.id = pattern + "/" + mode.name();
    c.what = info->what;
    c.mode = mode;
    c.size = size;
    c.timesteps = timesteps;
    info->build(c, dims_for(size), static_cast<uint64_t>(r), static_cast<uint64_t>(p));
    return c;
}

} // namespace bench
