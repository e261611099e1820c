// read_selection / write_selection: the library's default raw-data path once a driver has
// selection callbacks. Under a collective transfer every rank calls once per operation (count may
// be 0) with all its pieces (datasets of H5Dwrite_multi, or the chunks of a chunked dataset);
// chunkio decides between one collective call over all pieces (linked-chunk, at most one
// file-view change) and a call per piece (multi-chunk), each piece collective or independent.
// Collective calls describe the pieces with selection/'s derived datatypes (vectors for regular
// hyperslabs, cached by shape); independent transfers use byte runs through the staging buffer
// and never touch the file view.
#include "chunk_knobs.hpp"
#include "dxpl_report.hpp"
#include "error.hpp"
#include "executor.hpp"
#include "file.hpp"
#include "run_io.hpp"
#include "selection/selection.hpp"
#include "selection_runs.hpp"
#include "transfer_state.hpp"

#include <algorithm>

namespace mpiio {
namespace {

namespace sel = selection;

// Local. One rank's part of a collective transfer of `pieces`, from selection/'s types; falls back
// to byte runs when the pieces cannot form one monotonic file type (overlapping or interleaved
// pieces, duplicate points). Each rank chooses alone: both end in the same collective calls.
CollectiveRequest collective_request(const std::vector<const RequestPiece *> &pieces, sel::TypeCache &cache) {
    try {
        std::vector<sel::Piece> typed;
        typed.reserve(pieces.size());
        for (const RequestPiece *p : pieces)
            typed.push_back(
                sel::Piece{static_cast<MPI_Offset>(p->offset), p->buf,
                           sel::build_piece_pair(p->file_space, p->mem_space, p->element_size, &cache)});
        const sel::CombinedTypes c = sel::combine_pieces(typed);
        CollectiveRequest r;
        if (c.file.bytes == 0)
            return r;
        r.view_disp = static_cast<MPI_Offset>(c.file.offset);
        r.file = c.file.type;
        r.file_type = c.file.owned;
        r.mem_base = const_cast<char *>(static_cast<const char *>(c.mem_base)) + c.mem.offset;
        r.mem = c.mem.type;
        r.mem_type = c.mem.owned;
        r.mem_count = c.mem.count;
        r.bytes = static_cast<size_t>(c.mem.bytes);
        r.end = static_cast<haddr_t>(c.file.offset + c.file.span);
        return r;
    } catch (const sel::Error &e) {
        if (e.kind() != sel::ErrorKind::NotMonotonic)
            throw Error(ErrorKind::Internal,
                        std::string("building MPI datatypes for a selection: ") + e.what());
    }
    std::vector<Run> runs;
    bool ordered = true;
    for (const RequestPiece *p : pieces)
        append_runs(*p, runs, ordered);
    sort_and_merge(runs);
    return request_from_runs(runs);
}

// Moves a request's pieces through the driver's MPI file for the chunk executor. Pieces are
// grouped by file address: the executor's "piece" k is every request piece at addresses()[k].
class PieceTransport final : public chunkio::Transport {
public:
    PieceTransport(File *file, Direction dir, std::vector<RequestPiece> pieces, std::optional<Error> pending)
        : file_(file), dir_(dir), pieces_(std::move(pieces)), pending_(std::move(pending)) {
        std::stable_sort(pieces_.begin(), pieces_.end(),
                         [](const RequestPiece &a, const RequestPiece &b) { return a.offset < b.offset; });
        for (size_t i = 0; i < pieces_.size(); ++i) {
            if (addresses_.empty() || addresses_.back() != pieces_[i].offset) {
                addresses_.push_back(pieces_[i].offset);
                group_start_.push_back(i);
            }
        }
        group_start_.push_back(pieces_.size());
    }

    const std::vector<std::uint64_t> &addresses() const { return addresses_; }

    // Collective. A rank with a pending local error joins the first call with no data.
    void collective(std::span<const std::size_t> groups) override {
        std::optional<Error> prep = std::exchange(pending_, std::nullopt);
        CollectiveRequest request;
        if (!prep)
            prep = capture([&] { request = collective_request(members(groups), file_->state->type_cache); });
        collective_transfer(file_, dir_, prep ? CollectiveRequest{} : request, prep);
    }

    // Local.
    void independent(std::span<const std::size_t> groups) override {
        std::vector<Run> runs;
        bool ordered = true;
        for (const RequestPiece *p : members(groups))
            append_runs(*p, runs, ordered);
        if (!ordered)
            sort_and_merge(runs);
        independent_runs(file_, dir_, runs);
    }

private:
    std::vector<const RequestPiece *> members(std::span<const std::size_t> groups) const {
        std::vector<const RequestPiece *> out;
        for (std::size_t g : groups)
            for (size_t i = group_start_[g]; i < group_start_[g + 1]; ++i)
                out.push_back(&pieces_[i]);
        return out;
    }

    File *file_;
    Direction dir_;
    std::vector<RequestPiece> pieces_; // sorted by file address
    std::vector<std::uint64_t> addresses_;
    std::vector<size_t> group_start_;
    std::optional<Error> pending_;
};

void record(Stats &stats, const chunkio::Report &report) {
    if (report.kind == chunkio::Plan::Kind::Linked) {
        ++stats.linked_chunk_ops;
    } else {
        ++stats.multi_chunk_ops;
        stats.collective_chunks += report.collective_chunks;
        stats.independent_chunks += report.independent_chunks;
    }
}

// Collective.
void collective_selection(File *file, Direction dir, hid_t dxpl_id, const SelectionRequest &request) {
    FileState &st = *file->state;
    if (dir == Direction::Write)
        extend_before_collective_write(file);
    const chunkio::Knobs knobs = chunk_knobs(dxpl_id, st.config);
    std::vector<RequestPiece> pieces;
    std::optional<Error> prep = capture([&] { pieces = expand_pieces(request); });
    std::exception_ptr failure = prep ? std::make_exception_ptr(*prep) : nullptr;
    PieceTransport transport(file, dir, std::move(pieces), prep);
    const chunkio::Report report =
        chunkio::execute(st.comm.get(), knobs, transport.addresses(), transport, failure);
    record(st.stats, report);
    if (report.kind == chunkio::Plan::Kind::Multi)
        report_multi_chunk(dxpl_id, report.independent_chunks == 0  ? H5D_MPIO_CHUNK_COLLECTIVE
                                    : report.collective_chunks == 0 ? H5D_MPIO_CHUNK_INDEPENDENT
                                                                    : H5D_MPIO_CHUNK_MIXED);
}

// Local.
void independent_selection(File *file, Direction dir, const SelectionRequest &request) {
    // A per-file run list: repeated requests reuse its memory instead of faulting in new pages.
    std::vector<Run> &runs = file->state->scratch_runs;
    selection_runs(request, runs);
    independent_runs(file, dir, runs);
    constexpr size_t kKeep = size_t{1} << 20; // runs kept between calls (24 MiB)
    if (runs.capacity() > kKeep)
        std::vector<Run>().swap(runs);
}

void selection_io(File *file, Direction dir, hid_t dxpl_id, const SelectionRequest &request) {
    clear_pending_report();
    if (transfer_state::xfer_mode() == H5FD_MPIO_COLLECTIVE)
        collective_selection(file, dir, dxpl_id, request);
    else
        independent_selection(file, dir, request);
}

} // namespace

void read_selection(File *file, hid_t dxpl_id, size_t count, const hid_t mem_spaces[],
                    const hid_t file_spaces[], const haddr_t offsets[], const size_t element_sizes[],
                    void *bufs[]) {
    selection_io(file, Direction::Read, dxpl_id,
                 SelectionRequest{count, mem_spaces, file_spaces, offsets, element_sizes,
                                  reinterpret_cast<char *const *>(bufs)});
}

void write_selection(File *file, hid_t dxpl_id, size_t count, const hid_t mem_spaces[],
                     const hid_t file_spaces[], const haddr_t offsets[], const size_t element_sizes[],
                     const void *bufs[]) {
    if (file->state->read_only && transfer_state::xfer_mode() != H5FD_MPIO_COLLECTIVE)
        throw Error(ErrorKind::Config, "write to a file opened read-only");
    selection_io(file, Direction::Write, dxpl_id,
                 SelectionRequest{count, mem_spaces, file_spaces, offsets, element_sizes,
                                  const_cast<char *const *>(reinterpret_cast<const char *const *>(bufs))});
}

} // namespace mpiio
