#include "selection_transfer.hpp"

#include "selection/selection.hpp"

namespace mpiio {

namespace sel = selection;

void selection_runs(std::span<const sel::SelectionPiece> pieces, std::vector<Run> &runs) {
    runs.clear();
    bool ordered = true;
    for (const sel::SelectionPiece &p : pieces)
        sel::append_byte_runs(p, runs, ordered);
    if (!ordered) // appending already merged neighbours of an ordered list
        sel::sort_and_merge(runs);
}

SelectionTransfer::SelectionTransfer(std::span<const sel::SelectionPiece> pieces, FileState &st)
    : pieces_(pieces), st_(st) {
    try {
        std::vector<sel::Piece> &typed = st.scratch.typed;
        typed.clear();
        for (const sel::SelectionPiece &p : pieces)
            typed.push_back(
                sel::Piece{static_cast<MPI_Offset>(p.addr), p.buf,
                           sel::build_piece_pair(p.file_space, p.mem_space, p.element_size, &st.type_cache)});
        const sel::CombinedTypes c = sel::combine_pieces(typed);
        typed.clear(); // drop the references to shared types now
        if (c.file.bytes == 0)
            return;
        request_.view_disp = static_cast<MPI_Offset>(c.file.offset);
        request_.file = c.file.type;
        request_.file_type = c.file.owned;
        request_.file_contiguous = c.file.contiguous;
        request_.mem_base = const_cast<char *>(static_cast<const char *>(c.mem_base)) + c.mem.offset;
        request_.mem = c.mem.type;
        request_.mem_type = c.mem.owned;
        request_.mem_count = c.mem.count;
        request_.bytes = static_cast<size_t>(c.mem.bytes);
        request_.end = static_cast<haddr_t>(c.file.offset + c.file.span);
        return;
    } catch (const Error &e) {
        if (e.kind() != ErrorKind::NotMonotonic)
            throw;
    }
    build_runs();
    request_ = request_from_runs(st_.scratch.runs);
}

void SelectionTransfer::build_runs() {
    selection_runs(pieces_, st_.scratch.runs);
    runs_built_ = true;
}

std::pair<std::uint64_t, std::uint64_t> SelectionTransfer::extent() const {
    if (request_.bytes == 0)
        return {0, 0};
    return {static_cast<std::uint64_t>(request_.view_disp), request_.end};
}

void SelectionTransfer::move_independently(File *file, Direction dir, bool bridge_write_gaps) {
    if (request_.bytes == 0)
        return;
    if (request_.file_contiguous) { // one call, the memory side described by its datatype
        independent_transfer(file, dir, static_cast<haddr_t>(request_.view_disp), request_.mem_base,
                             request_.mem_count, request_.mem, request_.bytes);
        return;
    }
    if (!runs_built_)
        build_runs();
    independent_runs(file, dir, st_.scratch.runs, bridge_write_gaps);
}

} // namespace mpiio
