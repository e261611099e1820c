// Several pieces (chunks of one dataset, or several datasets) as one request: their order and
// facts first (no MPI call), and one file type plus one memory type when a caller needs them (a
// collective call for everything a rank transfers, or MPI's datatype engine for a sieve copy).
#pragma once

#include "type_spec.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace mpiio::selection {

// One piece with its types (build_piece_pair).
struct TypedPiece {
    MPI_Offset file_address = 0;  // absolute file address of the piece (dataset or chunk start)
    const void *buffer = nullptr; // the piece's memory buffer (types.mem is relative to it)
    TypePair types;
};

// What the combined pieces are, without building a type.
struct CombinedFacts {
    std::vector<std::size_t> order; // the non-empty pieces, by the file position of their first byte
    MPI_Offset file_offset = 0;     // absolute address of the lowest file byte
    MPI_Aint file_span = 0;         // lowest to one past the highest file byte
    MPI_Count bytes = 0;            // payload
    bool file_contiguous = true;    // the payload is [file_offset, file_offset + bytes) in order
    bool mem_contiguous = true;     // and the memory side one block from mem_base on
    std::uint64_t file_blocks = 0, mem_blocks = 0; // runs described on each side
    const void *mem_base = nullptr;                // the lowest memory address of any piece's first byte
    bool duplicates = false;                       // some piece names an element twice (TypePair::duplicates)
};

struct CombinedTypes {
    TypeSpec file;                  // file.offset is an absolute file address
    TypeSpec mem;                   // relative to mem_base
    const void *mem_base = nullptr; // pass (const char *)mem_base + mem.offset as the buffer
    std::size_t pieces = 0;         // non-empty pieces combined
};

// Local. Orders the pieces and checks that they form one monotonic file type: when one piece's
// bytes reach past the next piece's first byte, throws Error(NotMonotonic) (the caller falls back
// to byte runs). Throws Error(Selection) when a piece's two sides differ in size.
CombinedFacts combine_facts(std::span<const TypedPiece> pieces);
// The same into `out`, keeping the capacity of its order list (a request of one piece allocates
// nothing).
void combine_facts(std::span<const TypedPiece> pieces, CombinedFacts &out);

// Local. The pieces joined with MPI_Type_create_struct: piece k's file type at (its first byte -
// the lowest first byte), its memory type at (its buffer address - the lowest buffer address, from
// MPI_Get_address), so unrelated buffers work. Empty pieces are skipped; with no bytes at all the
// result is empty (count 0), which a collective call can still use. Adjacent contiguous pieces
// collapse to one contiguous run; a single piece needs no new type.
CombinedTypes combined_types(std::span<const TypedPiece> pieces, const CombinedFacts &facts);

// Local. combine_facts then combined_types.
CombinedTypes combine_pieces(std::span<const TypedPiece> pieces);

} // namespace mpiio::selection
