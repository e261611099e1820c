/*
 * open_close_ab: the cost of H5Fopen + H5Fclose through two FAPLs compared in one process, in
 * blocks of pairs alternating A B, B A, A B, ... (so slow drifts of the machine and the file
 * system fall on both sides alike), against an A/A control run the same way (docs/measurements.md,
 * "Open and close cost").
 *
 *   mpirun -n P open_close_ab <mpiio|mpio> [blocks] [pairs-per-block] [dir]
 *
 * A is always the built-in mpio driver; B is the plugin ("mpiio") or the built-in driver again
 * ("mpio": the A/A control). Each side opens its own file of one dataset in `dir` (default
 * /dev/shm). Prints, on rank 0, microseconds per pair (slowest rank; median over blocks) of both
 * sides, the median and quartiles of the per-block ratio of B's rate to A's (A's microseconds over
 * B's: > 1, B is faster), and the mean microseconds per H5Fopen and per H5Fclose of both sides.
 * Every HDF5 call is checked: a failure ends the program with a non-zero status.
 */
#include <hdf5.h>
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                                          \
    do {                                                                                                     \
        if ((call) < 0) {                                                                                    \
            fprintf(stderr, "open_close_ab: %s failed\n", #call);                                            \
            MPI_Abort(MPI_COMM_WORLD, 1);                                                                    \
        }                                                                                                    \
    } while (0)

typedef struct {
    double pair_us, open_us, close_us; /* per pair, slowest rank */
} BlockTime;

static hid_t fapl_of(const char *driver) {
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    CHECK(fapl);
    if (strcmp(driver, "mpio") == 0) {
        CHECK(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    } else {
        CHECK(H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
        CHECK(H5Pset_driver_by_name(fapl, "mpiio", NULL));
    }
    return fapl;
}

/* Collective. A file holding one dataset of 1024 64-bit integers. */
static void create_file(hid_t fapl, const char *path) {
    const hsize_t n = 1024;
    hid_t file, space, dset;
    CHECK(file = H5Fcreate(path, H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    CHECK(space = H5Screate_simple(1, &n, NULL));
    CHECK(dset = H5Dcreate2(file, "data", H5T_NATIVE_UINT64, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
    CHECK(H5Dclose(dset));
    CHECK(H5Sclose(space));
    CHECK(H5Fclose(file));
}

/* Collective. `pairs` read-write opens and closes of `path`, started together on every rank. */
static BlockTime run_block(hid_t fapl, const char *path, int pairs) {
    double open_s = 0, close_s = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double start = MPI_Wtime();
    for (int i = 0; i < pairs; ++i) {
        const double t0 = MPI_Wtime();
        hid_t file;
        CHECK(file = H5Fopen(path, H5F_ACC_RDWR, fapl));
        const double t1 = MPI_Wtime();
        CHECK(H5Fclose(file));
        open_s += t1 - t0;
        close_s += MPI_Wtime() - t1;
    }
    double mine[3] = {MPI_Wtime() - start, open_s, close_s}, slowest[3];
    MPI_Allreduce(mine, slowest, 3, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    BlockTime t = {slowest[0] * 1e6 / pairs, slowest[1] * 1e6 / pairs, slowest[2] * 1e6 / pairs};
    return t;
}

static int by_value(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (0..1) of v[0..n), sorting v. */
static double quantile(double *v, int n, double q) {
    qsort(v, (size_t)n, sizeof v[0], by_value);
    return v[(int)(q * (n - 1) + 0.5)];
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc < 2 || (strcmp(argv[1], "mpiio") != 0 && strcmp(argv[1], "mpio") != 0)) {
        fprintf(stderr, "usage: open_close_ab <mpiio|mpio> [blocks] [pairs-per-block] [dir]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *b_driver = argv[1];
    const int blocks = argc > 2 ? atoi(argv[2]) : 60, pairs = argc > 3 ? atoi(argv[3]) : 20;
    const char *dir = argc > 4 ? argv[4] : "/dev/shm";
    if (blocks < 2 || pairs < 1) {
        fprintf(stderr, "open_close_ab: blocks must be at least 2 and pairs at least 1\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    char path_a[4096], path_b[4096];
    snprintf(path_a, sizeof path_a, "%s/open_close_ab.a.h5", dir);
    snprintf(path_b, sizeof path_b, "%s/open_close_ab.b.h5", dir);
    const hid_t fapl_a = fapl_of("mpio"), fapl_b = fapl_of(b_driver);
    create_file(fapl_a, path_a);
    create_file(fapl_b, path_b);
    run_block(fapl_a, path_a, pairs); /* warm-up: first-open effects on both sides */
    run_block(fapl_b, path_b, pairs);

    double *a = malloc(sizeof(double) * (size_t)blocks), *b = malloc(sizeof(double) * (size_t)blocks);
    double *ratio = malloc(sizeof(double) * (size_t)blocks);
    if (a == NULL || b == NULL || ratio == NULL) {
        fprintf(stderr, "open_close_ab: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double open_a = 0, open_b = 0, close_a = 0, close_b = 0;
    for (int k = 0; k < blocks; ++k) {
        BlockTime ta, tb;
        if (k % 2 == 0) {
            ta = run_block(fapl_a, path_a, pairs);
            tb = run_block(fapl_b, path_b, pairs);
        } else {
            tb = run_block(fapl_b, path_b, pairs);
            ta = run_block(fapl_a, path_a, pairs);
        }
        a[k] = ta.pair_us;
        b[k] = tb.pair_us;
        ratio[k] = ta.pair_us / tb.pair_us;
        open_a += ta.open_us;
        open_b += tb.open_us;
        close_a += ta.close_us;
        close_b += tb.close_us;
    }
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank == 0) {
        const double q25 = quantile(ratio, blocks, 0.25), q75 = quantile(ratio, blocks, 0.75);
        printf("mpio %.1f us, %s %.1f us per pair; rate ratio %s/mpio median %.3f (quartiles %.3f-%.3f); "
               "open %.1f / %.1f us, close %.1f / %.1f us\n",
               quantile(a, blocks, 0.5), b_driver, quantile(b, blocks, 0.5), b_driver,
               quantile(ratio, blocks, 0.5), q25, q75, open_a / blocks, open_b / blocks, close_a / blocks,
               close_b / blocks);
        remove(path_a);
        remove(path_b);
    }
    free(a);
    free(b);
    free(ratio);
    CHECK(H5Pclose(fapl_a));
    CHECK(H5Pclose(fapl_b));
    MPI_Finalize();
    return 0;
}
