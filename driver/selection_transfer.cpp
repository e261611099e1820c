#include "selection_transfer.hpp"

#include "selection/selection.hpp"
#include "sieve_windows.hpp"

#include <algorithm>
#include <climits>
#include <memory>

namespace mpiio {

namespace sel = selection;

namespace {

// Local. `bytes` of working memory for one operation: the file's scratch vector while they fit
// the staging buffer (kept between calls: no fresh pages per request), else a buffer of the
// operation's own in `own`, never zero-filled and gone with the operation (a file keeps no more
// than staging_buffer bytes of it between operations).
char *operation_buffer(std::vector<char> &scratch, size_t bytes, size_t staging_limit,
                       std::unique_ptr<char[]> &own) {
    if (bytes > staging_limit) {
        own = std::make_unique_for_overwrite<char[]>(bytes);
        return own.get();
    }
    if (scratch.size() < bytes)
        scratch.resize(bytes);
    return scratch.data();
}

} // namespace

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
        copy_blocks_ = std::max(c.file.blocks, c.mem.blocks);
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

bool SelectionTransfer::sieve_with_datatypes(Direction dir, bool bridge_write_gaps) const {
    if (runs_built_ || request_.file == MPI_BYTE || request_.bytes > static_cast<size_t>(INT_MAX))
        return false;
    const size_t span = request_.end - static_cast<haddr_t>(request_.view_disp);
    const bool dense = span <= 4 * request_.bytes; // at least a quarter of the range is selected
    if (dir == Direction::Write)                   // rewriting holes needs them to be this rank's alone
        return bridge_write_gaps && dense;
    return dense || span <= st_.config.staging_buffer;
}

// Local. Reads [lo, end) into a buffer, puts the selected bytes between it and memory (by memcpy
// per run for long runs, else by MPI's datatype engine), and for a write writes the whole range
// back (the holes it read rewritten unchanged). A range of long runs larger than the staging
// buffer goes window by window through it. A larger range of short blocks gets a buffer of its
// own: handing short blocks one by one to windows costs several times MPI's engine (cs1d/coll,
// large size, 4-byte blocks in 1 MiB windows under ROMIO: 0.32x / 0.52x the single buffer's rate
// on reads / writes).
void SelectionTransfer::move_sieved(File *file, Direction dir) {
    const auto lo = static_cast<haddr_t>(request_.view_disp);
    const size_t span = request_.end - lo;
    const bool long_runs = request_.bytes >= kRunCopyMinBlock * copy_blocks_; // memcpy, not MPI's engine
    if (long_runs && span > st_.config.staging_buffer) {
        move_sieved_in_windows(file, dir);
        return;
    }
    std::unique_ptr<char[]> own;
    char *buffer = operation_buffer(st_.scratch.staging, span, st_.config.staging_buffer, own);
    independent_bytes(file, Direction::Read, lo, buffer, span);
    if (long_runs) {
        build_runs();
        copy_runs_via_buffer(st_.scratch.runs, buffer, lo, dir);
    } else {
        copy_with_datatypes(buffer, dir);
    }
    if (dir == Direction::Write)
        independent_bytes(file, Direction::Write, lo, buffer, span);
}

// Local. The sieve of a range of long runs in windows of at most staging_buffer bytes
// (sieve_windows.hpp), so that memory stays within the staging buffer however large the range.
// Hyperslabs come in ascending file order straight from the selections, walked in batches; point
// selections may name their points in any order (one window per point would read the buffer's
// size each time), so they go as the request's sorted runs. The walk cannot fail half way:
// building the request's datatypes already read every irregular selection with the same checks.
void SelectionTransfer::move_sieved_in_windows(File *file, Direction dir) {
    const size_t span = request_.end - static_cast<haddr_t>(request_.view_disp);
    SieveWindows windows(file, dir, st_.scratch.staging, std::min<size_t>(st_.config.staging_buffer, span),
                         request_.end);
    const bool points = std::any_of(pieces_.begin(), pieces_.end(), [](const sel::SelectionPiece &p) {
        return sel::query_space(p.file_space, p.element_size).kind == H5S_SEL_POINTS;
    });
    if (points) {
        build_runs();
        for (const Run &r : st_.scratch.runs)
            windows.move(r.addr, r.buf, r.size);
    } else {
        for (const sel::SelectionPiece &piece : pieces_)
            sel::PieceWalk(piece).for_each([&](std::uint64_t addr, char *memory, std::size_t bytes) {
                windows.move(addr, memory, bytes);
            });
    }
    windows.finish();
}

void SelectionTransfer::copy_with_datatypes(char *buffer, Direction dir) {
    const int bytes = static_cast<int>(request_.bytes);
    // A non-contiguous memory side goes through a packed copy.
    const bool packed_memory = request_.mem == MPI_BYTE;
    std::unique_ptr<char[]> own;
    char *contiguous =
        packed_memory ? static_cast<char *>(request_.mem_base)
                      : operation_buffer(st_.scratch.packed, request_.bytes, st_.config.staging_buffer, own);
    int position = 0;
    if (dir == Direction::Read) {
        check_mpi(MPI_Pack(buffer, 1, request_.file, contiguous, bytes, &position, MPI_COMM_SELF),
                  "MPI_Pack (sieved read)");
        if (!packed_memory) {
            position = 0;
            check_mpi(MPI_Unpack(contiguous, bytes, &position, request_.mem_base, request_.mem_count,
                                 request_.mem, MPI_COMM_SELF),
                      "MPI_Unpack (sieved read)");
        }
        return;
    }
    if (!packed_memory) {
        check_mpi(MPI_Pack(request_.mem_base, request_.mem_count, request_.mem, contiguous, bytes, &position,
                           MPI_COMM_SELF),
                  "MPI_Pack (sieved write)");
        position = 0;
    }
    check_mpi(MPI_Unpack(contiguous, bytes, &position, buffer, 1, request_.file, MPI_COMM_SELF),
              "MPI_Unpack (sieved write)");
}

void SelectionTransfer::move_independently(File *file, Direction dir, bool bridge_write_gaps) {
    if (request_.bytes == 0)
        return;
    if (request_.file_contiguous) { // one call, the memory side described by its datatype
        independent_transfer(file, dir, static_cast<haddr_t>(request_.view_disp), request_.mem_base,
                             request_.mem_count, request_.mem, request_.bytes);
        return;
    }
    if (sieve_with_datatypes(dir, bridge_write_gaps)) {
        move_sieved(file, dir);
        return;
    }
    if (!runs_built_)
        build_runs();
    independent_runs(file, dir, st_.scratch.runs, bridge_write_gaps);
}

} // namespace mpiio
