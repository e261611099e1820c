// read_selection / write_selection: the library's default raw-data path once a driver has
// selection callbacks. Under a collective transfer every rank calls once per operation (count may
// be 0) with all its pieces (datasets of H5Dwrite_multi, or the chunks of a chunked dataset);
// chunkio decides between one collective transfer over all pieces (linked-chunk) and a transfer
// per piece (multi-chunk), each piece collective or independent; every collective transfer then
// chooses its own route (collective_transfer.hpp). Independent requests become byte runs moved
// through the staging buffer, never touching the file view.
#include "chunk_knobs.hpp"
#include "executor.hpp"
#include "failed_writes.hpp"
#include "file.hpp"
#include "hdf5_internals.hpp"
#include "selection_transfer.hpp"

#include <algorithm>

namespace mpiio {
namespace {

namespace sel = selection;

// One selection I/O request as the library passes it: `count` pieces, each a file selection at
// file address offsets[i] and a memory selection in bufs[i], of elements of element_sizes[i]
// bytes. A zero element size or NULL buffer repeats the previous entry.
struct SelectionRequest {
    size_t count;
    const hid_t *mem_spaces;
    const hid_t *file_spaces;
    const haddr_t *offsets;
    const size_t *element_sizes;
    char *const *bufs;
};

// Local. The request's pieces with the "0 / NULL repeats the previous entry" conventions
// expanded, into `pieces` (cleared first), in request order.
void expand_pieces(const SelectionRequest &request, std::vector<sel::SelectionPiece> &pieces) {
    pieces.clear();
    size_t element_size = 0;
    char *buf = nullptr;
    bool fixed_size = false, fixed_buf = false;
    for (size_t i = 0; i < request.count; ++i) {
        if (!fixed_size) {
            if (request.element_sizes[i] == 0 && i > 0)
                fixed_size = true;
            else
                element_size = request.element_sizes[i];
        }
        if (!fixed_buf) {
            if (request.bufs[i] == nullptr && i > 0)
                fixed_buf = true;
            else
                buf = request.bufs[i];
        }
        if (element_size == 0 || buf == nullptr)
            throw Error(ErrorKind::Config, "selection I/O request without element size or buffer");
        pieces.push_back(sel::SelectionPiece{request.file_spaces[i], request.mem_spaces[i],
                                             request.offsets[i], element_size, buf});
    }
}

// Moves a request's pieces through the driver's MPI file for the chunk executor. Pieces are
// grouped by file address: the executor's "piece" k is every request piece at addresses()[k].
// Uses the file's scratch containers, so a request of one piece allocates nothing.
class PieceTransport final : public chunkio::Transport {
public:
    // Local. `pieces` is the expanded request (sorted here by address); `pending` a preparation
    // error this rank brings into its first collective transfer.
    PieceTransport(File *file, Direction dir, std::optional<Error> pending)
        : file_(file), st_(*file->state), dir_(dir), pending_(std::move(pending)) {
        auto &pieces = st_.scratch.pieces;
        std::stable_sort(
            pieces.begin(), pieces.end(),
            [](const sel::SelectionPiece &a, const sel::SelectionPiece &b) { return a.addr < b.addr; });
        auto &addresses = st_.scratch.piece_addresses;
        auto &starts = st_.scratch.group_start;
        addresses.clear();
        starts.clear();
        for (size_t i = 0; i < pieces.size(); ++i) {
            if (addresses.empty() || addresses.back() != pieces[i].addr) {
                addresses.push_back(pieces[i].addr);
                starts.push_back(i);
            }
        }
        starts.push_back(pieces.size());
    }

    const std::vector<std::uint64_t> &addresses() const { return st_.scratch.piece_addresses; }

    // Collective. Every piece in one transfer (linked-chunk I/O).
    void collective_all() override { transfer(st_.scratch.pieces); }

    // Collective. The pieces of `groups` (consecutive groups, as the executor passes them).
    void collective(std::span<const std::size_t> groups) override {
        if (groups.empty()) {
            transfer({});
            return;
        }
        const auto &starts = st_.scratch.group_start;
        const std::span<const sel::SelectionPiece> all = st_.scratch.pieces;
        const bool consecutive = std::adjacent_find(groups.begin(), groups.end(), [](size_t a, size_t b) {
                                     return b != a + 1;
                                 }) == groups.end();
        if (consecutive) {
            transfer(all.subspan(starts[groups.front()], starts[groups.back() + 1] - starts[groups.front()]));
            return;
        }
        std::vector<sel::SelectionPiece> gathered;
        for (std::size_t g : groups)
            gathered.insert(gathered.end(), all.begin() + static_cast<std::ptrdiff_t>(starts[g]),
                            all.begin() + static_cast<std::ptrdiff_t>(starts[g + 1]));
        transfer(gathered);
    }

    // Local. Pieces no other rank touches: byte runs, gaps bridged only on a one-rank file.
    void independent(std::span<const std::size_t> groups) override {
        std::vector<sel::SelectionPiece> members;
        for (std::size_t g : groups)
            for (size_t i = st_.scratch.group_start[g]; i < st_.scratch.group_start[g + 1]; ++i)
                members.push_back(st_.scratch.pieces[i]);
        selection_runs(members, st_.scratch.runs);
        if (dir_ == Direction::Write)
            remembering_failed_write(st_,
                                     [&] { independent_runs(file_, dir_, st_.scratch.runs, st_.size == 1); });
        else
            independent_runs(file_, dir_, st_.scratch.runs, false);
    }

private:
    // Collective. One collective transfer of `pieces`; the first one carries a pending error.
    void transfer(std::span<const sel::SelectionPiece> pieces) {
        std::optional<Error> prep = std::exchange(pending_, std::nullopt);
        std::optional<SelectionTransfer> mine;
        if (!prep)
            prep = capture([&] { mine.emplace(pieces, st_); });
        collective_transfer(file_, dir_, mine ? &*mine : nullptr, prep);
    }

    File *file_;
    FileState &st_;
    Direction dir_;
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
    const chunkio::Knobs knobs = chunk_knobs(dxpl_id, st.config);
    std::optional<Error> prep = capture([&] { expand_pieces(request, st.scratch.pieces); });
    if (prep)
        st.scratch.pieces.clear();
    std::exception_ptr failure = prep ? std::make_exception_ptr(*prep) : nullptr;
    PieceTransport transport(file, dir, prep);
    const chunkio::Report report =
        chunkio::execute(st.comm.get(), knobs, transport.addresses(), transport, failure);
    record(st.stats, report);
    if (report.kind == chunkio::Plan::Kind::Multi)
        hdf5_internals::report_multi_chunk(dxpl_id, report.independent_chunks == 0 ? H5D_MPIO_CHUNK_COLLECTIVE
                                                    : report.collective_chunks == 0
                                                        ? H5D_MPIO_CHUNK_INDEPENDENT
                                                        : H5D_MPIO_CHUNK_MIXED);
}

// Local.
void independent_selection(File *file, Direction dir, const SelectionRequest &request) {
    FileState &st = *file->state;
    expand_pieces(request, st.scratch.pieces);
    selection_runs(st.scratch.pieces, st.scratch.runs);
    if (dir == Direction::Write)
        remembering_failed_write(st, [&] { independent_runs(file, dir, st.scratch.runs, st.size == 1); });
    else
        independent_runs(file, dir, st.scratch.runs, false);
}

// Local. Large run lists are not kept between operations (24 MiB at most).
void trim_scratch(Scratch &scratch) {
    constexpr size_t kKeepRuns = size_t{1} << 20;
    if (scratch.runs.capacity() > kKeepRuns)
        std::vector<Run>().swap(scratch.runs);
}

void selection_io(File *file, Direction dir, hid_t dxpl_id, const SelectionRequest &request) {
    hdf5_internals::clear_pending_report();
    if (hdf5_internals::xfer_mode() == H5FD_MPIO_COLLECTIVE)
        collective_selection(file, dir, dxpl_id, request);
    else
        independent_selection(file, dir, request);
    trim_scratch(file->state->scratch);
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
    if (file->state->read_only && hdf5_internals::xfer_mode() != H5FD_MPIO_COLLECTIVE)
        throw Error(ErrorKind::Config, "write to a file opened read-only");
    selection_io(file, Direction::Write, dxpl_id,
                 SelectionRequest{count, mem_spaces, file_spaces, offsets, element_sizes,
                                  const_cast<char *const *>(reinterpret_cast<const char *const *>(bufs))});
}

} // namespace mpiio
