// Regular hyperslabs as nested hvectors, built from the fastest dimension out (as HDF5's own
// H5S__mpio_reg_hyper_type, H5Smpio.c), after folding every dimension into contiguous bytes
// wherever the selection allows it.
#pragma once

#include "space_info.hpp"
#include "type_spec.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpiio::selection {

class TypeCache;

// The selection as `inner_bytes` contiguous bytes repeated by levels of (count, byte stride),
// listed innermost first, starting `offset` bytes into the dataspace.
struct RegularShape {
    MPI_Count inner_bytes = 0;
    std::vector<std::pair<MPI_Count, MPI_Aint>> levels;
    MPI_Aint offset = 0;
};

// Local. Reads H5Sget_regular_hyperslab; the selection offset comes from the bounds in `info`
// (bounds minus start, which is how a H5Soffset_simple shift shows through the public API). Then
// simplifies: count-1 levels vanish,
// a level whose stride equals the run so far extends the run, and a level whose stride spans the
// level inside it merges with it.
RegularShape regular_shape(hid_t space, const SpaceInfo &info, std::size_t elem_size);

// Local. The shape as a TypeSpec (cached by levels and inner size, so the same shape at any
// position or element size reuses one committed type).
TypeSpec build_regular(const RegularShape &shape, TypeCache *cache);

} // namespace mpiio::selection
