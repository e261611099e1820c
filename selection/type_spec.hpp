// The value this module produces: an MPI description (datatype + count) of the bytes one selection
// touches, positioned relative to a base (the piece's file address, or the piece's buffer).
//
// Usage rule, the same for file and memory, single pieces and combined pieces:
//     file:    MPI_File_set_view(fh, base_address + spec.offset, MPI_BYTE, spec.type, ...)
//              (or MPI_File_*_at(base_address + spec.offset) when spec.contiguous)
//     memory:  buffer pointer = (char *)base_buffer + spec.offset, count = spec.count, type = spec.type
// The type's lowest byte is at displacement 0 (MPI lb == true lb == 0), so spec.offset is the byte
// distance from the base to the lowest byte touched. Because translation lives in `offset`, a
// selection that only moves (a time-step loop that shifts the hyperslab start) keeps its type.
#pragma once

#include "common/mpi_handle.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>

namespace mpiio::selection {

// Derived types are shared between TypeSpecs and the cache; the Datatype frees on last release.
using DatatypePtr = std::shared_ptr<const mpiio::Datatype>;

// How the type was built (for statistics and tests).
enum class TypeShape {
    Empty,      // nothing selected: MPI_BYTE, count 0
    Contiguous, // one run of bytes, in order
    Vector,     // nested hvectors (regular hyperslab)
    Indexed,    // hindexed / hindexed_block / hvector of runs (irregular hyperslab, points, pairs)
    Struct,     // combination of several pieces
};

struct TypeSpec {
    DatatypePtr owned;            // keeps a derived type alive; null when type is MPI_BYTE
    MPI_Datatype type = MPI_BYTE; // MPI_BYTE or owned->get(); committed
    int count = 0;                // items of `type` (derived types: 1 when non-empty)
    MPI_Aint offset = 0;          // base-relative byte position of the type's displacement 0
    MPI_Count bytes = 0;          // payload bytes (== count * MPI_Type_size_x(type))
    MPI_Aint span = 0;            // lowest to one-past-highest byte touched (true extent)
    std::uint64_t blocks = 0;     // contiguous runs described (before MPI's own merging)
    TypeShape shape = TypeShape::Empty;
    bool contiguous = true; // the bytes [offset, offset + bytes) in ascending order
    bool monotonic = true;  // typemap strictly ascending, no overlap (valid as an MPI filetype)

    bool empty() const { return bytes == 0; }
};

// The two sides of one piece: they describe the same elements in the same order, so
// `file.bytes == mem.bytes` and the k-th byte of the file type pairs with the k-th of the memory
// type. `file` is always monotonic.
struct PiecePair {
    TypeSpec file;
    TypeSpec mem;
};

} // namespace mpiio::selection
