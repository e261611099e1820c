// The writer the crash test kills: writes and flushes a file, then keeps changing it, and at a
// chosen point every rank (or only rank 0) sends itself SIGKILL, as a killed job would.
//
//   crash_writer <mpio|mpiio> <default|latest> <kill point> <file> [--shared-storage]
//
// Stages (the kill point names the stage after which the ranks die):
//   1. datasets "flushed" (contiguous) and "flushed_chunked" (chunked, extendible), attribute
//      "stage" = 1; collective write of v0(i) = i + 2000000 to both; then each dataset read back
//      collectively and its same selection rewritten with v1(i) = i; H5Fflush
//                                                                     -> after_flush, rank0_after_flush
//   2. both datasets overwritten collectively with v2(i) = i + 1000000 -> after_overwrite
//   3. new dataset "unflushed" and group "g" with an attribute        -> after_new_objects
//   4. "flushed_chunked" extended to twice its size and the new part written -> after_extend
//   5. second H5Fflush                                                -> after_second_flush
//   6. H5Fclose                                                        (point "none": normal exit)
// rank0_after_flush: only rank 0 dies right after the flush, the others carry on into stage 2 and
// are ended by mpirun. Collective over MPI_COMM_WORLD.
//
// The read and rewrite of stage 1 is what the library does for each field of a compound dataset
// it writes: on shared storage the plugin keeps such a rewrite in its aggregators' memory
// (write_behind) until the next collective step of other bytes, H5Fflush or H5Fclose. The
// contiguous dataset's rewrite is written at the chunked dataset's read, the chunked one's only
// by H5Fflush, so a kill after the flush shows whether the flush wrote it.
// --shared-storage (the crash test on the distributed file system) makes the writer fail before
// the flush, printing "crash_writer: PRECONDITION", when the ranks do not see the file's directory
// through two different mounts (the testbed's two clients), or when the plugin wrote either rewrite
// at once: the kill points would then prove nothing about kept writes across clients.
#include "crash_layout.hpp"

#include <h5fd_mpiio.h>
#include <hdf5.h>
#include <mpi.h>

#include <sys/stat.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

// Collective. Writes (or reads into `buf`) this rank's block of `dset` from `offset` on.
void move_rank_block(hid_t dset, hsize_t offset, bool write, std::vector<int> &buf) {
    const hsize_t start[1] = {offset + crash::kPerRank * static_cast<hsize_t>(rank_)};
    const hsize_t count[1] = {crash::kPerRank};
    const hid_t space = H5Dget_space(dset);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    const hid_t mem = H5Screate_simple(1, count, nullptr);
    const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE);
    if (write ? H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, buf.data()) < 0
              : H5Dread(dset, H5T_NATIVE_INT, mem, space, dxpl, buf.data()) < 0)
        fail(write ? "H5Dwrite" : "H5Dread");
    H5Pclose(dxpl);
    H5Sclose(mem);
    H5Sclose(space);
}

std::vector<int> rank_block_values(hsize_t offset, int version) {
    std::vector<int> buf(crash::kPerRank);
    const hsize_t first = offset + crash::kPerRank * static_cast<hsize_t>(rank_);
    for (hsize_t i = 0; i < crash::kPerRank; ++i)
        buf[i] = crash::value(first + i, version);
    return buf;
}

void write_rank_block(hid_t dset, hsize_t offset, int version) {
    std::vector<int> buf = rank_block_values(offset, version);
    move_rank_block(dset, offset, true, buf);
}

// Collective. Reads this rank's block of version 0 back and writes version 1 over exactly the
// same selection. Returns the aggregator windows the plugin kept for it, summed over the ranks
// (0 with the built-in driver, or where the plugin wrote it at once).
std::uint64_t rewrite_rank_block(hid_t file, hid_t dset) {
    H5FD_mpiio_stats_t before{}, after{};
    const bool plugin = H5Fget_mpiio_stats(file, &before) >= 0;
    std::vector<int> buf(crash::kPerRank);
    move_rank_block(dset, 0, false, buf);
    if (buf != rank_block_values(0, 0))
        fail("reading back the values of version 0");
    write_rank_block(dset, 0, 1);
    if (plugin && H5Fget_mpiio_stats(file, &after) < 0)
        fail("H5Fget_mpiio_stats");
    std::uint64_t mine = after.deferred_windows - before.deferred_windows, kept = 0;
    MPI_Allreduce(&mine, &kept, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return kept;
}

// Collective. The number of different devices the ranks see the file's directory on (every FUSE
// mount of the testbed is a device of its own: two when ranks run on both clients).
int mounts_of_directory(const std::string &path) {
    const std::size_t slash = path.rfind('/');
    const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
    struct stat st {};
    const std::uint64_t mine = stat(dir.c_str(), &st) == 0 ? static_cast<std::uint64_t>(st.st_dev) : 0;
    std::vector<std::uint64_t> all(static_cast<std::size_t>(size_));
    MPI_Allgather(&mine, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
    std::sort(all.begin(), all.end());
    return static_cast<int>(std::unique(all.begin(), all.end()) - all.begin());
}

// Collective (`holds` the same on every rank). Ends the job, before anything is flushed, when
// `holds` is false: rank 0 says why and aborts, the others wait for it to (an abort of theirs could
// end rank 0 before it printed).
void require(bool holds, const char *what) {
    if (holds)
        return;
    if (rank_ == 0) {
        std::fprintf(stderr, "crash_writer: PRECONDITION: %s, so this run proves nothing\n", what);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    if (argc != 5 && !(argc == 6 && std::strcmp(argv[5], "--shared-storage") == 0)) {
        std::fprintf(stderr, "usage: crash_writer <mpio|mpiio> <default|latest> <kill point> <file> "
                             "[--shared-storage]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const std::string driver = argv[1], format = argv[2], path = argv[4];
    const bool shared_storage = argc == 6;
    kill_point = argv[3];
    if (shared_storage)
        require(mounts_of_directory(path) == 2, "the ranks do not see the file through two mounts (clients)");

    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (driver == "mpio") {
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    } else {
        H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        // The plugin's configuration is MPIIO_TEST_CONFIG, as for the MPI suites (forcing
        // write_behind=on on tmpfs, say); unset: its defaults.
        const char *config = std::getenv("MPIIO_TEST_CONFIG");
        if (H5Pset_driver_by_name(fapl, "mpiio", config != nullptr && *config != '\0' ? config : nullptr) < 0)
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
    const hid_t scalar = H5Screate(H5S_SCALAR);
    const int stage = 1;
    const hid_t attr = H5Acreate2(file, "stage", H5T_NATIVE_INT, scalar, H5P_DEFAULT, H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_INT, &stage);
    H5Aclose(attr);
    write_rank_block(contig, 0, 0);
    write_rank_block(chunked, 0, 0);
    const std::uint64_t kept_contig = rewrite_rank_block(file, contig);
    const std::uint64_t kept_chunked = rewrite_rank_block(file, chunked); // (kept until H5Fflush)
    if (rank_ == 0 && driver == "mpiio")
        std::printf(
            "crash_writer: aggregator windows kept by the rewrites: flushed %llu, flushed_chunked %llu\n",
            static_cast<unsigned long long>(kept_contig), static_cast<unsigned long long>(kept_chunked));
    if (shared_storage && driver == "mpiio")
        require(kept_contig > 0 && kept_chunked > 0,
                "the plugin wrote a rewrite at once (write_behind kept none)");
    std::fflush(stdout);
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
