// Seeded random dataspace selections for the oracle tests: every kind, ranks 1..8.
#pragma once

#include "test_support.hpp"

#include <hdf5.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace seltest {

using mpiio_test::Hid;

class Gen {
public:
    explicit Gen(std::uint64_t seed) : rng_(seed) {}
    // Uniform in [lo, hi].
    std::uint64_t u(std::uint64_t lo, std::uint64_t hi) {
        return std::uniform_int_distribution<std::uint64_t>(lo, hi)(rng_);
    }
    bool coin(double p) { return std::bernoulli_distribution(p)(rng_); }
    std::mt19937_64 &rng() { return rng_; }

private:
    std::mt19937_64 rng_;
};

enum class Kind { All, None, Regular, Irregular, Points, PointsSorted };
const char *kind_name(Kind k);

// A simple dataspace of `rank` random dims (small total size) with a random selection of `kind`.
// `offset`: sometimes shift the selection with H5Soffset_simple.
Hid random_selection(Gen &g, Kind kind, int rank, bool allow_offset = true);

// Memory-side selections with exactly n elements. Returns H5S_BLOCK / H5S_ALL (not owned) for
// those kinds, otherwise a new dataspace.
enum class MemKind { Block, Same, All, Regular, Irregular, Points };
const char *mem_kind_name(MemKind k);
Hid random_mem_selection(Gen &g, MemKind kind, std::uint64_t n);

// Selects `n` distinct random points of `space` in random (or ascending) order.
void select_random_points(Gen &g, hid_t space, std::uint64_t n, bool sorted);

// Human-readable selection summary for failure messages.
std::string describe_space(hid_t space);

} // namespace seltest
