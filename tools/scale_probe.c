/*
 * scale_probe: HDF5 operations repeated, for counting what they cost per rank
 * (scripts/scale_counts.sh runs it under tools/libmpi_counts.so and strace, with 0 and with N
 * repetitions, and divides the difference by N; or reads the phases below).
 *
 *   scale_probe <mpio|mpiio> <case>[,<case>...] <repetitions> <file>
 *   scale_probe version              the HDF5 release it runs with
 * SCALE_PROBE_CONFIG in the environment: the mpiio driver's configuration string.
 * SCALE_PROBE_BYTES: the bytes each rank writes and reads per transfer (a multiple of 4, default
 * 16384: 4096 ints).
 *
 * Cases (every rank takes part; the dataset holds twice SCALE_PROBE_BYTES of ints per rank):
 *   open         H5Fopen + H5Fclose of the file (read-write)
 *   contiguous   a collective H5Dwrite and H5Dread of the rank's block
 *   strided      the same of every other element of a block twice the size
 *   interleaved  the same of elements r, r + P, r + 2P, ... (every rank's extent spans the dataset)
 *   metadata     a collective metadata flush: in a second file (<file>.meta) with collective
 *                metadata writes (H5Pset_coll_metadata_write) and 16 datasets of 12,000,000 bytes
 *                each (allocated, never written), every rank rewrites an attribute of each dataset
 *                and H5Fflush writes the 16 dirty object headers (a few KB over 190 MB of file)
 * Several cases, separated by commas, run one after the other in one job (open only alone).
 * Setup (file, dataset, one write of every element) happens with 0 repetitions too.
 *
 * Phases: before each measured call the probe calls MPI_Pcontrol(10 * i + k) (i: the case's place
 * in the list, from 1; k: 1 the H5Dwrite, 2 the H5Dread, 3 the H5Fflush), MPI_Pcontrol(0) after
 * it, so that tools/libmpi_counts.so counts each kind of transfer on its own (a no-op without it).
 */
#include <hdf5.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMetaDatasets = 16 };
static const hsize_t kMetaDatasetInts = 3000000; /* 12,000,000 bytes: no multiple of a window */

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
static hsize_t select_case(const char *c, hid_t space, int rank, int size, hsize_t per_rank) {
    hsize_t start, stride, count;
    if (strcmp(c, "strided") == 0) {
        start = 2 * (hsize_t)rank * per_rank;
        stride = 2;
        count = per_rank;
    } else if (strcmp(c, "interleaved") == 0) {
        start = (hsize_t)rank;
        stride = (hsize_t)size;
        count = per_rank;
    } else {
        start = (hsize_t)rank * per_rank;
        stride = 1;
        count = per_rank;
    }
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, &stride, &count, NULL);
    return count;
}

/* The metadata case: a collective metadata flush of attributes spread over a large file. */
static void metadata_case(const char *driver, const char *path, int reps, int phase) {
    char meta[4096];
    snprintf(meta, sizeof meta, "%s.meta", path);
    hid_t fapl = fapl_of(driver);
    H5Pset_coll_metadata_write(fapl, 1);
    H5Pset_all_coll_metadata_ops(fapl, 1);
    hid_t file = H5Fcreate(meta, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t space = H5Screate_simple(1, &kMetaDatasetInts, NULL), scalar = H5Screate(H5S_SCALAR);
    hid_t dsets[kMetaDatasets], attrs[kMetaDatasets];
    for (int d = 0; d < kMetaDatasets; ++d) {
        char name[32];
        snprintf(name, sizeof name, "d%02d", d);
        dsets[d] = H5Dcreate2(file, name, H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        attrs[d] = H5Acreate2(dsets[d], "step", H5T_NATIVE_INT, scalar, H5P_DEFAULT, H5P_DEFAULT);
        int zero = 0;
        if (dsets[d] < 0 || attrs[d] < 0 || H5Awrite(attrs[d], H5T_NATIVE_INT, &zero) < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (H5Fflush(file, H5F_SCOPE_LOCAL) < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int i = 0; i < reps; ++i) {
        const int step = i + 1; /* the same on every rank: metadata changes are collective */
        for (int d = 0; d < kMetaDatasets; ++d)
            if (H5Awrite(attrs[d], H5T_NATIVE_INT, &step) < 0)
                MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Pcontrol(phase + 3);
        if (H5Fflush(file, H5F_SCOPE_LOCAL) < 0)
            MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Pcontrol(0);
    }
    for (int d = 0; d < kMetaDatasets; ++d) {
        H5Aclose(attrs[d]);
        H5Dclose(dsets[d]);
    }
    H5Sclose(scalar);
    H5Sclose(space);
    H5Pclose(dcpl);
    H5Fclose(file);
    H5Pclose(fapl);
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
        fprintf(stderr, "usage: scale_probe <mpio|mpiio> <open|contiguous|strided|interleaved|metadata>[,...] "
                        "<repetitions> <file>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *driver = argv[1], *path = argv[4];
    const int reps = atoi(argv[3]);
    const char *bytes_text = getenv("SCALE_PROBE_BYTES");
    const long long bytes = bytes_text != NULL && *bytes_text != '\0' ? atoll(bytes_text) : 16384;
    if (bytes < 4 || bytes % 4 != 0) {
        fprintf(stderr, "scale_probe: SCALE_PROBE_BYTES must be a positive multiple of 4\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const hsize_t per_rank = (hsize_t)bytes / 4;
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    hid_t fapl = fapl_of(driver);
    const hsize_t elements = 2 * per_rank * (hsize_t)size;
    int *values = malloc(2 * per_rank * sizeof(int));
    for (hsize_t i = 0; i < 2 * per_rank; ++i)
        values[i] = (int)((hsize_t)rank * 2 * per_rank + i);

    /* Setup: the file with every element written once (each rank two blocks' worth). */
    hid_t file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    hid_t space = H5Screate_simple(1, &elements, NULL);
    hid_t dset = H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    hsize_t start = 2 * (hsize_t)rank * per_rank, count = 2 * per_rank;
    H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, NULL, &count, NULL);
    hid_t mem = H5Screate_simple(1, &count, NULL);
    if (file < 0 || dset < 0 || H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, values) < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    H5Sclose(mem);

    if (strcmp(argv[2], "open") == 0) {
        H5Dclose(dset);
        H5Fclose(file);
        for (int i = 0; i < reps; ++i) {
            hid_t f = H5Fopen(path, H5F_ACC_RDWR, fapl);
            if (f < 0)
                MPI_Abort(MPI_COMM_WORLD, 1);
            H5Fclose(f);
        }
    } else {
        char list[256];
        snprintf(list, sizeof list, "%s", argv[2]);
        int place = 0;
        for (char *save = NULL, *c = strtok_r(list, ",", &save); c != NULL; c = strtok_r(NULL, ",", &save)) {
            const int phase = 10 * ++place;
            if (strcmp(c, "metadata") == 0) {
                metadata_case(driver, path, reps, phase);
                continue;
            }
            if (strcmp(c, "contiguous") != 0 && strcmp(c, "strided") != 0 && strcmp(c, "interleaved") != 0) {
                fprintf(stderr, "scale_probe: unknown case '%s'\n", c);
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            const hsize_t n = select_case(c, space, rank, size, per_rank);
            mem = H5Screate_simple(1, &n, NULL);
            for (int i = 0; i < reps; ++i) {
                MPI_Pcontrol(phase + 1);
                herr_t w = H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, values);
                MPI_Pcontrol(phase + 2);
                herr_t r = w < 0 ? -1 : H5Dread(dset, H5T_NATIVE_INT, mem, space, dxpl, values);
                MPI_Pcontrol(0);
                if (w < 0 || r < 0)
                    MPI_Abort(MPI_COMM_WORLD, 1);
            }
            H5Sclose(mem);
        }
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
