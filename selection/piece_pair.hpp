// Entry points for one piece (a contiguous dataset or one chunk): selections -> TypeSpecs.
#pragma once

#include "type_spec.hpp"

#include <hdf5.h>

#include <cstddef>

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

} // namespace mpiio::selection
