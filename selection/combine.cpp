#include "combine.hpp"

#include "common/error.hpp"
#include "mpi_build.hpp"

#include <algorithm>
#include <string>

namespace mpiio::selection {

namespace {

MPI_Aint file_start(const TypedPiece &p) {
    return static_cast<MPI_Aint>(p.file_address) + p.types.file.offset;
}

const char *mem_start(const TypedPiece &p) {
    return static_cast<const char *>(p.buffer) + p.types.mem.offset;
}

// Local. One side (file or memory) of the combined pieces: contiguous bytes when every piece's
// side continues the previous one, else the struct of the pieces' types at `disp`.
TypeSpec combined_side(bool contiguous, const std::vector<int> &count, const std::vector<MPI_Aint> &disp,
                       const std::vector<MPI_Datatype> &type, const DerivedFacts &facts) {
    if (contiguous)
        return contiguous_spec(0, facts.bytes);
    return derived_spec(struct_any(count, disp, type), facts);
}

} // namespace

CombinedFacts combine_facts(std::span<const TypedPiece> pieces) {
    CombinedFacts f;
    combine_facts(pieces, f);
    return f;
}

void combine_facts(std::span<const TypedPiece> pieces, CombinedFacts &f) {
    std::vector<std::size_t> order = std::move(f.order);
    order.clear();
    f = CombinedFacts{};
    f.order = std::move(order);
    for (std::size_t i = 0; i < pieces.size(); ++i) {
        const TypePair &t = pieces[i].types;
        if (t.file.bytes != t.mem.bytes)
            throw Error(ErrorKind::Selection,
                        "piece " + std::to_string(i) + ": file and memory sizes differ");
        if (t.file.bytes > 0)
            f.order.push_back(i);
    }
    if (f.order.empty())
        return;
    // Chunks arrive in address order almost always: sort only when they do not.
    auto by_file = [&](std::size_t a, std::size_t b) {
        return file_start(pieces[a]) < file_start(pieces[b]);
    };
    if (!std::is_sorted(f.order.begin(), f.order.end(), by_file))
        std::stable_sort(f.order.begin(), f.order.end(), by_file);
    const MPI_Aint file0 = file_start(pieces[f.order.front()]);
    const char *lowest_mem = mem_start(pieces[f.order.front()]);
    const char *mem_next = lowest_mem;
    MPI_Aint file_end = file0;
    for (std::size_t k = 0; k < f.order.size(); ++k) {
        const TypedPiece &p = pieces[f.order[k]];
        const TypePair &t = p.types;
        if (!t.file.monotonic)
            throw Error(ErrorKind::NotMonotonic, "piece file type is not monotonic");
        if (k > 0 && file_end > file_start(p))
            throw Error(ErrorKind::NotMonotonic, "pieces overlap in file order");
        f.file_contiguous = f.file_contiguous && t.file.contiguous && file_start(p) == file0 + f.bytes;
        f.mem_contiguous = f.mem_contiguous && t.mem.contiguous && mem_start(p) == mem_next;
        mem_next = mem_start(p) + t.mem.bytes;
        lowest_mem = std::min(lowest_mem, mem_start(p));
        file_end = file_start(p) + t.file.span;
        f.bytes += t.file.bytes;
        f.file_blocks += t.file.blocks;
        f.mem_blocks += t.mem.blocks;
        f.duplicates = f.duplicates || t.duplicates;
    }
    f.file_offset = file0;
    f.file_span = file_end - file0;
    f.mem_base = lowest_mem;
}

CombinedTypes combined_types(std::span<const TypedPiece> pieces, const CombinedFacts &facts) {
    CombinedTypes out;
    out.pieces = facts.order.size();
    if (facts.order.empty())
        return out;
    if (facts.order.size() == 1) {
        const TypedPiece &p = pieces[facts.order[0]];
        out.file = p.types.file;
        out.file.offset = file_start(p);
        out.mem = p.types.mem;
        out.mem_base = p.buffer;
        return out;
    }
    const std::size_t n = facts.order.size();
    std::vector<MPI_Aint> mem_addr(n);
    for (std::size_t k = 0; k < n; ++k)
        check_mpi(MPI_Get_address(mem_start(pieces[facts.order[k]]), &mem_addr[k]), "MPI_Get_address");
    const MPI_Aint mem_lowest = *std::min_element(mem_addr.begin(), mem_addr.end());
    out.mem_base = facts.mem_base;
    std::vector<int> count(n);
    std::vector<MPI_Aint> fdisp(n), mdisp(n);
    std::vector<MPI_Datatype> ftype(n), mtype(n);
    bool mem_monotonic = true;
    MPI_Aint mem_end = 0;
    for (std::size_t k = 0; k < n; ++k) {
        const TypePair &t = pieces[facts.order[k]].types;
        fdisp[k] = file_start(pieces[facts.order[k]]) - facts.file_offset;
        mdisp[k] = MPI_Aint_diff(mem_addr[k], mem_lowest);
        ftype[k] = t.file.type;
        mtype[k] = t.mem.type;
        mem_monotonic = mem_monotonic && t.mem.monotonic && (k == 0 || mem_end <= mdisp[k]);
        mem_end = std::max(mem_end, mdisp[k] + t.mem.span);
    }
    // Both sides use the same count layout only by accident; each keeps its own.
    for (std::size_t k = 0; k < n; ++k)
        count[k] = pieces[facts.order[k]].types.file.count;
    out.file = combined_side(facts.file_contiguous, count, fdisp, ftype,
                             {facts.bytes, facts.file_span, facts.file_blocks, TypeShape::Struct, true});
    out.file.offset = facts.file_offset;
    for (std::size_t k = 0; k < n; ++k)
        count[k] = pieces[facts.order[k]].types.mem.count;
    out.mem = combined_side(facts.mem_contiguous, count, mdisp, mtype,
                            {facts.bytes, mem_end, facts.mem_blocks, TypeShape::Struct, mem_monotonic});
    return out;
}

CombinedTypes combine_pieces(std::span<const TypedPiece> pieces) {
    return combined_types(pieces, combine_facts(pieces));
}

} // namespace mpiio::selection
