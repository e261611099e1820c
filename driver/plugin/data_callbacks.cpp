// The data callbacks: each turns its arguments into one IoRequest (request.hpp) and hands it to
// the collective engine when the library's transfer mode is collective, to the independent engine
// otherwise. Every callback reads top to bottom, as in HDF5's H5FDmpio.c.
//
// The transfer mode comes from the library's API context (hdf5_internals::xfer_mode), never from
// the DXPL: the library switches modes only there (docs/hdf5-facts.md section 3).
#include "plugin/data_callbacks.hpp"

#include "chunkio/plan.hpp"
#include "file/file.hpp"
#include "hdf5/chunk_knobs.hpp"
#include "hdf5/hdf5_internals.hpp"
#include "plugin/error_stack.hpp"

#include <algorithm>
#include <utility>

namespace mpiio {
namespace {

namespace sel = selection;

bool collective_mode() { return hdf5_internals::xfer_mode() == H5FD_MPIO_COLLECTIVE; }

// Local. Independent writes to a read-only file are refused here; under a collective transfer the
// collective engine refuses them on every rank together.
void check_writable(const FileState &st) {
    if (st.read_only)
        throw Error(ErrorKind::Config, "write to a file opened read-only");
}

// Collective. The request `build` makes, as this rank's part of a collective transfer; a rank whose
// request fails to build still joins, with nothing, and every rank fails.
template <class Build> void collective(File *file, Direction dir, Build &&build) {
    IoRequest request;
    std::optional<Error> prep = capture([&] { request = build(); });
    file->state->collective.transfer(request, dir, std::move(prep));
}

// Local. A rank's own transfer. Reads may read across holes; writes bridge holes only on a file
// of one rank (another rank may be writing there now), and a failed write is remembered for the
// file's next collective step (failed_writes.hpp).
void independent(File *file, Direction dir, IoRequest &request) {
    FileState &st = *file->state;
    st.collective.before_independent(request, dir == Direction::Write);
    if (dir == Direction::Read) {
        st.independent.move(request, dir, true);
        return;
    }
    // A file of one rank: its holes are its own, and so is the file's written end.
    st.failed_writes.run([&] {
        st.independent.move(request, dir, st.size == 1, st.size == 1 ? st.io.written_end() : HADDR_MAX);
    });
}

// --- read / write ---------------------------------------------------------------------------------
// The rule is the built-in driver's (H5FDmpio.c), the contract the library was tested against:
// when the library's transfer mode is COLLECTIVE (and, for reads, the request is raw data), `size`
// is a COUNT of the memory datatype the library put in its API context, the file datatype there
// describes the file layout from `addr`, and every rank joins one collective transfer. Otherwise
// `size` is a byte count and the transfer is independent - never a collective call, because
// metadata reads are often made by rank 0 alone.

// Local. One contiguous block moved by this rank alone (every metadata read, and raw data outside
// collective mode): straight to MpiIo, which is what the independent engine's OneCall strategy
// does for one block, without building a request (a file open reads its metadata this way: the
// fewer instructions and cache lines there, the cheaper H5Fopen is).
void read_block(FileState &st, haddr_t addr, size_t size, void *buf) {
    if (size == 0)
        return;
    st.collective.before_independent(addr, addr + size, false);
    IoTimer timer = st.io.timer();
    st.io.read_bytes(addr, static_cast<char *>(buf), size);
}

void write_block(FileState &st, haddr_t addr, size_t size, const char *data) {
    if (size == 0)
        return;
    st.collective.before_independent(addr, addr + size, true);
    st.failed_writes.run([&] {
        IoTimer timer = st.io.timer();
        st.io.write_bytes(addr, data, size);
    });
}

void read_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, void *buf) {
    if (type == H5FD_MEM_DRAW && collective_mode()) {
        collective(file, Direction::Read, [&] { return IoRequest::library_types(addr, size, buf); });
        return;
    }
    read_block(*file->state, addr, size, buf);
}

void write_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, const void *buf) {
    char *data = const_cast<char *>(static_cast<const char *>(buf)); // MPI takes void*: never written
    if (collective_mode()) {
        if (hdf5_internals::collective_opt() != H5FD_MPIO_COLLECTIVE_IO && type != H5FD_MEM_DRAW)
            throw Error(ErrorKind::Internal,
                        "metadata write with individual I/O under a collective transfer");
        collective(file, Direction::Write, [&] { return IoRequest::library_types(addr, size, data); });
        return;
    }
    check_writable(*file->state);
    write_block(*file->state, addr, size, data);
}

// --- read_vector / write_vector ----------------------------------------------------------------------
// The library uses vectors for collective metadata writes, collective chunk fill and filtered chunk
// I/O. Under a collective transfer every rank calls exactly once (count may be 0): the whole vector
// is one collective transfer.

// Local. Whether a vector holds the library's metadata: the metadata cache's flush gives each entry
// its own type (a global heap as raw data), while the raw-data vectors (collective chunk fill,
// filtered chunks) are H5FD_MEM_DRAW throughout. H5FD_MEM_NOLIST repeats the type before it.
bool holds_metadata(uint32_t count, const H5FD_mem_t types[]) {
    for (uint32_t i = 0; i < count && types[i] != H5FD_MEM_NOLIST; ++i)
        if (types[i] != H5FD_MEM_DRAW)
            return true;
    return false;
}

void vector_io(File *file, Direction dir, uint32_t count, const H5FD_mem_t types[], const haddr_t addrs[],
               const size_t sizes[], char *const bufs[]) {
    FileState &st = *file->state;
    st.io.count_vector_call();
    const bool metadata = dir == Direction::Write && holds_metadata(count, types);
    if (collective_mode()) {
        collective(file, dir, [&] { return st.requests.vector(count, addrs, sizes, bufs, metadata); });
        return;
    }
    if (dir == Direction::Write)
        check_writable(st);
    IoRequest request = st.requests.vector(count, addrs, sizes, bufs, metadata);
    independent(file, dir, request);
}

// --- read_selection / write_selection -----------------------------------------------------------------
// The library's default raw-data path once a driver has selection callbacks. Under a collective
// transfer every rank calls once per operation (count may be 0) with all its pieces (the datasets
// of H5Dwrite_multi, or the chunks of a chunked dataset); chunkio plans one collective transfer
// over all pieces (linked-chunk) or a transfer per chunk (multi-chunk), each chunk collective or
// independent, and the steps run here.

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

// Local. The request's pieces with the "0 / NULL repeats the previous entry" conventions expanded,
// into `pieces` (cleared first), sorted by file address (stable).
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
    auto by_addr = [](const sel::SelectionPiece &a, const sel::SelectionPiece &b) { return a.addr < b.addr; };
    if (!std::is_sorted(pieces.begin(), pieces.end(), by_addr))
        std::stable_sort(pieces.begin(), pieces.end(), by_addr);
}

// The chunks of a request: pieces with the same file address form one (chunkio's "piece").
struct Chunks {
    std::vector<std::uint64_t> addresses; // distinct, ascending
    std::vector<std::size_t> start;       // first piece of each address, then pieces.size()
};

Chunks chunks_of(const std::vector<sel::SelectionPiece> &pieces) {
    Chunks c;
    for (size_t i = 0; i < pieces.size(); ++i) {
        if (c.addresses.empty() || c.addresses.back() != pieces[i].addr) {
            c.addresses.push_back(pieces[i].addr);
            c.start.push_back(i);
        }
    }
    c.start.push_back(pieces.size());
    return c;
}

// Collective. Runs chunkio's plan; a rank's error (a failed preparation, a failed independent
// chunk) is carried into the next collective step, where every rank fails with it, or into a
// closing agreement when no collective step follows.
void collective_selection(File *file, Direction dir, hid_t dxpl_id, const SelectionRequest &request) {
    FileState &st = *file->state;
    const chunkio::Knobs knobs = chunk_knobs(dxpl_id, st.config);
    std::vector<sel::SelectionPiece> &pieces = st.pieces;
    std::optional<Error> pending = capture([&] { expand_pieces(request, pieces); });
    if (pending)
        pieces.clear();
    const Chunks chunks = chunks_of(pieces);
    const std::span<const sel::SelectionPiece> all = pieces;
    auto chunk_pieces = [&](std::size_t k) {
        return all.subspan(chunks.start[k], chunks.start[k + 1] - chunks.start[k]);
    };
    const chunkio::ChunkPlan plan = chunkio::plan_chunk_io(st.comm.get(), knobs, chunks.addresses);
    for (const chunkio::Step &step : plan.steps) {
        switch (step.kind) {
        case chunkio::Step::Kind::CollectiveAll:
        case chunkio::Step::Kind::CollectiveOne: {
            const bool one = step.kind == chunkio::Step::Kind::CollectiveOne;
            const std::span<const sel::SelectionPiece> mine = !one ? all
                                                              : step.piece == chunkio::kNoPiece
                                                                  ? std::span<const sel::SelectionPiece>{}
                                                                  : chunk_pieces(step.piece);
            collective(file, dir, [&] {
                if (pending)
                    throw *std::exchange(pending, std::nullopt);
                return st.requests.selection(mine, st.type_cache);
            });
            break;
        }
        case chunkio::Step::Kind::Independent:
            if (pending || step.pieces.empty())
                break;
            pending = capture([&] {
                std::vector<sel::SelectionPiece> members;
                for (std::size_t k : step.pieces) {
                    const auto chunk = chunk_pieces(k);
                    members.insert(members.end(), chunk.begin(), chunk.end());
                }
                IoRequest r = st.requests.selection(members, st.type_cache);
                independent(file, dir, r);
            });
            break;
        }
    }
    if (!plan.collective_after_independent())
        agree(st.comm.get(), std::exchange(pending, std::nullopt));
    st.io.count_chunk_plan(plan.kind == chunkio::Plan::Kind::Linked, plan.collective_chunks,
                           plan.independent_chunks);
    if (plan.kind == chunkio::Plan::Kind::Multi)
        hdf5_internals::report_multi_chunk(dxpl_id, plan.independent_chunks == 0  ? H5D_MPIO_CHUNK_COLLECTIVE
                                                    : plan.collective_chunks == 0 ? H5D_MPIO_CHUNK_INDEPENDENT
                                                                                  : H5D_MPIO_CHUNK_MIXED);
}

void selection_io(File *file, Direction dir, hid_t dxpl_id, const SelectionRequest &request) {
    FileState &st = *file->state;
    hdf5_internals::clear_pending_report();
    if (collective_mode()) {
        collective_selection(file, dir, dxpl_id, request);
    } else {
        if (dir == Direction::Write)
            check_writable(st);
        expand_pieces(request, st.pieces);
        IoRequest r = st.requests.selection(st.pieces, st.type_cache, true);
        independent(file, dir, r);
    }
    st.requests.trim();
    st.independent.trim();
}

} // namespace

herr_t cb_read(H5FD_t *f, H5FD_mem_t type, hid_t, haddr_t addr, size_t size, void *buf) {
    return guarded("mpiio read", [&] { read_scalar(settled(f), type, addr, size, buf); }) ? 0 : -1;
}

herr_t cb_write(H5FD_t *f, H5FD_mem_t type, hid_t, haddr_t addr, size_t size, const void *buf) {
    return guarded("mpiio write", [&] { write_scalar(settled(f), type, addr, size, buf); }) ? 0 : -1;
}

herr_t cb_read_vector(H5FD_t *f, hid_t, uint32_t count, H5FD_mem_t types[], haddr_t addrs[], size_t sizes[],
                      void *bufs[]) {
    return guarded("mpiio read_vector",
                   [&] {
                       vector_io(settled(f), Direction::Read, count, types, addrs, sizes,
                                 reinterpret_cast<char *const *>(bufs));
                   })
               ? 0
               : -1;
}

herr_t cb_write_vector(H5FD_t *f, hid_t, uint32_t count, H5FD_mem_t types[], haddr_t addrs[], size_t sizes[],
                       const void *bufs[]) {
    return guarded("mpiio write_vector",
                   [&] {
                       vector_io(settled(f), Direction::Write, count, types, addrs, sizes,
                                 const_cast<char *const *>(reinterpret_cast<const char *const *>(bufs)));
                   })
               ? 0
               : -1;
}

// The dataspace ids belong to the library: never closed or kept.
herr_t cb_read_selection(H5FD_t *f, H5FD_mem_t, hid_t dxpl_id, size_t count, hid_t mem_spaces[],
                         hid_t file_spaces[], haddr_t offsets[], size_t element_sizes[], void *bufs[]) {
    return guarded("mpiio read_selection",
                   [&] {
                       selection_io(settled(f), Direction::Read, dxpl_id,
                                    SelectionRequest{count, mem_spaces, file_spaces, offsets, element_sizes,
                                                     reinterpret_cast<char *const *>(bufs)});
                   })
               ? 0
               : -1;
}

herr_t cb_write_selection(H5FD_t *f, H5FD_mem_t, hid_t dxpl_id, size_t count, hid_t mem_spaces[],
                          hid_t file_spaces[], haddr_t offsets[], size_t element_sizes[],
                          const void *bufs[]) {
    return guarded("mpiio write_selection",
                   [&] {
                       selection_io(settled(f), Direction::Write, dxpl_id,
                                    SelectionRequest{count, mem_spaces, file_spaces, offsets, element_sizes,
                                                     const_cast<char *const *>(
                                                         reinterpret_cast<const char *const *>(bufs))});
                   })
               ? 0
               : -1;
}

} // namespace mpiio
