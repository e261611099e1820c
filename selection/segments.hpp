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

// Local. Calls emit(file address, memory address, bytes) for every segment of the pieces listed in
// `order` (CombinedFacts::order: ascending file positions), piece by piece.
template <class Emit>
void for_each_segment(std::span<const TypedPiece> pieces, std::span<const std::size_t> order, Emit &&emit) {
    for (std::size_t k : order) {
        const TypedPiece &p = pieces[k];
        RunCursor file(p.types.file, static_cast<MPI_Aint>(p.file_address));
        char *buffer = const_cast<char *>(static_cast<const char *>(p.buffer));
        if (p.types.mem.shape == TypeShape::Contiguous && !p.types.mem.layout) {
            // Memory one block (most reads and writes): only the file side is walked. pair_walk's
            // count check is not repeated: combine_facts, which every request of pieces passes
            // before it exists, has refused a piece whose two sides hold different byte counts.
            char *memory = buffer + p.types.mem.offset;
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
