// The one place where the driver moves data through MPI-IO (docs/decisions.md D16): every
// MPI_File_* call of the driver (data calls, file views, open, close, size, sync, hints) is
// here, each one with its checks (addresses within MPI_Offset, the count moved: a short write is an
// error, a short read past the end of the file reads zeros), its statistics and the end-of-file
// tracking. Engines above decide what to move; this file only moves it.
//
// Two handles: the file's shared one (File::fh, opened collectively; its view changes only in
// collective calls) and, for independent writes of many small runs, the rank's own handle opened
// on MPI_COMM_SELF on first use (a view set on it involves no other rank). Every write through the
// own handle is followed by MPI_File_sync on it before it returns: MPI's rule for bytes written
// through one handle to be visible through another (docs/decisions.md D23).
#pragma once

#include "common/error.hpp"
#include "common/mpi_handle.hpp"
#include "io/direction.hpp"
#include "settings/stats.hpp"

#include <H5FDdevelop.h>
#include <mpi.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mpiio {

// One side of an MPI call's memory: `count` items of `type` from `base` (`bytes` payload bytes).
struct MemoryBuffer {
    void *base = nullptr;
    int count = 0;
    MPI_Datatype type = MPI_BYTE;
    std::size_t bytes = 0;
};

// What the rank's own handle needs to be opened (set at file open).
struct OwnHandleSettings {
    std::string path;               // the file the shared handle opened (file/own_handle_path.hpp)
    MPI_Info hints = MPI_INFO_NULL; // the file's hints in effect (owned by FileState)
    bool allowed = false;           // the storage takes view writes, and writes are visible without
                                    // MPI_File_sync on the shared handle
    bool any_layer = false;         // view_writes=on: also where views save no call (mpi_layer.hpp)
};

// The route a collective transfer took (collective_engine.hpp), as the statistics count it.
enum class RouteTaken { Independent, Mpi, Aggregated };

// One data call, as a test sees it (MpiIo::record_calls): 'r' / 'w' an independent read / write
// on the shared handle, 'v' a view write on the rank's own handle, 'R' / 'W' a collective (or
// individual) read / write under the shared handle's view.
struct CallRecord {
    char kind = 0;
    haddr_t addr = 0; // file address (for 'R' / 'W': the offset given to the call)
    std::size_t bytes = 0;
    const void *memory = nullptr; // the call's memory (MemoryBuffer::base)
    bool operator==(const CallRecord &) const = default;
};

class MpiIo {
public:
    MpiIo() = default;
    MpiIo(const MpiIo &) = delete;
    MpiIo &operator=(const MpiIo &) = delete;

    // Local. Binds the shared handle (File::fh) and the settings; called once at open.
    void bind(MPI_File *shared, OwnHandleSettings own, haddr_t eof);

    // --- independent calls (local) ---------------------------------------------------------------
    // One MPI_File_{read,write}_at of `memory` at `addr`. Reads: returns the bytes moved and zeroes
    // the rest of the memory; writes: throws Error(Io) unless every byte moved.
    std::size_t read_at(haddr_t addr, const MemoryBuffer &memory);
    void write_at(haddr_t addr, const MemoryBuffer &memory);
    // The same for `bytes` contiguous bytes of memory (any size: above INT_MAX as 1 GiB blocks),
    // always straight between `buf` and the file: the caller's buffer is handed to MPI as the
    // built-in driver hands it (device memory with a CUDA-aware MPI-IO layer included).
    std::size_t read_bytes(haddr_t addr, char *buf, std::size_t bytes);
    void write_bytes(haddr_t addr, const char *buf, std::size_t bytes);

    // Whether the rank's own handle can take a view write of runs now (not in MPI atomic mode, and
    // only where the settings and the MPI-IO layer allow: with view_writes=auto, under Open MPI's
    // ROMIO only `regular` runs, mpi_layer.hpp), opening it on first use when `may_open` (at most
    // once per file open: it stays open until close_own_handle, and a failed open is not tried
    // again). Local; false also when it cannot be opened (the caller then writes run by run).
    // `may_open` false (the library's metadata): only a handle already open serves, as the open
    // costs more than the few calls it would save (independent_engine.hpp).
    bool own_view_usable(bool regular, bool may_open);
    // Local, no MPI call after the first: false when a view write of such runs is known to be of
    // no use for this file (the settings, the layer, a failed open, or a handle not open that
    // `may_open` forbids opening), so that a plan need not consider one.
    bool own_view_may_be_usable(bool regular, bool may_open);
    // One MPI_File_write_at of `bytes` contiguous bytes through the view `file_type` at `disp` on
    // the rank's own handle, then MPI_File_sync on it (the bytes are then visible through the
    // shared handle); throws Error(Io) unless every byte moved, Error(Mpi) if the sync fails. Local.
    void write_through_own_view(haddr_t disp, MPI_Datatype file_type, const char *data, std::size_t bytes,
                                std::size_t runs, haddr_t end);

    // --- collective calls on the shared handle ------------------------------------------------------
    // Collective. MPI_File_set_view(disp, MPI_BYTE, file_type), or back to the byte view.
    void set_view(MPI_Offset disp, MPI_Datatype file_type, MPI_Info hints);
    void reset_view(MPI_Info hints);
    // Collective (`individual`: MPI_File_{read,write}_at under the view, as HDF5's INDIVIDUAL_IO
    // asks). Returns the bytes moved; reads zero the memory past them, writes throw Error(Io) when
    // short. `end` is one past the highest file byte written (end-of-file tracking).
    std::size_t shared_read(MPI_Offset offset, const MemoryBuffer &memory, bool individual);
    void shared_write(MPI_Offset offset, const MemoryBuffer &memory, bool individual, haddr_t end);

    // --- state ------------------------------------------------------------------------------------
    // The physical size as far as this rank knows it (exact after open and truncate; writes grow it).
    haddr_t eof() const { return eof_; }
    void set_eof(haddr_t eof) { eof_ = eof; }
    // One past the highest byte this rank ever asked a write for (failed writes included), or the
    // file's size when it was last looked at (open, truncate, flush) if higher: every byte at or
    // past the maximum of it over the ranks is one no rank wrote, a zero in the file (or past its
    // end). Never lowered.
    haddr_t written_end() const { return written_end_; }
    // Local. The file's size as seen where MPI makes other writers' bytes visible (a flush: another
    // handle's, another open's, another program's, synced before it): bytes below it may be theirs,
    // no longer zeros no rank wrote.
    void note_size_seen(haddr_t size) { written_end_ = std::max(written_end_, size); }
    // How many times this rank changed the file or synced it (writes, resizes, syncs; failed ones
    // included): the aggregators' copies of earlier transfers last only while no rank's count
    // moved (aggregate/window_cache.hpp).
    std::uint64_t changes() const { return changes_; }
    // Local. A change the driver's own calls do not show: a flush, MPI's point where other
    // writers' bytes become visible (counted even where no sync is made).
    void note_flush() { ++changes_; }
    const Stats &stats() const { return stats_; }
    // --- what the engines report (local) ----------------------------------------------------------
    // The counters change only in this class: the MPI-IO calls count themselves, and the engines
    // report their decisions and their own communication through these, so that each counter's
    // meaning is decided in one place.
    // A collective call a collective transfer made outside the MPI-IO data calls (route agreement,
    // the barrier, a sync or a resize it needed).
    void count_collective_call() { ++stats_.collective_mpi_calls; }
    // A collective transfer started (every rank joins; one route choice each).
    void count_collective_transfer() { ++stats_.collective_ops; }
    // The route the transfer took.
    void count_route(RouteTaken route) {
        ++(route == RouteTaken::Independent ? stats_.independent_route_ops
           : route == RouteTaken::Mpi       ? stats_.mpi_route_ops
                                            : stats_.aggregated_route_ops);
    }
    // A rank-0-reads-and-broadcasts read (its agreement and its broadcast); `received`: the bytes
    // this rank got from the broadcast (rank 0's own read counted itself).
    void count_broadcast_read(std::size_t received) {
        stats_.collective_mpi_calls += 2;
        ++stats_.rank0_bcast_reads;
        stats_.bytes_read += received;
    }
    // A chunked collective operation: one transfer over every chunk (linked), or chunk by chunk.
    void count_chunk_plan(bool linked, std::uint64_t collective_chunks, std::uint64_t independent_chunks) {
        if (linked) {
            ++stats_.linked_chunk_ops;
            return;
        }
        ++stats_.multi_chunk_ops;
        stats_.collective_chunks += collective_chunks;
        stats_.independent_chunks += independent_chunks;
    }
    // A read_vector / write_vector callback.
    void count_vector_call() { ++stats_.vector_calls; }
    // An aggregator's window of a collective read copied from its copy of earlier transfers.
    void count_cached_read(std::size_t bytes) {
        ++stats_.cached_window_reads;
        stats_.cached_bytes_read += bytes;
    }
    // An aggregator's window of a collective write kept in memory instead of written
    // (aggregate/write_behind.hpp), and the bytes of a kept one a later write replaced.
    void count_kept_window() { ++stats_.deferred_windows; }
    void count_replaced_window(std::uint64_t bytes) { stats_.deferred_bytes_replaced += bytes; }
    // The bytes an aggregator's buffers held in one round of the aggregating route (its window and
    // what it staged): the most of them is kept.
    void note_aggregation_buffer(std::uint64_t bytes) {
        stats_.aggregation_buffer_peak = std::max(stats_.aggregation_buffer_peak, bytes);
    }
    // A window an aggregator moved with its own calls (or from its copies).
    void count_aggregator_window() { ++stats_.aggregator_windows; }
    // A clock pair around a whole run-by-run operation instead of one per call (stats.hpp), when
    // the time is measured at all.
    IoTimer timer() { return IoTimer(stats_, timing_, clocked_); }
    // Local. Measure the time spent in data calls from now on (stats=summary; set at open).
    void measure_time(bool on) { clocked_ = on; }
    // Local. Appends every data call from now on to `log` (null: stops). For tests.
    void record_calls(std::vector<CallRecord> *log) { log_ = log; }

    // --- the file as a whole, on the shared handle ----------------------------------------------
    // Collective. MPI_File_sync (counted); throws Error(Mpi).
    void sync();
    // Local. MPI_File_get_size; throws Error(Mpi).
    MPI_Offset size() const;
    // Local. Whether the shared handle is in MPI's atomic mode (H5Fset_mpi_atomicity).
    bool atomic() const;
    // Collective. MPI_File_set_size (counted; `what` names it in an error); throws Error(Mpi).
    void set_size(MPI_Offset size, const char *what = "MPI_File_set_size");

    // Local. Closes the rank's own handle, if it was opened; its error, if any.
    std::optional<Error> close_own_handle(const std::string &file_name);

private:
    enum class Call { ReadAt, WriteAt, ReadAtAll, WriteAtAll };
    template <Call C> std::size_t call(MPI_Offset offset, const MemoryBuffer &memory);
    template <Call C> std::size_t byte_call(haddr_t addr, char *buf, std::size_t bytes);
    template <Call C> std::size_t account(MPI_Offset offset, const MemoryBuffer &memory, std::size_t done);
    std::size_t moved(const MPI_Status &status, const MemoryBuffer &memory) const;
    // A write up to `end` is about to be asked for (counted whether or not it succeeds).
    void note_write(haddr_t end) {
        written_end_ = std::max(written_end_, end);
        ++changes_;
    }
    void record(char kind, haddr_t addr, std::size_t bytes, const void *memory) {
        if (log_ != nullptr)
            log_->push_back(CallRecord{kind, addr, bytes, memory});
    }

    MPI_File *shared_ = nullptr;
    OwnHandleSettings own_settings_;
    MPI_File own_ = MPI_FILE_NULL;
    bool own_unusable_ = false;
    std::optional<bool> irregular_views_pay_off_; // the layer's answer, asked once per file
    haddr_t eof_ = 0;
    haddr_t written_end_ = 0;
    std::uint64_t changes_ = 0;
    Stats stats_{};
    bool timing_ = false;  // a timer is running
    bool clocked_ = false; // timers read the clock
    std::vector<CallRecord> *log_ = nullptr;
};

// --- calls on a file before (or without) an MpiIo: open, close, delete, size and hints ----------
// Every MPI_File_* call of the driver is in mpi_io.cpp; these are the ones on a handle no MpiIo
// holds yet (open_file's, before the open is agreed on) or on a name.
// Collective over `comm`. MPI_File_open; the MPI error code (the caller decides what a failure is).
int open_mpi_file(MPI_Comm comm, const char *name, int amode, MPI_Info hints, MPI_File *fh);
// Collective. MPI_File_close; the MPI error code.
int close_mpi_file(MPI_File *fh);
// Local. MPI_File_delete; the MPI error code.
int delete_mpi_file(const char *name, MPI_Info hints);
// Local. MPI_File_get_size; throws Error(Mpi).
MPI_Offset mpi_file_size(MPI_File fh);
// Collective. MPI_File_set_size; throws Error(Mpi) naming `what`.
void set_mpi_file_size(MPI_File fh, MPI_Offset size, const char *what);
// Local. The hints in effect (MPI_File_get_info), or nothing when the layer does not tell.
std::optional<Info> mpi_file_hints(MPI_File fh);
// Collective. MPI_File_set_info: hints are advisory, so a refusal is no error.
void set_mpi_file_hints(MPI_File fh, MPI_Info hints);

// Local. The part of a buffer described by (count, type) that lies past its first `done` bytes, in
// the datatype's type-map order, is set to zero (reads past the end of the file read zeros).
void zero_fill_after(const MemoryBuffer &memory, std::size_t done);

} // namespace mpiio
