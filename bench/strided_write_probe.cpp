// strided_write_probe: what an independent strided write costs in raw MPI-IO, three ways (issue 10:
// "find a way to issue few MPI calls without writing bytes outside the rank's own selection, or
// show why it is unsafe"). mpiio uses the second (driver/view_writer.hpp); test/mpi's
// mpi.view_writes shows why the third is unsafe.
//
// Each rank owns a region of N elements of 8 bytes at a stride of 16 (h5bench CONTIG/STRIDED as
// the bench's cs1d: every other element) and writes its elements three ways, alternating:
//   per-run     MPI_File_write_at per element on the shared handle: what mpio does for an
//               independent strided H5Dwrite (and mpiio with view_writes=off);
//   one-call    one MPI_File_write_at through a strided file view on a handle of the rank's own
//               (MPI_COMM_SELF: a view change there is local), ROMIO's write sieving disabled, so
//               no byte outside the selection is written (mpiio's view writes);
//   sieved      the same with the layer's default hints: ROMIO reads the extent, merges the
//               elements and writes the extent back (holes included) under an fcntl lock.
// After each method every rank checks its region: its elements written, the holes unchanged.
//
//   mpirun -n 4 strided_write_probe [--elements N] [--reps R] [--dir DIR]
// prints microseconds per element (slowest rank, median over R repetitions) per method.
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

constexpr int kElem = 8, kStride = 16;
constexpr unsigned char kHole = 0xEE;

void check(int rc, const char *what) {
    if (rc != MPI_SUCCESS) {
        std::fprintf(stderr, "strided_write_probe: %s failed\n", what);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

// RAII for the handles the probe opens.
struct File {
    MPI_File fh = MPI_FILE_NULL;
    ~File() {
        if (fh != MPI_FILE_NULL)
            MPI_File_close(&fh);
    }
};
struct Info {
    MPI_Info info = MPI_INFO_NULL;
    Info() { MPI_Info_create(&info); }
    ~Info() { MPI_Info_free(&info); }
};
struct Type {
    MPI_Datatype t = MPI_DATATYPE_NULL;
    ~Type() {
        if (t != MPI_DATATYPE_NULL)
            MPI_Type_free(&t);
    }
};

enum Method { kPerRun, kOneCall, kSieved, kMethods };
const char *const kMethodNames[kMethods] = {"per-run (mpio, mpiio)", "one call, no sieving",
                                            "one call, ROMIO sieving (writes holes)"};

struct Probe {
    int rank = 0, n = 0;
    std::string path;
    MPI_File shared = MPI_FILE_NULL;
    std::vector<std::uint64_t> values;

    MPI_Offset base() const { return static_cast<MPI_Offset>(rank) * n * kStride; }

    // Local. The rank's whole region set to the hole marker.
    void fill_holes() {
        std::vector<unsigned char> region(static_cast<size_t>(n) * kStride, kHole);
        check(MPI_File_write_at(shared, base(), region.data(), static_cast<int>(region.size()), MPI_BYTE,
                                MPI_STATUS_IGNORE),
              "MPI_File_write_at (holes)");
    }

    // Local. Seconds for one write of the rank's elements by `m`.
    double write(Method m, std::uint64_t salt) {
        for (int i = 0; i < n; ++i)
            values[static_cast<size_t>(i)] = salt * 1000003u + static_cast<std::uint64_t>(rank) * n + i;
        if (m == kPerRun) {
            const double t0 = MPI_Wtime();
            for (int i = 0; i < n; ++i)
                check(MPI_File_write_at(shared, base() + static_cast<MPI_Offset>(i) * kStride, &values[i],
                                        kElem, MPI_BYTE, MPI_STATUS_IGNORE),
                      "MPI_File_write_at");
            return MPI_Wtime() - t0;
        }
        Info hints;
        if (m == kOneCall)
            MPI_Info_set(hints.info, "romio_ds_write", "disable");
        File own; // opened outside the timing: a driver would keep it open with the file
        check(MPI_File_open(MPI_COMM_SELF, path.c_str(), MPI_MODE_WRONLY, hints.info, &own.fh),
              "MPI_File_open");
        Type strided;
        check(MPI_Type_vector(n, kElem, kStride, MPI_BYTE, &strided.t), "MPI_Type_vector");
        check(MPI_Type_commit(&strided.t), "MPI_Type_commit");
        const double t0 = MPI_Wtime();
        check(MPI_File_set_view(own.fh, base(), MPI_BYTE, strided.t, "native", MPI_INFO_NULL),
              "MPI_File_set_view");
        check(MPI_File_write_at(own.fh, 0, values.data(), n * kElem, MPI_BYTE, MPI_STATUS_IGNORE),
              "MPI_File_write_at (view)");
        return MPI_Wtime() - t0;
    }

    // Local. Whether the region holds this rank's values at the elements and markers elsewhere.
    bool region_ok() {
        std::vector<unsigned char> region(static_cast<size_t>(n) * kStride);
        check(MPI_File_read_at(shared, base(), region.data(), static_cast<int>(region.size()), MPI_BYTE,
                               MPI_STATUS_IGNORE),
              "MPI_File_read_at");
        for (int i = 0; i < n; ++i) {
            const unsigned char *at = region.data() + static_cast<size_t>(i) * kStride;
            if (std::memcmp(at, &values[static_cast<size_t>(i)], kElem) != 0)
                return false;
            for (int k = kElem; k < kStride; ++k)
                if (at[k] != kHole)
                    return false;
        }
        return true;
    }
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1, reps = 5, n = 32768;
    std::string dir = "/dev/shm";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--elements")
            n = std::max(1, std::atoi(argv[i + 1]));
        else if (a == "--reps")
            reps = std::max(1, std::atoi(argv[i + 1]));
        else if (a == "--dir")
            dir = argv[i + 1];
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    Probe p;
    p.rank = rank;
    p.n = n;
    p.values.resize(static_cast<size_t>(n));
    long pid = static_cast<long>(getpid()); // rank 0's names the file for every rank
    MPI_Bcast(&pid, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    p.path = dir + "/strided_write_probe." + std::to_string(pid);
    int failures = 0;
    {
        File shared;
        check(MPI_File_open(MPI_COMM_WORLD, p.path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &shared.fh),
              "MPI_File_open (shared)");
        p.shared = shared.fh;
        std::vector<double> seconds[kMethods];
        for (int r = 0; r < reps + 1; ++r) // the first round is a warm-up
            for (int k = 0; k < kMethods; ++k) {
                const auto m = static_cast<Method>((k + r) % kMethods);
                p.fill_holes();
                MPI_Barrier(MPI_COMM_WORLD);
                double t = p.write(m, static_cast<std::uint64_t>(r * kMethods + k + 1));
                MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
                MPI_Barrier(MPI_COMM_WORLD);
                int bad = p.region_ok() ? 0 : 1;
                MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
                failures += bad;
                if (r > 0)
                    seconds[m].push_back(t);
            }
        p.shared = MPI_FILE_NULL;
        if (rank == 0) {
            std::printf(
                "strided_write_probe: %d ranks, %d elements of %d bytes per rank at a stride of %d, %d "
                "reps, %s\n\n| method | us per element (slowest rank) | vs per-run |\n|---|--:|--:|\n",
                size, n, kElem, kStride, reps, dir.c_str());
            const double per_run = median(seconds[kPerRun]);
            for (int m = 0; m < kMethods; ++m) {
                const double s = median(seconds[m]);
                std::printf("| %s | %.2f | %.2fx |\n", kMethodNames[m], s / n * 1e6,
                            s > 0 ? per_run / s : 0.0);
            }
            std::printf("\n%s\n", failures ? "REGION CHECK FAILED"
                                           : "every region checked: elements written, holes unchanged");
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(p.path.c_str(), MPI_INFO_NULL);
    MPI_Finalize();
    return failures ? 1 : 0;
}
