// Makes H5Pget_mpio_actual_chunk_opt_mode / H5Pget_mpio_actual_io_mode on the application's DXPL
// tell what the driver really did.
//
// Why this is needed: on the selection-I/O path HDF5 1.14 writes "linked chunk" and its own I/O
// mode into the API context AFTER the driver returns (H5Dio.c:853-866) and copies them into the
// DXPL when the API call ends (H5CX.c:3672-3673), so a driver cannot simply set them. Using only
// public property-list calls, the driver replaces those two properties of the application's DXPL
// (once per DXPL) with list-local ones whose "set" callback substitutes the driver's decision for
// the library's value when that final copy happens. Nothing changes for DXPLs the driver never
// made a multi-chunk decision for.
#pragma once

#include <hdf5.h>

namespace mpiio {

// Local. Called at the end of a collective selection operation on `dxpl_id` whose chunks were
// transferred chunk by chunk (multi-chunk I/O); `io_mode` is the mode to report.
void report_multi_chunk(hid_t dxpl_id, H5D_mpio_actual_io_mode_t io_mode);

// Local. Called at the start of every selection operation: forgets an unconsumed report (for
// example after a failed operation) so it can never leak into a later one.
void clear_pending_report();

} // namespace mpiio
