// mpiio_call_cost: what one independent MPI-IO call costs against the bytes it moves, per MPI-IO
// layer (the cost model of driver/independent/independent_plan.hpp, config key sieve_gap).
//
//   mpirun -n 4 build/bench/mpiio_call_cost [--dir /dev/shm] [--reps 5]
//
// Every rank reads (then writes) its own 16 MiB region of one shared file with MPI_File_read_at /
// MPI_File_write_at of one size at a time, consecutive addresses, as many calls as last about
// 0.1 s; the sizes alternate within each repetition. A least-squares line through the median time
// per call gives t(s) = a + b * s: `a` the cost of a call, `b` the cost of a byte, and a / b the
// bytes that cost as much to move as one call (what sieve_gap stands for: reading a hole of that
// many bytes costs what the call it saves costs). Rank 0 prints the slowest rank's times.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

constexpr MPI_Offset kRegion = MPI_Offset{16} << 20;
const std::vector<int> kSizes = {256, 1024, 4096, 16384, 65536, 262144};

void check(int code, const char *what) {
    if (code == MPI_SUCCESS)
        return;
    char text[MPI_MAX_ERROR_STRING];
    int length = 0;
    MPI_Error_string(code, text, &length);
    std::fprintf(stderr, "mpiio_call_cost: %s failed: %s\n", what, text);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

// Collective. Seconds per call of `calls` calls of `size` bytes (slowest rank).
double time_calls(MPI_File fh, bool write, int size, long calls, std::vector<char> &buf) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const MPI_Offset base = kRegion * rank;
    MPI_Offset off = 0;
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (long i = 0; i < calls; ++i) {
        if (off + size > kRegion)
            off = 0;
        MPI_Status st;
        if (write)
            check(MPI_File_write_at(fh, base + off, buf.data(), size, MPI_BYTE, &st), "MPI_File_write_at");
        else
            check(MPI_File_read_at(fh, base + off, buf.data(), size, MPI_BYTE, &st), "MPI_File_read_at");
        off += size;
    }
    double t = (MPI_Wtime() - t0) / static_cast<double>(calls), slowest = 0;
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest;
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    std::string dir = "/dev/shm";
    int reps = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--dir"))
            dir = argv[i + 1];
        else if (!std::strcmp(argv[i], "--reps"))
            reps = std::max(1, std::atoi(argv[i + 1]));
    }
    int rank = 0, ranks = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
    const std::string path = dir + "/mpiio_call_cost.dat";
    MPI_File fh;
    check(MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh),
          "MPI_File_open");
    std::vector<char> buf(static_cast<std::size_t>(kSizes.back()), 'x');
    check(MPI_File_set_size(fh, kRegion * ranks), "MPI_File_set_size");
    for (bool write : {false, true}) {
        // Calls per size: about 0.1 s each, from a short calibration.
        std::vector<long> calls;
        for (int size : kSizes) {
            const double t = time_calls(fh, write, size, 200, buf);
            calls.push_back(std::clamp(static_cast<long>(0.1 / t), 200L, 200000L));
        }
        std::vector<std::vector<double>> times(kSizes.size());
        for (int r = 0; r < reps; ++r)
            for (std::size_t k = 0; k < kSizes.size(); ++k)
                times[k].push_back(time_calls(fh, write, kSizes[k], calls[k], buf));
        // Least squares t = a + b * s over the medians.
        double sx = 0, sy = 0, sxx = 0, sxy = 0;
        const double n = static_cast<double>(kSizes.size());
        std::vector<double> med;
        for (std::size_t k = 0; k < kSizes.size(); ++k) {
            const double x = kSizes[k], y = median(times[k]);
            med.push_back(y);
            sx += x, sy += y, sxx += x * x, sxy += x * y;
        }
        const double b = (n * sxy - sx * sy) / (n * sxx - sx * sx), a = (sy - b * sx) / n;
        if (rank == 0) {
            std::printf("%s, %d ranks:", write ? "MPI_File_write_at" : "MPI_File_read_at", ranks);
            for (std::size_t k = 0; k < kSizes.size(); ++k)
                std::printf(" %d B %.2f us;", kSizes[k], med[k] * 1e6);
            std::printf("\n  fit: %.2f us per call + %.3f us per KiB: one call costs as much as %.0f bytes\n",
                        a * 1e6, b * 1024 * 1e6, b > 0 ? a / b : 0.0);
        }
    }
    check(MPI_File_close(&fh), "MPI_File_close");
    if (rank == 0)
        MPI_File_delete(path.c_str(), MPI_INFO_NULL);
    MPI_Finalize();
    return 0;
}
