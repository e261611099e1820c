// Several pieces (chunks of one dataset, or several datasets) -> one file type and one memory type,
// so a rank can do a single collective call for everything it transfers.
#pragma once

#include "type_spec.hpp"

#include <mpi.h>

#include <cstddef>
#include <span>

namespace mpiio::selection {

struct Piece {
    MPI_Offset file_address = 0;  // absolute file address of the piece (dataset or chunk start)
    const void *buffer = nullptr; // the piece's memory buffer (types.mem is relative to it)
    PiecePair types;              // from build_piece_pair
};

struct CombinedTypes {
    TypeSpec file;                  // file.offset is an absolute file address
    TypeSpec mem;                   // relative to mem_base
    const void *mem_base = nullptr; // pass (const char *)mem_base + mem.offset as the buffer
    std::size_t pieces = 0;         // non-empty pieces combined
};

// Local. Pieces are ordered by the file position of their first byte and joined with
// MPI_Type_create_struct: piece k's file type at (its first byte - the lowest first byte), its
// memory type at (its buffer address - the lowest buffer address, from MPI_Get_address), so
// unrelated buffers work. The combined file type must be monotonic: when one piece's bytes reach
// past the next piece's first byte, throws Error(NotMonotonic) (the caller falls back to per-piece
// I/O). Empty pieces are skipped; with no bytes at all the result is empty (count 0), which a
// collective call can still use. Adjacent contiguous pieces collapse to one contiguous run.
CombinedTypes combine_pieces(std::span<const Piece> pieces);

} // namespace mpiio::selection
