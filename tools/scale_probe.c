/*
 * scale_probe: one HDF5 operation repeated, for counting what it costs per rank
 * (scripts/scale_counts.sh runs it under tools/libmpi_counts.so and strace, with 0 and with N
 * repetitions, and divides the difference by N).
 *
 *   scale_probe <mpio|mpiio> <case> <repetitions> <file>
 *   scale_probe version              the HDF5 release it runs with
 * SCALE_PROBE_CONFIG in the environment: the mpiio driver's configuration string.
 *
 * Cases (every rank takes part; the dataset holds 4096 ints per rank):
 *   open         H5Fopen + H5Fclose of the file (read-write)
 *   contiguous   a collective H5Dwrite and H5Dread of the rank's block
 *   strided      the same of every other element of a block twice the size
 *   interleaved  the same of elements r, r + P, r + 2P, ... (every rank's extent spans the dataset)
 * Setup (file, dataset, one write of every element) happens with 0 repetitions too.
 */
#include <hdf5.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kPerRank = 4096 };

static hid_t fapl_of(const char *driver) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (strcmp(driver, "mpio") == 0) {
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    } else {
        H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        H5Pset_driver_by_name(fapl, "mpiio", getenv("SCALE_PROBE_CONFIG"));
    }
    return fapl;
}

/* The case's file selection for this rank and the number of elements it selects. */
static hsize_t select_case(const char *c, hid_t space, int rank, int size) {
    hsize_t start, stride, count;
    if (strcmp(c, "strided") == 0) {
        start = 2 * (hsize_t)rank * kPerRank;
        stride = 2;
        count = kPerRank;
    } else if (strcmp(c, "interleaved") == 0) {
        start = (hsize_t)rank;
        stride = (hsize_t)size;
        count = kPerRank;
    } else {
        start = (hsize_t)rank * kPerRank;
        stride = 1;
        count = kPerRank;
    }
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, &stride, &count, NULL);
    return count;
}

int main(int argc, char **argv) {
    if (argc == 2 && strcmp(argv[1], "version") == 0) { /* the HDF5 release, for the report */
        unsigned maj = 0, min = 0, rel = 0;
        H5get_libversion(&maj, &min, &rel);
        printf("%u.%u.%u\n", maj, min, rel);
        return 0;
    }
    MPI_Init(&argc, &argv);
    if (argc != 5) {
        fprintf(
            stderr,
            "usage: scale_probe <mpio|mpiio> <open|contiguous|strided|interleaved> <repetitions> <file>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *driver = argv[1], *c = argv[2], *path = argv[4];
    const int reps = atoi(argv[3]);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hid_t fapl = fapl_of(driver);
    const hsize_t elements = 2 * (hsize_t)kPerRank * (hsize_t)size;
    int *values = malloc(2 * kPerRank * sizeof(int));
    for (int i = 0; i < 2 * kPerRank; ++i)
        values[i] = rank * 2 * kPerRank + i;

    /* Setup: the file with every element written once (each rank two blocks' worth). */
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(1, &elements, NULL);
    hid_t dset = H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hsize_t start = 2 * (hsize_t)rank * kPerRank, count = 2 * kPerRank;
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
    hid_t mem = H5Screate_simple(1, &count, NULL);
    if (file < 0 || dset < 0 || H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, values) < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    H5Sclose(mem);

    if (strcmp(c, "open") == 0) {
        H5Dclose(dset);
        H5Fclose(file);
        for (int i = 0; i < reps; ++i) {
            hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
            if (f < 0)
                MPI_Abort(MPI_COMM_WORLD, 1);
            H5Fclose(f);
        }
    } else {
        const hsize_t n = select_case(c, space, rank, size);
        mem = H5Screate_simple(1, &n, NULL);
        for (int i = 0; i < reps; ++i)
            if (H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, values) < 0 ||
                H5Dread(dset, H5T_NATIVE_INT, mem, space, dxpl, values) < 0)
                MPI_Abort(MPI_COMM_WORLD, 1);
        H5Sclose(mem);
        H5Dclose(dset);
        H5Fclose(file);
    }
    H5Sclose(space);
    H5Pclose(dxpl);
    H5Pclose(fapl);
    free(values);
    MPI_Finalize();
    return 0;
}
