#include "parity_power.hpp"

#include "stats.hpp"

#include <cmath>
#include <random>
#include <vector>

namespace bench {
namespace {

// One simulated row of `reps` repetitions: whether the parity test says "below".
bool flagged_below(std::mt19937_64 &rng, int reps, double sd, double loss) {
    std::normal_distribution<double> noise(0.0, sd / std::sqrt(2.0));
    std::vector<double> x, y;
    for (int r = 0; r < reps; ++r) {
        const double mpio = noise(rng);
        x.push_back(std::log(1.0 - loss) + noise(rng) - mpio);
        y.push_back(noise(rng) - mpio);
    }
    return parity(x, y).verdict == "below";
}

} // namespace

void print_detection_table(std::FILE *out, double sd, int trials, unsigned seed) {
    std::mt19937_64 rng(seed);
    std::fprintf(out, "repetition noise (sd of log mpio2/mpio) %.3f, %d simulated rows per loss\n", sd,
                 trials);
    std::fprintf(out, "loss\tflagged by 5 repetitions\tpublished below (5, then 10)\n");
    for (double loss : {0.02, 0.04, 0.06, 0.08, 0.10, 0.12, 0.15, 0.20, 0.25, 0.30}) {
        int first = 0, published = 0;
        for (int t = 0; t < trials; ++t)
            if (flagged_below(rng, 5, sd, loss)) {
                ++first;
                published += flagged_below(rng, 10, sd, loss) ? 1 : 0;
            }
        std::fprintf(out, "%.0f %%\t%.2f\t%.2f\n", loss * 100, double(first) / trials,
                     double(published) / trials);
    }
}

} // namespace bench
