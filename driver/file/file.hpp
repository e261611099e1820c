// The driver's open file: the part HDF5 sees (H5FD_t), the MPI file handle, and the driver's own
// state. The callbacks (callbacks.cpp, data_callbacks.cpp) dispatch to the functions declared
// here and to the engines the state holds.
#pragma once

#include "collective/collective_engine.hpp"
#include "common/error.hpp"
#include "common/mpi_handle.hpp"
#include "file/comm_pool.hpp"
#include "file/file_layout.hpp"
#include "file/own_handle_path.hpp"
#include "independent/independent_engine.hpp"
#include "io/failed_writes.hpp"
#include "io/file_extent.hpp"
#include "io/mpi_io.hpp"
#include "io/request.hpp"
#include "selection/type_cache.hpp"
#include "settings/config.hpp"
#include "settings/storage.hpp"

#include <H5FDdevelop.h>
#include <hdf5.h>

#include <cstddef>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace mpiio {

// Everything but the two members HDF5 may look at directly, grouped by the module that owns it.
struct FileState {
    // Set at open (file_lifetime.cpp), read by all.
    FileComm comm; // our own (comm_pool.hpp); the library runs its own collectives on it
    Info info;     // the hints in effect (merged FAPL, config and MPI-IO layer hints)
    int rank = 0;
    int size = 1;
    Config config;
    StorageTuning storage; // the storage class and the defaults it gave (settings/storage.hpp)
    FileLayout layout;     // the file's stripes as rank 0 found them, or as configured (file_layout.hpp)
    std::string name;
    bool read_only = false;
    bool sync_after_collective_write = false; // the MPI-IO layer needs MPI_File_sync for visibility
    OwnHandlePath own_path; // the name the rank's own handle opens (view writes), fixed at open

    // The library's end of allocation and what the physical size is known to be (file_size.cpp).
    FileExtent extent;

    // The data path (docs/decisions.md D16): the MPI-IO choke point (statistics and end of file
    // included), the two engines, the one channel for deferred write errors, the storage requests
    // are built in, and the derived types by selection shape (time-step loops reuse them).
    MpiIo io;
    IndependentEngine independent;
    CollectiveEngine collective;
    FailedWrites failed_writes;
    RequestBuilder requests;
    std::vector<selection::SelectionPiece> pieces; // one selection request's pieces, by address
    selection::TypeCache type_cache;
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

// Local. The file, once the last collective write that took the independent route is complete on
// every rank (CollectiveEngine::settle): every callback but close starts here, once (close settles
// itself).
inline File *settled(H5FD_t *f) {
    File *file = as_file(f);
    file->state->collective.settle();
    return file;
}

// --- lifetime (file_lifetime.cpp) -----------------------------------------------------------
// Collective. Opens `name` over the FAPL's communicator (or the config's choice).
File *open_file(const char *name, unsigned flags, hid_t fapl_id, haddr_t maxaddr);
// Collective. Closes the MPI file, prints statistics if asked, frees everything.
void close_file(File *file);
// Collective over the FAPL's communicator: rank 0 deletes the file.
void delete_file(const char *name, hid_t fapl_id);

// --- size (file_size.cpp) -------------------------------------------------------------------
// Collective. Makes the physical size equal the EOA when the EOA changed since the last call.
// While the library closes the file (`closing`) it only records the size, without communicating:
// close_file resizes the file then (truncate_while_closing).
void truncate_file(File *file, bool closing);
// Collective, from close_file for a truncate the library asked for while closing: rank 0's size
// and every rank's `earlier` error travel in one MPI_Allreduce (the close's agreement on whatever
// failed before it), then MPI_File_set_size when the size differs. Throws on every rank when any
// rank brought an error; returns whether MPI_File_set_size ran, with this rank's error of it in
// `resize_error` (not agreed on yet).
bool truncate_while_closing(File *file, std::optional<Error> earlier, std::optional<Error> &resize_error);
// Collective. MPI_File_sync per the sync policy, unless the file is closing.
void flush_file(File *file, bool closing);

// --- ctl (ctl.cpp) --------------------------------------------------------------------------
// Local. Answers the MPI opcodes HDF5 sends to MPI drivers and the driver's own opcodes.
void control(File *file, uint64_t op_code, uint64_t flags, const void *input, void **output);

} // namespace mpiio
