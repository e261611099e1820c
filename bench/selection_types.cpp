// selection_types: how fast selection/ turns selections into MPI datatypes and how much memory
// a built type keeps, for 10^4, 10^6 and 10^7 blocks of regular hyperslabs, irregular hyperslabs
// and points (one process; a measurement, not a test).
//
//   selection_types [--max N] [--reps R]
//
// Columns: build = selection -> committed type (build_type, or build_piece_pair for the
// point-pairing case), no cache; seq = H5Ssel_iter_get_seq_list alone (the floor for anything that
// walks the selection); cached = the same build again through a TypeCache; retained = heap bytes
// held while the type is alive / block; peak = peak RSS growth during the build / block.
#include "selection/selection.hpp"

#include <hdf5.h>
#include <malloc.h>
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

namespace sel = mpiio::selection;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
    return std::chrono::duration<double>(Clock::now() - t0).count();
}

// In-use heap bytes (small-block arenas plus mmap'ed blocks).
double heap_in_use() {
    struct mallinfo2 m = mallinfo2();
    return static_cast<double>(m.uordblks) + static_cast<double>(m.hblkhd);
}

// kB from /proc/self/status.
long status_kb(const char *key) {
    std::ifstream f("/proc/self/status");
    std::string line;
    const std::size_t n = std::strlen(key);
    while (std::getline(f, line))
        if (line.compare(0, n, key) == 0)
            return std::atol(line.c_str() + n + 1);
    return 0;
}

void reset_peak_rss() {
    std::ofstream f("/proc/self/clear_refs");
    f << "5";
}

struct Space {
    hid_t id;
    explicit Space(hid_t i) : id(i) {}
    Space(const Space &) = delete;
    ~Space() { H5Sclose(id); }
};

hid_t space_1d(hsize_t n) { return H5Screate_simple(1, &n, nullptr); }

// N blocks of 1 element (8 bytes) every other element.
hid_t make_regular(std::uint64_t n) {
    hid_t s = space_1d(2 * n + 2);
    hsize_t start = 0, stride = 2, count = n, block = 1;
    H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, &stride, &count, &block);
    return s;
}

// N runs of alternating length 1 and 2 with alternating gaps: the union of two regular patterns,
// which HDF5 keeps as an irregular span tree and selection/ builds as hindexed.
hid_t make_irregular(std::uint64_t n) {
    const hsize_t half = n / 2;
    hid_t s = space_1d(5 * half + 5);
    hsize_t a = 0, b = 2, stride = 5, count = half, one = 1, two = 2;
    H5Sselect_hyperslab(s, H5S_SELECT_SET, &a, &stride, &count, &one);
    H5Sselect_hyperslab(s, H5S_SELECT_OR, &b, &stride, &count, &two);
    return s;
}

// N distinct points of a 4N-element space, in random (or ascending) order.
hid_t make_points(std::uint64_t n, bool sorted) {
    hid_t s = space_1d(4 * n);
    std::vector<hsize_t> coords(n);
    std::mt19937_64 rng(12345);
    for (std::uint64_t i = 0; i < n; ++i)
        coords[i] = 4 * i + (rng() & 3);
    if (!sorted)
        std::shuffle(coords.begin(), coords.end(), rng);
    H5Sselect_elements(s, H5S_SELECT_SET, n, coords.data());
    return s;
}

double seq_list_seconds(hid_t space) {
    const auto t0 = Clock::now();
    hid_t it = H5Ssel_iter_create(space, 8, H5S_SEL_ITER_SHARE_WITH_DATASPACE);
    std::vector<hsize_t> off(1 << 16);
    std::vector<size_t> len(1 << 16);
    size_t nseq = 0, nelem = 0;
    do {
        H5Ssel_iter_get_seq_list(it, off.size(), SIZE_MAX, &nseq, &nelem, off.data(), len.data());
    } while (nseq > 0);
    H5Ssel_iter_close(it);
    return seconds_since(t0);
}

struct Case {
    const char *name;
    std::function<hid_t(std::uint64_t)> make;
    bool paired; // build_piece_pair(file = selection, mem = H5S_BLOCK) instead of build_type
};

void run(const Case &c, std::uint64_t n, int reps) {
    Space space(c.make(n));
    const double seq = seq_list_seconds(space.id);
    auto build = [&](sel::TypeCache *cache) {
        if (c.paired)
            return sel::build_piece_pair(space.id, H5S_BLOCK, 8, cache);
        return sel::TypePair{sel::build_type(space.id, 8, cache), {}, {}};
    };
    // Memory: retained heap and peak RSS of one build, the type kept alive.
    malloc_trim(0);
    const double heap0 = heap_in_use();
    reset_peak_rss();
    const long rss0 = status_kb("VmRSS:");
    double best = 1e30;
    std::uint64_t blocks = 0;
    double retained = 0, peak = 0;
    {
        auto t0 = Clock::now();
        sel::TypePair p = build(nullptr);
        best = seconds_since(t0);
        blocks = p.file.blocks;
        peak = (status_kb("VmHWM:") - rss0) * 1024.0;
        malloc_trim(0);
        retained = heap_in_use() - heap0;
    }
    for (int r = 1; r < reps; ++r) {
        auto t0 = Clock::now();
        sel::TypePair p = build(nullptr);
        best = std::min(best, seconds_since(t0));
    }
    sel::TypeCache cache(4, ~std::uint64_t{0});
    build(&cache);
    auto t0 = Clock::now();
    sel::TypePair hit = build(&cache);
    const double cached = seconds_since(t0);
    std::printf("%-22s %9llu %10llu %10.4f %9.1f %12.3g %10.4f %10.4f %9.1f %9.1f\n", c.name,
                static_cast<unsigned long long>(n), static_cast<unsigned long long>(blocks), best, 1.0 / best,
                static_cast<double>(n) / best, seq, cached, retained / static_cast<double>(n),
                peak / static_cast<double>(n));
    std::fflush(stdout);
    (void)hit;
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    std::uint64_t max = 10000000;
    int reps = 3;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--max"))
            max = std::strtoull(argv[i + 1], nullptr, 0);
        else if (!std::strcmp(argv[i], "--reps"))
            reps = std::atoi(argv[i + 1]);
    }
    const std::vector<Case> cases = {
        {"regular hyperslab", make_regular, false},
        {"irregular hyperslab", make_irregular, false},
        {"points ascending", [](std::uint64_t n) { return make_points(n, true); }, false},
        {"points random (type)", [](std::uint64_t n) { return make_points(n, false); }, false},
        {"points random (pair)", [](std::uint64_t n) { return make_points(n, false); }, true},
    };
    std::printf("%-22s %9s %10s %10s %9s %12s %10s %10s %9s %9s\n", "selection", "elements", "blocks",
                "build_s", "types/s", "blocks/s", "seq_s", "cached_s", "B/blk", "peakB/blk");
    for (const Case &c : cases)
        for (std::uint64_t n : {std::uint64_t{10000}, std::uint64_t{1000000}, std::uint64_t{10000000}})
            if (n <= max)
                run(c, n, n >= 10000000 ? 1 : reps);
    MPI_Finalize();
    return 0;
}
