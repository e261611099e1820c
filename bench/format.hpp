// Number and string formatting shared by the report writers (local, rank 0).
#pragma once

#include "results.hpp"

#include <string>

namespace bench {

constexpr double kMiB = 1024.0 * 1024.0;

std::string fmt(const char *format, double v);
// Bandwidth with 3 significant digits; "-" when not measured.
std::string bw(double mibps);
// "0.95"; "-" when not measured.
std::string ratio_str(double r);
// "0.95 (0.88-1.02)": median of the paired ratios and their range; "-" when not measured.
std::string ratio_spread_str(const RatioSpread &r);
// Median [min-max] bandwidth of a driver in a phase ('w' or 'r').
std::string bw_cell(const DriverResult &d, char phase);
// "ok", "ok, files identical", "ok, bytes differ" or "FAILED".
std::string case_status(const CaseResult &c);

std::string json_str(const std::string &s);
std::string json_num(double v);
std::string csv_str(const std::string &s);

} // namespace bench
