#include "space_info.hpp"

#include "common/error.hpp"

namespace mpiio::selection {

namespace {
constexpr unsigned __int128 kMaxExtentBytes = static_cast<unsigned __int128>(1) << 62;
}

// Local. One pass over the public queries; npoints decides emptiness before anything else.
SpaceInfo query_space(hid_t space, std::size_t elem_size) {
    if (elem_size == 0)
        throw Error(ErrorKind::Internal, "element size 0");
    SpaceInfo info;
    info.kind = check_h5(H5Sget_select_type(space), "H5Sget_select_type");
    info.npoints =
        static_cast<std::uint64_t>(check_h5(H5Sget_select_npoints(space), "H5Sget_select_npoints"));
    info.rank =
        check_h5(H5Sget_simple_extent_dims(space, info.dims.data(), nullptr), "H5Sget_simple_extent_dims");
    unsigned __int128 bytes = elem_size;
    for (int d = 0; d < info.rank; ++d) {
        bytes *= info.dims[d];
        if (bytes > kMaxExtentBytes)
            throw Error(ErrorKind::Unsupported, "dataspace extent beyond 2^62 bytes");
    }
    info.extent_bytes = static_cast<MPI_Count>(bytes);
    if (info.kind == H5S_SEL_HYPERSLABS && info.npoints > 0)
        info.regular = check_h5(H5Sis_regular_hyperslab(space), "H5Sis_regular_hyperslab") > 0;
    return info;
}

} // namespace mpiio::selection
