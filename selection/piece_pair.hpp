// Entry points for one piece (a contiguous dataset or one chunk): selections -> TypeSpecs.
#pragma once

#include "space_info.hpp"
#include "type_spec.hpp"

#include <hdf5.h>

#include <cstddef>
#include <optional>

namespace mpiio::selection {

class TypeCache;

// Local. One selection in its own iteration order (row-major for hyperslabs, given order for
// points), displacements relative to the start of the dataspace's first element. Used for memory
// sides and for anything that does not need pairing. `cache` may be null.
TypeSpec build_type(hid_t space, std::size_t elem_size, TypeCache *cache = nullptr);

// Local. The file and memory types of one piece, describing the same elements in the same order:
// HDF5 pairs the i-th element of the file selection with the i-th of the memory selection, each in
// its own order. The file side is always monotonic (valid as an MPI filetype); when the file
// selection is not ascending (points in arbitrary order) both sides are paired element by element,
// sorted by file offset and the memory side permuted to match; an element named more than once
// keeps its last occurrence (TypePair::duplicates).
//   file_space: the piece's file dataspace (displacements relative to the piece's file address)
//   mem_space:  the memory dataspace (relative to the piece's buffer); H5S_BLOCK means a packed
//               buffer of exactly the selected elements, H5S_ALL means the same selection as the
//               file space (H5Dwrite's convention)
// Throws Error(Selection) when the element counts differ.
TypePair build_piece_pair(hid_t file_space, hid_t mem_space, std::size_t elem_size,
                          TypeCache *cache = nullptr);

// The two dataspaces of a piece with their facts read once (query_piece), for callers that look
// at the facts before building types.
struct PieceSpaces {
    hid_t file_space = H5I_INVALID_HID;
    hid_t mem_space = H5I_INVALID_HID; // H5S_BLOCK (packed) or a dataspace; H5S_ALL resolved
    SpaceInfo file, mem;               // `mem` unset for H5S_BLOCK
};

// Local. Throws Error(Selection) when the element counts differ.
PieceSpaces query_piece(hid_t file_space, hid_t mem_space, std::size_t elem_size);

// Local. When both sides are one contiguous range each: the file range's offset from the piece's
// address, the memory range's from its buffer, and the bytes (no type needed to move them).
struct ContiguousPiece {
    MPI_Aint file_offset = 0, mem_offset = 0;
    MPI_Count bytes = 0;
};
std::optional<ContiguousPiece> as_contiguous(const PieceSpaces &spaces, std::size_t elem_size);

// Local. build_piece_pair from facts already read.
TypePair build_piece_pair(const PieceSpaces &spaces, std::size_t elem_size, TypeCache *cache = nullptr);

} // namespace mpiio::selection
