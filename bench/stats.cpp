#include "stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

namespace bench {

double median(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

Spread spread(const std::vector<double> &v) {
    if (v.empty())
        return {};
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return {static_cast<int>(v.size()), median(v), *lo, *hi};
}

std::vector<int64_t> doubled_midranks(const std::vector<double> &x, const std::vector<double> &y) {
    std::vector<double> all(x);
    all.insert(all.end(), y.begin(), y.end());
    std::vector<size_t> order(all.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return all[a] < all[b]; });
    std::vector<int64_t> ranks(all.size());
    for (size_t i = 0; i < order.size();) {
        size_t j = i; // positions i..j (0-based) hold equal values: ranks i+1..j+1, doubled mean i+j+2
        while (j + 1 < order.size() && all[order[j + 1]] == all[order[i]])
            ++j;
        for (size_t k = i; k <= j; ++k)
            ranks[order[k]] = static_cast<int64_t>(i + j + 2);
        i = j + 1;
    }
    return ranks;
}

std::vector<double> rank_sum_counts(const std::vector<int64_t> &doubled_ranks, size_t n) {
    const int64_t total = std::accumulate(doubled_ranks.begin(), doubled_ranks.end(), int64_t{0});
    // ways[k][s]: subsets of size k of the items seen so far with doubled rank sum s
    std::vector<std::vector<double>> ways(n + 1, std::vector<double>(static_cast<size_t>(total) + 1, 0));
    ways[0][0] = 1;
    for (int64_t r : doubled_ranks)
        for (size_t k = n; k >= 1; --k)
            for (int64_t s = total; s >= r; --s)
                ways[k][static_cast<size_t>(s)] += ways[k - 1][static_cast<size_t>(s - r)];
    return ways[n];
}

double rank_sum_p(const std::vector<double> &x, const std::vector<double> &y) {
    if (x.empty() || y.empty())
        return 1;
    const std::vector<int64_t> r = doubled_midranks(x, y);
    const int64_t w = std::accumulate(r.begin(), r.begin() + static_cast<long>(x.size()), int64_t{0});
    const int64_t mean = static_cast<int64_t>(x.size() * (r.size() + 1)); // doubled E W = n (N + 1)
    const std::vector<double> counts = rank_sum_counts(r, x.size());
    double extreme = 0, all = 0;
    for (size_t s = 0; s < counts.size(); ++s) {
        all += counts[s];
        if (std::llabs(static_cast<int64_t>(s) - mean) >= std::llabs(w - mean))
            extreme += counts[s];
    }
    return std::min(1.0, extreme / all);
}

Parity parity(const std::vector<double> &x, const std::vector<double> &y, double alpha) {
    Parity out;
    out.p = rank_sum_p(x, y);
    const double mx = median(x), my = median(y);
    if (out.p < alpha && mx != my)
        out.verdict = mx < my ? "below" : "above";
    return out;
}

Parity parity_of_ratios(std::vector<double> x, std::vector<double> y, double alpha) {
    for (double &v : x)
        v = std::log(v);
    for (double &v : y)
        v = std::log(v);
    return parity(x, y, alpha);
}

} // namespace bench
