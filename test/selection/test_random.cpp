// Thousands of seeded random selections of every kind, ranks 1..8, element sizes 1..16, each
// built and checked against HDF5's sequence lists. A failure prints the seed that reproduces it.
#include "oracle.hpp"
#include "random_selection.hpp"
#include "seed.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>

namespace {

using namespace seltest;
namespace sel = mpiio::selection;

constexpr int kMaxFailures = 5;

TEST(SelectionRandom, SingleSelectionsMatchSequenceLists) {
    const std::uint64_t base = base_seed(1000);
    sel::TypeCache cache(16);
    int failures = 0;
    std::map<sel::TypeShape, int> shapes;
    const std::uint64_t n = cases(3000);
    for (std::uint64_t i = 0; i < n && failures < kMaxFailures; ++i) {
        const std::uint64_t seed = base + i;
        Gen g(seed);
        const Kind kind = static_cast<Kind>(g.u(0, 5));
        const int rank = static_cast<int>(g.u(1, 8));
        const std::size_t elem = g.u(1, 16);
        const bool use_cache = g.coin(0.5);
        std::string err, what;
        try {
            Hid space = random_selection(g, kind, rank);
            what = describe_space(space);
            sel::TypeSpec spec = sel::build_type(space, elem, use_cache ? &cache : nullptr);
            err = check_single(space, elem, spec);
            ++shapes[spec.shape];
        } catch (const std::exception &e) {
            err = std::string("exception: ") + e.what();
        }
        if (!err.empty()) {
            ++failures;
            ADD_FAILURE() << "seed " << seed << " kind " << kind_name(kind) << " rank " << rank << " elem "
                          << elem << " " << what << ": " << err;
        }
    }
    // Every construction path was taken.
    for (sel::TypeShape shape :
         {sel::TypeShape::Empty, sel::TypeShape::Contiguous, sel::TypeShape::Vector, sel::TypeShape::Indexed})
        EXPECT_GT(shapes[shape], static_cast<int>(n / 50)) << "shape " << static_cast<int>(shape);
    std::printf("single selections: empty %d contiguous %d vector %d indexed %d; cache hits %llu\n",
                shapes[sel::TypeShape::Empty], shapes[sel::TypeShape::Contiguous],
                shapes[sel::TypeShape::Vector], shapes[sel::TypeShape::Indexed],
                static_cast<unsigned long long>(cache.stats().hits));
}

TEST(SelectionRandom, TypePairsMatchHdf5Pairing) {
    const std::uint64_t base = base_seed(500000);
    sel::TypeCache cache(16);
    int failures = 0, permuted = 0, nonempty = 0;
    const std::uint64_t n = cases(3000);
    for (std::uint64_t i = 0; i < n && failures < kMaxFailures; ++i) {
        const std::uint64_t seed = base + i;
        Gen g(seed);
        const Kind fkind = static_cast<Kind>(g.u(0, 5));
        const int rank = static_cast<int>(g.u(1, 8));
        const std::size_t elem = g.u(1, 16);
        MemKind mkind = static_cast<MemKind>(g.u(0, 5));
        std::string err, what;
        try {
            Hid fspace = random_selection(g, fkind, rank);
            const std::uint64_t npoints = static_cast<std::uint64_t>(H5Sget_select_npoints(fspace));
            Hid mspace;
            if (npoints == 0 && mkind != MemKind::Block && mkind != MemKind::Same) {
                mspace = random_selection(g, Kind::None, static_cast<int>(g.u(1, 3)));
            } else {
                mspace = random_mem_selection(g, mkind, npoints);
            }
            what = "file " + describe_space(fspace) + " mem " + describe_space(mspace);
            sel::TypePair pair = sel::build_piece_pair(fspace, mspace, elem, g.coin(0.5) ? &cache : nullptr);
            err = check_pair(fspace, mspace, elem, pair);
            nonempty += !pair.file.empty();
            permuted += !pair.mem.monotonic && (fkind == Kind::Points);
        } catch (const std::exception &e) {
            err = std::string("exception: ") + e.what();
        }
        if (!err.empty()) {
            ++failures;
            ADD_FAILURE() << "seed " << seed << " file " << kind_name(fkind) << " mem "
                          << mem_kind_name(mkind) << " rank " << rank << " elem " << elem << " " << what
                          << ": " << err;
        }
    }
    EXPECT_GT(nonempty, static_cast<int>(n / 2));
    EXPECT_GT(permuted, static_cast<int>(n / 50));
    std::printf("piece pairs: %d non-empty, %d with a permuted memory side\n", nonempty, permuted);
}

} // namespace
