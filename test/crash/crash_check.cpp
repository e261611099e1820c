// Reads what a killed crash_writer left (through the sec2 driver, as a tool after the job would)
// and prints one line classifying it:
//   state=complete    every stage's data is there (expected when the kill came after the second flush)
//   state=flushed_ok  the file opens and everything written before the first H5Fflush reads back
//                     (each element the flushed value or its later overwrite)
//   state=flushed_bad the file opens but flushed data is missing or wrong
//   state=unreadable  the file does not open
// followed by how many elements still hold the values the flushed rewrite replaced (a rewrite the
// flush did not write) and which later objects survived. Exit code 0 whenever it could classify.
//
//   crash_check <file>
#include "crash_layout.hpp"

#include <hdf5.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

// Reads the first `n` elements of a 1-D int dataset; empty if it cannot.
std::vector<int> read_prefix(hid_t file, const char *name, hsize_t &extent) {
    extent = 0;
    if (H5Lexists(file, name, H5P_DEFAULT) <= 0)
        return {};
    const hid_t dset = H5Dopen2(file, name, H5P_DEFAULT);
    if (dset < 0)
        return {};
    const hid_t space = H5Dget_space(dset);
    H5Sget_simple_extent_dims(space, &extent, nullptr);
    std::vector<int> buf(extent, -1);
    const bool ok =
        extent > 0 && H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) >= 0;
    H5Sclose(space);
    H5Dclose(dset);
    return ok ? buf : std::vector<int>{};
}

// Every element of [0, n) is version 1 or 2 (or exactly `only`, when given).
bool values_ok(const std::vector<int> &v, hsize_t n, int only = 0) {
    if (v.size() < n)
        return false;
    for (hsize_t i = 0; i < n; ++i) {
        const bool is1 = v[i] == crash::value(i, 1), is2 = v[i] == crash::value(i, 2);
        if (only == 1 ? !is1 : only == 2 ? !is2 : !(is1 || is2))
            return false;
    }
    return true;
}

// Elements of [0, n) that still hold version 0, the values stage 1 rewrote before the flush.
hsize_t count_version0(const std::vector<int> &v, hsize_t n) {
    hsize_t stale = 0;
    for (hsize_t i = 0; i < n && i < v.size(); ++i)
        stale += v[i] == crash::value(i, 0) ? 1 : 0;
    return stale;
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: crash_check <file>\n");
        return 2;
    }
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    const hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_sec2(fapl);
    const hid_t file = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    if (file < 0) {
        std::printf("state=unreadable\n");
        return 0;
    }
    hsize_t n = 0, chunked_extent = 0, later_extent = 0;
    const auto contig = read_prefix(file, "flushed", n);
    const auto chunked = read_prefix(file, "flushed_chunked", chunked_extent);
    const auto later = read_prefix(file, "unflushed", later_extent);
    const bool flushed_ok = n > 0 && values_ok(contig, n) && chunked_extent >= n && values_ok(chunked, n);
    const bool later_ok = later_extent == n && values_ok(later, n, 2);
    const bool group_ok = H5Lexists(file, "g", H5P_DEFAULT) > 0;
    bool extended_ok = chunked_extent == 2 * n;
    for (hsize_t i = n; extended_ok && i < 2 * n; ++i)
        extended_ok = chunked[i] == crash::value(i, 2);
    const bool complete = flushed_ok && values_ok(contig, n, 2) && values_ok(chunked, n, 2) && later_ok &&
                          group_ok && extended_ok;
    const hsize_t rewrite_lost = count_version0(contig, n) + count_version0(chunked, n);
    std::printf("state=%s rewrite_lost=%llu later:%s%s%s\n",
                complete     ? "complete"
                : flushed_ok ? "flushed_ok"
                             : "flushed_bad",
                static_cast<unsigned long long>(rewrite_lost), later_ok ? " unflushed" : "",
                group_ok ? " g" : "", extended_ok ? " extended" : "");
    H5Fclose(file);
    H5Pclose(fapl);
    return 0;
}
