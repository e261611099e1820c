// A serial program that never calls MPI_Init and is not started by mpirun: with HDF5_DRIVER=mpiio
// (and optionally HDF5_DRIVER_CONFIG=comm=self) it writes and reads a file with H5P_DEFAULT. The
// driver must start MPI itself, use the plugin, and finalise MPI when HDF5 shuts down.
//   test_no_mpi <file>        exit code 0 on success
#include "h5fd_mpiio.h"

#include <hdf5.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace {
int failures = 0;
void check(bool ok, const char *what) {
    if (!ok) {
        std::fprintf(stderr, "FAIL: %s\n", what);
        H5Eprint2(H5E_DEFAULT, stderr);
        ++failures;
    }
}
int mpi_initialized() {
    int flag = 0;
    MPI_Initialized(&flag);
    return flag;
}
int mpi_finalized() {
    int flag = 0;
    MPI_Finalized(&flag);
    return flag;
}
} // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: test_no_mpi <file>\n");
        return 2;
    }
    const char *driver = std::getenv("HDF5_DRIVER");
    if (driver == nullptr || std::strcmp(driver, "mpiio") != 0) {
        std::fprintf(stderr, "run with HDF5_DRIVER=mpiio\n");
        return 2;
    }
    const std::string path = argv[1];
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
    std::filesystem::remove(path, ec);

    check(!mpi_initialized(), "MPI is not initialised before HDF5 is used");
    const hsize_t n = 1000;
    std::vector<double> values(n);
    for (hsize_t i = 0; i < n; ++i)
        values[i] = 0.5 * static_cast<double>(i) - 7.0;

    hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    check(file >= 0, "H5Fcreate with H5P_DEFAULT under HDF5_DRIVER=mpiio");
    if (file < 0)
        return 1;
    check(mpi_initialized(), "the driver initialised MPI");
    H5FD_mpiio_stats_t stats{};
    check(H5Fget_mpiio_stats(file, &stats) >= 0, "the file uses the mpiio plugin");
    hid_t space = H5Screate_simple(1, &n, nullptr);
    hid_t dset = H5Dcreate2(file, "values", H5T_IEEE_F64LE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(dset >= 0, "H5Dcreate2");
    check(H5Dwrite(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()) >= 0, "H5Dwrite");
    H5Dclose(dset);
    H5Sclose(space);
    check(H5Fclose(file) >= 0, "H5Fclose");

    file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    check(file >= 0, "H5Fopen read-only with H5P_DEFAULT");
    if (file >= 0) {
        check(H5Fget_mpiio_stats(file, &stats) >= 0, "the reopened file uses the mpiio plugin");
        hid_t fapl = H5Fget_access_plist(file);
        MPI_Comm comm = MPI_COMM_NULL;
        MPI_Info info = MPI_INFO_NULL;
        check(H5Pget_mpi_params(fapl, &comm, &info) >= 0, "H5Pget_mpi_params of the file's FAPL");
        int size = -1;
        if (comm != MPI_COMM_NULL) {
            MPI_Comm_size(comm, &size);
            MPI_Comm_free(&comm);
        }
        check(size == 1, "the file's communicator has one process");
        if (info != MPI_INFO_NULL)
            MPI_Info_free(&info);
        H5Pclose(fapl);
        std::vector<double> back(n, -1.0);
        dset = H5Dopen2(file, "values", H5P_DEFAULT);
        check(H5Dread(dset, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, back.data()) >= 0, "H5Dread");
        check(back == values, "values read back equal the values written");
        H5Dclose(dset);
        check(H5Fclose(file) >= 0, "H5Fclose (read-only)");
    }
    check(H5close() >= 0, "H5close");
    check(mpi_finalized(), "the driver finalised the MPI it started when HDF5 shut down");
    std::filesystem::remove(path, ec);
    if (failures == 0)
        std::printf("PASS\n");
    return failures == 0 ? 0 : 1;
}
