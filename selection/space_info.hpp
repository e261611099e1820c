// What one dataspace selection is: its kind, element count, extent, bounding box and regularity.
// Read through the public H5S API (one library call per fact), or through a faster source the
// driver installs (set_space_info_source).
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace mpiio::selection {

struct SpaceInfo {
    H5S_sel_type kind = H5S_SEL_NONE;
    std::uint64_t npoints = 0; // selected elements
    int rank = 0;              // 0 for scalar and null dataspaces
    // The arrays are set up to `rank` only (not cleared: this runs on every tiny transfer).
    std::array<hsize_t, H5S_MAX_RANK> dims; // current extent
    // Bounding box of the selection, selection offset included (H5Sget_select_bounds); set when
    // npoints > 0 and rank > 0.
    std::array<hsize_t, H5S_MAX_RANK> low, high;
    bool regular = false;       // a regular hyperslab (H5Sis_regular_hyperslab)
    MPI_Count extent_bytes = 0; // elem_size * product(dims)
};

// The bounding box of a selection as a linear byte range of its dataspace: [low, high) holds
// every selected element (row-major positions of the box's corners). For "all" the whole extent.
struct LinearBounds {
    MPI_Aint low = 0, high = 0;
};
// Local. Set when npoints > 0.
LinearBounds linear_bounds(const SpaceInfo &info, std::size_t elem_size);

// Local. Whether the selection is one contiguous range of its dataspace, in order: "all", or a
// regular hyperslab whose elements fill its bounding box's linear range (a block of whole rows),
// or a single element. Then it is [linear_bounds.low, + npoints x elem_size).
bool one_linear_range(const SpaceInfo &info, std::size_t elem_size);

// Local. Throws Error(Unsupported) when the extent is beyond 2^62 bytes (MPI_Aint displacements
// must stay representable), Error(Hdf5) when a query fails.
SpaceInfo query_space(hid_t space, std::size_t elem_size);

// Fills every field of SpaceInfo but extent_bytes in one step, or returns false when it cannot
// (query_space then asks the public API). The public API costs an API entry per fact, five per
// selection, which is most of a tiny independent transfer's cost in the driver; the driver
// installs a source that reads HDF5's dataspace object directly (driver/hdf5/hdf5_internals.hpp).
using SpaceInfoSource = bool (*)(hid_t space, SpaceInfo &out);
// Not thread-safe: set once, before any transfer (nullptr restores the public API).
void set_space_info_source(SpaceInfoSource source);

// Local. The same facts through the public API only, whatever source is installed (the reference
// the installed source is tested against).
SpaceInfo query_space_public(hid_t space, std::size_t elem_size);

} // namespace mpiio::selection
