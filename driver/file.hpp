// The driver's open file: the part HDF5 sees (H5FD_t), the MPI file handle, and the driver's own
// state. Callbacks in callbacks.cpp dispatch to the functions declared here.
#pragma once

#include "common/error.hpp"
#include "common/mpi_handle.hpp"
#include "config.hpp"
#include "selection/byte_runs.hpp"
#include "selection/combine.hpp"
#include "selection/type_cache.hpp"
#include "stats.hpp"

#include <H5FDdevelop.h>
#include <hdf5.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace mpiio {

enum class Direction { Read, Write };

// Containers reused by every operation on a file, so that a request of one block allocates
// nothing: each use clears them and keeps their capacity.
struct Scratch {
    std::vector<char> staging;                     // independent_runs' buffer (<= staging_buffer)
    std::vector<char> packed;                      // sieved bytes for strided memory (<= staging_buffer)
    std::vector<selection::ByteRun> runs;          // byte runs of one operation
    std::vector<selection::SelectionPiece> pieces; // pieces of one selection request, by address
    std::vector<std::uint64_t> piece_addresses;    // distinct piece addresses (chunk executor)
    std::vector<std::size_t> group_start;          // first piece of each address
    std::vector<selection::Piece> typed;           // pieces with their datatypes
    std::vector<std::int64_t> exchange;            // every rank's words of the route exchange
    std::vector<int> view_lengths;                 // a view write's run lengths (view_writer.hpp)
    std::vector<MPI_Aint> view_offsets;            // and their offsets from the first run
};

// Everything but the two members HDF5 may look at directly.
struct FileState {
    Comm comm; // our duplicate; the library runs its own collectives on it
    Info info; // the hints in effect (merged FAPL, config and MPI-IO layer hints)
    int rank = 0;
    int size = 1;
    Config config;
    std::string name;
    haddr_t eoa = 0;      // set by the library; local
    haddr_t eof = 0;      // physical size: exact after open/truncate, then a local lower bound
    haddr_t last_eoa = 0; // eoa at the last truncate: truncate is a no-op while unchanged
    // The file size every rank knows the file has at least (set at open, truncate and
    // extend_before_collective_write: only collective steps change it, so it is identical on
    // all ranks).
    haddr_t known_size = 0;
    bool sync_after_collective_write = false; // MPI-IO layer needs MPI_File_sync for visibility
    // The same fact whatever the sync policy: writes through one handle become visible to
    // another only after MPI_File_sync (then no view writes: view_writer.hpp).
    bool writes_need_sync_to_be_visible = false;
    bool read_only = false;
    // A write of this rank that failed where no agreement followed (independent calls); every
    // rank fails the file's next collective step with it, so no rank goes on believing the data
    // is in the file (see deferred_error.hpp).
    std::optional<Error> failed_write;
    // The MPI_Ibarrier posted after a collective write that took the independent route: a rank
    // may leave such a write before the others have written, and HDF5 follows collective writes
    // with independent writes to the same bytes (a chunk filled collectively by one rank, then
    // written independently by another). Every later transfer waits for it first
    // (settle_collective_write); MPI collective writes synchronise this way themselves (ROMIO
    // ends its two-phase write with an allreduce for this reason).
    MPI_Request pending_barrier = MPI_REQUEST_NULL;
    Stats stats{};
    bool io_timer_running = false; // an IoTimer is measuring (stats.hpp)
    // This rank's own handle on the file, for view writes (view_writer.hpp): opened on first use,
    // by the path resolved at open (a later chdir must not change which file it opens);
    // view_handle_unusable once opening it failed (run-by-run writes from then on).
    std::string view_path;
    MPI_File view_handle = MPI_FILE_NULL;
    bool view_handle_unusable = false;
    Scratch scratch;
    selection::TypeCache type_cache; // derived types by selection shape (time-step loops)
};

// H5Fset_mpi_atomicity casts any MPI driver's file to the built-in driver's struct and uses its
// second member as the MPI_File, so this layout must start { H5FD_t pub; MPI_File fh; }.
struct File {
    H5FD_t pub; // must be first: HDF5 fills it in after open returns
    MPI_File fh;
    FileState *state;
};
static_assert(std::is_standard_layout_v<File>, "File must stay a plain C layout");
static_assert(offsetof(File, pub) == 0, "H5FD_t must come first");
static_assert(offsetof(File, fh) == offsetof(H5FD_mpiio_prefix_t, fh),
              "MPI_File must sit where the built-in driver keeps it");

inline File *as_file(H5FD_t *f) { return reinterpret_cast<File *>(f); }
inline const File *as_file(const H5FD_t *f) { return reinterpret_cast<const File *>(f); }

// Local (completes the barrier every rank posted). Waits until every rank has finished the last
// collective write that took the independent route; a no-op when there is none.
void settle_collective_write(FileState &st);

// --- lifetime (file_lifetime.cpp) -----------------------------------------------------------
// Collective. Opens `name` over the FAPL's communicator (or the config's choice).
File *open_file(const char *name, unsigned flags, hid_t fapl_id, haddr_t maxaddr);
// Collective. Closes the MPI file, prints statistics if asked, frees everything.
void close_file(File *file);
// Collective over the FAPL's communicator: rank 0 deletes the file.
void delete_file(const char *name, hid_t fapl_id);

// --- size (file_size.cpp) -------------------------------------------------------------------
// Collective. Makes the physical size equal the EOA when the EOA changed since the last call.
void truncate_file(File *file);
// Collective. Before an MPI collective write: extends the file to the EOA when the EOA lies past
// the size every rank knows, so that the MPI-IO layer's read-modify-write of holes reads zeros
// (and not whatever its uninitialised collective buffer held) and never copies process memory
// into the file. Needs no communication to decide: EOA and known_size are the same on every
// rank. Returns this rank's error instead of throwing (the caller still joins the transfer).
std::optional<Error> extend_before_collective_write(File *file);
// Collective. MPI_File_sync per the sync policy, unless the file is closing.
void flush_file(File *file, bool closing);

// --- scalar transfers (scalar_io.cpp) -------------------------------------------------------
// Collective under the library's collective raw-data path, independent otherwise.
void read_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, void *buf);
void write_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, const void *buf);

// --- vector transfers (vector_io.cpp) -------------------------------------------------------
// Collective when the library's transfer mode is collective, independent otherwise.
void read_vector(File *file, uint32_t count, const H5FD_mem_t types[], const haddr_t addrs[],
                 const size_t sizes[], void *bufs[]);
void write_vector(File *file, uint32_t count, const H5FD_mem_t types[], const haddr_t addrs[],
                  const size_t sizes[], const void *bufs[]);

// --- selection transfers (selection_io.cpp) --------------------------------------------------
// Collective when the library's transfer mode is collective (every rank calls, count may be 0),
// independent otherwise. The dataspace ids belong to the library: never closed or kept.
void read_selection(File *file, hid_t dxpl_id, size_t count, const hid_t mem_spaces[],
                    const hid_t file_spaces[], const haddr_t offsets[], const size_t element_sizes[],
                    void *bufs[]);
void write_selection(File *file, hid_t dxpl_id, size_t count, const hid_t mem_spaces[],
                     const hid_t file_spaces[], const haddr_t offsets[], const size_t element_sizes[],
                     const void *bufs[]);

// --- ctl (ctl.cpp) --------------------------------------------------------------------------
// Local. Answers the MPI opcodes HDF5 sends to MPI drivers and the driver's own opcodes.
void control(File *file, uint64_t op_code, uint64_t flags, const void *input, void **output);

} // namespace mpiio
