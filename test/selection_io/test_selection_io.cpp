// Selection I/O end to end on 1-4 ranks: seeded random selections of every kind (regular and
// irregular hyperslabs, points in random and in ascending order) on the file side, paired with
// differently shaped memory selections, written and read in both transfer modes through the
// built-in mpio driver and through mpiio; the files must hold the same contents and every rank
// must read back what it wrote. Also: H5Dwrite_multi, and collective writes with holes into a dataset without
// fill values, where every unselected element must read as zero.
#include "h5fd_mpiio.h"
#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>
#include <random>

namespace {

using namespace mpiio_test;

// The random selections' dataset and rounds (seeds). On shared storage each run of a selection is
// a round trip under the clients' lock on the file (74 s collective, 157 s independent on 2
// ranks): there a quarter of the elements and one round, every kind still chunked with partial
// edge chunks.
hsize_t dataset_rows() { return storage_sized<hsize_t>(48, 24); }
hsize_t dataset_cols() { return storage_sized<hsize_t>(40, 20); }
unsigned rounds() { return storage_sized(4u, 1u); }

// Points: random order into a permuted buffer. PointsInOrder / PointsToBlock: ascending / random
// order into one block of memory (the independent runs path takes the first, the typed path the
// second: request.cpp ascending_runs).
enum class Kind { Regular, Irregular, Points, PointsInOrder, PointsToBlock };
constexpr Kind kKinds[] = {Kind::Regular, Kind::Irregular, Kind::Points, Kind::PointsInOrder,
                           Kind::PointsToBlock};

unsigned seed_base() {
    const char *s = std::getenv("MPIIO_SELIO_SEED");
    return s ? static_cast<unsigned>(std::strtoul(s, nullptr, 10)) : 20261122u;
}

// This rank's file selection: elements of the rank's band of rows only, so ranks never overlap.
void select_file(hid_t space, Kind kind, std::mt19937 &rng) {
    const hsize_t size = static_cast<hsize_t>(world_size()), rank = static_cast<hsize_t>(world_rank());
    const hsize_t band = dataset_rows() / size, first = rank * band,
                  rows = rank + 1 == size ? dataset_rows() - first : band;
    H5Sselect_none(space);
    switch (kind) {
    case Kind::Regular: {
        std::uniform_int_distribution<hsize_t> pick(1, 3);
        const hsize_t stride[2] = {pick(rng), pick(rng) + 1},
                      block[2] = {1, pick(rng) > 2 ? hsize_t{2} : hsize_t{1}};
        const hsize_t start[2] = {first, pick(rng) - 1};
        const hsize_t count[2] = {(rows + stride[0] - 1) / stride[0],
                                  (dataset_cols() - start[1] - block[1]) / stride[1] + 1};
        H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, block);
        break;
    }
    case Kind::Irregular: {
        std::uniform_int_distribution<hsize_t> r(0, rows - 1), c(0, dataset_cols() - 1);
        for (int k = 0; k < 6; ++k) {
            const hsize_t r0 = first + r(rng), c0 = c(rng);
            const hsize_t count[2] = {std::min<hsize_t>(1 + r(rng) % 4, first + rows - r0),
                                      std::min<hsize_t>(1 + c(rng) % 9, dataset_cols() - c0)};
            const hsize_t start[2] = {r0, c0};
            H5Sselect_hyperslab(space, k == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start, nullptr, count,
                                nullptr);
        }
        break;
    }
    case Kind::Points:
    case Kind::PointsInOrder:
    case Kind::PointsToBlock: {
        std::vector<hsize_t> coords;
        std::bernoulli_distribution take(0.3);
        for (hsize_t i = first; i < first + rows; ++i)
            for (hsize_t j = 0; j < dataset_cols(); ++j)
                if (take(rng)) {
                    coords.push_back(i);
                    coords.push_back(j);
                }
        // random order: the driver must sort the file side and permute memory to match
        std::vector<size_t> order(coords.size() / 2);
        std::iota(order.begin(), order.end(), 0);
        if (kind != Kind::PointsInOrder)
            std::shuffle(order.begin(), order.end(), rng);
        std::vector<hsize_t> shuffled;
        for (size_t k : order) {
            shuffled.push_back(coords[2 * k]);
            shuffled.push_back(coords[2 * k + 1]);
        }
        if (!order.empty())
            H5Sselect_elements(space, H5S_SELECT_SET, order.size(), shuffled.data());
        break;
    }
    }
}

// A memory dataspace with `n` selected elements, laid out differently from the file side.
Hid memory_space(hsize_t n, Kind kind, std::mt19937 &rng) {
    if (n == 0) {
        Hid none(H5Screate_simple(1, &n, nullptr));
        H5Sselect_none(none);
        return none;
    }
    switch (kind) {
    case Kind::Regular: { // every other element of a buffer twice as long
        const hsize_t dims = 2 * n + 1, start = 1, stride = 2, count = n;
        Hid s(H5Screate_simple(1, &dims, nullptr));
        H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, &stride, &count, nullptr);
        return s;
    }
    case Kind::Irregular:
    case Kind::PointsInOrder:
    case Kind::PointsToBlock: { // one block, 3 elements into a longer buffer (the memory's offset)
        const hsize_t dims = n + 5, start = 3, count = n;
        Hid s(H5Screate_simple(1, &dims, nullptr));
        H5Sselect_hyperslab(s, H5S_SELECT_SET, &start, nullptr, &count, nullptr);
        return s;
    }
    case Kind::Points: { // a random permutation of a buffer of n
        Hid s(H5Screate_simple(1, &n, nullptr));
        std::vector<hsize_t> idx(n);
        std::iota(idx.begin(), idx.end(), 0);
        std::shuffle(idx.begin(), idx.end(), rng);
        H5Sselect_elements(s, H5S_SELECT_SET, n, idx.data());
        return s;
    }
    }
    return Hid();
}

struct Written {
    std::string file;
    bool ok = true;
};

// Writes the same random selections with one driver; returns the file. Reads back and checks.
Written write_random(Driver driver, H5FD_mpio_xfer_t mode, unsigned seed, const std::string &stem) {
    Written out;
    out.file = test_file(stem, driver);
    Hid fapl = make_fapl(driver);
    Hid file(H5Fcreate(out.file.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    const hsize_t dims[2] = {dataset_rows(), dataset_cols()};
    Hid dxpl = make_dxpl(mode);
    int kind_index = 0;
    for (Kind kind : kKinds) {
        for (bool chunked : {false, true}) {
            std::mt19937 rng(seed + 7919u * static_cast<unsigned>(world_rank()) + 31u * kind_index++ +
                             (chunked ? 1000u : 0u));
            Hid fspace(H5Screate_simple(2, dims, nullptr));
            Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
            const int fill = -7; // a fill value everywhere: no holes, so both drivers must match
            H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &fill);
            H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC);
            if (chunked) {
                const hsize_t chunk[2] = {7, 9}; // partial edge chunks
                H5Pset_chunk(dcpl, 2, chunk);
            }
            const std::string name =
                std::string(chunked ? "chunked_" : "contig_") + std::to_string(kind_index);
            Hid dset(H5Dcreate2(file, name.c_str(), H5T_NATIVE_INT, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
            select_file(fspace, kind, rng);
            const hsize_t n = static_cast<hsize_t>(H5Sget_select_npoints(fspace));
            Hid mspace = memory_space(n, kind, rng);
            hsize_t mdims = 0;
            H5Sget_simple_extent_dims(mspace, &mdims, nullptr);
            std::vector<int> buf(std::max<hsize_t>(mdims, 1));
            for (size_t i = 0; i < buf.size(); ++i)
                buf[i] = world_rank() * 1000000 + kind_index * 10000 + static_cast<int>(i);
            out.ok &= H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, buf.data()) >= 0;
            std::vector<int> back(buf.size(), -1);
            out.ok &= H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, back.data()) >= 0;
            // compare only the selected memory elements
            std::vector<int> marks(buf.size(), 0);
            if (n > 0) {
                std::vector<int> ones(buf.size(), 1);
                Hid mem_dset_space(H5Scopy(mspace));
                // mark selected memory positions via H5Dfill-like scatter: use H5Sselect_iter
                Hid it(H5Ssel_iter_create(mspace, sizeof(int), 0));
                std::vector<hsize_t> off(1024);
                std::vector<size_t> len(1024);
                while (true) {
                    size_t nseq = 0, nbytes = 0;
                    H5Ssel_iter_get_seq_list(it, off.size(), SIZE_MAX, &nseq, &nbytes, off.data(),
                                             len.data());
                    if (nseq == 0)
                        break;
                    for (size_t s = 0; s < nseq; ++s)
                        for (size_t b = 0; b < len[s]; b += sizeof(int))
                            marks[(off[s] + b) / sizeof(int)] = 1;
                }
            }
            for (size_t i = 0; i < buf.size(); ++i)
                if (marks[i] && back[i] != buf[i]) {
                    ADD_FAILURE() << driver_name(driver) << " " << name << " rank " << world_rank()
                                  << ": element " << i << " read " << back[i] << " wrote " << buf[i];
                    out.ok = false;
                    break;
                }
        }
    }
    return out;
}

class RandomSelections : public ::testing::TestWithParam<H5FD_mpio_xfer_t> {};

TEST_P(RandomSelections, SameContentsAsBuiltInDriver) {
    const H5FD_mpio_xfer_t mode = GetParam();
    for (unsigned round = 0; round < rounds(); ++round) {
        const unsigned seed = seed_base() + 104729u * round;
        SCOPED_TRACE("seed " + std::to_string(seed) + " (MPIIO_SELIO_SEED to repeat)");
        const std::string stem = "random" + std::to_string(round);
        Written builtin = write_random(Driver::Mpio, mode, seed, stem);
        Written mine = write_random(Driver::Mpiio, mode, seed, stem);
        EXPECT_TRUE(all_ranks(builtin.ok && mine.ok));
        EXPECT_EQ(compare_files(builtin.file, mine.file), "");
    }
}

INSTANTIATE_TEST_SUITE_P(BothModes, RandomSelections,
                         ::testing::Values(H5FD_MPIO_COLLECTIVE, H5FD_MPIO_INDEPENDENT),
                         [](const auto &info) {
                             return info.param == H5FD_MPIO_COLLECTIVE ? "collective" : "independent";
                         });

// H5Dwrite_multi: three datasets (two contiguous, one chunked) in one collective call.
TEST(SelectionIo, WriteMultiMatchesBuiltIn) {
    std::string files[2];
    for (Driver d : {Driver::Mpio, Driver::Mpiio}) {
        files[d == Driver::Mpiio] = test_file("multi", d);
        Hid fapl = make_fapl(d);
        Hid file(H5Fcreate(files[d == Driver::Mpiio].c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        const hsize_t n = 16 * static_cast<hsize_t>(world_size()), chunk = 5;
        Hid space(H5Screate_simple(1, &n, nullptr));
        Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
        H5Pset_chunk(dcpl, 1, &chunk);
        Hid d0(H5Dcreate2(file, "a", H5T_NATIVE_INT, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        Hid d1(H5Dcreate2(file, "b", H5T_NATIVE_DOUBLE, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        Hid d2(H5Dcreate2(file, "c", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
        const hsize_t start = 16 * static_cast<hsize_t>(world_rank()), count = 16;
        H5Sselect_hyperslab(space, H5S_SELECT_SET, &start, nullptr, &count, nullptr);
        Hid mspace(H5Screate_simple(1, &count, nullptr));
        std::vector<int> a(16), c(16);
        std::vector<double> b(16);
        for (int i = 0; i < 16; ++i) {
            a[i] = world_rank() * 100 + i;
            b[i] = 0.5 * a[i];
            c[i] = -a[i];
        }
        hid_t dsets[3] = {d0, d1, d2}, types[3] = {H5T_NATIVE_INT, H5T_NATIVE_DOUBLE, H5T_NATIVE_INT};
        hid_t mspaces[3] = {mspace, mspace, mspace}, fspaces[3] = {space, space, space};
        const void *wbufs[3] = {a.data(), b.data(), c.data()};
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        EXPECT_GE(H5Dwrite_multi(3, dsets, types, mspaces, fspaces, dxpl, wbufs), 0);
        std::vector<int> a2(16), c2(16);
        std::vector<double> b2(16);
        void *rbufs[3] = {a2.data(), b2.data(), c2.data()};
        EXPECT_GE(H5Dread_multi(3, dsets, types, mspaces, fspaces, dxpl, rbufs), 0);
        EXPECT_EQ(a, a2);
        EXPECT_EQ(b, b2);
        EXPECT_EQ(c, c2);
    }
    EXPECT_EQ(compare_files(files[0], files[1]), "");
}

// Collective writes that leave holes in a fresh contiguous dataset with no fill value: the MPI-IO
// layer's collective buffering must not copy process memory into the holes.
TEST(SelectionIo, HolesReadAsZeroWithoutFillValue) {
    const std::string name = test_file("holes", Driver::Mpiio);
    for (H5D_selection_io_mode_t selection : {H5D_SELECTION_IO_MODE_OFF, H5D_SELECTION_IO_MODE_ON}) {
        SCOPED_TRACE(selection == H5D_SELECTION_IO_MODE_ON ? "selection I/O on" : "selection I/O off");
        {
            Hid fapl = make_fapl(Driver::Mpiio);
            Hid file(H5Fcreate(name.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            const hsize_t dims[2] = {8 * static_cast<hsize_t>(world_size()), 64};
            Hid space(H5Screate_simple(2, dims, nullptr));
            Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
            H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
            Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT));
            // every third column of this rank's rows
            const hsize_t start[2] = {8 * static_cast<hsize_t>(world_rank()), 0}, stride[2] = {1, 3},
                          count[2] = {8, 22};
            H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, nullptr);
            const hsize_t n = 8 * 22;
            Hid mspace(H5Screate_simple(1, &n, nullptr));
            std::vector<int> values(n, 0x5A5A5A5A);
            Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE, selection);
            EXPECT_GE(H5Dwrite(dset, H5T_NATIVE_INT, mspace, space, dxpl, values.data()), 0);
        }
        MPI_Barrier(MPI_COMM_WORLD);
        if (world_rank() == 0) {
            const std::vector<unsigned char> bytes = read_dataset_sec2(name, "d");
            ASSERT_FALSE(bytes.empty());
            const int *v = reinterpret_cast<const int *>(bytes.data());
            for (size_t i = 0; i < bytes.size() / sizeof(int); ++i) {
                const bool selected = (i % 64) % 3 == 0 && (i % 64) / 3 < 22;
                if (selected ? v[i] != 0x5A5A5A5A : v[i] != 0) {
                    ADD_FAILURE() << "element " << i << " (row " << i / 64 << ", column " << i % 64
                                  << ") holds " << v[i];
                    break;
                }
            }
        }
        MPI_Barrier(MPI_COMM_WORLD);
    }
}

} // namespace
