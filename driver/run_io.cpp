// See run_io.hpp. The collective path builds a file view of byte blocks and a memory datatype of
// absolute addresses, so any set of runs is one MPI call; the independent path never changes the
// file view (that would be a collective call) and combines runs through a staging buffer.
#include "run_io.hpp"

#include "byte_types.hpp"
#include "error.hpp"
#include "transfer_state.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>

namespace mpiio {
namespace {

constexpr char kNative[] = "native";
constexpr size_t kMaxBlock = size_t{1} << 30; // MPI block lengths are int: split larger runs

} // namespace

CollectiveRequest request_from_runs(const std::vector<Run> &runs) {
    CollectiveRequest t;
    if (runs.empty())
        return t;
    t.view_disp = static_cast<MPI_Offset>(runs.front().addr);
    if (runs.size() == 1 && runs.front().size <= static_cast<size_t>(INT_MAX)) {
        t.mem_base = runs.front().buf;
        t.mem_count = static_cast<int>(runs.front().size);
        t.bytes = runs.front().size;
        t.end = runs.front().addr + runs.front().size;
        return t;
    }
    std::vector<int> lengths;
    std::vector<MPI_Aint> file_disps, mem_disps;
    lengths.reserve(runs.size());
    file_disps.reserve(runs.size());
    mem_disps.reserve(runs.size());
    for (const Run &r : runs) {
        for (size_t done = 0; done < r.size; done += kMaxBlock) {
            const size_t n = std::min(kMaxBlock, r.size - done);
            MPI_Aint mem_addr = 0;
            check_mpi(MPI_Get_address(r.buf + done, &mem_addr), "MPI_Get_address");
            lengths.push_back(static_cast<int>(n));
            file_disps.push_back(static_cast<MPI_Aint>(r.addr + done - runs.front().addr));
            mem_disps.push_back(mem_addr);
        }
        t.bytes += r.size;
    }
    const int n = static_cast<int>(lengths.size());
    Datatype file_type, mem_type;
    check_mpi(MPI_Type_create_hindexed(n, lengths.data(), file_disps.data(), MPI_BYTE, file_type.out()),
              "MPI_Type_create_hindexed (file)");
    check_mpi(MPI_Type_commit(file_type.ptr()), "MPI_Type_commit");
    check_mpi(MPI_Type_create_hindexed(n, lengths.data(), mem_disps.data(), MPI_BYTE, mem_type.out()),
              "MPI_Type_create_hindexed (memory)");
    check_mpi(MPI_Type_commit(mem_type.ptr()), "MPI_Type_commit");
    t.file_type = std::make_shared<const Datatype>(std::move(file_type));
    t.mem_type = std::make_shared<const Datatype>(std::move(mem_type));
    t.file = t.file_type->get();
    t.mem = t.mem_type->get();
    t.mem_base = MPI_BOTTOM;
    t.mem_count = 1;
    t.end = runs.back().addr + runs.back().size;
    return t;
}

namespace {

MPI_Count elements(const MPI_Status &status, MPI_Datatype type) {
    MPI_Count n = 0;
    check_mpi(MPI_Get_elements_x(&status, type, &n), "MPI_Get_elements_x");
    return n == MPI_UNDEFINED ? 0 : n;
}

} // namespace

size_t independent_transfer(File *file, Direction dir, haddr_t addr, char *buf, size_t bytes) {
    FileState &st = *file->state;
    if (addr == HADDR_UNDEF || addr > static_cast<haddr_t>(std::numeric_limits<MPI_Offset>::max()) - bytes)
        throw Error(ErrorKind::Config, "file address out of range for MPI-IO");
    ByteRun run = byte_run(bytes);
    MPI_Status status{};
    {
        IoTimer timer(st.stats);
        if (dir == Direction::Read)
            check_mpi(
                MPI_File_read_at(file->fh, static_cast<MPI_Offset>(addr), buf, run.count, run.type, &status),
                "MPI_File_read_at");
        else
            check_mpi(
                MPI_File_write_at(file->fh, static_cast<MPI_Offset>(addr), buf, run.count, run.type, &status),
                "MPI_File_write_at");
    }
    const auto moved = static_cast<size_t>(elements(status, run.type));
    if (dir == Direction::Read) {
        ++st.stats.independent_reads;
        st.stats.bytes_read += moved;
        if (moved < bytes)
            std::memset(buf + moved, 0, bytes - moved);
    } else {
        ++st.stats.independent_writes;
        if (moved != bytes)
            throw Error(ErrorKind::Io, "write of " + std::to_string(bytes) + " bytes at address " +
                                           std::to_string(addr) + " transferred only " +
                                           std::to_string(moved));
        st.stats.bytes_written += moved;
        st.eof = std::max<haddr_t>(st.eof, addr + bytes);
    }
    return moved;
}

void sort_and_merge(std::vector<Run> &runs) {
    auto by_addr = [](const Run &a, const Run &b) { return a.addr < b.addr; };
    if (!std::is_sorted(runs.begin(), runs.end(), by_addr))
        std::stable_sort(runs.begin(), runs.end(), by_addr);
    size_t out = 0;
    for (size_t i = 0; i < runs.size(); ++i) {
        if (out > 0) {
            Run &last = runs[out - 1];
            if (last.addr + last.size == runs[i].addr && last.buf + last.size == runs[i].buf) {
                last.size += runs[i].size;
                continue;
            }
        }
        runs[out++] = runs[i];
    }
    runs.resize(out);
}

void collective_runs(File *file, Direction dir, const std::vector<Run> &runs,
                     std::optional<Error> prep_error) {
    CollectiveRequest request;
    if (!prep_error)
        prep_error = capture([&] { request = request_from_runs(runs); });
    collective_transfer(file, dir, prep_error ? CollectiveRequest{} : std::move(request), prep_error);
}

void collective_transfer(File *file, Direction dir, const CollectiveRequest &types,
                         std::optional<Error> prep_error) {
    FileState &st = *file->state;
    const bool collective = transfer_state::collective_opt() == H5FD_MPIO_COLLECTIVE_IO;
    // "Rank 0 reads, the others receive": the library asks for it when every rank reads all of a
    // small contiguous dataset (H5D__mpio_opt_possible), and the built-in driver honours it in
    // read, read_vector and read_selection. It also decides correctness past the physical EOF:
    // there a collective MPI-IO read (ROMIO and OMPIO alike) can report a full count and leave
    // stale bytes, where rank 0's independent read reports the short count that gets zero-filled.
    const bool bcast = dir == Direction::Read && collective && transfer_state::rank0_bcast();
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
        const MPI_Datatype mem = error ? MPI_BYTE : types.mem;
        IoTimer timer(st.stats);
        if (bcast) {
            if (st.rank == 0) {
                check_mpi(MPI_File_read_at(file->fh, 0, base, count, mem, &status),
                          "MPI_File_read_at (rank 0 of read-and-broadcast)");
                moved = elements(status, mem);
            }
            return;
        }
        if (dir == Direction::Read) {
            check_mpi(collective ? MPI_File_read_at_all(file->fh, 0, base, count, mem, &status)
                                 : MPI_File_read_at(file->fh, 0, base, count, mem, &status),
                      collective ? "MPI_File_read_at_all" : "MPI_File_read_at");
        } else {
            check_mpi(collective ? MPI_File_write_at_all(file->fh, 0, base, count, mem, &status)
                                 : MPI_File_write_at(file->fh, 0, base, count, mem, &status),
                      collective ? "MPI_File_write_at_all" : "MPI_File_write_at");
        }
        moved = elements(status, mem);
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

    if (bcast) { // every rank's request is valid and rank 0's read succeeded: share both
        check_mpi(MPI_Bcast(&moved, 1, MPI_COUNT, 0, st.comm.get()), "MPI_Bcast (bytes read)");
        check_mpi(MPI_Bcast(types.mem_base, types.mem_count, types.mem, 0, st.comm.get()),
                  "MPI_Bcast (data)");
        ++st.stats.rank0_bcast_reads;
    } else {
        auto &calls = dir == Direction::Read
                          ? (collective ? st.stats.collective_reads : st.stats.independent_reads)
                          : (collective ? st.stats.collective_writes : st.stats.independent_writes);
        ++calls;
    }
    if (dir == Direction::Read) {
        st.stats.bytes_read += static_cast<uint64_t>(moved);
        zero_fill_after(types.mem_base, types.mem_count, types.mem, static_cast<size_t>(moved), types.bytes);
    } else {
        if (static_cast<size_t>(moved) != types.bytes)
            throw Error(ErrorKind::Io, "collective write transferred " + std::to_string(moved) + " of " +
                                           std::to_string(types.bytes) + " bytes");
        st.stats.bytes_written += types.bytes;
        st.eof = std::max<haddr_t>(st.eof, types.end);
    }
}

void independent_runs(File *file, Direction dir, const std::vector<Run> &runs) {
    FileState &st = *file->state;
    const size_t staging_limit = st.config.staging_buffer;
    // Bridging a gap rewrites bytes this rank does not own: only safe when no other rank writes.
    const size_t gap_limit = (dir == Direction::Read || st.size == 1) ? st.config.sieve_gap : 0;
    std::vector<char> &staging = st.staging; // kept between calls: no fresh pages per request
    size_t i = 0;
    while (i < runs.size()) {
        // Extend a group [i, j) while the next run starts within the gap limit and the span fits.
        size_t j = i + 1;
        haddr_t end = runs[i].addr + runs[i].size;
        bool has_gap = false;
        while (j < runs.size() && runs[j].addr >= end && runs[j].addr - end <= gap_limit &&
               runs[j].addr + runs[j].size - runs[i].addr <= staging_limit) {
            has_gap |= runs[j].addr != end;
            end = runs[j].addr + runs[j].size;
            ++j;
        }
        if (j == i + 1) { // a lone run goes straight from/to the caller's memory
            independent_transfer(file, dir, runs[i].addr, runs[i].buf, runs[i].size);
            i = j;
            continue;
        }
        const haddr_t base = runs[i].addr;
        const size_t span = static_cast<size_t>(end - base);
        if (staging.size() < span)
            staging.resize(span);
        if (dir == Direction::Read || has_gap)
            independent_transfer(file, Direction::Read, base, staging.data(), span);
        if (dir == Direction::Read) {
            for (size_t k = i; k < j; ++k)
                std::memcpy(runs[k].buf, staging.data() + (runs[k].addr - base), runs[k].size);
        } else {
            for (size_t k = i; k < j; ++k)
                std::memcpy(staging.data() + (runs[k].addr - base), runs[k].buf, runs[k].size);
            independent_transfer(file, Direction::Write, base, staging.data(), span);
        }
        i = j;
    }
}

} // namespace mpiio
