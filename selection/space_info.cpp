#include "space_info.hpp"

#include "common/error.hpp"

namespace mpiio::selection {

namespace {

constexpr unsigned __int128 kMaxExtentBytes = static_cast<unsigned __int128>(1) << 62;

SpaceInfoSource g_source = nullptr;

// Local. One public call per fact; npoints decides whether there is a bounding box to ask for.
SpaceInfo public_facts(hid_t space) {
    SpaceInfo info;
    info.kind = check_h5(H5Sget_select_type(space), "H5Sget_select_type");
    info.npoints =
        static_cast<std::uint64_t>(check_h5(H5Sget_select_npoints(space), "H5Sget_select_npoints"));
    info.rank =
        check_h5(H5Sget_simple_extent_dims(space, info.dims.data(), nullptr), "H5Sget_simple_extent_dims");
    if (info.npoints == 0 || info.rank == 0)
        return info;
    check_h5(H5Sget_select_bounds(space, info.low.data(), info.high.data()), "H5Sget_select_bounds");
    if (info.kind == H5S_SEL_HYPERSLABS)
        info.regular = check_h5(H5Sis_regular_hyperslab(space), "H5Sis_regular_hyperslab") > 0;
    return info;
}

// Local. The extent in bytes, refused beyond 2^62.
MPI_Count extent_bytes(const SpaceInfo &info, std::size_t elem_size) {
    unsigned __int128 bytes = elem_size;
    for (int d = 0; d < info.rank; ++d) {
        bytes *= info.dims[d];
        if (bytes > kMaxExtentBytes)
            throw Error(ErrorKind::Unsupported, "dataspace extent beyond 2^62 bytes");
    }
    return static_cast<MPI_Count>(bytes);
}

} // namespace

void set_space_info_source(SpaceInfoSource source) { g_source = source; }

SpaceInfo query_space_public(hid_t space, std::size_t elem_size) {
    if (elem_size == 0)
        throw Error(ErrorKind::Internal, "element size 0");
    SpaceInfo info = public_facts(space);
    info.extent_bytes = extent_bytes(info, elem_size);
    return info;
}

SpaceInfo query_space(hid_t space, std::size_t elem_size) {
    if (elem_size == 0)
        throw Error(ErrorKind::Internal, "element size 0");
    SpaceInfo info;
    if (g_source == nullptr || !g_source(space, info))
        info = public_facts(space);
    info.extent_bytes = extent_bytes(info, elem_size);
    return info;
}

LinearBounds linear_bounds(const SpaceInfo &info, std::size_t elem_size) {
    LinearBounds b{0, static_cast<MPI_Aint>(info.npoints * elem_size)};
    if (info.kind == H5S_SEL_ALL || info.rank == 0 || info.npoints == 0)
        return b;
    MPI_Aint step = static_cast<MPI_Aint>(elem_size), lo = 0, hi = 0;
    for (int d = info.rank - 1; d >= 0; --d) {
        lo += static_cast<MPI_Aint>(info.low[d]) * step;
        hi += static_cast<MPI_Aint>(info.high[d]) * step;
        step *= static_cast<MPI_Aint>(info.dims[d]);
    }
    b.low = lo;
    b.high = std::min<MPI_Aint>(hi + static_cast<MPI_Aint>(elem_size), step);
    return b;
}

bool one_linear_range(const SpaceInfo &info, std::size_t elem_size) {
    if (info.npoints == 0)
        return false;
    if (info.kind == H5S_SEL_ALL || info.npoints == 1)
        return true;
    if (info.kind != H5S_SEL_HYPERSLABS || !info.regular)
        return false;
    const LinearBounds b = linear_bounds(info, elem_size);
    return b.high - b.low == static_cast<MPI_Aint>(info.npoints * elem_size);
}

} // namespace mpiio::selection
