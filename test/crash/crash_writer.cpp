// The writer the crash test kills: writes and flushes a file, then keeps changing it, and at a
// chosen point every rank (or only rank 0) sends itself SIGKILL, as a killed job would.
//
//   crash_writer <mpio|mpiio> <default|latest> <kill point> <file>
//
// Stages (the kill point names the stage after which the ranks die):
//   1. datasets "flushed" (contiguous) and "flushed_chunked" (chunked, extendible), collective
//      write of v1(i) = i; attribute "stage" = 1; H5Fflush           -> after_flush, rank0_after_flush
//   2. both datasets overwritten collectively with v2(i) = i + 1000000 -> after_overwrite
//   3. new dataset "unflushed" and group "g" with an attribute        -> after_new_objects
//   4. "flushed_chunked" extended to twice its size and the new part written -> after_extend
//   5. second H5Fflush                                                -> after_second_flush
//   6. H5Fclose                                                        (point "none": normal exit)
// rank0_after_flush: only rank 0 dies right after the flush, the others carry on into stage 2 and
// are ended by mpirun. Collective over MPI_COMM_WORLD.
#include "crash_layout.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <csignal>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

int rank_ = 0, size_ = 1;
std::string kill_point;

void stage_done(const char *stage) {
    if (kill_point == "rank0_after_flush" && std::strcmp(stage, "after_flush") == 0) {
        if (rank_ == 0)
            raise(SIGKILL);
        return;
    }
    if (kill_point == stage) {
        // Every rank has finished the stage (the barrier), then all die together.
        MPI_Barrier(MPI_COMM_WORLD);
        raise(SIGKILL);
    }
}

void fail(const char *what) {
    std::fprintf(stderr, "[rank %d] crash_writer: %s failed\n", rank_, what);
    MPI_Abort(MPI_COMM_WORLD, 2);
}

void write_rank_block(hid_t dset, hsize_t offset, int version) {
    const hsize_t start[1] = {offset + crash::kPerRank * static_cast<hsize_t>(rank_)};
    const hsize_t count[1] = {crash::kPerRank};
    std::vector<int> buf(crash::kPerRank);
    for (hsize_t i = 0; i < crash::kPerRank; ++i)
        buf[i] = crash::value(start[0] + i, version);
    const hid_t space = H5Dget_space(dset);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    const hid_t mem = H5Screate_simple(1, count, nullptr);
    const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    if (H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, buf.data()) < 0)
        fail("H5Dwrite");
    H5Pclose(dxpl);
    H5Sclose(mem);
    H5Sclose(space);
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (argc != 5) {
        std::fprintf(stderr, "usage: crash_writer <mpio|mpiio> <default|latest> <kill point> <file>\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const std::string driver = argv[1], format = argv[2], path = argv[4];
    kill_point = argv[3];

    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (driver == "mpio") {
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    } else {
        H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        if (H5Pset_driver_by_name(fapl, "mpiio", nullptr) < 0)
            fail("H5Pset_driver_by_name(mpiio)");
    }
    if (format == "latest")
        H5Pset_libver_bounds(fapl, H5F_LIBVER_LATEST, H5F_LIBVER_LATEST);
    const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    if (file < 0)
        fail("H5Fcreate");
    const hsize_t n = crash::kPerRank * static_cast<hsize_t>(size_);

    // Stage 1
    const hsize_t dims[1] = {n}, maxdims[1] = {H5S_UNLIMITED}, chunk[1] = {crash::kChunk};
    const hid_t space = H5Screate_simple(1, dims, nullptr);
    const hid_t ext_space = H5Screate_simple(1, dims, maxdims);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, chunk);
    const hid_t contig =
        H5Dcreate2(file, "flushed", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t chunked =
        H5Dcreate2(file, "flushed_chunked", H5T_NATIVE_INT, ext_space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    if (contig < 0 || chunked < 0)
        fail("H5Dcreate2");
    write_rank_block(contig, 0, 1);
    write_rank_block(chunked, 0, 1);
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const int stage = 1;
    const hid_t attr = H5Acreate2(file, "stage", H5T_NATIVE_INT, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_INT, &stage);
    H5Aclose(attr);
    if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        fail("H5Fflush");
    stage_done("after_flush");

    // Stage 2
    write_rank_block(contig, 0, 2);
    write_rank_block(chunked, 0, 2);
    stage_done("after_overwrite");

    // Stage 3
    const hid_t later =
        H5Dcreate2(file, "unflushed", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (later < 0)
        fail("H5Dcreate2(unflushed)");
    write_rank_block(later, 0, 2);
    const hid_t group = H5Gcreate2(file, "g", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    const hid_t gattr = H5Acreate2(group, "note", H5T_NATIVE_INT, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(gattr, H5T_NATIVE_INT, &stage);
    H5Aclose(gattr);
    H5Gclose(group);
    stage_done("after_new_objects");

    // Stage 4
    const hsize_t twice[1] = {2 * n};
    if (H5Dset_extent(chunked, twice) < 0)
        fail("H5Dset_extent");
    write_rank_block(chunked, n, 2);
    stage_done("after_extend");

    // Stage 5
    if (H5Fflush(file, H5F_SCOPE_GLOBAL) < 0)
        fail("second H5Fflush");
    stage_done("after_second_flush");

    H5Dclose(later);
    H5Dclose(contig);
    H5Dclose(chunked);
    H5Sclose(scalar);
    H5Pclose(dcpl);
    H5Sclose(ext_space);
    H5Sclose(space);
    if (H5Fclose(file) < 0)
        fail("H5Fclose");
    H5Pclose(fapl);
    MPI_Finalize();
    return 0;
}
