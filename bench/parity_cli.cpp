// h5bench_vfd_parity: the matrix's parity test (stats.hpp) for numbers measured elsewhere, such
// as bench/h5perf.sh's launch triplets. Local, no MPI.
//
// Reads lines "label<TAB>x1,x2,...<TAB>y1,y2,..." from stdin, where x are per-repetition rate
// ratios mpiio/mpio and y the A/A control's mpio2/mpio of the same repetitions, and prints
// "label<TAB>p<TAB>verdict" per line: verdict "below", "above" or "~" as bench::parity decides
// (exact two-sided Mann-Whitney test of the log ratios, alpha 0.05). Exit status 2 on a line it
// cannot read.
//
// h5bench_vfd_parity --power SD [TRIALS]: the test's detection limit for repetition noise SD
// instead (parity_power.hpp), the table docs/bench/README.md quotes.
#include "parity_power.hpp"
#include "stats.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

// "1.02,0.98,..." -> ratios; false when a field is not a positive number.
bool parse_ratios(const std::string &field, std::vector<double> &out) {
    std::stringstream in(field);
    std::string item;
    while (std::getline(in, item, ',')) {
        char *end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (end == item.c_str() || *end != '\0' || !(v > 0) || !std::isfinite(v))
            return false;
        out.push_back(v);
    }
    return !out.empty();
}

} // namespace

int main(int argc, char **argv) {
    if (argc >= 3 && std::string(argv[1]) == "--power") {
        const double sd = std::strtod(argv[2], nullptr);
        const int trials = argc >= 4 ? std::atoi(argv[3]) : 2000;
        if (!(sd > 0) || trials <= 0) {
            std::fprintf(stderr, "usage: h5bench_vfd_parity --power SD [TRIALS]\n");
            return 2;
        }
        bench::print_detection_table(stdout, sd, trials, 1);
        return 0;
    }
    std::string line;
    int line_no = 0;
    while (std::getline(std::cin, line)) {
        ++line_no;
        if (line.empty())
            continue;
        const auto t1 = line.find('\t');
        const auto t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
        std::vector<double> x, y;
        if (t2 == std::string::npos || !parse_ratios(line.substr(t1 + 1, t2 - t1 - 1), x) ||
            !parse_ratios(line.substr(t2 + 1), y)) {
            std::fprintf(stderr, "h5bench_vfd_parity: line %d: expected label<TAB>ratios<TAB>ratios\n",
                         line_no);
            return 2;
        }
        const bench::Parity p = bench::parity_of_ratios(std::move(x), std::move(y));
        std::printf("%s\t%.4g\t%s\n", line.substr(0, t1).c_str(), p.p, p.verdict.c_str());
    }
    return 0;
}
