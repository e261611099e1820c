#include "combine.hpp"

#include "common/error.hpp"
#include "mpi_build.hpp"

#include <algorithm>
#include <numeric>
#include <string>
#include <vector>

namespace mpiio::selection {

namespace {

// Local. One side (file or memory) of the combined pieces: contiguous bytes when every piece's
// side continues the previous one, else the struct of the pieces' types at `disp`.
TypeSpec combined_side(bool contiguous, const std::vector<int> &count, const std::vector<MPI_Aint> &disp,
                       const std::vector<MPI_Datatype> &type, const DerivedFacts &facts) {
    if (contiguous)
        return contiguous_spec(0, facts.bytes);
    return derived_spec(struct_any(count, disp, type), facts);
}

} // namespace

CombinedTypes combine_pieces(std::span<const Piece> pieces) {
    std::vector<std::size_t> order;
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const PiecePair &t = pieces[i].types;
        if (t.file.bytes != t.mem.bytes)
            throw Error(ErrorKind::Selection,
                        "piece " + std::to_string(i) + ": file and memory sizes differ");
        if (t.file.bytes > 0)
            order.push_back(i);
    }
    CombinedTypes out;
    out.pieces = order.size();
    if (order.empty())
        return out;
    auto file_start = [&](std::size_t i) {
        return static_cast<MPI_Aint>(pieces[i].file_address) + pieces[i].types.file.offset;
    };
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return file_start(a) < file_start(b); });
    for (std::size_t k = 0; k < order.size(); ++k) {
        const TypeSpec &f = pieces[order[k]].types.file;
        if (!f.monotonic)
            throw Error(ErrorKind::NotMonotonic, "piece file type is not monotonic");
        if (k > 0) {
            const std::size_t prev = order[k - 1];
            if (file_start(prev) + pieces[prev].types.file.span > file_start(order[k]))
                throw Error(ErrorKind::NotMonotonic, "pieces overlap in file order");
        }
    }
    if (order.size() == 1) {
        const Piece &p = pieces[order[0]];
        out.file = p.types.file;
        out.file.offset = file_start(order[0]);
        out.mem = p.types.mem;
        out.mem_base = p.buffer;
        return out;
    }

    const std::size_t n = order.size();
    std::vector<MPI_Aint> mem_addr(n);
    for (std::size_t k = 0; k < n; ++k) {
        const Piece &p = pieces[order[k]];
        check_mpi(MPI_Get_address(static_cast<const char *>(p.buffer) + p.types.mem.offset, &mem_addr[k]),
                  "MPI_Get_address");
    }
    const std::size_t lowest =
        static_cast<std::size_t>(std::min_element(mem_addr.begin(), mem_addr.end()) - mem_addr.begin());
    {
        const Piece &p = pieces[order[lowest]];
        out.mem_base = static_cast<const char *>(p.buffer) + p.types.mem.offset;
    }
    const MPI_Aint file0 = file_start(order[0]);
    std::vector<int> count(n);
    std::vector<MPI_Aint> fdisp(n), mdisp(n);
    std::vector<MPI_Datatype> ftype(n), mtype(n);
    MPI_Count bytes = 0;
    std::uint64_t fblocks = 0, mblocks = 0;
    bool file_contiguous = true, mem_contiguous = true, mem_monotonic = true;
    MPI_Aint mem_end = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const PiecePair &t = pieces[order[k]].types;
        fdisp[k] = file_start(order[k]) - file0;
        mdisp[k] = MPI_Aint_diff(mem_addr[k], mem_addr[lowest]);
        // Both sides use the same count layout only by accident; each keeps its own.
        ftype[k] = t.file.type;
        mtype[k] = t.mem.type;
        file_contiguous = file_contiguous && t.file.contiguous && fdisp[k] == static_cast<MPI_Aint>(bytes);
        mem_contiguous = mem_contiguous && t.mem.contiguous && mdisp[k] == static_cast<MPI_Aint>(bytes);
        mem_monotonic = mem_monotonic && t.mem.monotonic && (k == 0 || mem_end <= mdisp[k]);
        mem_end = std::max(mem_end, mdisp[k] + t.mem.span);
        bytes += t.file.bytes;
        fblocks += t.file.blocks;
        mblocks += t.mem.blocks;
    }
    const TypeSpec &last = pieces[order[n - 1]].types.file;
    for (std::size_t k = 0; k < n; ++k)
        count[k] = pieces[order[k]].types.file.count;
    out.file = combined_side(file_contiguous, count, fdisp, ftype,
                             {bytes, fdisp[n - 1] + last.span, fblocks, TypeShape::Struct, true});
    out.file.offset = file0;
    for (std::size_t k = 0; k < n; ++k)
        count[k] = pieces[order[k]].types.mem.count;
    out.mem = combined_side(mem_contiguous, count, mdisp, mtype,
                            {bytes, mem_end, mblocks, TypeShape::Struct, mem_monotonic});
    return out;
}

} // namespace mpiio::selection
