#include "report.hpp"

namespace bench {

namespace {

// Calls write(file) on <dir>/<name> (skipped, with a message, when the file cannot be created).
template <class Fn> void write_file(const std::string &dir, const char *name, Fn &&write) {
    const std::string path = dir + "/" + name;
    FILE *f = std::fopen(path.c_str(), "w");
    if (f == nullptr) {
        std::fprintf(stderr, "h5bench_vfd: cannot write %s\n", path.c_str());
        return;
    }
    write(f);
    std::fclose(f);
}

} // namespace

void write_outputs(const std::string &dir, const RunInfo &info, const std::vector<CaseResult> &results) {
    write_file(dir, "results.csv", [&](FILE *f) { write_results_csv(f, results); });
    write_file(dir, "runs.csv", [&](FILE *f) { write_runs_csv(f, results); });
    write_file(dir, "results.json", [&](FILE *f) { write_results_json(f, info, results); });
    write_file(dir, "table.txt", [&](FILE *f) { print_table(f, info, results); });
    write_file(dir, "table.md", [&](FILE *f) { write_markdown_table(f, info, results); });
    write_chart(dir + "/chart.svg", info, results);
}

} // namespace bench
