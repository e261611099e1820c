#include "byte_runs.hpp"

#include <algorithm>

namespace mpiio::selection {

void append_byte_runs(const SelectionPiece &p, std::vector<ByteRun> &runs, bool &ordered) {
    PieceWalk walk(p);
    // At most one run per element; reserving avoids repeated reallocation of large run lists.
    const auto elements = static_cast<std::size_t>(walk.total_bytes()) / p.element_size;
    runs.reserve(runs.size() + std::min<std::size_t>(elements, std::size_t{1} << 22));
    walk.for_each([&](std::uint64_t addr, char *buf, std::size_t n) {
        if (!runs.empty()) {
            ByteRun &last = runs.back();
            if (last.addr + last.size == addr && last.buf + last.size == buf) {
                last.size += n; // contiguous in both: extend in place
                return;
            }
            ordered = ordered && addr >= last.addr + last.size;
        }
        runs.push_back(ByteRun{addr, n, buf});
    });
}

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
