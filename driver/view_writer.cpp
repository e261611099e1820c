// See view_writer.hpp.
#include "view_writer.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace mpiio {
namespace {

constexpr char kNative[] = "native";

// Local. The rank's own write handle, opened on first use (MPI_COMM_SELF: nobody else takes
// part); MPI_FILE_NULL when it cannot be opened, then and from then on.
MPI_File own_handle(FileState &st) {
    if (st.view_handle != MPI_FILE_NULL || st.view_handle_unusable)
        return st.view_handle;
    Info hints;
    check_mpi(MPI_Info_create(hints.out()), "MPI_Info_create");
    check_mpi(MPI_Info_set(hints.get(), "romio_ds_write", "disable"), "MPI_Info_set");
    if (MPI_File_open(MPI_COMM_SELF, st.name.c_str(), MPI_MODE_WRONLY, hints.get(), &st.view_handle) !=
        MPI_SUCCESS) {
        st.view_handle = MPI_FILE_NULL;
        st.view_handle_unusable = true;
    }
    return st.view_handle;
}

} // namespace

// A second handle sees and makes writes exactly as the shared one does only outside atomic mode
// and where writes are visible without MPI_File_sync (see the header).
bool view_writes_usable(File *file) {
    FileState &st = *file->state;
    if (!st.config.view_writes || st.sync_after_collective_write)
        return false;
    int atomic = 0;
    check_mpi(MPI_File_get_atomicity(file->fh, &atomic), "MPI_File_get_atomicity");
    return !atomic && own_handle(st) != MPI_FILE_NULL;
}

void write_runs_through_view(File *file, std::span<const Run> runs) {
    FileState &st = *file->state;
    const MPI_File fh = st.view_handle;
    std::vector<int> &lengths = st.scratch.view_lengths;
    std::vector<MPI_Aint> &offsets = st.scratch.view_offsets;
    std::vector<char> &packed = st.scratch.staging;
    lengths.resize(runs.size());
    offsets.resize(runs.size());
    size_t total = 0;
    for (const Run &r : runs)
        total += r.size;
    if (packed.size() < total)
        packed.resize(total);
    const haddr_t base = runs.front().addr;
    // Runs of one length at one spacing (a strided hyperslab) are an hvector, which MPI builds in
    // constant time; anything else an hindexed type (Open MPI allocates and clears a descriptor
    // entry per block: a quarter of the call's cost for 4-byte runs).
    const MPI_Aint spacing = runs.size() > 1 ? static_cast<MPI_Aint>(runs[1].addr - base) : 0;
    bool regular = true;
    size_t at = 0;
    for (size_t k = 0; k < runs.size(); ++k) {
        lengths[k] = static_cast<int>(runs[k].size);
        offsets[k] = static_cast<MPI_Aint>(runs[k].addr - base);
        regular = regular && runs[k].size == runs[0].size && offsets[k] == static_cast<MPI_Aint>(k) * spacing;
        std::memcpy(packed.data() + at, runs[k].buf, runs[k].size);
        at += runs[k].size;
    }
    Datatype view;
    if (regular)
        check_mpi(
            MPI_Type_create_hvector(static_cast<int>(runs.size()), lengths[0], spacing, MPI_BYTE, view.out()),
            "MPI_Type_create_hvector (view write)");
    else
        check_mpi(MPI_Type_create_hindexed(static_cast<int>(runs.size()), lengths.data(), offsets.data(),
                                           MPI_BYTE, view.out()),
                  "MPI_Type_create_hindexed (view write)");
    check_mpi(MPI_Type_commit(view.ptr()), "MPI_Type_commit (view write)");
    MPI_Status status{};
    {
        IoTimer timer(st.stats, st.io_timer_running);
        check_mpi(MPI_File_set_view(fh, static_cast<MPI_Offset>(base), MPI_BYTE, view.get(), kNative,
                                    MPI_INFO_NULL),
                  "MPI_File_set_view (own handle)");
        check_mpi(MPI_File_write_at(fh, 0, packed.data(), static_cast<int>(total), MPI_BYTE, &status),
                  "MPI_File_write_at (view write)");
    }
    int moved = 0;
    check_mpi(MPI_Get_count(&status, MPI_BYTE, &moved), "MPI_Get_count");
    ++st.stats.independent_writes;
    ++st.stats.view_writes;
    if (moved == MPI_UNDEFINED || static_cast<size_t>(moved) != total)
        throw Error(ErrorKind::Io, "write of " + std::to_string(total) + " bytes in " +
                                       std::to_string(runs.size()) + " runs from address " +
                                       std::to_string(base) + " transferred only " +
                                       std::to_string(moved == MPI_UNDEFINED ? 0 : moved));
    st.stats.bytes_written += total;
    st.eof = std::max<haddr_t>(st.eof, runs.back().addr + runs.back().size);
}

void close_view_handle(FileState &st) {
    if (st.view_handle != MPI_FILE_NULL && mpi_usable())
        MPI_File_close(&st.view_handle);
    st.view_handle = MPI_FILE_NULL;
}

void sync_view_handle(FileState &st) {
    if (st.view_handle != MPI_FILE_NULL)
        check_mpi(MPI_File_sync(st.view_handle), "MPI_File_sync (own handle)");
}

} // namespace mpiio
