// Runs one case of the matrix through every selected driver.
#pragma once

#include "options.hpp"
#include "results.hpp"

#include <string>

namespace bench {

// Collective. Builds the case and its buffers (untimed), then runs warm-up + counted rounds: in
// each round every driver writes the whole file and reads it back, the order of the drivers
// rotating from round to round; every read is verified against the written buffers, and the
// first round's files are compared with each other and with the expected contents before they
// are deleted. Rank 0 prints one progress line per round, prefixed with `tag`.
CaseResult run_case(const Options &opt, const CaseSel &sel, const std::string &work, const std::string &tag);

} // namespace bench
