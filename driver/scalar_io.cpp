// read / write: one contiguous request from the library.
//
// The rule is the built-in driver's (H5FDmpio.c), which is the contract the library was tested
// against: when the library's transfer mode is COLLECTIVE (and, for reads, the request is raw
// data), `size` is a COUNT of the memory datatype the library put in its API context, the file
// datatype there describes the file layout from `addr`, and the transfer is collective (or
// individual under a collective view when the collective option says INDIVIDUAL_IO). Otherwise
// `size` is a byte count and the transfer is independent.
#include "byte_types.hpp"
#include "collective.hpp"
#include "error.hpp"
#include "file.hpp"
#include "transfer_state.hpp"

#include <algorithm>
#include <limits>

namespace mpiio {
namespace {

constexpr char kNative[] = "native";

// Collective (MPI_File_set_view is). Runs `transfer` under the file view (addr, ftype), then
// restores the byte view. A rank whose view failed still joins `transfer` with no data.
template <class Transfer>
std::optional<Error> under_view(File *file, haddr_t addr, MPI_Datatype ftype, Transfer &&transfer) {
    FileState &st = *file->state;
    std::optional<Error> error = capture([&] {
        check_mpi(MPI_File_set_view(file->fh, static_cast<MPI_Offset>(addr), MPI_BYTE, ftype, kNative,
                                    st.info.get()),
                  "MPI_File_set_view");
    });
    auto transfer_error = capture([&] { transfer(!error.has_value()); });
    if (!error)
        error = transfer_error;
    auto reset_error = capture([&] {
        check_mpi(MPI_File_set_view(file->fh, 0, MPI_BYTE, MPI_BYTE, kNative, st.info.get()),
                  "MPI_File_set_view (reset)");
    });
    if (!error)
        error = reset_error;
    return error;
}

MPI_Count type_size(MPI_Datatype type) {
    MPI_Count size = 0;
    check_mpi(MPI_Type_size_x(type, &size), "MPI_Type_size_x");
    return size;
}

MPI_Count elements(const MPI_Status &status, MPI_Datatype type) {
    MPI_Count n = 0;
    check_mpi(MPI_Get_elements_x(&status, type, &n), "MPI_Get_elements_x");
    return n == MPI_UNDEFINED ? 0 : n;
}

void check_haddr(haddr_t addr, size_t bytes) {
    if (addr == HADDR_UNDEF || addr > static_cast<haddr_t>(std::numeric_limits<MPI_Offset>::max()) - bytes)
        throw Error(ErrorKind::Config, "file address out of range for MPI-IO");
}

} // namespace

void read_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, void *buf) {
    FileState &st = *file->state;
    if (type == H5FD_MEM_DRAW && transfer_state::xfer_mode() == H5FD_MPIO_COLLECTIVE) {
        const auto types = transfer_state::coll_datatypes();
        const int count = static_cast<int>(size); // a count of types.buffer here, never > INT_MAX
        const bool collective = transfer_state::collective_opt() == H5FD_MPIO_COLLECTIVE_IO;
        const bool bcast = collective && transfer_state::rank0_bcast();
        MPI_Count got = 0;
        auto error = under_view(file, addr, types.file, [&](bool view_ok) {
            MPI_Status status{};
            IoTimer timer(st.stats);
            const int n = view_ok ? count : 0;
            if (bcast) {
                // Rank 0 reads, everyone receives: the library chose this for small ALL reads.
                std::optional<Error> read_error;
                if (st.rank == 0) {
                    read_error = capture([&] {
                        check_mpi(MPI_File_read_at(file->fh, 0, buf, n, types.buffer, &status),
                                  "MPI_File_read_at (rank 0 of read-and-broadcast)");
                        got = elements(status, types.buffer);
                    });
                    if (read_error)
                        got = -1;
                }
                check_mpi(MPI_Bcast(&got, 1, MPI_COUNT, 0, st.comm.get()), "MPI_Bcast (bytes read)");
                if (got >= 0)
                    check_mpi(MPI_Bcast(buf, count, types.buffer, 0, st.comm.get()), "MPI_Bcast (data)");
                ++st.stats.rank0_bcast_reads;
                if (read_error)
                    throw *read_error;
                if (got < 0)
                    throw Error(ErrorKind::OtherRank, "rank 0 failed to read the broadcast data");
            } else if (collective) {
                check_mpi(MPI_File_read_at_all(file->fh, 0, buf, n, types.buffer, &status),
                          "MPI_File_read_at_all");
                got = elements(status, types.buffer);
                ++st.stats.collective_reads;
            } else {
                check_mpi(MPI_File_read_at(file->fh, 0, buf, n, types.buffer, &status), "MPI_File_read_at");
                got = elements(status, types.buffer);
                ++st.stats.independent_reads;
            }
        });
        agree(st.comm.get(), error);
        const MPI_Count total = type_size(types.buffer) * count;
        st.stats.bytes_read += static_cast<uint64_t>(got);
        zero_fill_after(buf, count, types.buffer, static_cast<size_t>(got), static_cast<size_t>(total));
        return;
    }

    // Independent: `size` bytes at `addr`; never a collective call (metadata reads are often
    // done by rank 0 alone).
    check_haddr(addr, size);
    ByteRun run = byte_run(size);
    MPI_Status status{};
    {
        IoTimer timer(st.stats);
        check_mpi(
            MPI_File_read_at(file->fh, static_cast<MPI_Offset>(addr), buf, run.count, run.type, &status),
            "MPI_File_read_at");
    }
    ++st.stats.independent_reads;
    const MPI_Count got = elements(status, run.type);
    st.stats.bytes_read += static_cast<uint64_t>(got);
    zero_fill_after(buf, run.count, run.type, static_cast<size_t>(got), size);
}

void write_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, const void *buf) {
    FileState &st = *file->state;
    if (st.read_only)
        throw Error(ErrorKind::Config, "write to a file opened read-only");
    if (transfer_state::xfer_mode() == H5FD_MPIO_COLLECTIVE) {
        const auto types = transfer_state::coll_datatypes();
        const int count = static_cast<int>(size);
        const bool collective = transfer_state::collective_opt() == H5FD_MPIO_COLLECTIVE_IO;
        if (!collective && type != H5FD_MEM_DRAW)
            throw Error(ErrorKind::Internal,
                        "metadata write with individual I/O under a collective transfer");
        extend_before_collective_write(file);
        MPI_Count put = 0;
        auto error = under_view(file, addr, types.file, [&](bool view_ok) {
            MPI_Status status{};
            IoTimer timer(st.stats);
            const int n = view_ok ? count : 0;
            if (collective) {
                check_mpi(MPI_File_write_at_all(file->fh, 0, buf, n, types.buffer, &status),
                          "MPI_File_write_at_all");
                ++st.stats.collective_writes;
            } else {
                check_mpi(MPI_File_write_at(file->fh, 0, buf, n, types.buffer, &status), "MPI_File_write_at");
                ++st.stats.independent_writes;
            }
            put = elements(status, types.buffer);
        });
        if (!error && collective && st.sync_after_collective_write)
            error = capture([&] {
                check_mpi(MPI_File_sync(file->fh), "MPI_File_sync");
                ++st.stats.syncs;
            });
        agree(st.comm.get(), error);
        const MPI_Count total = type_size(types.buffer) * count;
        if (put != total)
            throw Error(ErrorKind::Io, "collective write transferred " + std::to_string(put) + " of " +
                                           std::to_string(total) + " bytes");
        st.stats.bytes_written += static_cast<uint64_t>(put);
        return;
    }

    check_haddr(addr, size);
    ByteRun run = byte_run(size);
    MPI_Status status{};
    {
        IoTimer timer(st.stats);
        check_mpi(
            MPI_File_write_at(file->fh, static_cast<MPI_Offset>(addr), buf, run.count, run.type, &status),
            "MPI_File_write_at");
    }
    ++st.stats.independent_writes;
    const MPI_Count put = elements(status, run.type);
    if (static_cast<size_t>(put) != size)
        throw Error(ErrorKind::Io, "write of " + std::to_string(size) + " bytes at address " +
                                       std::to_string(addr) + " transferred only " + std::to_string(put));
    st.stats.bytes_written += size;
    st.eof = std::max<haddr_t>(st.eof, addr + size);
}

} // namespace mpiio
