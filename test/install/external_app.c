/* An application that knows nothing about mpiio-vfd: plain parallel HDF5 calls with H5P_DEFAULT
 * file access, so the driver comes from HDF5_DRIVER (mpio = built-in, mpiio = the plugin).
 * Writes contiguous and chunked datasets, collectively and independently, each rank a block of
 * rows plus a strided column pattern, then reads them back and checks the values.
 * Usage: mpirun -n N external_app <file> */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define ROWS_PER_RANK 6
#define COLS 40

static int value(int row, int col, int which) { return which * 1000000 + row * 1000 + col; }

/* Writes and checks every other column starting at `first_col` (a strided hyperslab). */
static int write_columns(hid_t dset, hid_t fspace, int first_col, H5FD_mpio_xfer_t mode, int which);

static int write_and_check(hid_t file, const char *name, int chunked, H5FD_mpio_xfer_t mode, int which) {
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hsize_t dims[2] = {(hsize_t)size * ROWS_PER_RANK, COLS};
    hid_t fspace = H5Screate_simple(2, dims, NULL);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    if (chunked) {
        hsize_t chunk[2] = {4, 7};
        H5Pset_chunk(dcpl, 2, chunk);
    }
    hid_t dset = H5Dcreate2(file, name, H5T_NATIVE_INT, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    /* even columns, then odd ones: strided writes that together cover the whole dataset */
    int bad = write_columns(dset, fspace, 0, mode, which) || write_columns(dset, fspace, 1, mode, which);
    H5Dclose(dset);
    H5Pclose(dcpl);
    H5Sclose(fspace);
    return bad;
}

static int write_columns(hid_t dset, hid_t fspace, int first_col, H5FD_mpio_xfer_t mode, int which) {
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    /* every other column of this rank's rows: a strided hyperslab */
    hsize_t start[2] = {(hsize_t)rank * ROWS_PER_RANK, (hsize_t)first_col}, stride[2] = {1, 2};
    hsize_t count[2] = {ROWS_PER_RANK, COLS / 2}, block[2] = {1, 1};
    H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, stride, count, block);
    hsize_t mdims[1] = {ROWS_PER_RANK * COLS / 2};
    hid_t mspace = H5Screate_simple(1, mdims, NULL);
    int *buf = malloc(sizeof(int) * mdims[0]);
    for (int r = 0; r < ROWS_PER_RANK; r++)
        for (int c = 0; c < COLS / 2; c++)
            buf[r * (COLS / 2) + c] = value(rank * ROWS_PER_RANK + r, 2 * c + first_col, which);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, mode);
    int bad = H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, buf) < 0;
    for (hsize_t i = 0; i < mdims[0]; i++)
        buf[i] = -1;
    bad |= H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, buf) < 0;
    for (int r = 0; r < ROWS_PER_RANK && !bad; r++)
        for (int c = 0; c < COLS / 2; c++)
            if (buf[r * (COLS / 2) + c] != value(rank * ROWS_PER_RANK + r, 2 * c + first_col, which)) {
                fprintf(stderr, "rank %d: %s wrong value at row %d col %d\n", rank, "dataset", r,
                        2 * c + first_col);
                bad = 1;
                break;
            }
    free(buf);
    H5Pclose(dxpl);
    H5Sclose(mspace);
    return bad;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc != 2) {
        fprintf(stderr, "usage: %s <file>\n", argv[0]);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS); /* no driver set: HDF5_DRIVER decides */
    H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    int bad = file < 0;
    if (!bad) {
        bad |= write_and_check(file, "contiguous_collective", 0, H5FD_MPIO_COLLECTIVE, 1);
        bad |= write_and_check(file, "contiguous_independent", 0, H5FD_MPIO_INDEPENDENT, 2);
        bad |= write_and_check(file, "chunked_collective", 1, H5FD_MPIO_COLLECTIVE, 3);
        bad |= write_and_check(file, "chunked_independent", 1, H5FD_MPIO_INDEPENDENT, 4);
        bad |= H5Fclose(file) < 0;
    }
    H5Pclose(fapl);
    int any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any_bad;
}
