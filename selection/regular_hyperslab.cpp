#include "regular_hyperslab.hpp"

#include "common/error.hpp"
#include "mpi_build.hpp"
#include "type_cache.hpp"

#include <array>
#include <string>

namespace mpiio::selection {

namespace {
constexpr std::uint64_t kRegularTag = 0x5245475550ULL; // "REGUL"

using Dims = std::array<hsize_t, H5S_MAX_RANK>;

// Local. HDF5's three descriptions of a regular hyperslab (start/stride/count/block, the bounding
// box, the element count) must agree before a type is built from one of them; HDF5 1.14.5 can
// produce selections where they do not (see SequenceReader), and then no byte may move.
void check_regular_consistent(int rank, const Dims &stride, const Dims &count, const Dims &block,
                              const Dims &low, const Dims &high, std::uint64_t npoints) {
    std::uint64_t elements = 1;
    for (int d = 0; d < rank; ++d) {
        elements *= count[d] * block[d];
        const hsize_t last = low[d] + (count[d] - 1) * stride[d] + block[d] - 1;
        if (count[d] == 0 || block[d] == 0 || high[d] != last)
            throw Error(ErrorKind::Selection, "HDF5 describes this selection inconsistently (dimension " +
                                                  std::to_string(d) + ": regular hyperslab ends at " +
                                                  std::to_string(last) + ", bounding box at " +
                                                  std::to_string(high[d]) + "); refusing the transfer");
    }
    if (elements != npoints)
        throw Error(ErrorKind::Selection,
                    "HDF5 describes this selection inconsistently (regular hyperslab of " +
                        std::to_string(elements) + " elements, H5Sget_select_npoints " +
                        std::to_string(npoints) + "); refusing the transfer");
}

} // namespace

RegularShape regular_shape(hid_t space, const SpaceInfo &info, std::size_t elem_size) {
    const int rank = info.rank;
    Dims start{}, stride{}, count{}, block{};
    check_h5(H5Sget_regular_hyperslab(space, start.data(), stride.data(), count.data(), block.data()),
             "H5Sget_regular_hyperslab");
    const Dims &low = info.low, &high = info.high;
    // Byte size of one index step in each dimension.
    std::array<MPI_Aint, H5S_MAX_RANK> row{};
    MPI_Aint acc = static_cast<MPI_Aint>(elem_size);
    for (int d = rank - 1; d >= 0; --d) {
        row[d] = acc;
        acc *= static_cast<MPI_Aint>(info.dims[d]);
    }
    RegularShape shape;
    shape.inner_bytes = static_cast<MPI_Count>(elem_size);
    for (int d = 0; d < rank; ++d) {
        if (count[d] == H5S_UNLIMITED || block[d] == H5S_UNLIMITED)
            throw Error(ErrorKind::Unsupported, "unlimited hyperslab selection");
        // low[d] = start[d] + selection offset[d]: the bounds include the offset, start does not.
        shape.offset += static_cast<MPI_Aint>(low[d]) * row[d];
    }
    check_regular_consistent(rank, stride, count, block, low, high, info.npoints);
    // Innermost first: dimension d contributes (block[d], row[d]) inside (count[d], stride[d]*row[d]).
    for (int d = rank - 1; d >= 0; --d) {
        // With count 1 the stride is meaningless (and may be huge): never multiply it then.
        const std::pair<MPI_Count, MPI_Aint> level_pair[2] = {
            {static_cast<MPI_Count>(block[d]), row[d]},
            {static_cast<MPI_Count>(count[d]),
             count[d] == 1 ? 0 : static_cast<MPI_Aint>(stride[d]) * row[d]}};
        for (const auto &[n, s] : level_pair) {
            if (n == 1)
                continue;
            if (shape.levels.empty() && s == static_cast<MPI_Aint>(shape.inner_bytes)) {
                shape.inner_bytes *= n;
            } else if (!shape.levels.empty() &&
                       s == static_cast<MPI_Aint>(shape.levels.back().first) * shape.levels.back().second) {
                shape.levels.back().first *= n;
            } else {
                shape.levels.emplace_back(n, s);
            }
        }
    }
    return shape;
}

TypeSpec build_regular(const RegularShape &shape, TypeCache *cache) {
    if (shape.levels.empty())
        return contiguous_spec(shape.offset, shape.inner_bytes);
    ShapeHasher hasher(kRegularTag);
    hasher.add_signed(shape.inner_bytes);
    for (const auto &[n, s] : shape.levels) {
        hasher.add_signed(n);
        hasher.add_signed(s);
    }
    return cached_type(cache, hasher.key(), shape.offset, [&] {
        mpiio::Datatype t = contiguous_bytes(shape.inner_bytes);
        MPI_Count bytes = shape.inner_bytes;
        MPI_Aint span = static_cast<MPI_Aint>(shape.inner_bytes);
        std::uint64_t blocks = 1;
        for (const auto &[n, s] : shape.levels) {
            t = hvector_any(n, s, t.get());
            bytes *= n;
            span += static_cast<MPI_Aint>(n - 1) * s;
            blocks *= static_cast<std::uint64_t>(n);
        }
        TypeSpec spec = derived_spec(std::move(t), {bytes, span, blocks, TypeShape::Vector, true});
        spec.layout = std::make_shared<const RunLayout>(RunLayout{shape.inner_bytes, shape.levels, {}});
        return spec;
    });
}

} // namespace mpiio::selection
