// Statistics of the counted repetitions (pure C++, no MPI; unit-tested by stats_test.cpp):
// medians and ranges, and the parity test of a row against its A/A control.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

double median(std::vector<double> v); // 0 when empty

// Median and range of a sample; n = 0 when empty.
struct Spread {
    int n = 0;
    double median = 0, min = 0, max = 0;
};
Spread spread(const std::vector<double> &v);

// Ranks (1-based) of the values of x followed by y in their pooled order, tied values getting the
// mean of the ranks they span (midranks), doubled so that they are integers.
std::vector<int64_t> doubled_midranks(const std::vector<double> &x, const std::vector<double> &y);

// Exact null distribution of the doubled rank sum of n of the pooled items: element s counts the
// subsets of size n (of all C(N, n) equally likely ones) whose doubled ranks add up to s. Counted
// by dynamic programming over the items, which gives the same counts as enumerating the subsets
// (exact up to 2^53, i.e. for every N <= 56).
std::vector<double> rank_sum_counts(const std::vector<int64_t> &doubled_ranks, size_t n);

// Exact two-sided Mann-Whitney U (Wilcoxon rank-sum) test of x against y, ties by midranks:
// P(|W - E W| >= |w - E W|) over the exact distribution of x's rank sum W. 1 when a sample is
// empty.
double rank_sum_p(const std::vector<double> &x, const std::vector<double> &y);

// The parity verdict of a row: x = per-repetition log(mpiio/mpio), y = per-repetition
// log(mpio2/mpio) (the A/A control). "below" or "above" when rank_sum_p < alpha and x's median is
// below / above y's, "~" otherwise (not distinguishable from the A/A control).
struct Parity {
    double p = 1;
    std::string verdict = "~";
};
inline constexpr double kParityAlpha = 0.05;
Parity parity(const std::vector<double> &x, const std::vector<double> &y, double alpha = kParityAlpha);

// The same for rate ratios as measured (mpiio/mpio and mpio2/mpio, all > 0): their logs go to
// parity(). The overhead benchmark and h5bench_vfd_parity (h5perf's triplets) use it.
Parity parity_of_ratios(std::vector<double> x, std::vector<double> y, double alpha = kParityAlpha);

} // namespace bench
