#include "byte_runs.hpp"

#include <algorithm>

namespace mpiio::selection {

void sort_and_merge(std::vector<ByteRun> &runs) {
    auto by_addr = [](const ByteRun &a, const ByteRun &b) { return a.addr < b.addr; };
    if (!std::is_sorted(runs.begin(), runs.end(), by_addr))
        std::stable_sort(runs.begin(), runs.end(), by_addr);
    size_t out = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
        if (out > 0) {
            ByteRun &last = runs[out - 1];
            if (last.addr + last.size == runs[i].addr && last.buf + last.size == runs[i].buf) {
                last.size += runs[i].size;
                continue;
            }
        }
        runs[out++] = runs[i];
    }
    runs.resize(out);
}

} // namespace mpiio::selection
