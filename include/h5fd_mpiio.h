/*
 * mpiio-vfd: public header for applications that want a typed way to select the mpiio
 * MPI-IO virtual file driver plugin, and to read its per-file statistics.
 *
 * Header-only: nothing to link besides HDF5 itself; the driver is loaded at run time from
 * HDF5_PLUGIN_PATH. Other ways to select it need no header at all:
 *     HDF5_DRIVER=mpiio [HDF5_DRIVER_CONFIG='...']           (environment)
 *     H5Pset_mpi_params(fapl, comm, info);
 *     H5Pset_driver_by_name(fapl, "mpiio", "key=value;...");  (by name)
 */
#ifndef H5FD_MPIIO_H
#define H5FD_MPIIO_H

#include <H5FDdevelop.h>
#include <hdf5.h>
#include <mpi.h>

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define H5FD_MPIIO_NAME "mpiio"
#define H5FD_MPIIO_VALUE ((H5FD_class_value_t)(311))

/* Experimental ctl opcode answered by the driver: copies H5FD_mpiio_stats_t into *output. */
#define H5FD_MPIIO_CTL_GET_STATS (H5FD_CTL_OPC_EXPER_MIN + 311)

/* The first members of the driver's file struct. They mirror the built-in MPI-IO driver's
 * (H5Fset_mpi_atomicity relies on that), and get_handle returns &fh. */
typedef struct H5FD_mpiio_prefix_t {
    H5FD_t pub;
    MPI_File fh;
} H5FD_mpiio_prefix_t;

/*
 * Per-file counters of this rank (all zero-based since the file was opened), as one table:
 * X(type, name, description). The struct, the driver's stats=summary report, the benchmark and
 * the tests all expand this list. New fields go at the end only: H5Fget_mpiio_stats copies as
 * many bytes as the caller's struct holds, so programs built against an older header keep
 * working.
 */
/* clang-format off */
#define H5FD_MPIIO_STATS_FIELDS(X)                                                                          \
    X(uint64_t, independent_reads, "MPI_File_read_at calls")                                                \
    X(uint64_t, independent_writes, "MPI_File_write_at calls")                                              \
    X(uint64_t, collective_reads, "MPI_File_read_at_all calls")                                             \
    X(uint64_t, collective_writes, "MPI_File_write_at_all calls")                                           \
    X(uint64_t, rank0_bcast_reads, "reads done by rank 0 and broadcast")                                    \
    X(uint64_t, bytes_read, "bytes read")                                                                   \
    X(uint64_t, bytes_written, "bytes written")                                                             \
    X(uint64_t, vector_calls, "read_vector / write_vector callbacks")                                       \
    X(uint64_t, syncs, "MPI_File_sync calls")                                                               \
    X(uint64_t, truncates, "MPI_File_set_size calls")                                                       \
    X(double, seconds_in_mpi_io, "wall time inside MPI_File_* data calls (a run-by-run operation: all of it); measured only with stats=summary, else 0")\
    X(uint64_t, linked_chunk_ops, "chunked operations done as one collective transfer over all chunks")    \
    X(uint64_t, multi_chunk_ops, "chunked operations done chunk by chunk")                                  \
    X(uint64_t, collective_chunks, "chunks transferred collectively in multi-chunk operations")             \
    X(uint64_t, independent_chunks, "chunks transferred independently in multi-chunk operations")           \
    X(uint64_t, collective_ops, "collective transfers (every rank joins; one route choice each)")           \
    X(uint64_t, independent_route_ops, "collective transfers moved rank by rank (independent route)")       \
    X(uint64_t, mpi_route_ops, "collective transfers moved with MPI collective I/O")                         \
    X(uint64_t, collective_mpi_calls, "collective MPI calls made by collective transfers")                  \
    X(uint64_t, set_views, "MPI_File_set_view calls on the shared handle")                                 \
    X(uint64_t, view_writes, "independent writes of many small runs as one call through the rank's own view")\
    X(uint64_t, aggregated_route_ops, "collective transfers moved through aggregator ranks (aggregating route)")\
    X(uint64_t, cached_window_reads, "aggregator windows of collective reads copied from the aggregator's copy of earlier transfers (window_cache), no read call")\
    X(uint64_t, cached_bytes_read, "bytes those windows copied")                                            \
    X(uint64_t, deferred_windows, "aggregator windows of collective writes kept in memory and written later, once (write_behind)")\
    X(uint64_t, deferred_bytes_replaced, "bytes of kept windows a later collective write of the same bytes replaced before they were written (writes saved)")\
    X(uint64_t, own_handle_syncs, "MPI_File_sync calls on the rank's own handle (one after each view write)")\
    X(uint64_t, aggregation_buffer_peak, "most bytes this rank held as an aggregator in one write round (its window and the staging of overlapping pieces); summed over ranks by stats=summary")\
    X(uint64_t, aggregator_windows, "aggregator windows this rank moved (each whole stripe units, owned by this rank by its file offset)")
/* clang-format on */

typedef struct H5FD_mpiio_stats_t {
#define H5FD_MPIIO_STATS_MEMBER(type, name, description) type name;
    H5FD_MPIIO_STATS_FIELDS(H5FD_MPIIO_STATS_MEMBER)
#undef H5FD_MPIIO_STATS_MEMBER
} H5FD_mpiio_stats_t;

/*
 * Selects the mpiio driver on a file access property list, with the communicator and info
 * HDF5 duplicates (as H5Pset_fapl_mpio does) and an optional config string (NULL or "" for the
 * defaults; see the README's config table). Returns negative on failure.
 */
static inline herr_t H5Pset_fapl_mpiio(hid_t fapl_id, MPI_Comm comm, MPI_Info info, const char *config) {
    if (H5Pset_mpi_params(fapl_id, comm, info) < 0)
        return -1;
    return H5Pset_driver_by_name(fapl_id, H5FD_MPIIO_NAME, config) < 0 ? -1 : 0;
}

/*
 * The property a file access property list carries to tell the driver's get_handle that the caller
 * only looks for the driver's statistics (H5Fget_mpiio_stats below): any other H5Fget_vfd_handle
 * hands the application the file's MPI handle, and from then on the driver keeps no copies of the
 * file's bytes (window_cache, write_behind).
 */
#define H5FD_MPIIO_STATS_PROBE "mpiio statistics probe"

/*
 * Copies this rank's statistics of an open file that uses the mpiio driver. Local.
 * Returns negative if the file does not use the mpiio driver.
 */
static inline herr_t H5Fget_mpiio_stats(hid_t file_id, H5FD_mpiio_stats_t *stats) {
    void *handle = NULL;
    H5FD_t *lf;
    int marker = 1;
    hid_t probe;
    herr_t got;
    if (stats == NULL || (probe = H5Pcreate(H5P_FILE_ACCESS)) < 0)
        return -1;
    got = H5Pinsert2(probe, H5FD_MPIIO_STATS_PROBE, sizeof(marker), &marker, NULL, NULL, NULL, NULL, NULL,
                     NULL);
    if (got >= 0)
        got = H5Fget_vfd_handle(file_id, probe, &handle);
    H5Pclose(probe);
    if (got < 0 || handle == NULL)
        return -1;
    /* get_handle returns &fh of H5FD_mpiio_prefix_t, so the driver's H5FD_t is found from it. */
    lf = (H5FD_t *)((char *)handle - offsetof(H5FD_mpiio_prefix_t, fh));
    if (lf->cls == NULL || lf->cls->name == NULL || strcmp(lf->cls->name, H5FD_MPIIO_NAME) != 0)
        return -1;
    /* The input is the caller's struct size: the driver copies no more than that. */
    size_t size = sizeof(*stats);
    return H5FDctl(lf, H5FD_MPIIO_CTL_GET_STATS, H5FD_CTL_FAIL_IF_UNKNOWN_FLAG, &size, (void **)&stats);
}

#endif /* H5FD_MPIIO_H */
