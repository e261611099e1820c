/*
 * shim_probe <mpiio|mpio> <file>: an ordinary parallel HDF5 program (it selects the built-in
 * MPI-IO driver with H5Pset_fapl_mpio, nothing else) that checks which driver actually served it.
 * With libh5mpiio_redirect.so preloaded and MPIIO_REDIRECT=1 it must run on the mpiio plugin;
 * without the shim, or with MPIIO_REDIRECT unset or 0, on the built-in driver. Exit 0 = PASS.
 */
#include "h5fd_mpiio.h"

#include <hdf5.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank = 0;
static int g_failures = 0;

#define CHECK(cond, what)                                                                                    \
    do {                                                                                                     \
        if (!(cond)) {                                                                                       \
            fprintf(stderr, "shim_probe rank %d: FAILED: %s (line %d)\n", g_rank, what, __LINE__);           \
            ++g_failures;                                                                                    \
        }                                                                                                    \
    } while (0)

/* H5Pget_fapl_mpio must answer with a communicator of the world's size, NULL outputs allowed. */
static void check_get_fapl_mpio(hid_t fapl, int world_size, const char *which) {
    char what[128];
    MPI_Comm comm = MPI_COMM_NULL;
    MPI_Info info = MPI_INFO_NULL;
    int size = -1;
    snprintf(what, sizeof what, "H5Pget_fapl_mpio(%s)", which);
    CHECK(H5Pget_fapl_mpio(fapl, &comm, &info) >= 0, what);
    if (comm != MPI_COMM_NULL) {
        MPI_Comm_size(comm, &size);
        MPI_Comm_free(&comm);
    }
    CHECK(size == world_size, "communicator from H5Pget_fapl_mpio has the world's size");
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    CHECK(H5Pget_fapl_mpio(fapl, NULL, NULL) >= 0, "H5Pget_fapl_mpio with NULL outputs");
    CHECK(H5Pget_fapl_mpio(fapl, &comm, NULL) >= 0 && comm != MPI_COMM_NULL, "H5Pget_fapl_mpio(comm only)");
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 3 || (strcmp(argv[1], "mpiio") != 0 && strcmp(argv[1], "mpio") != 0)) {
        if (g_rank == 0)
            fprintf(stderr, "usage: shim_probe mpiio|mpio <file>\n");
        MPI_Finalize();
        return 2;
    }
    const int expect_plugin = strcmp(argv[1], "mpiio") == 0;
    const char *name = argv[2];

    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) >= 0, "H5Pset_fapl_mpio");
    check_get_fapl_mpio(fapl, size, "set FAPL");

    /* The original's argument checks still hold. */
    H5E_BEGIN_TRY {
        CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_NULL, MPI_INFO_NULL) < 0,
              "H5Pset_fapl_mpio(MPI_COMM_NULL) fails");
        hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
        CHECK(H5Pget_fapl_mpio(dxpl, NULL, NULL) < 0, "H5Pget_fapl_mpio(not a FAPL) fails");
        H5Pclose(dxpl);
        hid_t plain = H5Pcreate(H5P_FILE_ACCESS);
        H5Pset_fapl_sec2(plain);
        CHECK(H5Pget_fapl_mpio(plain, NULL, NULL) < 0, "H5Pget_fapl_mpio(sec2 FAPL) fails");
        H5Pclose(plain);
    }
    H5E_END_TRY

    /* Each rank writes its own row collectively, then everybody reads everything back. */
    hid_t file = H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    CHECK(file >= 0, "H5Fcreate");
    hsize_t dims[2] = {(hsize_t)size, 16}, start[2] = {(hsize_t)g_rank, 0}, count[2] = {1, 16};
    hid_t fspace = H5Screate_simple(2, dims, NULL);
    hid_t mspace = H5Screate_simple(2, count, NULL);
    hid_t dset = H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    CHECK(dset >= 0, "H5Dcreate2");
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, NULL, count, NULL);
    int row[16];
    for (int i = 0; i < 16; ++i)
        row[i] = g_rank * 100 + i;
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    CHECK(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, row) >= 0, "collective H5Dwrite");

    H5FD_mpiio_stats_t stats;
    memset(&stats, 0, sizeof stats);
    const int on_plugin = H5Fget_mpiio_stats(file, &stats) >= 0;
    CHECK(on_plugin == expect_plugin, expect_plugin ? "the file is served by the mpiio plugin"
                                                    : "the file is served by the built-in MPI-IO driver");
    if (on_plugin)
        CHECK(stats.collective_writes + stats.independent_writes > 0, "the plugin counted writes");

    hid_t apl = H5Fget_access_plist(file);
    check_get_fapl_mpio(apl, size, "H5Fget_access_plist");
    H5Pclose(apl);
    H5Dclose(dset);
    H5Sclose(mspace);
    H5Sclose(fspace);
    CHECK(H5Fclose(file) >= 0, "H5Fclose");

    file = H5Fopen(name, H5F_ACC_RDONLY, fapl);
    CHECK(file >= 0, "H5Fopen");
    int *all = calloc((size_t)size * 16, sizeof(int));
    dset = H5Dopen2(file, "d", H5P_DEFAULT);
    CHECK(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, dxpl, all) >= 0, "collective H5Dread");
    for (int r = 0; r < size; ++r)
        for (int i = 0; i < 16; ++i)
            if (all[r * 16 + i] != r * 100 + i) {
                CHECK(0, "data read back equals data written");
                r = size;
                break;
            }
    free(all);
    H5Dclose(dset);
    H5Fclose(file);
    H5Pclose(dxpl);
    H5Pclose(fapl);

    int failures = 0;
    MPI_Allreduce(&g_failures, &failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (g_rank == 0) {
        MPI_File_delete(name, MPI_INFO_NULL);
        printf("shim_probe: %s (expected the %s driver, %d ranks)\n", failures ? "FAILED" : "PASS",
               expect_plugin ? "mpiio plugin" : "built-in mpio", size);
    }
    MPI_Finalize();
    return failures ? 1 : 0;
}
