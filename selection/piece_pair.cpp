#include "piece_pair.hpp"

#include "common/error.hpp"
#include "indexed_type.hpp"
#include "mpi_build.hpp"
#include "point_selection.hpp"
#include "regular_hyperslab.hpp"
#include "sequence_list.hpp"
#include "space_info.hpp"
#include "type_cache.hpp"

#include <optional>
#include <string>

namespace mpiio::selection {

namespace {

// Local. Dispatch on the selection kind once the info has been read.
TypeSpec build_with_info(hid_t space, const SpaceInfo &info, std::size_t elem_size, TypeCache *cache) {
    if (info.npoints == 0)
        return TypeSpec{};
    switch (info.kind) {
    case H5S_SEL_NONE:
        return TypeSpec{};
    case H5S_SEL_ALL:
        return contiguous_spec(0, static_cast<MPI_Count>(info.npoints * elem_size));
    case H5S_SEL_HYPERSLABS:
        if (one_linear_range(info, elem_size)) // a block of whole rows: no hyperslab query, no type
            return contiguous_spec(linear_bounds(info, elem_size).low,
                                   static_cast<MPI_Count>(info.npoints * elem_size));
        if (info.regular)
            return build_regular(regular_shape(space, info, elem_size), cache);
        return build_from_runs(sequence_runs(space, info, elem_size), cache);
    case H5S_SEL_POINTS:
        return build_from_runs(sequence_runs(space, info, elem_size), cache);
    default:
        throw Error(ErrorKind::Unsupported, "unknown selection type");
    }
}

} // namespace

TypeSpec build_type(hid_t space, std::size_t elem_size, TypeCache *cache) {
    return build_with_info(space, query_space(space, elem_size), elem_size, cache);
}

PieceSpaces query_piece(hid_t file_space, hid_t mem_space, std::size_t elem_size) {
    PieceSpaces p;
    p.file_space = file_space;
    p.mem_space = mem_space == H5S_ALL ? file_space : mem_space;
    p.file = query_space(file_space, elem_size);
    if (p.mem_space == H5S_BLOCK)
        return p;
    p.mem = p.mem_space == file_space ? p.file : query_space(p.mem_space, elem_size); // H5S_ALL: asked once
    if (p.mem.npoints != p.file.npoints)
        throw Error(ErrorKind::Selection, "file selection has " + std::to_string(p.file.npoints) +
                                              " elements, memory selection " + std::to_string(p.mem.npoints));
    return p;
}

std::optional<ContiguousPiece> as_contiguous(const PieceSpaces &p, std::size_t elem_size) {
    if (!one_linear_range(p.file, elem_size))
        return std::nullopt;
    ContiguousPiece c{linear_bounds(p.file, elem_size).low, 0,
                      static_cast<MPI_Count>(p.file.npoints * elem_size)};
    if (p.mem_space == H5S_BLOCK)
        return c;
    if (!one_linear_range(p.mem, elem_size))
        return std::nullopt;
    c.mem_offset = linear_bounds(p.mem, elem_size).low;
    return c;
}

TypePair build_piece_pair(hid_t file_space, hid_t mem_space, std::size_t elem_size, TypeCache *cache) {
    return build_piece_pair(query_piece(file_space, mem_space, elem_size), elem_size, cache);
}

// Local. Every side is built on its own unless the file side is a point selection out of order;
// only then are the two sequence lists paired and sorted.
TypePair build_piece_pair(const PieceSpaces &spaces, std::size_t elem_size, TypeCache *cache) {
    const hid_t file_space = spaces.file_space, mem_space = spaces.mem_space;
    const SpaceInfo &finfo = spaces.file;
    const SpaceInfo *minfo = mem_space == H5S_BLOCK ? nullptr : &spaces.mem; // null: a packed buffer
    auto mem_side = [&] {
        if (minfo == nullptr)
            return contiguous_spec(0, static_cast<MPI_Count>(finfo.npoints * elem_size));
        return build_with_info(mem_space, *minfo, elem_size, cache);
    };
    TypePair pair;
    if (finfo.npoints == 0)
        return pair;
    if (finfo.kind == H5S_SEL_POINTS) {
        Runs runs = sequence_runs(file_space, finfo, elem_size);
        if (!ascending_disjoint(runs)) {
            std::optional<SequenceReader> reader;
            if (minfo)
                reader.emplace(mem_space, *minfo, elem_size);
            PairedRuns paired = pair_sorted(std::move(runs), reader ? &*reader : nullptr, elem_size);
            pair.file = build_from_runs(std::move(paired.file), cache);
            pair.mem = build_from_runs(std::move(paired.mem), cache);
            if (!paired.duplicates.empty())
                pair.duplicates =
                    std::make_shared<const std::vector<DuplicateCopy>>(std::move(paired.duplicates));
            return pair;
        }
        pair.file = build_from_runs(std::move(runs), cache);
    } else {
        pair.file = build_with_info(file_space, finfo, elem_size, cache);
    }
    if (!pair.file.monotonic)
        throw Error(ErrorKind::Internal, "file type of a hyperslab selection is not monotonic");
    pair.mem = mem_side();
    return pair;
}

} // namespace mpiio::selection
