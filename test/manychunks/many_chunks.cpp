// Chunk-count sweep: a 1-D chunked dataset written collectively (and read back and verified) with
// N chunks per rank, N doubling from 1 to --max, through the built-in mpio driver and the mpiio
// plugin, alternating. Prints one line per (N, driver) with write and read times.
//
//   mpirun -n 4 many_chunks [--min 1] [--max 1024] [--chunk 256] [--timeout 120] [--drivers mpio,mpiio]
//                           [--config 'chunk_opt=multi'] [--mode coll|ind] [--reps 1] [--dir D]
//                           [--shift S] [--uneven]
//
// Drivers: mpio (built-in), mpiio (plugin), raw (plain MPI-IO doing one collective write per chunk,
// what multi-chunk I/O with every chunk collective asks of the MPI-IO layer; no HDF5).
//
// Rank r writes N chunks' worth of elements (N + r with --uneven), the blocks of all ranks one
// after the other starting at element S (--shift, default 0): with S not a multiple of the chunk,
// every rank boundary falls inside a chunk that two ranks share.
//
// Every step runs under a watchdog: a step (create+write+close or open+read+close) that takes
// longer than --timeout seconds prints "many_chunks: HANG ..." naming the step, N, the driver and
// the rank, and ends the job with exit code 124, so a hang fails loudly instead of stalling.
// Collective over MPI_COMM_WORLD.
#include <hdf5.h>
#include <mpi.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Options {
    long min_chunks = 1, max_chunks = 1024; // per rank
    hsize_t chunk = 256;                    // elements (int) per chunk
    double timeout = 120;
    std::vector<std::string> drivers = {"mpio", "mpiio"};
    std::string config;
    bool collective = true;
    int reps = 1;
    std::string dir;
    hsize_t shift = 0;
    bool uneven = false;
};

int rank_ = 0, size_ = 1;

// ---- watchdog --------------------------------------------------------------------------------

// What the main thread is doing, and since when; the watchdog thread ends the process if one
// step overruns. Only plain writes of a few atomics cross threads.
std::atomic<long> g_step_serial{0};
std::atomic<double> g_step_started{0};
char g_step_text[256] = "start";
std::atomic<bool> g_done{false};

double now_seconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void begin_step(const std::string &text) {
    std::snprintf(g_step_text, sizeof g_step_text, "%s", text.c_str());
    g_step_started = now_seconds();
    ++g_step_serial;
}

void watchdog(double timeout) {
    while (!g_done) {
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        if (g_step_serial > 0 && now_seconds() - g_step_started > timeout) {
            char msg[512];
            const int n = std::snprintf(msg, sizeof msg,
                                        "many_chunks: HANG on rank %d: '%s' did not finish within %.0f s\n",
                                        rank_, g_step_text, timeout);
            (void)!write(2, msg, static_cast<size_t>(n));
            _exit(124); // mpirun then ends the other ranks
        }
    }
}

// ---- one step ----------------------------------------------------------------------------------

hid_t make_fapl(const Options &o, const std::string &driver) {
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (driver == "mpio") {
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    } else {
        H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
        if (H5Pset_driver_by_name(fapl, driver.c_str(), o.config.c_str()) < 0) {
            std::fprintf(stderr, "many_chunks: cannot select driver %s (HDF5_PLUGIN_PATH?)\n",
                         driver.c_str());
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    return fapl;
}

int value_at(hsize_t i, long n) {
    return static_cast<int>((i * 2654435761u + static_cast<hsize_t>(n)) & 0x7fffffff);
}

// This rank's elements [start, start + count) of a dataset of `total` elements: rank r writes
// (n + r if uneven) chunks' worth, after the blocks of lower ranks and `shift` leading elements.
struct Layout {
    hsize_t start = 0, count = 0, total = 0;
};
Layout layout(const Options &o, long n) {
    auto block = [&](int r) { return o.chunk * static_cast<hsize_t>(n + (o.uneven ? r : 0)); };
    Layout l;
    l.start = l.total = o.shift;
    for (int r = 0; r < size_; ++r) {
        if (r < rank_)
            l.start += block(r);
        l.total += block(r);
    }
    l.count = block(rank_);
    return l;
}

void agree_or_abort(bool ok, const std::string &what) {
    int all_ok = 0, mine = ok ? 1 : 0;
    MPI_Allreduce(&mine, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!all_ok) {
        if (rank_ == 0)
            std::fprintf(stderr, "many_chunks: %s failed (error or wrong data read back)\n", what.c_str());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

// "raw": what multi-chunk I/O with every chunk collective does, in plain MPI-IO without HDF5 -
// one MPI_File_write_at_all per chunk in file order, each rank contributing its part of that
// chunk (often nothing) - then one MPI_File_read_at_all of each rank's block. Shows how much of
// the per-chunk cost belongs to the MPI-IO layer. Returns {write s, read s}, maximum over ranks.
std::pair<double, double> run_raw(const Options &o, long n, const std::string &path) {
    const Layout l = layout(o, n);
    std::vector<int> buf(l.count), got(l.count, -1);
    for (hsize_t i = 0; i < l.count; ++i)
        buf[i] = value_at(l.start + i, n);
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    MPI_File fh;
    bool ok = MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                            &fh) == MPI_SUCCESS;
    const hsize_t chunks = (l.total + o.chunk - 1) / o.chunk;
    for (hsize_t c = 0; ok && c < chunks; ++c) {
        const hsize_t lo = std::max(c * o.chunk, l.start),
                      hi = std::min((c + 1) * o.chunk, l.start + l.count);
        const int len = hi > lo ? static_cast<int>(hi - lo) : 0;
        const void *src = len ? static_cast<const void *>(&buf[lo - l.start]) : buf.data();
        ok = MPI_File_write_at_all(fh, static_cast<MPI_Offset>(lo * sizeof(int)), src, len, MPI_INT,
                                   MPI_STATUS_IGNORE) == MPI_SUCCESS;
    }
    MPI_File_close(&fh);
    const double t1 = MPI_Wtime();
    ok =
        ok && MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_RDONLY, MPI_INFO_NULL, &fh) == MPI_SUCCESS;
    ok = ok && MPI_File_read_at_all(fh, static_cast<MPI_Offset>(l.start * sizeof(int)), got.data(),
                                    static_cast<int>(l.count), MPI_INT, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    MPI_File_close(&fh);
    const double t2 = MPI_Wtime();
    agree_or_abort(ok && got == buf, "raw N=" + std::to_string(n));
    double local[2] = {t1 - t0, t2 - t1}, global[2] = {0, 0};
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return {global[0], global[1]};
}

// Returns {write seconds, read seconds}, maximum over ranks; aborts on any error or wrong data.
std::pair<double, double> run(const Options &o, const std::string &driver, long n, const std::string &path) {
    const Layout l = layout(o, n);
    const hsize_t per_rank = l.count;
    const hsize_t dims[1] = {l.total};
    const hsize_t start[1] = {l.start}, count[1] = {per_rank};
    std::vector<int> buf(per_rank);
    for (hsize_t i = 0; i < per_rank; ++i)
        buf[i] = value_at(start[0] + i, n);
    const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(dxpl, o.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
    const hid_t mem = H5Screate_simple(1, count, nullptr);
    bool ok = true;

    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    {
        const hid_t fapl = make_fapl(o, driver);
        const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        const hid_t space = H5Screate_simple(1, dims, nullptr);
        const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
        H5Pset_chunk(dcpl, 1, &o.chunk);
        const hid_t dset = H5Dcreate2(file, "data", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
        ok = dset >= 0 && H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, buf.data()) >= 0;
        H5Dclose(dset);
        H5Pclose(dcpl);
        H5Sclose(space);
        ok = H5Fclose(file) >= 0 && ok;
        H5Pclose(fapl);
    }
    const double t1 = MPI_Wtime();
    std::vector<int> got(per_rank, -1);
    {
        const hid_t fapl = make_fapl(o, driver);
        const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl);
        const hid_t dset = H5Dopen2(file, "data", H5P_DEFAULT);
        const hid_t space = H5Dget_space(dset);
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
        ok = H5Dread(dset, H5T_NATIVE_INT, mem, space, dxpl, got.data()) >= 0 && ok;
        H5Sclose(space);
        H5Dclose(dset);
        ok = H5Fclose(file) >= 0 && ok;
        H5Pclose(fapl);
    }
    const double t2 = MPI_Wtime();
    H5Sclose(mem);
    H5Pclose(dxpl);
    agree_or_abort(ok && got == buf, driver + " N=" + std::to_string(n));
    double local[2] = {t1 - t0, t2 - t1}, global[2] = {0, 0};
    MPI_Allreduce(local, global, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return {global[0], global[1]};
}

Options parse_args(int argc, char **argv) {
    Options o;
    const char *base = std::getenv("MPIIO_TEST_DIR");
    o.dir = std::string(base ? base : "/dev/shm") + "/mpiio-tests/many_chunks";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const std::string v = i + 1 < argc ? argv[i + 1] : "";
        auto next = [&] {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "many_chunks: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            ++i;
            return v;
        };
        if (a == "--min")
            o.min_chunks = std::max(1L, std::atol(next().c_str()));
        else if (a == "--max")
            o.max_chunks = std::atol(next().c_str());
        else if (a == "--chunk")
            o.chunk = std::strtoull(next().c_str(), nullptr, 10);
        else if (a == "--timeout")
            o.timeout = std::atof(next().c_str());
        else if (a == "--config")
            o.config = next();
        else if (a == "--mode")
            o.collective = next() != "ind";
        else if (a == "--reps")
            o.reps = std::atoi(next().c_str());
        else if (a == "--dir")
            o.dir = next();
        else if (a == "--shift")
            o.shift = std::strtoull(next().c_str(), nullptr, 10);
        else if (a == "--uneven")
            o.uneven = true;
        else if (a == "--drivers") {
            o.drivers.clear();
            std::stringstream ss(next());
            for (std::string d; std::getline(ss, d, ',');)
                o.drivers.push_back(d);
        } else {
            std::fprintf(
                stderr,
                "many_chunks: unknown argument %s (see the header of test/manychunks/many_chunks.cpp)\n",
                a.c_str());
            std::exit(2);
        }
    }
    return o;
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const Options o = parse_args(argc, argv);
    std::thread dog(watchdog, o.timeout);
    if (rank_ == 0)
        std::filesystem::create_directories(o.dir);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank_ == 0)
        std::printf(
            "# %d ranks, chunk %llu ints, shift %llu%s, %s, config '%s'\n%8s %10s %6s %10s %10s %10s %10s\n",
            size_, static_cast<unsigned long long>(o.chunk), static_cast<unsigned long long>(o.shift),
            o.uneven ? ", uneven" : "", o.collective ? "collective" : "independent", o.config.c_str(),
            "N/rank", "chunks", "driver", "write_s", "read_s", "write_MB/s", "read_MB/s");
    for (long n = o.min_chunks; n <= o.max_chunks; n *= 2) {
        for (int rep = 0; rep < o.reps; ++rep) {
            for (const auto &driver : o.drivers) {
                const std::string path = o.dir + "/n" + std::to_string(n) + "." + driver + ".h5";
                begin_step(driver + " N=" + std::to_string(n) + " chunks/rank (" + std::to_string(size_) +
                           " ranks, rep " + std::to_string(rep) + ")");
                const auto [w, r] = driver == "raw" ? run_raw(o, n, path) : run(o, driver, n, path);
                const double mb = 4.0 * static_cast<double>(o.chunk) * static_cast<double>(n) * size_ / 1e6;
                if (rank_ == 0) {
                    std::printf("%8ld %10ld %6s %10.4f %10.4f %10.1f %10.1f\n", n, n * size_, driver.c_str(),
                                w, r, mb / w, mb / r);
                    std::fflush(stdout);
                    std::filesystem::remove(path);
                }
            }
        }
    }
    g_done = true;
    dog.join();
    MPI_Finalize();
    return 0;
}
