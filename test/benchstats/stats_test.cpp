// Unit test of bench/stats.cpp (ctest unit.bench_stats): midranks, the exact rank-sum distribution
// against brute-force enumeration, p-values known from tables, and the parity verdicts.
#include "stats.hpp"

#include <cmath>
#include <cstdio>
#include <random>

using namespace bench;

namespace {

int failures = 0;

void check(bool ok, const char *what, int line) {
    if (!ok) {
        std::fprintf(stderr, "FAILED line %d: %s\n", line, what);
        ++failures;
    }
}
#define CHECK(cond) check((cond), #cond, __LINE__)
#define CHECK_NEAR(a, b) check(std::fabs((a) - (b)) < 1e-12, #a " == " #b, __LINE__)

// Counts of every doubled rank sum over all subsets of size n, by enumerating the subsets.
std::vector<double> enumerate_counts(const std::vector<int64_t> &r, size_t n) {
    int64_t total = 0;
    for (int64_t v : r)
        total += v;
    std::vector<double> counts(static_cast<size_t>(total) + 1, 0);
    for (uint32_t mask = 0; mask < (1u << r.size()); ++mask) {
        if (static_cast<size_t>(__builtin_popcount(mask)) != n)
            continue;
        int64_t s = 0;
        for (size_t i = 0; i < r.size(); ++i)
            s += mask >> i & 1 ? r[i] : 0;
        counts[static_cast<size_t>(s)] += 1;
    }
    return counts;
}

} // namespace

int main() {
    // Midranks: 1, 2 and 2 tie for ranks 2-3, 3 (doubled: 2, 5, 5, 8).
    CHECK((doubled_midranks({1, 2}, {2, 3}) == std::vector<int64_t>{2, 5, 5, 8}));
    CHECK((doubled_midranks({7, 7}, {7}) == std::vector<int64_t>{4, 4, 4}));

    // n = m = 3 without ties: rank sums 6..15 counted 1 1 2 3 3 3 3 2 1 1 (of C(6,3) = 20).
    const std::vector<double> c3 = rank_sum_counts(doubled_midranks({1, 2, 3}, {4, 5, 6}), 3);
    const double want3[] = {1, 1, 2, 3, 3, 3, 3, 2, 1, 1};
    for (int w = 6; w <= 15; ++w)
        CHECK(c3[static_cast<size_t>(2 * w)] == want3[w - 6]);

    // The counting agrees with enumeration, with and without ties.
    std::mt19937 rng(7);
    for (int trial = 0; trial < 200; ++trial) {
        const size_t n = 1 + rng() % 7, m = 1 + rng() % 7;
        std::vector<double> x(n), y(m);
        for (double &v : x)
            v = static_cast<double>(rng() % 6);
        for (double &v : y)
            v = static_cast<double>(rng() % 6);
        const std::vector<int64_t> r = doubled_midranks(x, y);
        CHECK(rank_sum_counts(r, n) == enumerate_counts(r, n));
    }

    // Known exact two-sided p-values, n = m = 5 (C(10,5) = 252): U = 0 -> 2/252, U = 1 -> 4/252,
    // U = 2 -> 8/252, U = 3 -> 14/252 (the first not below 0.05).
    const std::vector<double> hi = {6, 7, 8, 9, 10};
    CHECK_NEAR(rank_sum_p({1, 2, 3, 4, 5}, hi), 2.0 / 252);
    CHECK_NEAR(rank_sum_p(hi, {1, 2, 3, 4, 5}), 2.0 / 252);
    CHECK_NEAR(rank_sum_p({1, 2, 3, 4, 6}, {5, 7, 8, 9, 10}), 4.0 / 252);
    CHECK_NEAR(rank_sum_p({1, 2, 3, 5, 6}, {4, 7, 8, 9, 10}), 8.0 / 252);
    CHECK_NEAR(rank_sum_p({1, 2, 3, 4, 8}, {5, 6, 7, 9, 10}), 14.0 / 252);
    // n = m = 10 fully separated: 2 / C(20,10).
    CHECK_NEAR(rank_sum_p({1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, {11, 12, 13, 14, 15, 16, 17, 18, 19, 20}),
               2.0 / 184756);
    // Ties: x = {1, 1}, y = {1, 2}: doubled ranks 4 4 4 8; x's sum 8 is the lowest of the 6
    // subsets' (8, 8, 12, 8, 12, 12), three of them as far from the mean 10 as it: p = 1.
    CHECK_NEAR(rank_sum_p({1, 1}, {1, 2}), 1.0);
    // x = {1, 2, 2}, y = {2, 3, 4}: doubled ranks 2 6 6 | 6 10 12, sum 14, mean 21: subsets with
    // |s - 21| >= 7 are {2,6,6} three times and {6,10,12} three times of 20: p = 6/20.
    CHECK_NEAR(rank_sum_p({1, 2, 2}, {2, 3, 4}), 6.0 / 20);
    CHECK_NEAR(rank_sum_p({3, 3, 3}, {3, 3, 3}), 1.0);
    CHECK_NEAR(rank_sum_p({}, {1, 2}), 1.0);
    // n = m = 3 can never reach 0.05: the most extreme split has p = 2/20.
    CHECK_NEAR(rank_sum_p({1, 2, 3}, {4, 5, 6}), 0.1);

    // Verdicts.
    CHECK(parity({-0.3, -0.2, -0.25, -0.1, -0.15}, {0.0, 0.05, -0.02, 0.1, 0.01}).verdict == "below");
    CHECK(parity({0.7, 0.8, 0.75, 0.6, 0.9}, {0.0, 0.05, -0.02, 0.1, 0.01}).verdict == "above");
    CHECK(parity({-0.1, 0.02, 0.05, -0.03, 0.0}, {0.0, 0.05, -0.02, 0.1, 0.01}).verdict == "~");
    CHECK(parity({1, 2, 3}, {4, 5, 6}).verdict == "~"); // p = 0.1
    const Parity p = parity({1, 2, 3, 4, 6}, {5, 7, 8, 9, 10});
    CHECK(p.verdict == "below" && std::fabs(p.p - 4.0 / 252) < 1e-12);

    // Medians and ranges.
    CHECK(median({3, 1, 2}) == 2 && median({4, 1, 3, 2}) == 2.5 && median({}) == 0);
    const Spread s = spread({0.9, 1.2, 1.0});
    CHECK(s.n == 3 && s.median == 1.0 && s.min == 0.9 && s.max == 1.2);

    std::printf("%s\n", failures ? "bench stats: FAILED" : "bench stats: all checks passed");
    return failures ? 1 : 0;
}
