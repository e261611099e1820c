// truncate / flush: reconcile the physical file with the library's end of allocation, and make
// written data durable. Both are collective: the library calls them on every rank.
#include "common/agreement.hpp"
#include "file.hpp"
#include "hdf5_internals.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace mpiio {

void truncate_file(File *file) {
    FileState &st = *file->state;
    if (st.eoa == st.last_eoa)
        return; // nothing was allocated or freed since the last call: no communication at all
    const MPI_Comm comm = st.comm.get();
    // Every rank's writes must be done before rank 0 looks at the size, unless the library is
    // between its own flush barriers.
    if (!hdf5_internals::file_flushing())
        check_mpi(MPI_Barrier(comm), "MPI_Barrier (truncate)");
    // Rank 0 reads the size; one MPI_Allreduce hands it to every rank and agrees on the outcome.
    MPI_Offset size = -1;
    std::optional<Error> size_error;
    if (st.rank == 0)
        size_error = capture([&] { check_mpi(MPI_File_get_size(file->fh, &size), "MPI_File_get_size"); });
    std::array<std::int64_t, 1> rank0_size{st.rank == 0 ? static_cast<std::int64_t>(size) : -1};
    allreduce_max_agreeing(comm, rank0_size, st.failed_writes.with(size_error));
    size = static_cast<MPI_Offset>(rank0_size[0]);
    const auto needed = static_cast<MPI_Offset>(st.eoa);
    if (size != needed) {
        // Collective; the agreement after it doubles as the barrier that keeps any rank from
        // writing past the new end before every rank has truncated.
        collectively(comm, [&] {
            check_mpi(MPI_File_set_size(file->fh, needed), "MPI_File_set_size");
            ++st.io.stats().truncates;
        });
    }
    st.last_eoa = st.eoa;
    st.io.set_eof(st.eoa);
    st.known_size = st.eoa;
}

std::optional<Error> extend_before_collective_write(File *file) {
    FileState &st = *file->state;
    if (st.eoa <= st.known_size || st.read_only)
        return std::nullopt;
    // Collective without an agreement of its own: the transfer that follows is collective too,
    // and a rank that failed here fails the transfer.
    std::optional<Error> error = capture([&] {
        check_mpi(MPI_File_set_size(file->fh, static_cast<MPI_Offset>(st.eoa)),
                  "MPI_File_set_size (extend to EOA)");
    });
    ++st.io.stats().truncates;
    ++st.io.stats().collective_mpi_calls;
    st.known_size = st.eoa;
    if (!error)
        st.io.set_eof(std::max(st.io.eof(), st.eoa));
    return error;
}

void flush_file(File *file, bool closing) {
    FileState &st = *file->state;
    // MPI_File_close makes everything visible, so a closing flush needs no sync (as the built-in
    // driver); read-only files have nothing to sync.
    if (closing || st.read_only || st.config.sync == SyncPolicy::Never)
        return;
    IoTimer timer = st.io.timer();
    // The rank's own handle (view writes) first, on its own: MPI_File_sync on the shared handle is
    // collective and must be reached by every rank whatever that one gives.
    std::optional<Error> error = capture([&] { st.io.sync_own_handle(); });
    std::optional<Error> shared_error = capture([&] {
        check_mpi(MPI_File_sync(file->fh), "MPI_File_sync");
        ++st.io.stats().syncs;
    });
    if (!error)
        error = std::move(shared_error);
    agree(st.comm.get(), st.failed_writes.with(error));
}

} // namespace mpiio
