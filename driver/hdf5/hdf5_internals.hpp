// Every use the driver makes of HDF5's private symbols or undocumented behaviour, in one module
// (docs/decisions.md D3, D13). This is the one part that can break with an HDF5 upgrade: each item
// names the HDF5 1.14.5 source it relies on, and test/unit/test_hdf5_internals.cpp fails loudly
// when a library changes it. The plugin refuses to load into any HDF5 release it was not tested
// with (accepted_versions(): 1.14.5, 1.14.6, 2.2.0).
//
// HDF5 2.2.0 (docs/stacks.md): its source is not in the package archive this project reaches, so
// each item was checked against the 2.2.0 binaries Debian ships (every symbol below exported by
// libhdf5_openmpi.so.320.2.0 and libhdf5_mpich.so.320.2.0), their installed public headers
// (H5FD_class_t still version 1; H5FD_MPIO is now the global id H5FD_MPIO_id_g; the version string
// "HDF5 library version: 2.2.0"), the 2.x development tree's private headers, and the tests:
// unit.hdf5_internals checks each item's behaviour on the running library, and the mpi suite's
// atomicity tests item 5 (H5FD_set_mpio_atomicity is still exported and still casts to the
// built-in driver's struct).
//
//  1. The transfer state (HDF5's private API context, "H5CX"), read through the getters the
//     library exports (H5_DLL) but declares only in the uninstalled H5CXprivate.h:91-111. The
//     library switches collective/independent only there (the application's DXPL can say
//     COLLECTIVE while the library means INDEPENDENT: a hang if trusted), and on the
//     selection-I/O-off path `size` is a count of derived datatypes that exist only there
//     (H5Dmpio.c:2681; wrong bytes if ignored). The built-in driver reads the same getters
//     (H5FDmpio.c:1256-1272, 1504-1520). See docs/hdf5-facts.md section 3.
//  2. The library version, read from the exported string H5_lib_vers_info_g (H5.c), because the
//     plugin is loaded while the library may still be initialising (H5Pfapl.c:897).
//  3. DXPL property names with no public getter: "mpio_chunk_opt_hard", "mpio_chunk_opt_num",
//     "mpio_chunk_opt_ratio" (H5Dprivate.h:73-75, registered H5Pdxpl.c:380-401).
//  4. The actual-mode report: the library writes "actual_chunk_opt_mode" / "actual_io_mode"
//     (H5Dprivate.h:76-77) into its context after the driver returns (H5Dio.c:853-866) and copies
//     them to the application's DXPL with H5P set semantics when the API call ends
//     (H5CX.c:3672-3673); the driver substitutes its multi-chunk decision in that copy.
//  5. The file struct prefix { H5FD_t pub; MPI_File fh; }: H5Fset_mpi_atomicity casts any MPI
//     driver's file to the built-in driver's struct (H5FDmpio.c:57-59, 716-790); asserted in
//     file.hpp against include/h5fd_mpiio.h.
//  6. Dataspace facts without API entries: the internal functions behind H5Sget_select_type,
//     _npoints, _bounds, H5Sget_simple_extent_dims and H5Sis_regular_hyperslab, and
//     H5I_object_verify to reach the H5S_t of an id (all H5_DLL-exported; declared in the
//     uninstalled H5Sprivate.h:214-258 and H5Iprivate.h:91). Installed as selection/'s
//     SpaceInfoSource; when a symbol is missing the public API answers instead.
//  7. FAPL settings without copies: the communicator and info the FAPL stores, read with
//     H5I_object_verify and H5P_peek (no 'get' callback, so no collective MPI_Comm_dup), and its
//     driver config string with H5P_peek_driver_config_str (all H5_DLL-exported; declared in the
//     uninstalled H5Iprivate.h:91 and H5Pprivate.h:168-184; property names
//     H5Fprivate.h:284-285); the built-in driver's open reads the same properties with H5P_get,
//     which duplicates (H5FDmpio.c:836-839). When a symbol is missing the public getters answer
//     instead (with their duplicates).
//
// All functions are local (no communication). The context getters must be called on the
// library's thread inside a driver callback: they read the calling thread's top context.
#pragma once

#include "selection/space_info.hpp"

#include <mpi.h>

#include <hdf5.h>

#include <span>
#include <string>

namespace mpiio::hdf5_internals {

// --- 2. version ------------------------------------------------------------------------------
// "major.minor.release" of the running libhdf5 (empty if it cannot be read).
std::string library_version();
// The releases this driver is built and tested for (exactly these load).
std::span<const char *const> accepted_versions();

// Empty when the plugin's libhdf5 is the program's; otherwise why not (both library files named).
std::string foreign_libhdf5();

// --- 1. transfer state -----------------------------------------------------------------------
// Checks that the program's libhdf5 is the plugin's (foreign_libhdf5()) and a release the driver
// accepts, and resolves the getters in it. Returns an empty
// string on success, otherwise why the plugin must not register. Idempotent; called once from
// the plugin entry point.
std::string resolve();
// true once resolve() succeeded.
bool ready();

// Collective or independent, as the library means it for the current operation.
H5FD_mpio_xfer_t xfer_mode();
// Collective MPI_File_*_all or individual MPI_File_* under a collective view.
H5FD_mpio_collective_opt_t collective_opt();
struct CollDatatypes {
    MPI_Datatype buffer = MPI_BYTE;
    MPI_Datatype file = MPI_BYTE;
};
// The memory and file datatypes of the library's own collective path (MPI_BYTE otherwise).
CollDatatypes coll_datatypes();
// true when the library asks for "rank 0 reads, then broadcasts" (an optimisation it decides).
bool rank0_bcast();
// true while the library flushes a file between its own barriers (lets truncate skip one).
bool file_flushing();

// --- 6. dataspace facts -----------------------------------------------------------------------
// Resolves the dataspace functions in `libhdf5` (a dlopen handle) and installs them as selection/'s
// SpaceInfoSource. Returns false, leaving the public API in charge, when one is missing. Called by
// resolve().
bool install_dataspace_reader(void *libhdf5);
// true once install_dataspace_reader succeeded.
bool dataspace_reader_installed();
// The installed SpaceInfoSource: the public queries' answers without their API entries; false
// (the public API is asked then) for anything unexpected, such as an id that is not a dataspace,
// or before install_dataspace_reader.
bool read_dataspace(hid_t space, selection::SpaceInfo &out);

// --- 7. FAPL settings ---------------------------------------------------------------------------
// What a FAPL holds for an MPI driver, not duplicated: valid while the list is (during the open
// or delete callback that was given it). `config` is nullptr when the list has no config string.
struct FaplSettings {
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    const char *config = nullptr;
};
// Resolves the property functions in `libhdf5` (a dlopen handle); false when one is missing.
// Called by resolve().
bool install_fapl_reader(void *libhdf5);
// true once install_fapl_reader succeeded.
bool fapl_reader_installed();
// Reads `fapl_id`'s settings into `out`; false (the public getters are asked then) before
// install_fapl_reader, or when the id is not a FAPL or a property cannot be read.
bool peek_fapl(hid_t fapl_id, FaplSettings &out);

// --- 3. DXPL chunk knobs ---------------------------------------------------------------------
// The application's H5Pset_dxpl_mpio_chunk_opt / _num / _ratio settings, one property each (the
// caller reads only what its decision needs: each read costs an ID and a property lookup).
// Defaults when the list is the default one or lacks them: H5FD_MPIO_CHUNK_DEFAULT, 0, 60.
H5FD_mpio_chunk_opt_t dxpl_chunk_mode(hid_t dxpl_id);
unsigned dxpl_chunk_threshold(hid_t dxpl_id);
unsigned dxpl_chunk_ratio(hid_t dxpl_id);

// --- 4. actual-mode report -------------------------------------------------------------------
// Called at the end of a collective selection operation on `dxpl_id` whose chunks were
// transferred chunk by chunk (multi-chunk I/O): makes H5Pget_mpio_actual_chunk_opt_mode and
// H5Pget_mpio_actual_io_mode report MULTI_CHUNK and `io_mode`. Best effort (statistics still
// count the decision); nothing changes for DXPLs the driver never made such a decision for.
void report_multi_chunk(hid_t dxpl_id, H5D_mpio_actual_io_mode_t io_mode);
// Called at the start of every selection operation: forgets an unconsumed report (for example
// after a failed operation) so it can never leak into a later one.
void clear_pending_report();

} // namespace mpiio::hdf5_internals
