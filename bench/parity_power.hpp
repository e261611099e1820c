// The parity test's detection limit: how often a real loss of the plugin against the built-in
// driver is published as "below", for a given per-repetition noise, by simulation of the test as
// the benchmark runs it (5 repetitions, a flagged row measured again with 10). Local, no MPI.
#pragma once

#include <cstdio>

namespace bench {

// Prints, for losses of 2 % to 30 %, the share of `trials` simulated rows that the first
// measurement flags and the share published below after the rerun, per repetition noise `sd`
// (the standard deviation of log(mpio2/mpio) over a row's repetitions, as runs.csv gives it).
// Each repetition draws the three drivers' log rates independently with sd / sqrt(2) each, so
// mpio2/mpio has the stated sd and shares its mpio draw with mpiio/mpio, as in a measured round.
void print_detection_table(std::FILE *out, double sd, int trials, unsigned seed);

} // namespace bench
