// Independent writes of many small byte runs in one MPI call, without writing a byte between them.
//
// One MPI_File_write_at per run costs the MPI-IO layer's whole per-call path each time (OMPIO
// decodes the datatype, allocates and looks up MCA parameters: about 2,000 instructions per call);
// one call through a file view that lists the runs pays it once. A view on the file's shared handle
// would need a collective MPI_File_set_view, so the rank writes through a handle of its own, opened
// on MPI_COMM_SELF on first use. Data sieving for writes is disabled on it: sieving reads the
// holes between the runs and writes them back, which loses whatever another rank writes there
// meanwhile (independent writes of interleaved elements are legal; ROMIO protects only sieving
// writers from each other, with fcntl locks).
//
// Used only where a second handle is as good as the shared one: not in MPI atomic mode (set on
// the shared handle by H5Fset_mpi_atomicity), and not where the MPI-IO layer says writes become
// visible only after MPI_File_sync (romio_visibility_immediate=false, HDF5_DO_MPI_FILE_SYNC).
#pragma once

#include "run_io.hpp"

#include <optional>
#include <span>

namespace mpiio {

// Local. Whether view writes may be used on this file now (configuration, atomic mode, sync
// needs), opening the rank's own handle on first use; false also when it cannot be opened (the
// caller then writes run by run).
bool view_writes_usable(File *file);

// Local. Writes `runs` (at least two; ascending and disjoint; each under 64 KiB, at most INT_MAX
// bytes in all) with one MPI_File_write_at through a view of the rank's own handle, straight from
// the caller's memory when the runs' buffers follow each other, else gathered into the staging
// buffer (at most staging_buffer bytes). Only after view_writes_usable said yes; throws when the
// write fails.
void write_runs_through_view(File *file, std::span<const Run> runs);

// Local. Closes the rank's own handle, if it was opened (file close); its error, if any (a
// write-back error may show only here).
std::optional<Error> close_view_handle(FileState &st);

// Local. MPI_File_sync on the rank's own handle, if it was opened (before the shared handle's sync).
void sync_view_handle(FileState &st);

} // namespace mpiio
