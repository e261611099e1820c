// The timed loops of the per-operation overhead benchmark (see overhead.hpp).
#include "overhead.hpp"

#include "workdir.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace bench {

namespace {

constexpr int kWarmupOps = 16;

// The value of word k of rank r's piece in call i (distinct for every word of the file).
uint64_t word(int i, int r, int k, int words) {
    return (static_cast<uint64_t>(i) * 1000003ULL + static_cast<uint64_t>(r)) * static_cast<uint64_t>(words) +
           static_cast<uint64_t>(k) + 1;
}

double max_over_ranks(double v) {
    double out = 0;
    BENCH_MPI(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    return out;
}

uint64_t sum_over_ranks(uint64_t v) {
    uint64_t out = 0;
    BENCH_MPI(MPI_Allreduce(&v, &out, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD));
    return out;
}

// Collective. `call(i)` for i in [0, n), started together on every rank; microseconds per call
// on the slowest rank.
template <class Call> double timed_loop(int n, Call call) {
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = MPI_Wtime();
    for (int i = 0; i < n; ++i)
        call(i);
    return max_over_ranks(MPI_Wtime() - t0) * 1e6 / n;
}

// Collective. Untimed warm-up calls of `call` (first-call effects), then the timed loop.
template <class Call> double warmed_timed_loop(int n, Call call) {
    for (int i = 0; i < std::min(kWarmupOps, n); ++i)
        call(i);
    return timed_loop(n, call);
}

// Collective. Untimed warm-up writes, then `ops` writes and `ops` reads, each loop timed.
template <class Write, class Read> void time_calls(int ops, Write write, Read read, OpLoopTimes &out) {
    out.write_us = warmed_timed_loop(ops, write);
    out.read_us = timed_loop(ops, read);
}

// The words this rank writes in every call, call after call.
std::vector<uint64_t> make_values(const OpLoopSpec &s) {
    const int words = s.bytes / 8;
    std::vector<uint64_t> v(static_cast<size_t>(s.ops) * static_cast<size_t>(words));
    for (int i = 0; i < s.ops; ++i)
        for (int k = 0; k < words; ++k)
            v[static_cast<size_t>(i) * words + k] = word(i, rank(), k, words);
    return v;
}

uint64_t count_wrong(const std::vector<uint64_t> &expected, const std::vector<uint64_t> &got) {
    uint64_t bad = 0;
    for (size_t i = 0; i < expected.size(); ++i)
        bad += expected[i] != got[i] ? 1 : 0;
    return bad;
}

// HDF5 handles of one loop, closed in reverse order whatever happens.
struct H5Loop {
    hid_t fapl = -1, file = -1, dcpl = -1, fspace = -1, dset = -1, mspace = -1, dxpl = -1;
    std::vector<hid_t> sels; // one file selection per call, built before the clock starts
    ~H5Loop() {
        for (hid_t s : sels)
            H5Sclose(s);
        using Close = herr_t (*)(hid_t);
        const std::pair<hid_t, Close> handles[] = {{dxpl, H5Pclose},   {mspace, H5Sclose}, {dset, H5Dclose},
                                                   {fspace, H5Sclose}, {dcpl, H5Pclose},   {file, H5Fclose},
                                                   {fapl, H5Pclose}};
        for (const auto &[id, close] : handles)
            if (id >= 0)
                close(id);
    }
};

} // namespace

double run_h5_open_close_loop(Driver d, const std::string &path, int cycles, const std::string &config) {
    double us = 0;
    {
        H5Loop h;
        h.fapl = driver_fapl(d, config);
        h.file = BENCH_H5(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, h.fapl));
        const hsize_t n = 1024;
        h.fspace = BENCH_H5(H5Screate_simple(1, &n, nullptr));
        h.dset = BENCH_H5(
            H5Dcreate2(h.file, "data", H5T_NATIVE_UINT64, h.fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        BENCH_H5(H5Dclose(h.dset));
        h.dset = -1;
        BENCH_H5(H5Fclose(h.file));
        h.file = -1;
        us = warmed_timed_loop(cycles, [&](int) {
            const hid_t file = BENCH_H5(H5Fopen(path.c_str(), H5F_ACC_RDWR, h.fapl));
            BENCH_H5(H5Fclose(file));
        });
    }
    remove_file(path);
    return us;
}

double run_raw_open_close_loop(const std::string &path, int cycles) {
    const double us = warmed_timed_loop(cycles, [&](int) {
        MPI_File fh = MPI_FILE_NULL;
        BENCH_MPI(
            MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
        BENCH_MPI(MPI_File_close(&fh));
    });
    remove_file(path);
    return us;
}

OpLoopTimes run_h5_op_loop(Driver d, const std::string &path, const OpLoopSpec &s) {
    const int words = s.bytes / 8, P = nranks(), R = rank();
    const std::vector<uint64_t> values = make_values(s);
    std::vector<uint64_t> got(values.size(), 0);
    OpLoopTimes out;
    {
        H5Loop h;
        h.fapl = driver_fapl(d, s.config);
        BENCH_H5(H5Pset_all_coll_metadata_ops(h.fapl, true));
        BENCH_H5(H5Pset_coll_metadata_write(h.fapl, true));
        h.file = BENCH_H5(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, h.fapl));
        const hsize_t total = static_cast<hsize_t>(s.ops) * P * words, piece = static_cast<hsize_t>(words);
        h.fspace = BENCH_H5(H5Screate_simple(1, &total, nullptr));
        h.dcpl = BENCH_H5(H5Pcreate(H5P_DATASET_CREATE));
        BENCH_H5(H5Pset_alloc_time(h.dcpl, H5D_ALLOC_TIME_EARLY));
        BENCH_H5(H5Pset_fill_time(h.dcpl, H5D_FILL_TIME_NEVER));
        h.dset = BENCH_H5(
            H5Dcreate2(h.file, "ops", H5T_NATIVE_UINT64, h.fspace, H5P_DEFAULT, h.dcpl, H5P_DEFAULT));
        h.mspace = BENCH_H5(H5Screate_simple(1, &piece, nullptr));
        h.dxpl = BENCH_H5(H5Pcreate(H5P_DATASET_XFER));
        BENCH_H5(H5Pset_dxpl_mpio(h.dxpl, s.collective ? H5FD_MPIO_COLLECTIVE : H5FD_MPIO_INDEPENDENT));
        for (int i = 0; i < s.ops; ++i) {
            const hsize_t start = (static_cast<hsize_t>(i) * P + R) * words;
            h.sels.push_back(BENCH_H5(H5Scopy(h.fspace)));
            BENCH_H5(H5Sselect_hyperslab(h.sels.back(), H5S_SELECT_SET, &start, nullptr, &piece, nullptr));
        }
        time_calls(
            s.ops,
            [&](int i) {
                BENCH_H5(H5Dwrite(h.dset, H5T_NATIVE_UINT64, h.mspace, h.sels[static_cast<size_t>(i)], h.dxpl,
                                  &values[static_cast<size_t>(i) * words]));
            },
            [&](int i) {
                BENCH_H5(H5Dread(h.dset, H5T_NATIVE_UINT64, h.mspace, h.sels[static_cast<size_t>(i)], h.dxpl,
                                 &got[static_cast<size_t>(i) * words]));
            },
            out);
    }
    out.wrong = sum_over_ranks(count_wrong(values, got));
    remove_file(path);
    return out;
}

OpLoopTimes run_raw_op_loop(const std::string &path, const OpLoopSpec &s) {
    const int words = s.bytes / 8, P = nranks(), R = rank();
    const std::vector<uint64_t> values = make_values(s);
    std::vector<uint64_t> got(values.size(), 0);
    auto offset = [&](int i) { return static_cast<MPI_Offset>((static_cast<int64_t>(i) * P + R) * s.bytes); };
    OpLoopTimes out;
    MPI_File fh = MPI_FILE_NULL;
    BENCH_MPI(
        MPI_File_open(MPI_COMM_WORLD, path.c_str(), MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh));
    MPI_Status st;
    const auto write = s.collective ? MPI_File_write_at_all : MPI_File_write_at;
    const auto read = s.collective ? MPI_File_read_at_all : MPI_File_read_at;
    time_calls(
        s.ops,
        [&](int i) {
            BENCH_MPI(
                write(fh, offset(i), &values[static_cast<size_t>(i) * words], words, MPI_UINT64_T, &st));
        },
        [&](int i) {
            BENCH_MPI(read(fh, offset(i), &got[static_cast<size_t>(i) * words], words, MPI_UINT64_T, &st));
        },
        out);
    BENCH_MPI(MPI_File_close(&fh));
    out.wrong = sum_over_ranks(count_wrong(values, got));
    remove_file(path);
    return out;
}

} // namespace bench
