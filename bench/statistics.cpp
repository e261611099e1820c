// Summary statistics of the counted repetitions: medians, ranges, paired ratios.
#include "results.hpp"

#include <algorithm>

namespace bench {

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

double median_of(std::vector<double> v) {
    if (v.empty())
        return 0;
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

} // namespace

Summary summarize(const std::vector<double> &seconds, const std::vector<double> &data_seconds, double bytes) {
    Summary s;
    s.n = static_cast<int>(seconds.size());
    if (seconds.empty())
        return s;
    std::vector<double> bws;
    for (double t : seconds)
        bws.push_back(t > 0 ? bytes / kMiB / t : 0);
    s.median_s = median_of(seconds);
    s.min_s = *std::min_element(seconds.begin(), seconds.end());
    s.max_s = *std::max_element(seconds.begin(), seconds.end());
    s.median_bw = median_of(bws);
    s.min_bw = *std::min_element(bws.begin(), bws.end());
    s.max_bw = *std::max_element(bws.begin(), bws.end());
    s.median_data_s = median_of(data_seconds);
    return s;
}

RatioSpread CaseResult::paired_ratio(Driver a, Driver b, char phase) const {
    const DriverResult &x = drv[static_cast<size_t>(a)], &y = drv[static_cast<size_t>(b)];
    RatioSpread r;
    if (!x.ran || !y.ran)
        return r;
    const std::vector<double> &tx = phase == 'w' ? x.wsec : x.rsec;
    const std::vector<double> &ty = phase == 'w' ? y.wsec : y.rsec;
    std::vector<double> ratios;
    for (size_t i = 0; i < tx.size() && i < ty.size(); ++i)
        if (tx[i] > 0 && ty[i] > 0)
            ratios.push_back(ty[i] / tx[i]); // same bytes: bandwidth ratio a/b = time b / time a
    if (ratios.empty())
        return r;
    r.n = static_cast<int>(ratios.size());
    r.median = median_of(ratios);
    r.min = *std::min_element(ratios.begin(), ratios.end());
    r.max = *std::max_element(ratios.begin(), ratios.end());
    return r;
}

} // namespace bench
