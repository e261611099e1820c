// Writes a small sample file through the mpiio plugin (under mpiexec, any rank count dividing
// 12): /values int[12] = 0,10,..,110 and /grp/matrix double[4][3] = 10*row + col + 0.5, plus an
// int attribute /version = 7. Used by the serial tool tests. Exit code 0 on success.
#include "h5fd_mpiio.h"

#include <hdf5.h>
#include <mpi.h>

#include <cstdio>
#include <vector>

namespace {
int fail(const char *what) {
    std::fprintf(stderr, "write_sample: %s failed\n", what);
    H5Eprint2(H5E_DEFAULT, stderr);
    return 1;
}
} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, status = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 || 12 % size != 0) {
        std::fprintf(stderr, "usage: mpiexec -n {1,2,3,4} write_sample <file>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    if (H5Pset_fapl_mpiio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL, nullptr) < 0)
        status = fail("H5Pset_fapl_mpiio");
    hid_t file = status ? H5I_INVALID_HID : H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (!status && file < 0)
        status = fail("H5Fcreate");
    if (!status) {
        // /values: each rank a block
        const hsize_t n = 12, per = n / size;
        hid_t fspace = H5Screate_simple(1, &n, nullptr);
        hid_t dset = H5Dcreate2(file, "values", H5T_STD_I32LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t start = per * rank;
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &start, nullptr, &per, nullptr);
        hid_t mspace = H5Screate_simple(1, &per, nullptr);
        std::vector<int> v(per);
        for (hsize_t i = 0; i < per; ++i)
            v[i] = static_cast<int>((start + i) * 10);
        if (H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, v.data()) < 0)
            status = fail("H5Dwrite values");
        H5Sclose(mspace);
        H5Sclose(fspace);
        H5Dclose(dset);

        // /grp/matrix: rows split over the first ranks (4 rows)
        hid_t grp = H5Gcreate2(file, "grp", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        const hsize_t dims[2] = {4, 3};
        fspace = H5Screate_simple(2, dims, nullptr);
        dset = H5Dcreate2(grp, "matrix", H5T_IEEE_F64LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        std::vector<double> m;
        H5Sselect_none(fspace);
        for (hsize_t row = 0; row < 4; ++row) {
            if (static_cast<int>(row % size) != rank)
                continue;
            const hsize_t s[2] = {row, 0}, c[2] = {1, 3};
            H5Sselect_hyperslab(fspace, H5S_SELECT_OR, s, nullptr, c, nullptr);
            for (hsize_t col = 0; col < 3; ++col)
                m.push_back(10.0 * row + col + 0.5);
        }
        const hsize_t mn = m.size();
        mspace = H5Screate_simple(1, &mn, nullptr);
        if (mn == 0)
            H5Sselect_none(mspace);
        double dummy = 0;
        if (H5Dwrite(dset, H5T_NATIVE_DOUBLE, mspace, fspace, dxpl, mn ? m.data() : &dummy) < 0)
            status = fail("H5Dwrite matrix");
        H5Sclose(mspace);
        H5Sclose(fspace);
        H5Dclose(dset);
        H5Gclose(grp);

        hid_t ascalar = H5Screate(H5S_SCALAR);
        hid_t attr = H5Acreate2(file, "version", H5T_STD_I32LE, ascalar, H5P_DEFAULT, H5P_DEFAULT);
        const int version = 7;
        if (H5Awrite(attr, H5T_NATIVE_INT, &version) < 0)
            status = fail("H5Awrite");
        H5Aclose(attr);
        H5Sclose(ascalar);
        if (H5Fclose(file) < 0)
            status = fail("H5Fclose");
    }
    H5Pclose(dxpl);
    H5Pclose(fapl);
    int any = 0;
    MPI_Allreduce(&status, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    return any;
}
