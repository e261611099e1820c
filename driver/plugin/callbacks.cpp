// C entry points of the driver. Each one catches every exception, pushes it once onto HDF5's
// error stack (after the C++ scopes have cleaned up) and returns HDF5's failure value, so no
// exception ever crosses into the C library.
#include "plugin/callbacks.hpp"

#include "file/comm_pool.hpp"
#include "file/file.hpp"
#include "h5fd_mpiio.h"
#include "io/mpi_runtime.hpp"
#include "plugin/data_callbacks.hpp"
#include "plugin/error_stack.hpp"

namespace mpiio {
namespace {

herr_t status(bool ok) { return ok ? 0 : -1; }

herr_t cb_terminate() {
    free_kept_file_comms();
    release_error_class();
    finalize_mpi_if_ours();
    return 0;
}

// Collective.
H5FD_t *cb_open(const char *name, unsigned flags, hid_t fapl_id, haddr_t maxaddr) {
    File *file = nullptr;
    guarded("mpiio open", [&] { file = open_file(name, flags, fapl_id, maxaddr); });
    return file ? &file->pub : nullptr;
}

// Collective.
herr_t cb_close(H5FD_t *f) {
    return status(guarded("mpiio close", [&] { close_file(as_file(f)); })); // (settles itself)
}

// Local; called with f == NULL too.
herr_t cb_query(const H5FD_t *, unsigned long *flags) {
    if (flags != nullptr)
        *flags = feature_flags();
    return 0;
}

// Local: rank 0 alone calls these during the signature search.
haddr_t cb_get_eoa(const H5FD_t *f, H5FD_mem_t) { return as_file(f)->state->extent.eoa; }

herr_t cb_set_eoa(H5FD_t *f, H5FD_mem_t, haddr_t addr) {
    as_file(f)->state->extent.eoa = addr;
    return 0;
}

haddr_t cb_get_eof(const H5FD_t *f, H5FD_mem_t) { return as_file(f)->state->io.eof(); }

// Local. The MPI_File, as the built-in driver hands it out (t_pflush1 closes it directly). The
// application may read, write and sync through it behind the library's back: this rank's kept
// bytes go to the file first, and the file keeps no copies from the next collective step on
// (CollectiveEngine::hand_out_handle); bytes written through it are seen after a flush. The
// driver's own statistics getter (h5fd_mpiio.h) marks its FAPL and changes nothing.
herr_t cb_get_handle(H5FD_t *f, hid_t fapl, void **handle) {
    return status(guarded("mpiio get_handle", [&] {
        if (handle == nullptr)
            throw Error(ErrorKind::Config, "no output pointer for the file handle");
        File *file = settled(f);
        if (H5Pexist(fapl, H5FD_MPIIO_STATS_PROBE) <= 0)
            file->state->failed_writes.run([&] { file->state->collective.hand_out_handle(); });
        *handle = &file->fh;
    }));
}

// Collective.
herr_t cb_flush(H5FD_t *f, hid_t, hbool_t closing) {
    return status(guarded("mpiio flush", [&] { flush_file(settled(f), closing); }));
}

// Collective (while closing: local, the work moves to close).
herr_t cb_truncate(H5FD_t *f, hid_t, hbool_t closing) {
    return status(guarded("mpiio truncate", [&] { truncate_file(settled(f), closing); }));
}

// Collective over the FAPL's communicator.
herr_t cb_delete(const char *name, hid_t fapl_id) {
    return status(guarded("mpiio delete", [&] { delete_file(name, fapl_id); }));
}

herr_t cb_ctl(H5FD_t *f, uint64_t op_code, uint64_t flags, const void *input, void **output) {
    return status(guarded("mpiio ctl", [&] { control(as_file(f), op_code, flags, input, output); }));
}

H5FD_class_t make_class() {
    H5FD_class_t c{};
    c.version = H5FD_CLASS_VERSION;
    c.value = H5FD_MPIIO_VALUE;
    c.name = H5FD_MPIIO_NAME;
    c.maxaddr = HADDR_MAX;
    c.fc_degree = H5F_CLOSE_SEMI;
    c.terminate = cb_terminate;
    // No superblock driver info (plain HDF5 files), no driver-specific FAPL/DXPL data (the
    // configuration is a string read in open), no cmp (avoids the library's extra "tentative"
    // collective open, as the built-in driver), no alloc/free/lock/unlock.
    c.open = cb_open;
    c.close = cb_close;
    c.query = cb_query;
    c.get_eoa = cb_get_eoa;
    c.set_eoa = cb_set_eoa;
    c.get_eof = cb_get_eof;
    c.get_handle = cb_get_handle;
    c.read = cb_read;
    c.write = cb_write;
    c.read_vector = cb_read_vector;
    c.write_vector = cb_write_vector;
    c.read_selection = cb_read_selection;
    c.write_selection = cb_write_selection;
    c.flush = cb_flush;
    c.truncate = cb_truncate;
    c.del = cb_delete;
    c.ctl = cb_ctl;
    // H5FD_FLMAP_DICHOTOMY: metadata types map to SUPER, raw data and global heap to DRAW.
    const H5FD_mem_t map[H5FD_MEM_NTYPES] = H5FD_FLMAP_DICHOTOMY;
    for (int i = 0; i < H5FD_MEM_NTYPES; ++i)
        c.fl_map[i] = map[i];
    return c;
}

} // namespace

unsigned long feature_flags() {
    // HAS_MPI switches on the library's parallel metadata logic and collective transfers; the
    // aggregation flags give the built-in driver's file layout. Deliberately NOT set:
    // ACCUMULATE_METADATA and DATA_SIEVE (per-rank caches would overwrite other ranks' data).
    return H5FD_FEAT_AGGREGATE_METADATA | H5FD_FEAT_AGGREGATE_SMALLDATA | H5FD_FEAT_HAS_MPI |
           H5FD_FEAT_DEFAULT_VFD_COMPATIBLE;
}

const H5FD_class_t &driver_class() {
    static const H5FD_class_t cls = make_class();
    return cls;
}

} // namespace mpiio
