// The writers of a run's results (all local, rank 0): terminal table, Markdown table, CSV, JSON
// and the SVG chart.
#pragma once

#include "results.hpp"

#include <cstdio>
#include <string>
#include <vector>

namespace bench {

void print_table(FILE *out, const RunInfo &info, const std::vector<CaseResult> &results); // table.txt
void write_markdown_table(FILE *out, const RunInfo &info, const std::vector<CaseResult> &results); // table.md
void write_results_csv(FILE *out, const std::vector<CaseResult> &results); // results.csv
void write_runs_csv(FILE *out, const std::vector<CaseResult> &results);    // runs.csv
void write_results_json(FILE *out, const RunInfo &info,
                        const std::vector<CaseResult> &results); // results.json
void write_chart(const std::string &path, const RunInfo &info, const std::vector<CaseResult> &results);

// All of the above into `dir`.
void write_outputs(const std::string &dir, const RunInfo &info, const std::vector<CaseResult> &results);

} // namespace bench
