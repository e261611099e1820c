// Where does memory grow per open? Repeats one MPI-only or HDF5 operation many times and prints
// the heap growth per repetition (mallinfo2, maximum over ranks), to tell the driver's growth
// from the MPI library's. No HDF5 driver is involved in the MPI-only modes.
//
//   mpirun -n 4 growth_probe <mode> [repetitions]
//   modes: comm_dup        MPI_Comm_dup + MPI_Comm_free
//          file_open       MPI_File_open + MPI_File_close (on a dup'ed communicator, as drivers do)
//          file_open_world MPI_File_open + MPI_File_close on MPI_COMM_WORLD itself
//          file_write      open + MPI_File_write_at_all of 4 KiB per rank + close
//          file_read_all   open + MPI_File_read_at_all of 4 KiB per rank + close
//          file_set_size   open + MPI_File_set_size + close
// Collective over MPI_COMM_WORLD. Files in $MPIIO_TEST_DIR (default /dev/shm).
#include "process_usage.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void once(const std::string &mode, const std::string &path, int rank) {
    if (mode == "comm_dup") {
        MPI_Comm c;
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
        MPI_Comm_free(&c);
        return;
    }
    MPI_Comm c = MPI_COMM_WORLD;
    if (mode != "file_open_world")
        MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_File fh;
    if (MPI_File_open(c, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh) != MPI_SUCCESS) {
        std::fprintf(stderr, "growth_probe: MPI_File_open %s failed\n", path.c_str());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (mode == "file_write") {
        std::vector<char> buf(4096, 'x');
        MPI_File_write_at_all(fh, 4096 * rank, buf.data(), 4096, MPI_BYTE, MPI_STATUS_IGNORE);
    } else if (mode == "file_read_all") {
        std::vector<char> buf(4096);
        MPI_File_read_at_all(fh, 4096 * rank, buf.data(), 4096, MPI_BYTE, MPI_STATUS_IGNORE);
    } else if (mode == "file_set_size") {
        MPI_File_set_size(fh, 1 << 20);
    }
    MPI_File_close(&fh);
    if (c != MPI_COMM_WORLD)
        MPI_Comm_free(&c);
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0)
            std::fprintf(stderr,
                         "usage: growth_probe <comm_dup|file_open|file_open_world|file_write|file_read_all|"
                         "file_set_size> [repetitions]\n");
        MPI_Finalize();
        return 2;
    }
    const std::string mode = argv[1];
    const long reps = argc > 2 ? std::atol(argv[2]) : 2000;
    const char *base = std::getenv("MPIIO_TEST_DIR");
    const std::string path =
        std::string(base ? base : "/dev/shm") + "/growth_probe." + std::to_string(size) + ".dat";
    const long warmup = reps / 10;
    long long heap0 = 0, rss0 = 0;
    for (long i = 0; i < reps; ++i) {
        if (i == warmup) {
            heap0 = mpiio_test::heap_in_use_bytes();
            rss0 = mpiio_test::resident_bytes();
        }
        once(mode, path, rank);
    }
    long long local[2] = {mpiio_test::heap_in_use_bytes() - heap0, mpiio_test::resident_bytes() - rss0},
              max[2];
    MPI_Allreduce(local, max, 2, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
        std::printf(
            "growth_probe %-16s %d ranks, %ld repetitions: heap %+.1f KiB (%.1f B/rep), resident %+.1f KiB\n",
            mode.c_str(), size, reps - warmup, max[0] / 1024.0, double(max[0]) / double(reps - warmup),
            max[1] / 1024.0);
    if (rank == 0)
        std::remove(path.c_str());
    MPI_Finalize();
    return 0;
}
