// The segments of typed pieces: (file address, memory address, bytes) in file order, each piece's
// file runs paired with its memory runs as HDF5 pairs them (pairing.hpp), walked from the pieces'
// run layouts (run_cursor.hpp) without MPI or HDF5 calls.
#pragma once

#include "combine.hpp"
#include "pairing.hpp"
#include "run_cursor.hpp"

#include <cstdint>
#include <span>

namespace mpiio::selection {

// The layout of a non-empty one-level vector (runs of one length at one stride), or null.
inline const RunLayout *one_level(const TypeSpec &spec) {
    const RunLayout *layout = spec.layout.get();
    if (layout == nullptr || spec.bytes == 0 || !layout->runs.empty() || layout->levels.size() != 1)
        return nullptr;
    return layout;
}

// Local. Calls emit(file address, memory address, bytes) for every segment of the pieces listed in
// `order` (CombinedFacts::order: ascending file positions), piece by piece.
template <class Emit>
void for_each_segment(std::span<const TypedPiece> pieces, std::span<const std::size_t> order, Emit &&emit) {
    for (std::size_t k : order) {
        const TypedPiece &p = pieces[k];
        char *buffer = const_cast<char *>(static_cast<const char *>(p.buffer));
        // Memory one block (most reads and writes): only the file side is walked. pair_walk's
        // count check is not repeated: combine_facts, which every request of pieces passes before
        // it exists, has refused a piece whose two sides hold different byte counts.
        const bool one_block = p.types.mem.shape == TypeShape::Contiguous && !p.types.mem.layout;
        char *memory = buffer + p.types.mem.offset;
        if (const RunLayout *one = one_block ? one_level(p.types.file) : nullptr) {
            // Runs of one length at one stride (a strided 1-D selection, h5perf's interleaved
            // blocks) by a counted loop: the cursor's odometer costs instructions on every run.
            const auto [count, stride] = one->levels.front();
            const auto len = static_cast<std::size_t>(one->inner_bytes);
            auto fd = static_cast<MPI_Aint>(p.file_address) + p.types.file.offset;
            for (MPI_Count i = 0; i < count; ++i, fd += stride, memory += len)
                emit(static_cast<std::uint64_t>(fd), memory, len);
            continue;
        }
        RunCursor file(p.types.file, static_cast<MPI_Aint>(p.file_address));
        if (one_block) {
            MPI_Aint fd = 0;
            MPI_Count len = 0;
            while (file.next(fd, len)) {
                emit(static_cast<std::uint64_t>(fd), memory, static_cast<std::size_t>(len));
                memory += len;
            }
            continue;
        }
        RunCursor mem(p.types.mem, 0);
        pair_walk(file, &mem, [&](MPI_Aint fd, MPI_Aint md, MPI_Count len) {
            emit(static_cast<std::uint64_t>(fd), buffer + md, static_cast<std::size_t>(len));
        });
    }
}

} // namespace mpiio::selection
