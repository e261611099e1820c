// combine_pieces: many pieces -> one file type + one memory type. Checked against the union of
// every piece's expected pairing at absolute addresses (file address + run, buffer address + run).
#include "oracle.hpp"
#include "random_selection.hpp"
#include "seed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>

namespace {

using namespace seltest;
namespace sel = mpiio::selection;

std::int64_t address_of(const void *p) {
    MPI_Aint a = 0;
    MPI_Get_address(p, &a);
    return a;
}

// Flattens the combined types at absolute positions and pairs them.
std::string combined_segments(const sel::CombinedTypes &c, std::vector<Segment> &out) {
    std::vector<ByteRun> f, m;
    std::string err = spec_runs(c.file, 0, f);
    err += spec_runs(c.mem, address_of(c.mem_base), m);
    if (!pair_streams(f, m, out))
        err += "combined file and memory sizes differ; ";
    out = normalize(out);
    for (std::size_t i = 1; i < f.size(); ++i)
        if (f[i - 1].disp + f[i - 1].len > f[i].disp)
            return err + "combined file type not monotonic; ";
    return err;
}

struct RandomPiece {
    Hid fspace, mspace;
    std::vector<unsigned char> buffer;
    std::int64_t extent_bytes = 0;
};

TEST(SelectionCombine, RandomPiecesMatchTheirUnion) {
    const std::uint64_t base = base_seed(700000);
    sel::TypeCache cache(32);
    int failures = 0;
    const std::uint64_t n = cases(600);
    for (std::uint64_t i = 0; i < n && failures < 5; ++i) {
        const std::uint64_t seed = base + i;
        Gen g(seed);
        const std::size_t elem = g.u(1, 16);
        const int npieces = static_cast<int>(g.u(0, 8));
        const bool shared_buffer = g.coin(0.4);
        std::string err;
        try {
            std::vector<RandomPiece> rp(npieces);
            std::vector<sel::TypedPiece> pieces(npieces);
            std::vector<unsigned char> shared;
            std::vector<std::size_t> shared_offset(npieces);
            std::int64_t file_pos = g.u(0, 1000);
            std::vector<std::int64_t> addresses;
            for (int k = 0; k < npieces; ++k) {
                RandomPiece &p = rp[k];
                p.fspace = random_selection(g, static_cast<Kind>(g.u(0, 5)), static_cast<int>(g.u(1, 4)));
                const std::uint64_t np = static_cast<std::uint64_t>(H5Sget_select_npoints(p.fspace));
                MemKind mk = static_cast<MemKind>(g.u(0, 5));
                if (np == 0)
                    mk = MemKind::Block;
                p.mspace = random_mem_selection(g, mk, np);
                std::size_t mbytes = np * elem;
                if (p.mspace != H5S_BLOCK)
                    mbytes = static_cast<std::size_t>(H5Sget_simple_extent_npoints(
                                 p.mspace == H5S_ALL ? p.fspace.get() : p.mspace.get())) *
                             elem;
                p.extent_bytes = H5Sget_simple_extent_npoints(p.fspace) * static_cast<std::int64_t>(elem);
                if (shared_buffer) {
                    shared_offset[k] = shared.size();
                    shared.resize(shared.size() + mbytes + g.u(0, 32));
                } else {
                    p.buffer.resize(std::max<std::size_t>(mbytes, 1));
                }
                pieces[k].types = sel::build_piece_pair(p.fspace, p.mspace, elem, &cache);
            }
            // Chunks do not come in file order: lay the pieces out in a random order.
            std::vector<int> perm(npieces);
            std::iota(perm.begin(), perm.end(), 0);
            std::shuffle(perm.begin(), perm.end(), g.rng());
            addresses.resize(npieces);
            for (int k : perm) {
                addresses[k] = file_pos;
                file_pos += rp[k].extent_bytes + static_cast<std::int64_t>(g.u(0, 64));
            }
            std::vector<Segment> want;
            for (int k = 0; k < npieces; ++k) {
                pieces[k].file_address = addresses[k];
                pieces[k].buffer = shared_buffer ? static_cast<const void *>(shared.data() + shared_offset[k])
                                                 : rp[k].buffer.data();
                auto segs = expected_segments(rp[k].fspace, rp[k].mspace, elem, addresses[k],
                                              address_of(pieces[k].buffer));
                want.insert(want.end(), segs.begin(), segs.end());
            }
            std::sort(want.begin(), want.end(),
                      [](const Segment &a, const Segment &b) { return a.file < b.file; });
            want = normalize(want);
            sel::CombinedTypes c = sel::combine_pieces(pieces);
            std::vector<Segment> got;
            err = combined_segments(c, got);
            if (got != want)
                err += "combined pairing differs: built " + describe(got) + " expected " + describe(want);
        } catch (const std::exception &e) {
            err = std::string("exception: ") + e.what();
        }
        if (!err.empty()) {
            ++failures;
            ADD_FAILURE() << "seed " << seed << " elem " << elem << " pieces " << npieces << ": " << err;
        }
    }
}

Hid simple(std::vector<hsize_t> dims) {
    return Hid(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
}

TEST(SelectionCombine, NoPiecesOrOnlyEmptyOnes) {
    sel::CombinedTypes c = sel::combine_pieces({});
    EXPECT_TRUE(c.file.empty());
    EXPECT_EQ(c.mem.count, 0);
    Hid s = simple({4});
    H5Sselect_none(s);
    std::vector<sel::TypedPiece> pieces(2);
    pieces[0].types = sel::build_piece_pair(s, H5S_BLOCK, 4);
    pieces[1].types = sel::build_piece_pair(s, H5S_BLOCK, 4);
    c = sel::combine_pieces(pieces);
    EXPECT_TRUE(c.file.empty());
    EXPECT_EQ(c.pieces, 0u);
}

TEST(SelectionCombine, AdjacentContiguousPiecesCollapse) {
    Hid s = simple({100});
    std::vector<unsigned char> buf(400);
    std::vector<sel::TypedPiece> pieces(4);
    for (int k = 0; k < 4; ++k) {
        pieces[k].file_address = 1000 + (3 - k) * 100;
        pieces[k].buffer = buf.data() + (3 - k) * 100;
        hsize_t start[1] = {0}, count[1] = {1}, block[1] = {25};
        H5Sselect_hyperslab(s, H5S_SELECT_SET, start, nullptr, count, block);
        pieces[k].types = sel::build_piece_pair(s, H5S_BLOCK, 4);
    }
    sel::CombinedTypes c = sel::combine_pieces(pieces);
    EXPECT_EQ(c.file.shape, sel::TypeShape::Contiguous);
    EXPECT_EQ(c.file.type, MPI_BYTE);
    EXPECT_EQ(c.file.offset, 1000);
    EXPECT_EQ(c.mem.shape, sel::TypeShape::Contiguous);
    EXPECT_EQ(c.mem_base, buf.data());
    EXPECT_EQ(c.file.bytes, 400);
}

TEST(SelectionCombine, OverlappingPiecesAreReported) {
    // Piece A touches [0,8) and [40,48) of its chunk; piece B's only element falls in between.
    Hid a = simple({16});
    hsize_t sa[1] = {0}, st[1] = {10}, ca[1] = {2}, one[1] = {1};
    H5Sselect_hyperslab(a, H5S_SELECT_SET, sa, st, ca, one);
    Hid b = simple({16});
    hsize_t sb[1] = {0};
    H5Sselect_hyperslab(b, H5S_SELECT_SET, sb, nullptr, one, one);
    std::vector<unsigned char> buf(64);
    std::vector<sel::TypedPiece> pieces(2);
    pieces[0] = {0, buf.data(), sel::build_piece_pair(a, H5S_BLOCK, 4)};
    pieces[1] = {20, buf.data() + 8, sel::build_piece_pair(b, H5S_BLOCK, 4)};
    try {
        sel::combine_pieces(pieces);
        ADD_FAILURE() << "interleaved pieces accepted";
    } catch (const mpiio::Error &e) {
        EXPECT_EQ(e.kind(), mpiio::ErrorKind::NotMonotonic);
    }
    pieces[1].file_address = 0; // the very same bytes twice
    EXPECT_THROW(sel::combine_pieces(pieces), mpiio::Error);
    pieces[1].file_address = 44; // right after A's last byte: fine
    EXPECT_NO_THROW(sel::combine_pieces(pieces));
}

} // namespace
