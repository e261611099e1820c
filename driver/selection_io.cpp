// read_selection / write_selection: the library's default raw-data path once a driver has
// selection callbacks. Under a collective transfer every rank calls once per operation (count may
// be 0) with all its pieces (datasets of H5Dwrite_multi, or the chunks of a chunked dataset);
// chunkio decides between one collective call over all pieces (linked-chunk, at most one
// file-view change) and a call per piece (multi-chunk), each piece collective or independent.
// Independent transfers never touch the file view and combine requests through the staging buffer.
#include "chunk_knobs.hpp"
#include "dxpl_report.hpp"
#include "error.hpp"
#include "executor.hpp"
#include "file.hpp"
#include "run_io.hpp"
#include "selection_runs.hpp"
#include "transfer_state.hpp"

namespace mpiio {
namespace {

// Moves pieces' runs through the driver's MPI file for the chunk executor.
class RunTransport final : public chunkio::Transport {
public:
    RunTransport(File *file, Direction dir, const std::vector<PieceRuns> &pieces,
                 std::optional<Error> pending)
        : file_(file), dir_(dir), pieces_(pieces), pending_(std::move(pending)) {}

    // Collective. A rank with a pending local error joins the first call with no data.
    void collective(std::span<const std::size_t> which) override {
        std::optional<Error> prep = std::exchange(pending_, std::nullopt);
        std::vector<Run> runs;
        if (!prep)
            prep = capture([&] { runs = gather(which); });
        collective_runs(file_, dir_, runs, prep);
    }

    void independent(std::span<const std::size_t> which) override {
        independent_runs(file_, dir_, gather(which));
    }

private:
    std::vector<Run> gather(std::span<const std::size_t> which) const {
        if (which.size() == 1)
            return pieces_[which.front()].runs;
        std::vector<Run> runs;
        for (std::size_t i : which)
            runs.insert(runs.end(), pieces_[i].runs.begin(), pieces_[i].runs.end());
        sort_and_merge(runs);
        return runs;
    }

    File *file_;
    Direction dir_;
    const std::vector<PieceRuns> &pieces_;
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
    std::vector<PieceRuns> pieces;
    std::optional<Error> prep = capture([&] { pieces = selection_pieces(request); });
    std::vector<std::uint64_t> addresses;
    addresses.reserve(pieces.size());
    for (const PieceRuns &p : pieces)
        addresses.push_back(p.address);
    std::exception_ptr failure = prep ? std::make_exception_ptr(*prep) : nullptr;
    RunTransport transport(file, dir, pieces, prep);
    const chunkio::Report report = chunkio::execute(st.comm.get(), knobs, addresses, transport, failure);
    record(st.stats, report);
    if (report.kind == chunkio::Plan::Kind::Multi)
        report_multi_chunk(dxpl_id, report.independent_chunks == 0  ? H5D_MPIO_CHUNK_COLLECTIVE
                                    : report.collective_chunks == 0 ? H5D_MPIO_CHUNK_INDEPENDENT
                                                                    : H5D_MPIO_CHUNK_MIXED);
}

void selection_io(File *file, Direction dir, hid_t dxpl_id, const SelectionRequest &request) {
    clear_pending_report();
    if (transfer_state::xfer_mode() == H5FD_MPIO_COLLECTIVE)
        collective_selection(file, dir, dxpl_id, request);
    else {
        // A per-file run list: repeated requests reuse its memory instead of faulting in new pages.
        std::vector<Run> &runs = file->state->scratch_runs;
        selection_runs(request, runs);
        independent_runs(file, dir, runs);
        constexpr size_t kKeep = size_t{1} << 20; // runs kept between calls (24 MiB)
        if (runs.capacity() > kKeep)
            std::vector<Run>().swap(runs);
    }
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
