#include "patterns.hpp"

#include "values.hpp"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace bench {

bool parse_size(const std::string &s, Size &out) {
    if (s == "tiny")
        out = Size::Tiny;
    else if (s == "small")
        out = Size::Small;
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
    case Size::Large:
        return "large";
    }
    return "?";
}

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
    static const std::vector<PatternInfo> table = {
        {"cc1d", "h5bench CONTIG/CONTIG 1D: 8 datasets, one block per rank", "coll,ind,cd,cm",
         "coll,ind,cd,cm", true},
        {"cc2d", "h5bench CONTIG/CONTIG 2D: rank = band of rows", "coll,ind", "coll,ind,cd,cm", true},
        {"cc3d", "h5bench CONTIG/CONTIG 3D: rank = slab in dim 0", "coll,ind", "coll,ind,cd,cm", true},
        {"ci1d", "h5bench CONTIG/INTERLEAVED 1D: 8 one-field writes into a compound dataset", "coll",
         "coll,ind,cd,cm", true},
        {"ci2d", "h5bench CONTIG/INTERLEAVED 2D", "coll", "coll,ind,cd,cm", false},
        {"ic1d", "h5bench INTERLEAVED/CONTIG 1D: 8 datasets written from an array of records", "coll",
         "coll,ind,cd,cm", true},
        {"ic2d", "h5bench INTERLEAVED/CONTIG 2D", "coll", "coll,ind,cd,cm", false},
        {"ii1d", "h5bench INTERLEAVED/INTERLEAVED 1D: one compound dataset, one write", "coll",
         "coll,ind,cd,cm", true},
        {"ii2d", "h5bench INTERLEAVED/INTERLEAVED 2D", "coll", "coll,ind,cd,cm", false},
        {"strided1d", "h5bench CONTIG/STRIDED 1D: regular hyperslab with gaps (stride = 2 x block)",
         "coll,ind", "coll,ind,cd,cm", true},
        {"block2d", "2D block decomposition on a process grid (subarray view)", "coll,ind", "coll,ind,cd,cm",
         true},
        {"chunked2d", "cc2d with chunked layout, 4 chunks per rank per dataset", "coll,ind", "coll,ind,cd,cm",
         true},
        {"deflate2d", "chunked2d with gzip (h5bench COMPRESS=YES; collective only)", "coll", "coll,cd", true},
        {"smallchunks", "cc2d with many small chunks (1 KiB small, 4 KiB large)", "coll,ind",
         "coll,ind,cd,cm", true},
        {"irregular", "2D union of random rectangles (irregular hyperslab)", "coll,ind", "coll,ind,cd,cm",
         true},
        {"points", "1D point selection: 1/8 (large: 1/128) of the elements, scattered over all ranks",
         "coll,ind", "coll,ind,cd,cm", true},
        {"smallwrites", "many small H5Dwrite calls per rank, blocks of all ranks interleaved", "ind",
         "coll,ind,cd,cm", true},
        {"metadata", "metadata heavy: many small datasets with 10 attributes each", "coll,ind",
         "coll,ind,cd,cm", true},
    };
    return table;
}

const PatternInfo *find_pattern(const std::string &name) {
    for (const PatternInfo &p : pattern_table())
        if (name == p.name)
            return &p;
    return nullptr;
}

namespace {

struct Dims {
    uint64_t n1;                         // 1D particles per rank
    uint64_t d2[2];                      // 2D block per rank
    uint64_t d3[3];                      // 3D block per rank
    uint64_t s_block, s_stride, s_count; // strided
    uint64_t small_chunk[2];
    uint64_t tile;     // irregular tile edge
    uint64_t sw_block; // smallwrites block
    int md_dsets, md_attrs;
    uint64_t md_elems;
    uint64_t points_div; // a rank selects about 1/points_div of its share of the dataset
};

Dims dims_for(Size s) {
    switch (s) {
    case Size::Tiny:
        return {1024, {32, 32}, {4, 16, 16}, 8, 16, 32, {4, 8}, 8, 64, 6, 4, 64, 8};
    case Size::Small:
        return {16384, {128, 128}, {16, 32, 32}, 32, 64, 128, {16, 16}, 16, 128, 20, 10, 256, 8};
    case Size::Large:
        return {1048576, {1024, 1024}, {64, 64, 256}, 256, 512, 1024, {32, 32}, 64, 1024, 200, 10, 4096, 128};
    }
    return {};
}

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
void build_h5bench(CaseSpec &c, const std::vector<uint64_t> &blk, int r, int p, char mem, char file) {
    std::vector<uint64_t> gdims = blk;
    gdims[0] *= static_cast<uint64_t>(p);
    std::vector<uint64_t> start(blk.size(), 0);
    start[0] = blk[0] * static_cast<uint64_t>(r);
    const uint64_t n = prod(blk);
    const uint64_t g0 = n * static_cast<uint64_t>(r);
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

} // namespace

CaseSpec build_case(const std::string &pattern, const Mode &mode, Size size, int timesteps, int r, int p) {
    const PatternInfo *info = find_pattern(pattern);
    if (info == nullptr)
        throw std::runtime_error("unknown pattern " + pattern);
    const Dims D = dims_for(size);
    const uint64_t P = static_cast<uint64_t>(p), R = static_cast<uint64_t>(r);
    CaseSpec c;
    c.pattern = pattern;
    c.id = pattern + "/" + mode.name();
    c.what = info->what;
    c.mode = mode;
    c.size = size;
    c.timesteps = timesteps;
    const std::vector<uint64_t> b1{D.n1}, b2{D.d2[0], D.d2[1]}, b3{D.d3[0], D.d3[1], D.d3[2]};

    if (pattern == "cc1d") {
        build_h5bench(c, b1, r, p, 'C', 'C');
    } else if (pattern == "cc2d") {
        build_h5bench(c, b2, r, p, 'C', 'C');
    } else if (pattern == "cc3d") {
        build_h5bench(c, b3, r, p, 'C', 'C');
    } else if (pattern == "ci1d" || pattern == "ci2d") {
        build_h5bench(c, pattern == "ci1d" ? b1 : b2, r, p, 'C', 'I');
        c.raw_note = "raw writes each field straight into the record slots (no read-before-write)";
    } else if (pattern == "ic1d" || pattern == "ic2d") {
        build_h5bench(c, pattern == "ic1d" ? b1 : b2, r, p, 'I', 'C');
        c.raw_note = "raw gathers the field with a strided memory datatype";
    } else if (pattern == "ii1d" || pattern == "ii2d") {
        build_h5bench(c, pattern == "ii1d" ? b1 : b2, r, p, 'I', 'I');
    } else if (pattern == "strided1d") {
        // h5bench: start = rank*DIM_1, stride, count, block within the rank's DIM_1 region.
        add_field_dsets(c, {D.n1 * P});
        Access a;
        a.count = D.s_block * D.s_count;
        a.mem_dims = {a.count};
        a.slabs = {Hyperslab{{D.n1 * R}, {D.s_stride}, {D.s_count}, {D.s_block}}};
        for (uint64_t i = 0; i < D.s_count; ++i)
            a.runs.push_back({D.n1 * R + i * D.s_stride, i * D.s_block, D.s_block});
        add_soa_arrays(c, a.count);
        per_field(c, a);
    } else if (pattern == "block2d") {
        int pd[2] = {0, 0};
        MPI_Dims_create(p, 2, pd);
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
    } else if (pattern == "chunked2d" || pattern == "deflate2d" || pattern == "smallchunks") {
        std::vector<uint64_t> chunk;
        int level = 0;
        if (pattern == "smallchunks")
            chunk = {D.small_chunk[0], D.small_chunk[1]};
        else
            chunk = {D.d2[0] / 2, D.d2[1] / 2};
        if (pattern == "deflate2d") {
            level = 6;
            c.raw_note = "raw compresses each chunk with zlib (same level) and writes them packed";
        } else {
            c.raw_note = "raw stores the same chunks back to back, chunk-major";
        }
        const uint64_t n = prod(b2);
        add_field_dsets(c, {D.d2[0] * P, D.d2[1]}, chunk, level);
        Access a;
        a.count = n;
        a.mem_dims = b2;
        a.slabs = {block_slab({D.d2[0] * R, 0}, b2)};
        a.runs = {ElemRun{n * R, 0, n}};
        add_soa_arrays(c, n);
        per_field(c, a);
    } else if (pattern == "irregular") {
        // Band of rows [r*D1, (r+1)*D1) cut into tiles; in 3 of 4 tiles a random rectangle.
        const uint64_t rows = D.d2[0], cols = D.d2[1], T = D.tile;
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
            std::sort(on_row.begin(), on_row.end(),
                      [](const Rect *x, const Rect *y2) { return x->x < y2->x; });
            for (const Rect *q : on_row) {
                a.runs.push_back({y * cols + q->x, a.count, q->w});
                a.count += q->w;
            }
        }
        a.mem_dims = {a.count};
        add_soa_arrays(c, a.count);
        per_field(c, a);
    } else if (pattern == "points") {
        // Element g belongs to rank (hash(g) mod divP) when that is < P: 1/div of the dataset
        // is selected (div = 8 small, 128 large), scattered over all ranks (mostly isolated
        // points).
        const uint64_t total = D.n1 * P;
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
    } else if (pattern == "smallwrites") {
        // Block b of rank r at element (b*P + r)*B: one H5Dwrite per block.
        const uint64_t B = D.sw_block, K = D.n1 / B;
        add_field_dsets(c, {D.n1 * P});
        add_soa_arrays(c, D.n1);
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
    } else if (pattern == "metadata") {
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
    } else {
        throw std::runtime_error("pattern without a builder: " + pattern);
    }
    return c;
}

} // namespace bench
