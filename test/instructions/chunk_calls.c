/*
 * chunk_calls: one collective H5Dwrite and one H5Dread of a 2-D int dataset in 16 x 16 chunks
 * (64-byte chunk rows, the benchmark's manychunks2d shape) through the mpiio plugin, for counting
 * the plugin's instructions per chunk under callgrind (run_chunk_calls.sh). One rank: nothing
 * waits, so the count is the same on every run.
 *
 *   chunk_calls <file> <rows> <columns>
 */
#include <hdf5.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc != 4) {
        fprintf(stderr, "usage: chunk_calls <file> <rows> <columns>\n");
        return 2;
    }
    const hsize_t dims[2] = {(hsize_t)atoll(argv[2]), (hsize_t)atoll(argv[3])}, chunk[2] = {16, 16};
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    H5Pset_driver_by_name(fapl, "mpiio", NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 2, chunk);
    hid_t space = H5Screate_simple(2, dims, NULL);
    hid_t dset = H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    const size_t n = (size_t)(dims[0] * dims[1]);
    int *v = malloc(n * sizeof(int)), *back = calloc(n, sizeof(int));
    for (size_t i = 0; i < n; ++i)
        v[i] = (int)i;
    int bad = file < 0 || dset < 0 || H5Dwrite(dset, H5T_NATIVE_INT, space, space, dxpl, v) < 0 ||
              H5Dread(dset, H5T_NATIVE_INT, space, space, dxpl, back) < 0;
    for (size_t i = 0; i < n && !bad; ++i)
        bad = back[i] != v[i];
    H5Dclose(dset);
    H5Fclose(file);
    H5Pclose(dxpl);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Pclose(fapl);
    free(v);
    free(back);
    MPI_Finalize();
    if (bad)
        fprintf(stderr, "chunk_calls: the values read back differ\n");
    return bad;
}
