// See run_io.hpp.
#include "run_io.hpp"

#include "selection/mpi_build.hpp"
#include "view_writer.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <optional>

namespace mpiio {
namespace {

// Local. The bytes a call moved, in items of `type` (bytes for MPI_BYTE, which MPI_Get_count
// answers with less work than MPI_Get_elements_x).
MPI_Count elements(const MPI_Status &status, MPI_Datatype type) {
    if (type == MPI_BYTE) {
        int n = 0;
        check_mpi(MPI_Get_count(&status, MPI_BYTE, &n), "MPI_Get_count");
        return n == MPI_UNDEFINED ? 0 : n;
    }
    MPI_Count n = 0;
    check_mpi(MPI_Get_elements_x(&status, type, &n), "MPI_Get_elements_x");
    return n == MPI_UNDEFINED ? 0 : n;
}

// Local. The MPI call, statistics and short-write check shared by the two entry points; returns
// the bytes moved (a read may move fewer: the caller zero-fills).
size_t move_at(File *file, Direction dir, haddr_t addr, void *buf, int count, MPI_Datatype mem_type,
               size_t bytes) {
    FileState &st = *file->state;
    if (addr == HADDR_UNDEF || addr > static_cast<haddr_t>(std::numeric_limits<MPI_Offset>::max()) - bytes)
        throw Error(ErrorKind::Config, "file address out of range for MPI-IO");
    MPI_Status status{};
    {
        IoTimer timer(st.stats, st.io_timer_running);
        const auto offset = static_cast<MPI_Offset>(addr);
        if (dir == Direction::Read)
            check_mpi(MPI_File_read_at(file->fh, offset, buf, count, mem_type, &status), "MPI_File_read_at");
        else
            check_mpi(MPI_File_write_at(file->fh, offset, buf, count, mem_type, &status),
                      "MPI_File_write_at");
    }
    const auto moved = static_cast<size_t>(elements(status, mem_type));
    if (dir == Direction::Read) {
        ++st.stats.independent_reads;
        st.stats.bytes_read += moved;
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

} // namespace

size_t independent_transfer(File *file, Direction dir, haddr_t addr, void *buf, int count,
                            MPI_Datatype mem_type, size_t bytes) {
    const size_t moved = move_at(file, dir, addr, buf, count, mem_type, bytes);
    if (dir == Direction::Read)
        zero_fill_after(buf, count, mem_type, moved, bytes);
    return moved;
}

size_t independent_bytes(File *file, Direction dir, haddr_t addr, char *buf, size_t bytes) {
    size_t moved = 0;
    if (bytes <= static_cast<size_t>(INT_MAX)) {
        moved = move_at(file, dir, addr, buf, static_cast<int>(bytes), MPI_BYTE, bytes);
    } else { // MPI counts are int: larger ranges go as one derived type of 1 GiB blocks
        const selection::TypeSpec run = selection::contiguous_spec(0, static_cast<MPI_Count>(bytes));
        moved = move_at(file, dir, addr, buf, run.count, run.type, bytes);
    }
    if (dir == Direction::Read && moved < bytes)
        std::memset(buf + moved, 0, bytes - moved);
    return moved;
}

void copy_runs_via_buffer(std::span<const Run> runs, char *buffer, haddr_t base, Direction dir) {
    for (const Run &r : runs) {
        char *in_buffer = buffer + (r.addr - base);
        if (dir == Direction::Read)
            std::memcpy(r.buf, in_buffer, r.size);
        else
            std::memcpy(in_buffer, r.buf, r.size);
    }
}

void independent_runs(File *file, Direction dir, const std::vector<Run> &runs, bool bridge_write_gaps) {
    FileState &st = *file->state;
    const size_t staging_limit = st.config.staging_buffer;
    const size_t gap_limit = (dir == Direction::Read || bridge_write_gaps) ? st.config.sieve_gap : 0;
    std::vector<char> &staging = st.scratch.staging; // kept between calls: no fresh pages per request
    IoTimer timer(st.stats, st.io_timer_running);    // one clock pair for all the runs
    // Unbridged writes of small runs may go through the rank's own view: asked when the first
    // batch of them shows up (the answer may open that handle), then kept.
    const bool view_candidate = dir == Direction::Write && gap_limit == 0 && runs.size() >= kViewWriteMinRuns;
    std::optional<bool> view_writes;
    const size_t view_payload_limit = std::min<size_t>(staging_limit, INT_MAX);
    auto small = [](const Run &r) { return r.size < kDirectRunBytes; };
    size_t i = 0;
    while (i < runs.size()) {
        // Extend a group [i, j) of small runs while the next one starts within the gap limit and
        // the span fits. A large run always moves on its own (below).
        size_t j = i + 1;
        haddr_t end = runs[i].addr + runs[i].size;
        bool has_gap = false;
        while (small(runs[i]) && j < runs.size() && small(runs[j]) && runs[j].addr >= end &&
               runs[j].addr - end <= gap_limit &&
               runs[j].addr + runs[j].size - runs[i].addr <= staging_limit) {
            has_gap |= runs[j].addr != end;
            end = runs[j].addr + runs[j].size;
            ++j;
        }
        if (j == i + 1 && view_candidate && small(runs[i]) && view_writes.value_or(true)) {
            // Small runs that may not be bridged: as many as fit the staging buffer in one call
            // through the rank's own view, when there are enough of them to pay for it. A run
            // overlapping the previous one (a point selected twice) ends the batch: MPI file
            // views must not overlap.
            size_t k = i + 1, payload = runs[i].size;
            while (k < runs.size() && k - i < kViewWriteMaxRuns && small(runs[k]) &&
                   runs[k].addr >= runs[k - 1].addr + runs[k - 1].size &&
                   payload + runs[k].size <= view_payload_limit)
                payload += runs[k++].size;
            if (k - i >= kViewWriteMinRuns) {
                if (!view_writes)
                    view_writes = view_writes_usable(file);
                if (*view_writes) {
                    write_runs_through_view(file, std::span<const Run>(runs.data() + i, k - i));
                    i = k;
                    continue;
                }
            }
        }
        if (j == i + 1) { // a lone run goes straight from/to the caller's memory
            independent_bytes(file, dir, runs[i].addr, runs[i].buf, runs[i].size);
            i = j;
            continue;
        }
        const haddr_t base = runs[i].addr;
        const size_t span = static_cast<size_t>(end - base);
        if (staging.size() < span)
            staging.resize(span);
        if (dir == Direction::Read || has_gap)
            independent_bytes(file, Direction::Read, base, staging.data(), span);
        copy_runs_via_buffer(std::span<const Run>(runs.data() + i, j - i), staging.data(), base, dir);
        if (dir == Direction::Write)
            independent_bytes(file, Direction::Write, base, staging.data(), span);
        i = j;
    }
}

void zero_fill_after(void *buf, int count, MPI_Datatype type, size_t done, size_t total) {
    if (done >= total)
        return;
    if (type == MPI_BYTE) {
        std::memset(static_cast<char *>(buf) + done, 0, total - done);
        return;
    }
    // Non-contiguous memory: pack, clear the unread tail, unpack (only on short reads).
    if (total > static_cast<size_t>(INT_MAX))
        throw Error(ErrorKind::Unsupported, "short read of more than 2 GiB into a derived datatype");
    std::vector<char> packed(total);
    int position = 0;
    check_mpi(MPI_Pack(buf, count, type, packed.data(), static_cast<int>(total), &position, MPI_COMM_SELF),
              "MPI_Pack");
    std::memset(packed.data() + done, 0, total - done);
    position = 0;
    check_mpi(MPI_Unpack(packed.data(), static_cast<int>(total), &position, buf, count, type, MPI_COMM_SELF),
              "MPI_Unpack");
}

} // namespace mpiio
