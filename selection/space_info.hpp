// What one dataspace selection is, read through the public H5S API only.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>

namespace mpiio::selection {

struct SpaceInfo {
    H5S_sel_type kind = H5S_SEL_NONE;
    std::uint64_t npoints = 0;                // selected elements
    int rank = 0;                             // 0 for scalar and null dataspaces
    std::array<hsize_t, H5S_MAX_RANK> dims{}; // current extent
    bool regular = false;                     // a regular hyperslab (H5Sis_regular_hyperslab)
    MPI_Count extent_bytes = 0;               // elem_size * product(dims)
};

// Local. Throws Error(Unsupported) when the extent is beyond 2^62 bytes (MPI_Aint displacements
// must stay representable), Error(Hdf5) when a query fails.
SpaceInfo query_space(hid_t space, std::size_t elem_size);

} // namespace mpiio::selection
