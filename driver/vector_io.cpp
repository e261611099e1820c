// read_vector / write_vector: many (address, size, buffer) requests in one call.
//
// The library uses vectors for collective metadata writes, collective chunk fill, filtered chunk
// I/O and (until the selection callbacks take over) translated selection I/O. Under a collective
// transfer every rank calls exactly once (count may be 0), so the whole vector becomes one
// collective MPI call: requests sorted by address, adjacent ones merged, a file view of byte
// blocks and a memory datatype of absolute addresses. Independent vectors become one
// MPI_File_*_at per run of requests that are contiguous in both the file and memory.
#include "byte_types.hpp"
#include "collective.hpp"
#include "error.hpp"
#include "file.hpp"
#include "transfer_state.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <vector>

namespace mpiio {
namespace {

constexpr char kNative[] = "native";
constexpr size_t kMaxBlock = size_t{1} << 30; // MPI block lengths are int: split larger pieces

struct Piece {
    haddr_t addr;
    size_t size;
    char *buf;
};

// Local. Expands the "size 0 repeats the previous entry" convention, drops empty requests,
// sorts by address and merges requests adjacent in both file and memory.
std::vector<Piece> normalize(uint32_t count, const haddr_t addrs[], const size_t sizes[],
                             char *const bufs[]) {
    std::vector<Piece> pieces;
    pieces.reserve(count);
    size_t size = 0;
    bool fixed_size = false;
    for (uint32_t i = 0; i < count; ++i) {
        if (!fixed_size) {
            if (sizes[i] == 0 && i > 0)
                fixed_size = true; // this and every later entry repeat the previous size
            else
                size = sizes[i];
        }
        if (size == 0)
            continue;
        if (addrs[i] == HADDR_UNDEF ||
            addrs[i] > static_cast<haddr_t>(std::numeric_limits<MPI_Offset>::max()) - size)
            throw Error(ErrorKind::Config, "vector I/O address out of range for MPI-IO");
        pieces.push_back(Piece{addrs[i], size, bufs[i]});
    }
    if (!std::is_sorted(pieces.begin(), pieces.end(),
                        [](const Piece &a, const Piece &b) { return a.addr < b.addr; }))
        std::stable_sort(pieces.begin(), pieces.end(),
                         [](const Piece &a, const Piece &b) { return a.addr < b.addr; });
    std::vector<Piece> merged;
    merged.reserve(pieces.size());
    for (const Piece &p : pieces) {
        if (!merged.empty()) {
            Piece &last = merged.back();
            if (last.addr + last.size == p.addr && last.buf + last.size == p.buf) {
                last.size += p.size;
                continue;
            }
        }
        merged.push_back(p);
    }
    return merged;
}

// The file view and memory datatype describing sorted pieces for one collective call.
struct VectorTypes {
    MPI_Offset view_disp = 0;
    Datatype file_type;
    Datatype mem_type;
    MPI_Datatype file = MPI_BYTE; // MPI_BYTE when a single piece needs no derived type
    MPI_Datatype mem = MPI_BYTE;
    void *mem_base = nullptr;
    int mem_count = 0;
    size_t bytes = 0;
};

VectorTypes build_types(const std::vector<Piece> &pieces) {
    VectorTypes t;
    if (pieces.empty())
        return t;
    t.view_disp = static_cast<MPI_Offset>(pieces.front().addr);
    if (pieces.size() == 1 && pieces.front().size <= static_cast<size_t>(INT_MAX)) {
        t.mem_base = pieces.front().buf;
        t.mem_count = static_cast<int>(pieces.front().size);
        t.bytes = pieces.front().size;
        return t;
    }
    std::vector<int> lengths;
    std::vector<MPI_Aint> file_disps, mem_disps;
    lengths.reserve(pieces.size());
    file_disps.reserve(pieces.size());
    mem_disps.reserve(pieces.size());
    for (const Piece &p : pieces) {
        for (size_t done = 0; done < p.size; done += kMaxBlock) {
            const size_t n = std::min(kMaxBlock, p.size - done);
            MPI_Aint mem_addr = 0;
            check_mpi(MPI_Get_address(p.buf + done, &mem_addr), "MPI_Get_address");
            lengths.push_back(static_cast<int>(n));
            file_disps.push_back(static_cast<MPI_Aint>(p.addr + done - pieces.front().addr));
            mem_disps.push_back(mem_addr);
        }
        t.bytes += p.size;
    }
    const int n = static_cast<int>(lengths.size());
    check_mpi(MPI_Type_create_hindexed(n, lengths.data(), file_disps.data(), MPI_BYTE, t.file_type.out()),
              "MPI_Type_create_hindexed (file)");
    check_mpi(MPI_Type_commit(t.file_type.ptr()), "MPI_Type_commit");
    check_mpi(MPI_Type_create_hindexed(n, lengths.data(), mem_disps.data(), MPI_BYTE, t.mem_type.out()),
              "MPI_Type_create_hindexed (memory)");
    check_mpi(MPI_Type_commit(t.mem_type.ptr()), "MPI_Type_commit");
    t.file = t.file_type.get();
    t.mem = t.mem_type.get();
    t.mem_base = MPI_BOTTOM;
    t.mem_count = 1;
    return t;
}

// Local. Zeroes what a short read left unread: the tail of the pieces in address order.
void zero_unread(const std::vector<Piece> &pieces, size_t got) {
    for (const Piece &p : pieces) {
        if (got >= p.size) {
            got -= p.size;
            continue;
        }
        std::memset(p.buf + got, 0, p.size - got);
        got = 0;
    }
}

MPI_Count elements(const MPI_Status &status, MPI_Datatype type) {
    MPI_Count n = 0;
    check_mpi(MPI_Get_elements_x(&status, type, &n), "MPI_Get_elements_x");
    return n == MPI_UNDEFINED ? 0 : n;
}

enum class Direction { Read, Write };

// Collective. One MPI_File_{read,write}_at_all (or the individual variant when the library's
// collective option says INDIVIDUAL_IO) under a file view built from the pieces.
void collective_vector(File *file, Direction dir, const std::vector<Piece> *pieces_or_null,
                       std::optional<Error> prep_error) {
    FileState &st = *file->state;
    static const std::vector<Piece> kNone;
    const std::vector<Piece> &pieces = prep_error ? kNone : *pieces_or_null;
    VectorTypes types;
    if (!prep_error)
        prep_error = capture([&] { types = build_types(pieces); });
    const bool collective = transfer_state::collective_opt() == H5FD_MPIO_COLLECTIVE_IO;
    std::optional<Error> error = prep_error;
    auto view_error = capture([&] {
        check_mpi(MPI_File_set_view(file->fh, error ? 0 : types.view_disp, MPI_BYTE,
                                    error ? MPI_BYTE : types.file, kNative, st.info.get()),
                  "MPI_File_set_view");
    });
    if (!error)
        error = view_error;
    MPI_Count moved = 0;
    auto io_error = capture([&] {
        MPI_Status status{};
        const int count = error ? 0 : types.mem_count;
        void *base = error ? nullptr : types.mem_base;
        IoTimer timer(st.stats);
        if (dir == Direction::Read) {
            check_mpi(collective ? MPI_File_read_at_all(file->fh, 0, base, count, types.mem, &status)
                                 : MPI_File_read_at(file->fh, 0, base, count, types.mem, &status),
                      collective ? "MPI_File_read_at_all" : "MPI_File_read_at");
        } else {
            check_mpi(collective ? MPI_File_write_at_all(file->fh, 0, base, count, types.mem, &status)
                                 : MPI_File_write_at(file->fh, 0, base, count, types.mem, &status),
                      collective ? "MPI_File_write_at_all" : "MPI_File_write_at");
        }
        moved = elements(status, types.mem);
    });
    if (!error)
        error = io_error;
    auto reset_error = capture([&] {
        check_mpi(MPI_File_set_view(file->fh, 0, MPI_BYTE, MPI_BYTE, kNative, st.info.get()),
                  "MPI_File_set_view (reset)");
    });
    if (!error)
        error = reset_error;
    if (dir == Direction::Write && collective && st.sync_after_collective_write) {
        auto sync_error = capture([&] {
            check_mpi(MPI_File_sync(file->fh), "MPI_File_sync");
            ++st.stats.syncs;
        });
        if (!error)
            error = sync_error;
    }
    agree(st.comm.get(), error);

    auto &calls = dir == Direction::Read
                      ? (collective ? st.stats.collective_reads : st.stats.independent_reads)
                      : (collective ? st.stats.collective_writes : st.stats.independent_writes);
    ++calls;
    if (dir == Direction::Read) {
        st.stats.bytes_read += static_cast<uint64_t>(moved);
        zero_unread(pieces, static_cast<size_t>(moved));
    } else {
        if (static_cast<size_t>(moved) != types.bytes)
            throw Error(ErrorKind::Io, "collective vector write transferred " + std::to_string(moved) +
                                           " of " + std::to_string(types.bytes) + " bytes");
        st.stats.bytes_written += types.bytes;
        if (!pieces.empty())
            st.eof = std::max<haddr_t>(st.eof, pieces.back().addr + pieces.back().size);
    }
}

// Local. One independent MPI call per merged piece.
void independent_vector(File *file, Direction dir, const std::vector<Piece> &pieces) {
    FileState &st = *file->state;
    for (const Piece &p : pieces) {
        ByteRun run = byte_run(p.size);
        MPI_Status status{};
        {
            IoTimer timer(st.stats);
            if (dir == Direction::Read)
                check_mpi(MPI_File_read_at(file->fh, static_cast<MPI_Offset>(p.addr), p.buf, run.count,
                                           run.type, &status),
                          "MPI_File_read_at");
            else
                check_mpi(MPI_File_write_at(file->fh, static_cast<MPI_Offset>(p.addr), p.buf, run.count,
                                            run.type, &status),
                          "MPI_File_write_at");
        }
        const auto moved = static_cast<size_t>(elements(status, run.type));
        if (dir == Direction::Read) {
            ++st.stats.independent_reads;
            st.stats.bytes_read += moved;
            if (moved < p.size)
                std::memset(p.buf + moved, 0, p.size - moved);
        } else {
            ++st.stats.independent_writes;
            if (moved != p.size)
                throw Error(ErrorKind::Io, "write of " + std::to_string(p.size) + " bytes at address " +
                                               std::to_string(p.addr) + " transferred only " +
                                               std::to_string(moved));
            st.stats.bytes_written += moved;
            st.eof = std::max<haddr_t>(st.eof, p.addr + p.size);
        }
    }
}

void vector_io(File *file, Direction dir, uint32_t count, const haddr_t addrs[], const size_t sizes[],
               char *const bufs[]) {
    FileState &st = *file->state;
    ++st.stats.vector_calls;
    if (transfer_state::xfer_mode() == H5FD_MPIO_COLLECTIVE) {
        if (dir == Direction::Write)
            extend_before_collective_write(file);
        std::vector<Piece> pieces;
        auto prep_error = capture([&] { pieces = normalize(count, addrs, sizes, bufs); });
        collective_vector(file, dir, &pieces, prep_error);
    } else {
        independent_vector(file, dir, normalize(count, addrs, sizes, bufs));
    }
}

} // namespace

void read_vector(File *file, uint32_t count, const H5FD_mem_t[], const haddr_t addrs[], const size_t sizes[],
                 void *bufs[]) {
    vector_io(file, Direction::Read, count, addrs, sizes, reinterpret_cast<char *const *>(bufs));
}

void write_vector(File *file, uint32_t count, const H5FD_mem_t[], const haddr_t addrs[], const size_t sizes[],
                  const void *bufs[]) {
    if (file->state->read_only && transfer_state::xfer_mode() != H5FD_MPIO_COLLECTIVE)
        throw Error(ErrorKind::Config, "write to a file opened read-only");
    vector_io(file, Direction::Write, count, addrs, sizes,
              const_cast<char *const *>(reinterpret_cast<const char *const *>(bufs)));
}

} // namespace mpiio
