#include "byte_runs.hpp"

#include "common/error.hpp"
#include "pairing.hpp"
#include "sequence_list.hpp"

#include <algorithm>
#include <optional>

namespace mpiio::selection {

void append_byte_runs(const SelectionPiece &p, std::vector<ByteRun> &runs, bool &ordered) {
    const hid_t mem_space = p.mem_space == H5S_ALL ? p.file_space : p.mem_space;
    const SpaceInfo file_info = query_space(p.file_space, p.element_size);
    SequenceReader file(p.file_space, file_info, p.element_size);
    std::optional<SequenceReader> mem;
    if (mem_space != H5S_BLOCK) {
        if (mem_space == p.file_space) // H5S_ALL: the same selection, asked once
            mem.emplace(mem_space, file_info, p.element_size);
        else
            mem.emplace(mem_space, p.element_size);
        if (mem->total_bytes() != file.total_bytes())
            throw Error(ErrorKind::Selection,
                        "the file selection holds " +
                            std::to_string(file.total_bytes() / static_cast<MPI_Count>(p.element_size)) +
                            " elements but the memory selection " +
                            std::to_string(mem->total_bytes() / static_cast<MPI_Count>(p.element_size)));
    }
    if (file.total_bytes() == 0)
        return;
    // At most one run per element; reserving avoids repeated reallocation of large run lists.
    const auto elements = static_cast<std::size_t>(file.total_bytes()) / p.element_size;
    runs.reserve(runs.size() + std::min<std::size_t>(elements, std::size_t{1} << 22));
    pair_walk(file, mem ? &*mem : nullptr, [&](MPI_Aint fd, MPI_Aint md, MPI_Count len) {
        const std::uint64_t addr = p.addr + static_cast<std::uint64_t>(fd);
        char *buf = p.buf + md;
        const auto n = static_cast<std::size_t>(len);
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
