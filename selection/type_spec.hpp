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
#include "runs.hpp"

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

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

// The runs a derived type describes, in a form the driver can walk without MPI or HDF5 (its
// independent transfers copy run by run): `inner_bytes` contiguous bytes repeated by `levels`
// (count, byte stride; innermost first) for regular hyperslabs, else the explicit `runs`.
// Displacements are relative to the type's displacement 0, like the type's own.
struct RunLayout {
    MPI_Count inner_bytes = 0;
    std::vector<std::pair<MPI_Count, MPI_Aint>> levels;
    Runs runs; // explicit runs (non-empty) instead of inner_bytes + levels
};
using RunLayoutPtr = std::shared_ptr<const RunLayout>;

struct TypeSpec {
    DatatypePtr owned;            // keeps a derived type alive; null when type is MPI_BYTE
    RunLayoutPtr layout;          // the runs of a Vector or Indexed type; null otherwise
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

// A selection that names an element twice keeps only the element's last occurrence in the file
// type (what serial HDF5 writes: the last value wins). Reading fills the memory of the dropped
// occurrences afterwards: `len` bytes from memory displacement `from` (the kept occurrence) to
// `to`, relative to the piece's buffer.
struct DuplicateCopy {
    MPI_Aint from = 0, to = 0;
    MPI_Count len = 0;
};
using DuplicateCopies = std::shared_ptr<const std::vector<DuplicateCopy>>;

// The two sides of one selection piece: they describe the same elements in the same order, so
// `file.bytes == mem.bytes` and the k-th byte of the file type pairs with the k-th of the memory
// type. `file` is always monotonic (strictly ascending, no element twice).
struct TypePair {
    TypeSpec file;
    TypeSpec mem;
    DuplicateCopies duplicates; // null when the file selection names no element twice
};

} // namespace mpiio::selection
