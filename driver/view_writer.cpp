// See view_writer.hpp.
#include "view_writer.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

namespace mpiio {
namespace {

constexpr char kNative[] = "native";

// Local. The rank's own write handle, opened on first use (MPI_COMM_SELF: nobody else takes
// part) with the file's hints and write sieving disabled; MPI_FILE_NULL when it cannot be opened,
// then and from then on (the caller writes run by run).
MPI_File own_handle(FileState &st) {
    if (st.view_handle != MPI_FILE_NULL || st.view_handle_unusable)
        return st.view_handle;
    Info hints;
    check_mpi(MPI_Info_dup(st.info.get(), hints.out()), "MPI_Info_dup");
    check_mpi(MPI_Info_set(hints.get(), "romio_ds_write", "disable"), "MPI_Info_set");
    if (MPI_File_open(MPI_COMM_SELF, st.view_path.c_str(), MPI_MODE_WRONLY, hints.get(), &st.view_handle) !=
        MPI_SUCCESS) {
        st.view_handle = MPI_FILE_NULL;
        st.view_handle_unusable = true;
    }
    return st.view_handle;
}

// Local. Whether the runs' memory is one block, runs[0].buf onwards (a contiguous buffer
// scattered to a strided file selection: written from where it is, no copy).
bool memory_contiguous(std::span<const Run> runs) {
    for (size_t k = 1; k < runs.size(); ++k)
        if (runs[k].buf != runs[k - 1].buf + runs[k - 1].size)
            return false;
    return true;
}

// Local. The file view of `runs`, offsets from runs[0].addr: an hvector when they have one
// length at one spacing (a strided hyperslab; MPI builds it in constant time), else an hindexed
// type (Open MPI allocates and clears a descriptor entry per block: for 4-byte runs a quarter of
// the whole call's cost).
Datatype view_type(FileState &st, std::span<const Run> runs) {
    const haddr_t base = runs.front().addr;
    const auto spacing = static_cast<MPI_Aint>(runs[1].addr - base);
    bool regular = true;
    for (size_t k = 1; k < runs.size() && regular; ++k)
        regular = runs[k].size == runs[0].size && runs[k].addr - base == k * static_cast<haddr_t>(spacing);
    Datatype view;
    if (regular) {
        check_mpi(MPI_Type_create_hvector(static_cast<int>(runs.size()), static_cast<int>(runs[0].size),
                                          spacing, MPI_BYTE, view.out()),
                  "MPI_Type_create_hvector (view write)");
    } else {
        std::vector<int> &lengths = st.scratch.view_lengths;
        std::vector<MPI_Aint> &offsets = st.scratch.view_offsets;
        lengths.resize(runs.size());
        offsets.resize(runs.size());
        for (size_t k = 0; k < runs.size(); ++k) {
            lengths[k] = static_cast<int>(runs[k].size);
            offsets[k] = static_cast<MPI_Aint>(runs[k].addr - base);
        }
        check_mpi(MPI_Type_create_hindexed(static_cast<int>(runs.size()), lengths.data(), offsets.data(),
                                           MPI_BYTE, view.out()),
                  "MPI_Type_create_hindexed (view write)");
    }
    check_mpi(MPI_Type_commit(view.ptr()), "MPI_Type_commit (view write)");
    return view;
}

} // namespace

// A second handle sees and makes writes exactly as the shared one does only outside atomic mode
// and where writes are visible without MPI_File_sync (see the header).
bool view_writes_usable(File *file) {
    FileState &st = *file->state;
    if (!st.config.view_writes || st.writes_need_sync_to_be_visible)
        return false;
    int atomic = 0;
    check_mpi(MPI_File_get_atomicity(file->fh, &atomic), "MPI_File_get_atomicity");
    return !atomic && own_handle(st) != MPI_FILE_NULL;
}

void write_runs_through_view(File *file, std::span<const Run> runs) {
    FileState &st = *file->state;
    size_t total = 0;
    for (const Run &r : runs)
        total += r.size;
    const char *data = runs.front().buf;
    if (!memory_contiguous(runs)) { // gather the runs' bytes in the staging buffer
        std::vector<char> &packed = st.scratch.staging;
        if (packed.size() < total)
            packed.resize(total);
        size_t at = 0;
        for (const Run &r : runs) {
            std::memcpy(packed.data() + at, r.buf, r.size);
            at += r.size;
        }
        data = packed.data();
    }
    const Datatype view = view_type(st, runs);
    const haddr_t base = runs.front().addr;
    MPI_Status status{};
    {
        IoTimer timer(st.stats, st.io_timer_running);
        check_mpi(MPI_File_set_view(st.view_handle, static_cast<MPI_Offset>(base), MPI_BYTE, view.get(),
                                    kNative, MPI_INFO_NULL),
                  "MPI_File_set_view (own handle)");
        check_mpi(MPI_File_write_at(st.view_handle, 0, data, static_cast<int>(total), MPI_BYTE, &status),
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

std::optional<Error> close_view_handle(FileState &st) {
    if (st.view_handle == MPI_FILE_NULL || !mpi_usable())
        return std::nullopt;
    const int code = MPI_File_close(&st.view_handle);
    st.view_handle = MPI_FILE_NULL;
    if (code == MPI_SUCCESS)
        return std::nullopt;
    return Error(ErrorKind::Mpi, "MPI_File_close of this rank's own handle on '" + st.name +
                                     "' (view writes) failed: " + mpi_error_string(code));
}

void sync_view_handle(FileState &st) {
    if (st.view_handle != MPI_FILE_NULL)
        check_mpi(MPI_File_sync(st.view_handle), "MPI_File_sync (own handle)");
}

} // namespace mpiio
