// Access patterns: the table, and one builder per pattern filling a CaseSpec's datasets, memory
// arrays and data calls as seen by rank r of p ranks. Conventions shared by all: 8 native
// datasets named after h5bench's fields unless said otherwise, each access lists its file
// selection as the application would build it plus its element runs (global index, memory
// index, length).
#include "patterns.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace bench {

namespace {

uint64_t prod(const std::vector<uint64_t> &v) {
    uint64_t n = 1;
    for (uint64_t x : v)
        n *= x;
    return n;
}

// One access per field over the same contiguous block of g [g0, g0 + n) (h5bench default).
Hyperslab block_slab(const std::vector<uint64_t> &start, const std::vector<uint64_t> &count) {
    return Hyperslab{start, {}, count, {}};
}

void add_soa_arrays(CaseSpec &c, uint64_t count) {
    for (int f = 0; f < kNumFields; ++f)
        c.arrays.push_back({4, count});
}

// h5bench CONTIG/CONTIG, CI, IC, II in 1D/2D/3D: rank r owns rows [r*D1, (r+1)*D1) of dim 0.
void build_h5bench(CaseSpec &c, const std::vector<uint64_t> &blk, uint64_t r, uint64_t p, char mem,
                   char file) {
    std::vector<uint64_t> gdims = blk;
    gdims[0] *= p;
    std::vector<uint64_t> start(blk.size(), 0);
    start[0] = blk[0] * r;
    const uint64_t n = prod(blk);
    const uint64_t g0 = n * r;
    Access proto;
    proto.mem_first = 0;
    proto.count = n;
    proto.mem_dims = blk;
    proto.slabs = {block_slab(start, blk)};
    proto.runs = {ElemRun{g0, 0, n}};
    if (file == 'C') { // 8 datasets
        for (int f = 0; f < kNumFields; ++f) {
            DsetSpec d;
            d.name = kFieldNames[f];
            d.ftype = mem == 'C' ? FileType::Native : FileType::Member;
            d.field = f;
            d.dims = gdims;
            c.dsets.push_back(d);
        }
        if (mem == 'C')
            add_soa_arrays(c, n);
        else
            c.arrays.push_back({32, n});
        for (int f = 0; f < kNumFields; ++f) {
            Access a = proto;
            a.dset = f;
            a.array = mem == 'C' ? f : 0;
            a.field = f;
            a.mem = mem == 'C' ? MemKind::Plain : MemKind::Member;
            c.accesses.push_back(a);
        }
    } else { // one compound dataset "particles"
        DsetSpec d;
        d.name = "particles";
        d.ftype = FileType::Particle;
        d.dims = gdims;
        c.dsets.push_back(d);
        if (mem == 'C') {
            add_soa_arrays(c, n);
            for (int f = 0; f < kNumFields; ++f) {
                Access a = proto;
                a.dset = 0;
                a.array = f;
                a.field = f;
                a.mem = MemKind::Plain;
                c.accesses.push_back(a);
            }
        } else {
            c.arrays.push_back({32, n});
            Access a = proto;
            a.mem = MemKind::Record;
            c.accesses.push_back(a);
        }
    }
}

// 8 native datasets of the given global dims; the accesses are filled in by the caller.
void add_field_dsets(CaseSpec &c, const std::vector<uint64_t> &gdims, const std::vector<uint64_t> &chunk = {},
                     int deflate = 0) {
    for (int f = 0; f < kNumFields; ++f) {
        DsetSpec d;
        d.name = kFieldNames[f];
        d.ftype = FileType::Native;
        d.field = f;
        d.dims = gdims;
        d.chunk = chunk;
        d.deflate = deflate;
        c.dsets.push_back(d);
    }
}

// The same access (selection + runs) for each of the 8 fields.
void per_field(CaseSpec &c, const Access &proto) {
    for (int f = 0; f < kNumFields; ++f) {
        Access a = proto;
        a.dset = f;
        a.array = f;
        a.field = f;
        a.mem = MemKind::Plain;
        c.accesses.push_back(a);
    }
}

// Rank R's band of rows blk[0] x blk[1] in a chunked dataset (gzip when level > 0).
void chunked_band(CaseSpec &c, const std::vector<uint64_t> &blk, const std::vector<uint64_t> &chunk,
                  int level, uint64_t R, uint64_t P) {
    const uint64_t n = prod(blk);
    add_field_dsets(c, {blk[0] * P, blk[1]}, chunk, level);
    Access a;
    a.count = n;
    a.mem_dims = blk;
    a.slabs = {block_slab({blk[0] * R, 0}, blk)};
    a.runs = {ElemRun{n * R, 0, n}};
    add_soa_arrays(c, n);
    per_field(c, a);
}

void build_cc1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p) {
    build_h5bench(c, {D.n1}, r, p, 'C', 'C');
}
void build_cc2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p) {
    build_h5bench(c, {D.d2[0], D.d2[1]}, r, p, 'C', 'C');
}
void build_cc3d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p) {
    build_h5bench(c, {D.d3[0], D.d3[1], D.d3[2]}, r, p, 'C', 'C');
}
void build_ci1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p) {
    build_h5bench(c, {D.n1_ci}, r, p, 'C', 'I');
    c.raw_note = "raw writes each field straight into the record slots (no read-before-write)";
}
void build_ci2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p) {
    build_h5bench(c, {D.d2_conv[0], D.d2_conv[1]}, r, p, 'C', 'I');
    c.raw_note = "raw writes each field straight into the record slots (no read-before-write)";
}
void build_ic1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p) {
    build_h5bench(c, {D.n1_ic}, r, p, 'I', 'C');
    c.raw_note = "raw gathers the field with a strided memory datatype";
}
void build_ic2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p) {
    build_h5bench(c, {D.d2_conv[0], D.d2_conv[1]}, r, p, 'I', 'C');
    c.raw_note = "raw gathers the field with a strided memory datatype";
}
void build_ii1d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p) {
    build_h5bench(c, {D.n1}, r, p, 'I', 'I');
}
void build_ii2d(CaseSpec &c, const PatternDims &D, uint64_t r, uint64_t p) {
    build_h5bench(c, {D.d2[0], D.d2[1]}, r, p, 'I', 'I');
}

// h5bench MEM_PATTERN=CONTIG, FILE_PATTERN=STRIDED (h5bench_write's set_select_spaces_strided,
// read back with READ_OPTION=STRIDED): a dataset of DIM_1 * P elements; rank r selects start =
// r * DIM_1, stride = STRIDE_SIZE, count = BLOCK_CNT, block = BLOCK_SIZE from a contiguous memory
// buffer of BLOCK_CNT * BLOCK_SIZE elements. BLOCK_CNT is the largest h5bench accepts,
// (STRIDE_SIZE + BLOCK_SIZE) * BLOCK_CNT <= DIM_1, so with STRIDE_SIZE 2 and BLOCK_SIZE 1 a rank
// writes every other element of the first two thirds of its region.
void build_cs1d(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    const uint64_t n1 = D.cs_n1, stride = D.cs_stride, block = D.cs_block, blocks = n1 / (stride + block);
    add_field_dsets(c, {n1 * P});
    Access a;
    a.count = blocks * block;
    a.mem_dims = {a.count};
    a.slabs = {Hyperslab{{n1 * R}, {stride}, {blocks}, {block}}};
    a.runs.reserve(blocks);
    for (uint64_t i = 0; i < blocks; ++i)
        a.runs.push_back({n1 * R + i * stride, i * block, block});
    add_soa_arrays(c, a.count);
    per_field(c, a);
}

// A regular 1-D hyperslab with gaps inside each rank's DIM_1 region: blocks of s_block elements
// every s_stride elements (larger pieces than cs1d).
void build_strided1d(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    add_field_dsets(c, {D.n1 * P});
    Access a;
    a.count = D.s_block * D.s_count;
    a.mem_dims = {a.count};
    a.slabs = {Hyperslab{{D.n1 * R}, {D.s_stride}, {D.s_count}, {D.s_block}}};
    for (uint64_t i = 0; i < D.s_count; ++i)
        a.runs.push_back({D.n1 * R + i * D.s_stride, i * D.s_block, D.s_block});
    add_soa_arrays(c, a.count);
    per_field(c, a);
}

// 2-D block decomposition on an MPI_Dims_create process grid.
void build_block2d(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t p) {
    int pd[2] = {0, 0};
    MPI_Dims_create(static_cast<int>(p), 2, pd);
    const uint64_t p0 = static_cast<uint64_t>(pd[0]), p1 = static_cast<uint64_t>(pd[1]);
    const uint64_t c0 = R / p1, c1 = R % p1;
    const uint64_t rows = D.d2[0], cols = D.d2[1], gcols = p1 * cols;
    add_field_dsets(c, {p0 * rows, gcols});
    Access a;
    a.count = rows * cols;
    a.mem_dims = {rows, cols};
    a.slabs = {block_slab({c0 * rows, c1 * cols}, {rows, cols})};
    for (uint64_t i = 0; i < rows; ++i)
        a.runs.push_back({(c0 * rows + i) * gcols + c1 * cols, i * cols, cols});
    add_soa_arrays(c, a.count);
    per_field(c, a);
}

// cc2d with a chunked layout: each rank's band is 2 x 2 chunks.
void build_chunked2d(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    chunked_band(c, {D.d2[0], D.d2[1]}, {D.d2[0] / 2, D.d2[1] / 2}, 0, R, P);
    c.raw_note = "raw stores the same chunks back to back, chunk-major";
}

// chunked2d with gzip level 6 (h5bench COMPRESS=YES).
void build_deflate2d(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    chunked_band(c, {D.d2_deflate[0], D.d2_deflate[1]}, {D.d2_deflate[0] / 2, D.d2_deflate[1] / 2}, 6, R, P);
    c.raw_note = "raw compresses each chunk with zlib (same level) and writes them packed";
}

// cc2d with many small chunks.
void build_smallchunks(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    chunked_band(c, {D.d2_small_chunks[0], D.d2_small_chunks[1]}, {D.small_chunk[0], D.small_chunk[1]}, 0, R,
                 P);
    c.raw_note = "raw stores the same chunks back to back, chunk-major";
}

// Band of rows [r*rows, (r+1)*rows) cut into tiles; in 3 of 4 tiles a random rectangle.
void build_irregular(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    const uint64_t rows = D.d2_irregular[0], cols = D.d2_irregular[1], T = D.tile;
    add_field_dsets(c, {rows * P, cols});
    struct Rect {
        uint64_t y, x, h, w;
    };
    std::vector<Rect> rects;
    for (uint64_t ty = 0; ty < rows / T; ++ty)
        for (uint64_t tx = 0; tx < cols / T; ++tx) {
            const uint64_t h = mix64((R * 1000003 + ty) * 1000033 + tx);
            if ((h & 3) == 0)
                continue;
            const uint64_t y0 = (h >> 8) % (T / 2), x0 = (h >> 20) % (T / 2);
            const uint64_t hh = 1 + (h >> 32) % (T - y0), ww = 1 + (h >> 44) % (T - x0);
            rects.push_back({rows * R + ty * T + y0, tx * T + x0, hh, ww});
        }
    Access a;
    for (const Rect &q : rects)
        a.slabs.push_back(block_slab({q.y, q.x}, {q.h, q.w}));
    // Runs in row-major order (the order HDF5 walks the selection).
    for (uint64_t y = rows * R; y < rows * (R + 1); ++y) {
        std::vector<const Rect *> on_row;
        for (const Rect &q : rects)
            if (y >= q.y && y < q.y + q.h)
                on_row.push_back(&q);
        std::sort(on_row.begin(), on_row.end(), [](const Rect *x, const Rect *y2) { return x->x < y2->x; });
        for (const Rect *q : on_row) {
            a.runs.push_back({y * cols + q->x, a.count, q->w});
            a.count += q->w;
        }
    }
    a.mem_dims = {a.count};
    add_soa_arrays(c, a.count);
    per_field(c, a);
}

// Element g belongs to rank (hash(g) mod div*P) when that is < P: 1/div of the dataset is
// selected (div = 8, 128 at large), scattered over all ranks (mostly isolated points).
void build_points(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    const uint64_t total = D.points_n1 * P;
    add_field_dsets(c, {total});
    Access a;
    for (uint64_t g = 0; g < total; ++g) {
        if (mix64(g + 0x5bd1e995ULL) % (D.points_div * P) != R)
            continue;
        a.points.push_back(g);
        if (!a.runs.empty() && a.runs.back().g + a.runs.back().n == g)
            ++a.runs.back().n;
        else
            a.runs.push_back({g, a.count, 1});
        ++a.count;
    }
    a.mem_dims = {a.count};
    add_soa_arrays(c, a.count);
    per_field(c, a);
}

// Block b of rank r at element (b*P + r)*B: one H5Dwrite per block.
void build_smallwrites(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    const uint64_t B = D.sw_block, K = D.sw_n1 / B;
    add_field_dsets(c, {D.sw_n1 * P});
    add_soa_arrays(c, D.sw_n1);
    for (int f = 0; f < kNumFields; ++f)
        for (uint64_t b = 0; b < K; ++b) {
            Access a;
            a.dset = f;
            a.array = f;
            a.field = f;
            a.mem_first = b * B;
            a.count = B;
            a.mem_dims = {B};
            a.slabs = {block_slab({(b * P + R) * B}, {B})};
            a.runs = {ElemRun{(b * P + R) * B, b * B, B}};
            c.accesses.push_back(a);
        }
}

// Many small datasets with attributes; one small contiguous block per rank in each.
void build_metadata(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    const uint64_t M = D.md_elems;
    for (int d = 0; d < D.md_dsets; ++d) {
        DsetSpec ds;
        char name[16];
        std::snprintf(name, sizeof name, "d%03d", d);
        ds.name = name;
        ds.ftype = FileType::Native;
        ds.field = kNumFields + d; // float values, distinct per dataset
        ds.dims = {M * P};
        ds.nattrs = D.md_attrs;
        c.dsets.push_back(ds);
        c.arrays.push_back({4, M});
        Access a;
        a.dset = d;
        a.array = d;
        a.field = ds.field;
        a.count = M;
        a.mem_dims = {M};
        a.slabs = {block_slab({M * R}, {M})};
        a.runs = {ElemRun{M * R, 0, M}};
        c.accesses.push_back(a);
    }
    c.raw_note = "raw writes only the dataset bytes: no groups, datasets or attributes";
}

// Many small chunks: one int dataset, a band of mc_band rows per rank in small chunks (medium: 16 x
// 16, 16,384 chunks per rank, each rank's chunks in its own band of the file).
void build_manychunks2d(CaseSpec &c, const PatternDims &D, uint64_t R, uint64_t P) {
    const std::vector<uint64_t> blk = {D.mc_band[0], D.mc_band[1]};
    const uint64_t n = prod(blk);
    DsetSpec d;
    d.name = kFieldNames[kId1];
    d.field = kId1;
    d.dims = {blk[0] * P, blk[1]};
    d.chunk = {D.mc_chunk[0], D.mc_chunk[1]};
    d.read_without_chunk_cache = true; // smallchunks shows the default cache's read
    c.dsets.push_back(d);
    c.arrays.push_back({4, n});
    Access a;
    a.field = kId1;
    a.count = n;
    a.mem_dims = blk;
    a.slabs = {block_slab({blk[0] * R, 0}, blk)};
    a.runs = {ElemRun{n * R, 0, n}};
    c.accesses.push_back(a);
    c.raw_note = "raw stores the same chunks back to back, chunk-major";
}

} // namespace

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
        {"manychunks2d", "one 2D int dataset, 1024 x 4096 per rank in 16 x 16 chunks (65,536 at 4 "
         "ranks), one time step, read with the chunk cache off", "coll,ind", "coll,ind,cd,cm", true, build_manychunks2d, 1},
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
