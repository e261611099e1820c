// Leak soak: create, write (collective and independent, contiguous and chunked), close, reopen,
// read back, verify and close one file many times, then fail many opens, and show that nothing
// grows: open file descriptors, live MPI communicators, datatypes, info objects, groups and files
// (counted by PMPI wrappers, mpi_handle_counter.hpp), HDF5 open objects, and resident memory
// within a stated bound per cycle.
//
//   soak [--driver mpiio|mpio] [--cycles N] [--failing-opens M] [--rss-bound B] [--dir D]
//
// --cycles (default $MPIIO_SOAK_CYCLES, else 300) and --failing-opens (default cycles/10) set the
// length; docs/testing.md's full run is --cycles 10000 --failing-opens 1000 on 1 and 4 ranks.
// --rss-bound is the allowed resident growth in bytes per cycle after the warm-up (default 1024),
// on top of a fixed allowance of 2 MiB for allocator and page granularity. Exit code 0 only if
// every check holds on every rank. Collective over MPI_COMM_WORLD.
#include "mpi_handle_counter.hpp"
#include "process_usage.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace mpiio_test;

namespace {

constexpr hsize_t kPerRank = 4096;       // ints per rank per dataset
constexpr hsize_t kChunk = 1000;         // chunk length (not aligned with rank blocks on purpose)
constexpr std::int64_t kSlack = 2 << 20; // fixed resident allowance (arena and page granularity)

struct Options {
    std::string driver = "mpiio";
    long cycles = 300;
    long failing_opens = -1;
    double rss_bound = 1024;
    std::string dir;
};

int rank_ = 0, size_ = 1;

[[noreturn]] void die(const std::string &why) {
    std::fprintf(stderr, "[rank %d] soak: %s\n", rank_, why.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
    std::abort();
}

// One closing helper for every hid_t this file opens.
struct Id {
    hid_t id;
    explicit Id(hid_t i) : id(i) {}
    ~Id() {
        if (id >= 0)
            H5Idec_ref(id);
    }
    Id(const Id &) = delete;
    Id &operator=(const Id &) = delete;
    operator hid_t() const { return id; }
};

hid_t make_fapl(const Options &o, const char *config = nullptr) {
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    if (o.driver == "mpio") {
        H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    } else if (H5Pset_mpi_params(fapl, MPI_COMM_WORLD, MPI_INFO_NULL) < 0 ||
               H5Pset_driver_by_name(fapl, "mpiio", config) < 0) {
        // A bad config may already be refused here; the caller treats that as a failed open.
        H5Pclose(fapl);
        return H5I_INVALID_HID;
    }
    return fapl;
}

int value(long cycle, const char *dataset, hsize_t index) {
    return static_cast<int>((cycle * 7919 + static_cast<long>(index) * 3 + dataset[0]) & 0x7fffffff);
}

// The four datasets: name, chunked?, collective?
struct DatasetSpec {
    const char *name;
    bool chunked;
    bool collective;
};
constexpr DatasetSpec kDatasets[] = {{"contig_coll", false, true},
                                     {"chunk_coll", true, true},
                                     {"contig_ind", false, false},
                                     {"chunk_ind", true, false}};

void write_cycle(const Options &o, const std::string &path, long cycle) {
    Id fapl(make_fapl(o));
    Id file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    if (file < 0)
        die("H5Fcreate failed in cycle " + std::to_string(cycle));
    const hsize_t dims[1] = {kPerRank * static_cast<hsize_t>(size_)};
    const hsize_t start[1] = {kPerRank * static_cast<hsize_t>(rank_)}, count[1] = {kPerRank};
    std::vector<int> buf(kPerRank);
    for (const auto &spec : kDatasets) {
        Id space(H5Screate_simple(1, dims, nullptr));
        Id dcpl(H5Pcreate(H5P_DATASET_CREATE));
        const hsize_t chunk[1] = {kChunk};
        if (spec.chunked)
            H5Pset_chunk(dcpl, 1, chunk);
        Id dset(H5Dcreate2(file, spec.name, H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
        Id mem(H5Screate_simple(1, count, nullptr));
        Id dxpl(H5Pcreate(H5P_DATASET_XFER));
        H5Pset_dxpl_mpio(dxpl, spec.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
        for (hsize_t i = 0; i < kPerRank; ++i)
            buf[i] = value(cycle, spec.name, start[0] + i);
        if (dset < 0 || H5Dwrite(dset, H5T_NATIVE_INT, mem, space, dxpl, buf.data()) < 0)
            die(std::string("write of ") + spec.name + " failed in cycle " + std::to_string(cycle));
    }
    if (H5Fclose(file.id) < 0)
        die("H5Fclose failed after writing, cycle " + std::to_string(cycle));
    file.id = H5I_INVALID_HID;
}

void read_cycle(const Options &o, const std::string &path, long cycle) {
    Id fapl(make_fapl(o));
    Id file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
    if (file < 0)
        die("H5Fopen failed in cycle " + std::to_string(cycle));
    // Each rank reads the block of the next rank, so reads cross rank blocks.
    const hsize_t start[1] = {kPerRank * static_cast<hsize_t>((rank_ + 1) % size_)}, count[1] = {kPerRank};
    std::vector<int> buf(kPerRank);
    for (const auto &spec : kDatasets) {
        Id dset(H5Dopen2(file, spec.name, H5P_DEFAULT));
        Id space(H5Dget_space(dset));
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
        Id mem(H5Screate_simple(1, count, nullptr));
        Id dxpl(H5Pcreate(H5P_DATASET_XFER));
        H5Pset_dxpl_mpio(dxpl, spec.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT);
        std::fill(buf.begin(), buf.end(), -1);
        if (dset < 0 || H5Dread(dset, H5T_NATIVE_INT, mem, space, dxpl, buf.data()) < 0)
            die(std::string("read of ") + spec.name + " failed in cycle " + std::to_string(cycle));
        for (hsize_t i = 0; i < kPerRank; ++i)
            if (buf[i] != value(cycle, spec.name, start[0] + i))
                die(std::string("wrong data in ") + spec.name + " at " + std::to_string(start[0] + i) +
                    " in cycle " + std::to_string(cycle));
    }
    if (H5Fclose(file.id) < 0)
        die("H5Fclose failed after reading, cycle " + std::to_string(cycle));
    file.id = H5I_INVALID_HID;
}

// One open that must fail, of three kinds in turn: a missing file, a file that is not HDF5, and
// (mpiio) a bad configuration string or (mpio) a create in a missing directory.
void failing_open(const Options &o, const std::string &dir, long i) {
    hid_t f = H5I_INVALID_HID;
    switch (i % 3) {
    case 0: {
        Id fapl(make_fapl(o));
        f = H5Fopen((dir + "/missing.h5").c_str(), H5F_ACC_RDONLY, fapl);
        break;
    }
    case 1: {
        Id fapl(make_fapl(o));
        f = H5Fopen((dir + "/not_hdf5.txt").c_str(), H5F_ACC_RDONLY, fapl);
        break;
    }
    default:
        if (o.driver == "mpiio") {
            const hid_t fapl = make_fapl(o, "sync=sometimes");
            if (fapl >= 0) {
                f = H5Fcreate((dir + "/badconfig.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
                H5Pclose(fapl);
            }
        } else {
            Id fapl(make_fapl(o));
            f = H5Fcreate((dir + "/no/such/dir.h5").c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
        }
    }
    if (f >= 0)
        die("failing open #" + std::to_string(i) + " succeeded");
}

struct Sample {
    long fds = 0;
    MpiHandleCounts handles;
    long h5_objects = 0;
    std::int64_t rss = 0, heap = 0;
};

Sample sample() {
    Sample s;
    s.fds = open_fd_count();
    s.handles = mpi_handle_counts();
    s.h5_objects = static_cast<long>(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL));
    s.rss = resident_bytes();
    s.heap = heap_in_use_bytes();
    return s;
}

// Largest value over the ranks (collective).
std::int64_t max_over_ranks(std::int64_t v) {
    long long in = v, out = 0;
    MPI_Allreduce(&in, &out, 1, MPI_LONG_LONG, MPI_MAX, MPI_COMM_WORLD);
    return out;
}

// Compares `now` with `base` after `cycles` cycles; prints one line on rank 0; false if anything
// grew on any rank beyond what is allowed. Collective.
bool report(const char *phase, long cycles, const Sample &base, const Sample &now, const Options &o) {
    const bool handles_same = now.handles.same_live(base.handles);
    const long fd_growth = now.fds - base.fds;
    const std::int64_t rss_growth = max_over_ranks(now.rss - base.rss);
    const std::int64_t heap_growth = max_over_ranks(now.heap - base.heap);
    const std::int64_t allowed =
        kSlack + static_cast<std::int64_t>(o.rss_bound * static_cast<double>(cycles));
    const bool local_ok = handles_same && fd_growth == 0 && now.h5_objects == 0 && base.h5_objects == 0;
    int ok = local_ok ? 1 : 0, all_ok = 0;
    MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (!local_ok)
        std::fprintf(
            stderr, "[rank %d] soak %s: descriptors %ld -> %ld, HDF5 objects open %ld -> %ld, MPI %s -> %s\n",
            rank_, phase, base.fds, now.fds, base.h5_objects, now.h5_objects, base.handles.text().c_str(),
            now.handles.text().c_str());
    const bool rss_ok = rss_growth <= allowed;
    if (rank_ == 0) {
        std::printf("soak %-14s %s %d ranks: %ld cycles after warm-up; descriptors %+ld; MPI live handles %s "
                    "(%s); HDF5 open objects %ld; resident %+.1f KiB (%.3f KiB/cycle, allowed %.0f B/cycle + "
                    "%lld KiB); heap in use %+.1f KiB (%.3f KiB/cycle)\n",
                    phase, o.driver.c_str(), size_, cycles, fd_growth, handles_same ? "unchanged" : "CHANGED",
                    now.handles.text().c_str(), now.h5_objects, rss_growth / 1024.0,
                    cycles ? rss_growth / 1024.0 / static_cast<double>(cycles) : 0.0, o.rss_bound,
                    static_cast<long long>(kSlack >> 10), heap_growth / 1024.0,
                    cycles ? heap_growth / 1024.0 / static_cast<double>(cycles) : 0.0);
        if (!rss_ok)
            std::printf("soak %s: FAIL resident memory grew %lld bytes, more than the allowed %lld\n", phase,
                        static_cast<long long>(rss_growth), static_cast<long long>(allowed));
        std::fflush(stdout);
    }
    return all_ok == 1 && rss_ok;
}

Options parse_args(int argc, char **argv) {
    Options o;
    if (const char *env = std::getenv("MPIIO_SOAK_CYCLES"))
        o.cycles = std::atol(env);
    const char *base = std::getenv("MPIIO_TEST_DIR");
    o.dir = std::string(base ? base : "/dev/shm") + "/mpiio-tests/soak";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i], v = argv[i + 1];
        if (a == "--driver")
            o.driver = v;
        else if (a == "--cycles")
            o.cycles = std::atol(v.c_str());
        else if (a == "--failing-opens")
            o.failing_opens = std::atol(v.c_str());
        else if (a == "--rss-bound")
            o.rss_bound = std::atof(v.c_str());
        else if (a == "--dir")
            o.dir = v;
        else
            die("unknown argument " + a);
    }
    if (o.failing_opens < 0)
        o.failing_opens = o.cycles / 10;
    if (o.driver != "mpiio" && o.driver != "mpio")
        die("--driver must be mpiio or mpio");
    if (o.cycles < 20)
        die("--cycles must be at least 20 (the first tenth is warm-up)");
    return o;
}

} // namespace

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    const Options o = parse_args(argc, argv);
    const std::string dir = o.dir + "/" + o.driver + ".np" + std::to_string(size_);
    if (rank_ == 0) {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        std::ofstream(dir + "/not_hdf5.txt") << "this is not an HDF5 file\n";
    }
    MPI_Barrier(MPI_COMM_WORLD);
    const std::string path = dir + "/soak.h5";

    // Cycles: the first tenth warms up caches (plugin load, free lists, MPI-IO components).
    const long warmup = std::max(10L, o.cycles / 10);
    Sample base;
    const double t0 = MPI_Wtime();
    for (long c = 0; c < o.cycles; ++c) {
        if (c == warmup)
            base = sample();
        write_cycle(o, path, c);
        read_cycle(o, path, c);
    }
    const double t1 = MPI_Wtime();
    bool ok = report("open/write/read", o.cycles - warmup, base, sample(), o);
    if (mpi_handle_counts().created == 0)
        die("the PMPI counters saw no handle at all: is the program linked with ENABLE_EXPORTS?");

    // Failing opens: the first tenth again warms up the error paths.
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const long fail_warmup = std::max(3L, o.failing_opens / 10);
    for (long i = 0; i < o.failing_opens; ++i) {
        if (i == fail_warmup)
            base = sample();
        failing_open(o, dir, i);
    }
    if (o.failing_opens > fail_warmup)
        ok = report("failing-opens", o.failing_opens - fail_warmup, base, sample(), o) && ok;
    if (rank_ == 0)
        std::printf("soak: %ld cycles in %.1f s (%.2f ms/cycle), %ld failing opens; %s\n", o.cycles, t1 - t0,
                    1e3 * (t1 - t0) / static_cast<double>(o.cycles), o.failing_opens, ok ? "PASS" : "FAIL");
    if (rank_ == 0 && ok)
        std::filesystem::remove_all(dir);
    MPI_Finalize();
    return ok ? 0 : 1;
}
