// Helpers shared by the MPI suites in this folder (on top of test/support/test_support.hpp):
// both drivers, uneven row blocks per rank, hyperslab patterns with known contents, and small
// collective checks.
#pragma once

#include "h5fd_mpiio.h"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace mpiio_test {

inline constexpr std::array<Driver, 2> kDrivers = {Driver::Mpio, Driver::Mpiio};

// The value MPIIO_TEST_CONFIG sets for `key` (appended to every test's configuration: the
// forced-routes stage; its last setting wins, as in the driver's parser), or "" when it sets none.
inline std::string set_by_environment(const std::string &key) {
    const char *extra = std::getenv("MPIIO_TEST_CONFIG");
    const std::string text = extra != nullptr ? extra : "";
    const std::string prefix = key + "=";
    auto at = text.rfind(prefix);
    while (at != std::string::npos && at > 0 && text[at - 1] != ';' && text[at - 1] != ' ')
        at = at == 0 ? std::string::npos : text.rfind(prefix, at - 1); // (a longer key ending in it)
    if (at == std::string::npos)
        return "";
    const auto start = at + prefix.size();
    return text.substr(start, text.find(';', start) - start);
}

inline std::string route_set_by_environment() { return set_by_environment("collective_route"); }

// Whether the environment forces a route (any but `allowed` when given): a test of one route then
// skips.
inline bool route_forced_by_environment(const char *allowed = nullptr) {
    const std::string forced = route_set_by_environment();
    return !forced.empty() && (allowed == nullptr || forced != allowed);
}

// <dir>/<stem>.<driver>.h5. Unlike test_file() this does not wipe the test directory, so a test
// calls test_dir() once and names all its files with this.
inline std::string path_in(const std::string &dir, const std::string &stem, Driver d) {
    return dir + "/" + stem + "." + driver_name(d) + ".h5";
}

// Rows [start, start+count) of rank r out of s: rank r owns 3 + r rows (uneven on purpose, so
// rank blocks do not line up with chunks).
struct Block {
    hsize_t start = 0, count = 0;
};
inline Block row_block(int r) {
    const auto ur = static_cast<hsize_t>(r);
    return {3 * ur + ur * (ur - 1) / 2, 3 + ur};
}
inline hsize_t total_rows(int s) { return row_block(s).start; }

// H5Pset_chunk with each chunk dimension clamped to the dataset's (fixed-size datasets need it;
// the row counts depend on the number of ranks).
inline herr_t set_chunk(hid_t dcpl, std::vector<hsize_t> chunk, const std::vector<hsize_t> &dims) {
    for (size_t d = 0; d < chunk.size() && d < dims.size(); ++d)
        chunk[d] = std::max<hsize_t>(1, std::min(chunk[d], dims[d]));
    return H5Pset_chunk(dcpl, static_cast<int>(chunk.size()), chunk.data());
}

// Physical size of a file as rank 0 sees it, broadcast to every rank (-1 if missing). Collective.
inline long long physical_size(const std::string &path) {
    long long size = -1;
    if (world_rank() == 0) {
        std::error_code ec;
        const auto n = std::filesystem::file_size(path, ec);
        size = ec ? -1 : static_cast<long long>(n);
    }
    MPI_Bcast(&size, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
    return size;
}

// Whether `path` exists, as rank 0 sees it, on every rank. Collective.
inline bool exists_on_rank0(const std::string &path) {
    int e = 0;
    if (world_rank() == 0)
        e = std::filesystem::exists(path) ? 1 : 0;
    MPI_Bcast(&e, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return e == 1;
}

// Row-major linear indices selected by a regular hyperslab (block 1), in selection order.
inline std::vector<hsize_t> hyperslab_indices(const std::vector<hsize_t> &dims,
                                              const std::vector<hsize_t> &start,
                                              const std::vector<hsize_t> &stride,
                                              const std::vector<hsize_t> &count) {
    std::vector<hsize_t> out;
    const size_t n = dims.size();
    std::vector<hsize_t> i(n, 0);
    hsize_t total = 1;
    for (hsize_t c : count)
        total *= c;
    if (total == 0)
        return out;
    out.reserve(total);
    while (true) {
        hsize_t linear = 0;
        for (size_t d = 0; d < n; ++d)
            linear = linear * dims[d] + start[d] + i[d] * stride[d];
        out.push_back(linear);
        size_t d = n;
        while (d > 0) {
            --d;
            if (++i[d] < count[d])
                break;
            i[d] = 0;
            if (d == 0)
                return out;
        }
    }
}

// The value every test stores at row-major index `linear` of a dataset: never 0 (the fill value),
// distinct per element and per dataset (`salt`).
template <class T> T value_at(hsize_t linear, int salt = 0) {
    if constexpr (std::is_floating_point_v<T>)
        return static_cast<T>(linear) + 0.5 + 100000.0 * salt;
    else
        return static_cast<T>(linear + 1 + 100000 * static_cast<hsize_t>(salt));
}

template <class T> std::vector<T> values_at(const std::vector<hsize_t> &indices, int salt = 0) {
    std::vector<T> out(indices.size());
    for (size_t k = 0; k < indices.size(); ++k)
        out[k] = value_at<T>(indices[k], salt);
    return out;
}

template <class T> std::vector<unsigned char> as_bytes(const std::vector<T> &v) {
    std::vector<unsigned char> out(v.size() * sizeof(T));
    if (!v.empty())
        std::memcpy(out.data(), v.data(), out.size());
    return out;
}

// Every element of a dataset of `n` elements, as stored by a complete write.
template <class T> std::vector<unsigned char> expected_dataset(hsize_t n, int salt = 0) {
    std::vector<T> v(n);
    for (hsize_t k = 0; k < n; ++k)
        v[k] = value_at<T>(k, salt);
    return as_bytes(v);
}

// Rank 0 checks a dataset's bytes through sec2; the verdict is shared. Collective.
inline bool dataset_equals_on_rank0(const std::string &file, const std::string &dataset,
                                    const std::vector<unsigned char> &expected) {
    bool ok = true;
    if (world_rank() == 0) {
        const auto got = read_dataset_sec2(file, dataset);
        ok = got == expected;
        EXPECT_EQ(got.size(), expected.size()) << file << ":" << dataset;
        if (got.size() == expected.size() && got != expected) {
            size_t i = 0;
            while (got[i] == expected[i])
                ++i;
            ADD_FAILURE() << file << ":" << dataset << " differs from the expected contents at byte " << i;
        }
    }
    int v = ok ? 1 : 0;
    MPI_Bcast(&v, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return v == 1;
}

// Statistics of an open mpiio file (zeros and a failure if unavailable).
inline H5FD_mpiio_stats_t stats_of(hid_t file) {
    H5FD_mpiio_stats_t s{};
    EXPECT_GE(H5Fget_mpiio_stats(file, &s), 0) << "no mpiio statistics for this file";
    return s;
}

// Collective. Sums a counter over the ranks.
inline std::uint64_t summed(std::uint64_t mine) {
    std::uint64_t all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return all;
}

// Silences HDF5's automatic error printing for the lifetime of the object (error tests).
class QuietErrors {
public:
    QuietErrors() {
        H5Eget_auto2(H5E_DEFAULT, &func_, &data_);
        H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    }
    ~QuietErrors() { H5Eset_auto2(H5E_DEFAULT, func_, data_); }
    QuietErrors(const QuietErrors &) = delete;
    QuietErrors &operator=(const QuietErrors &) = delete;

private:
    H5E_auto2_t func_ = nullptr;
    void *data_ = nullptr;
};

} // namespace mpiio_test
