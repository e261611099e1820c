// truncate / flush: reconcile the physical file with the library's end of allocation, and make
// written data durable. Both are collective: the library calls them on every rank.
#include "common/agreement.hpp"
#include "file/file.hpp"
#include "hdf5/hdf5_internals.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <utility>

namespace mpiio {

namespace {

// Collective. Rank 0's file size, handed to every rank by one MPI_Allreduce that also agrees on
// every rank's `local_error` (thrown on every rank when any rank brought one).
MPI_Offset rank0_size_agreeing(File *file, std::optional<Error> local_error) {
    FileState &st = *file->state;
    MPI_Offset size = -1;
    if (st.rank == 0 && !local_error)
        local_error = capture([&] { size = st.io.size(); });
    std::array<std::int64_t, 1> rank0_size{st.rank == 0 ? static_cast<std::int64_t>(size) : -1};
    allreduce_max_agreeing(st.comm.get(), rank0_size, local_error);
    return static_cast<MPI_Offset>(rank0_size[0]);
}

// Local (rank 0). The flush is where MPI makes bytes other handles and programs wrote visible
// (they synced, then the flush syncs this side): what lies below the file's size from then on may
// be theirs, so the written end rises to it (the collective steps take its maximum over the ranks:
// rank 0's suffices). The library's truncate of the same flush read the size already, before it resized the
// file; otherwise rank 0 reads it now.
void see_other_writers(FileState &st) {
    if (!std::exchange(st.extent.size_seen, false) && st.rank == 0) {
        // (unreadable: then nothing is taken for zeros)
        auto size = static_cast<haddr_t>(std::numeric_limits<std::int64_t>::max());
        (void)capture([&] { size = static_cast<haddr_t>(st.io.size()); });
        st.io.note_size_seen(size);
    }
}

} // namespace

void truncate_file(File *file, bool closing) {
    FileState &st = *file->state;
    st.collective.write_out_pending(); // (before the size changes; every rank truncates)
    FileExtent &x = st.extent;
    if (x.eoa == x.last_eoa)
        return; // nothing was allocated or freed since the last call: no communication at all
    if (closing) {
        // The library truncates twice while closing (H5F__flush_phase2, then H5F__dest) and then
        // writes the superblock before it closes the file: one exchange in close_file resizes the
        // file and agrees on everything that failed before the close, the superblock included.
        // (known_size stays: the file is not resized yet.)
        x.truncate_at_close = x.eoa;
        x.last_eoa = x.eoa;
        st.io.set_eof(x.eoa);
        return;
    }
    const MPI_Comm comm = st.comm.get();
    // Every rank's writes must be done before rank 0 looks at the size, unless the library is
    // between its own flush barriers.
    if (!hdf5_internals::file_flushing())
        check_mpi(MPI_Barrier(comm), "MPI_Barrier (truncate)");
    const MPI_Offset size = rank0_size_agreeing(file, st.failed_writes.with(std::nullopt));
    // (before the resize below, which adds only zeros: what lies below this size may be other
    // writers' bytes, visible from the flush this truncate belongs to)
    st.io.note_size_seen(static_cast<haddr_t>(size));
    x.size_seen = true;
    const auto needed = static_cast<MPI_Offset>(x.eoa);
    if (size != needed) {
        // Collective; the agreement after it doubles as the barrier that keeps any rank from
        // writing past the new end before every rank has truncated.
        collectively(comm, [&] { st.io.set_size(needed); });
    }
    x.truncate_at_close.reset();
    x.last_eoa = x.eoa;
    st.io.set_eof(x.eoa);
    x.known_size = x.eoa;
}

// No barrier before rank 0 reads the size: every write lies below the EOA, so a write still in
// flight on another rank can make the size rank 0 sees smaller than the file's final one but
// never larger than the EOA, and resizing to the EOA is right either way.
bool truncate_while_closing(File *file, std::optional<Error> earlier, std::optional<Error> &resize_error) {
    FileState &st = *file->state;
    const auto needed = static_cast<MPI_Offset>(*st.extent.truncate_at_close);
    st.extent.truncate_at_close.reset();
    if (rank0_size_agreeing(file, std::move(earlier)) == needed)
        return false;
    resize_error = capture([&] { st.io.set_size(needed); });
    return true;
}

void flush_file(File *file, bool closing) {
    FileState &st = *file->state;
    st.collective.write_out_pending(); // (every rank: the library flushes on all of them)
    st.io.note_flush(); // (the aggregators' copies go: others' writes are visible from here on)
    if (!closing)
        see_other_writers(st);
    // MPI_File_close makes everything visible, so a closing flush needs no sync (as the built-in
    // driver); read-only files have nothing to sync.
    if (closing || st.read_only || st.config.sync == SyncPolicy::Never)
        return;
    IoTimer timer = st.io.timer();
    // (The rank's own handle needs none: every view write synced it before returning.)
    std::optional<Error> error = capture([&] { st.io.sync(); });
    agree(st.comm.get(), st.failed_writes.with(error));
}

} // namespace mpiio
