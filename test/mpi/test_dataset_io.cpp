// Raw data transfers on both drivers: contiguous and chunked datasets, collective and independent
// transfers, selection I/O default/on/off, row blocks, a column-strided selection with a strided
// memory buffer, a type-converting dataset, ranks with empty selections, H5Dwrite_multi and the
// collective read of a chunked dataset from a read-only file (the library's own collective path).
// Every file is compared with the built-in driver's, and every value is checked.
#include "common.hpp"

#include <gtest/gtest.h>

#include <string>
#include <tuple>
#include <vector>

using namespace mpiio_test;

namespace {

enum class Layout { Contiguous, Chunked };
enum class Elem { Int, Double, IntAsI64BE }; // memory int / double; int stored as big-endian int64

struct Pattern {
    std::string name;
    Elem elem;
    std::vector<hsize_t> dims, chunk;
    std::vector<hsize_t> start, stride, count; // this rank's hyperslab (block 1)
    bool strided_memory = false;               // memory buffer holds the values at every 2nd element
    int salt = 0;
};

// The same patterns on every rank, with this rank's selection.
std::vector<Pattern> patterns() {
    const int rank = world_rank(), size = world_size();
    const hsize_t rows = total_rows(size);
    const Block b = row_block(rank);
    const auto ur = static_cast<hsize_t>(rank), us = static_cast<hsize_t>(size);
    const hsize_t cols = 4 * us + 1; // rank 0 owns one column more than the others
    std::vector<Pattern> out;
    out.push_back(
        {"int2d_rows", Elem::Int, {rows, 10}, {4, 3}, {b.start, 0}, {1, 1}, {b.count, 10}, false, 1});
    out.push_back({"double3d_rows",
                   Elem::Double,
                   {rows, 3, 4},
                   {2, 3, 2},
                   {b.start, 0, 0},
                   {1, 1, 1},
                   {b.count, 3, 4},
                   false,
                   2});
    out.push_back({"int2d_columns",
                   Elem::Int,
                   {6, cols},
                   {4, 3},
                   {0, ur},
                   {1, us},
                   {6, (cols - ur + us - 1) / us},
                   true,
                   3});
    out.push_back(
        {"int_as_i64be", Elem::IntAsI64BE, {rows, 5}, {3, 5}, {b.start, 0}, {1, 1}, {b.count, 5}, false, 4});
    return out;
}

hid_t mem_type(Elem e) { return e == Elem::Double ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT; }
hid_t file_type(Elem e) {
    return e == Elem::Double ? H5T_IEEE_F64LE : e == Elem::Int ? H5T_STD_I32LE : H5T_STD_I64BE;
}
size_t mem_size(Elem e) { return e == Elem::Double ? sizeof(double) : sizeof(int); }

hsize_t product(const std::vector<hsize_t> &v) {
    hsize_t n = 1;
    for (hsize_t x : v)
        n *= x;
    return n;
}

// This rank's values in selection order, as bytes of the memory type.
std::vector<unsigned char> my_values(const Pattern &p) {
    const auto idx = hyperslab_indices(p.dims, p.start, p.stride, p.count);
    return p.elem == Elem::Double ? as_bytes(values_at<double>(idx, p.salt))
                                  : as_bytes(values_at<int>(idx, p.salt));
}

// The whole dataset as read_dataset_sec2 returns it (native type of the file type).
std::vector<unsigned char> whole_dataset(const Pattern &p) {
    const hsize_t n = product(p.dims);
    switch (p.elem) {
    case Elem::Double:
        return expected_dataset<double>(n, p.salt);
    case Elem::Int:
        return expected_dataset<int>(n, p.salt);
    default:
        return expected_dataset<long long>(n, p.salt);
    }
}

// Memory buffer and memory dataspace for a selection of `n` elements: packed, or interleaved
// with `sentinel` elements (the values at even positions).
struct MemoryImage {
    std::vector<unsigned char> bytes;
    Hid space;
};
MemoryImage memory_for(const Pattern &p, const std::vector<unsigned char> &packed, unsigned char sentinel) {
    const size_t esize = mem_size(p.elem);
    const hsize_t n = packed.size() / esize;
    MemoryImage m;
    if (!p.strided_memory) {
        m.bytes = packed;
        const hsize_t dims[1] = {n};
        m.space = Hid(H5Screate_simple(1, dims, nullptr));
        return m;
    }
    const hsize_t dims[1] = {2 * n}, start[1] = {0}, stride[1] = {2}, count[1] = {n};
    m.space = Hid(H5Screate_simple(1, dims, nullptr));
    H5Sselect_hyperslab(m.space, H5S_SELECT_SET, start, stride, count, nullptr);
    m.bytes.assign(2 * n * esize, sentinel);
    for (hsize_t k = 0; k < n; ++k)
        std::memcpy(&m.bytes[2 * k * esize], &packed[k * esize], esize);
    return m;
}

Hid file_space_for(const Pattern &p) {
    Hid space(H5Screate_simple(static_cast<int>(p.dims.size()), p.dims.data(), nullptr));
    H5Sselect_hyperslab(space, H5S_SELECT_SET, p.start.data(), p.stride.data(), p.count.data(), nullptr);
    return space;
}

bool create_and_write(hid_t file, const Pattern &p, Layout layout, hid_t dxpl) {
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
    if (layout == Layout::Chunked)
        set_chunk(dcpl, p.chunk, p.dims);
    Hid fspace = file_space_for(p);
    Hid dset(H5Dcreate2(file, p.name.c_str(), file_type(p.elem), fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    if (!dset.valid())
        return false;
    MemoryImage m = memory_for(p, my_values(p), 0xEE);
    const bool ok = H5Dwrite(dset, mem_type(p.elem), m.space, fspace, dxpl, m.bytes.data()) >= 0;
    EXPECT_TRUE(ok) << p.name << ": " << error_stack_text();
    return ok;
}

// Reads this rank's selection back (into a buffer pre-filled with a sentinel) and checks it.
bool read_back(hid_t file, const Pattern &p, hid_t dxpl) {
    Hid dset(H5Dopen2(file, p.name.c_str(), H5P_DEFAULT));
    if (!dset.valid())
        return false;
    Hid fspace = file_space_for(p);
    const auto packed = my_values(p);
    MemoryImage want = memory_for(p, packed, 0x5A);
    MemoryImage got = memory_for(p, std::vector<unsigned char>(packed.size(), 0x5A), 0x5A);
    if (H5Dread(dset, mem_type(p.elem), got.space, fspace, dxpl, got.bytes.data()) < 0) {
        ADD_FAILURE() << p.name << ": H5Dread failed: " << error_stack_text();
        return false;
    }
    EXPECT_TRUE(got.bytes == want.bytes) << p.name << ": read back differs from what this rank wrote";
    return got.bytes == want.bytes;
}

const char *selection_name(H5D_selection_io_mode_t s) {
    return s == H5D_SELECTION_IO_MODE_DEFAULT ? "SelDefault"
           : s == H5D_SELECTION_IO_MODE_ON    ? "SelOn"
                                              : "SelOff";
}

// ---- every pattern x layout x transfer mode x selection I/O mode --------------------------------

using IoParam = std::tuple<Layout, H5FD_mpio_xfer_t, H5D_selection_io_mode_t>;

class DatasetIo : public testing::TestWithParam<IoParam> {};

TEST_P(DatasetIo, WriteReadMatchesBuiltin) {
    const auto [layout, mode, selection] = GetParam();
    const std::string dir = test_dir();
    const auto pats = patterns();
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "io", d);
        Hid fapl = make_fapl(d);
        Hid dxpl = make_dxpl(mode, selection);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
            for (const auto &p : pats) {
                EXPECT_TRUE(all_ranks(create_and_write(file, p, layout, dxpl))) << p.name;
            }
            // read back in the same transfer mode while the file is still open
            for (const auto &p : pats) {
                EXPECT_TRUE(all_ranks(read_back(file, p, dxpl))) << p.name;
            }
            if (d == Driver::Mpiio) {
                const auto st = stats_of(file);
                // (chunked datasets: the library fills/allocates chunks with collective writes itself)
                if (mode == H5FD_MPIO_INDEPENDENT && layout == Layout::Contiguous) {
                    EXPECT_EQ(st.collective_writes, 0u)
                        << "independent transfers must not use collective MPI-IO";
                }
                if (mode == H5FD_MPIO_INDEPENDENT) {
                    EXPECT_GT(st.independent_writes, 0u);
                }
                if (mode == H5FD_MPIO_COLLECTIVE) {
                    // every collective request reached the driver as a collective transfer (its
                    // route - MPI collective I/O, each rank on its own or through aggregators - is
                    // the driver's choice)
                    EXPECT_GT(st.collective_ops, 0u);
                    EXPECT_EQ(st.collective_ops, st.mpi_route_ops + st.independent_route_ops +
                                                     st.aggregated_route_ops + st.rank0_bcast_reads);
                }
                // (an aggregator writes the other ranks' bytes: some rank wrote)
                const bool aggregated_only = st.aggregated_route_ops > 0 && st.independent_writes == 0;
                EXPECT_TRUE(aggregated_only || st.bytes_written > 0u);
                EXPECT_FALSE(all_ranks(st.bytes_written == 0u)) << "no rank wrote a byte";
            }
        }
        // and after reopening it
        Hid file(H5Fopen(path.c_str(), H5F_ACC_RDWR, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        for (const auto &p : pats) {
            EXPECT_TRUE(all_ranks(read_back(file, p, dxpl))) << p.name;
        }
    }
    for (const auto &p : pats) {
        EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "io", Driver::Mpiio), p.name, whole_dataset(p)))
            << p.name;
    }
    EXPECT_EQ(compare_files(path_in(dir, "io", Driver::Mpio), path_in(dir, "io", Driver::Mpiio)), "");
}

INSTANTIATE_TEST_SUITE_P(
    AllModes, DatasetIo,
    testing::Combine(testing::Values(Layout::Contiguous, Layout::Chunked),
                     testing::Values(H5FD_MPIO_COLLECTIVE, H5FD_MPIO_INDEPENDENT),
                     testing::Values(H5D_SELECTION_IO_MODE_DEFAULT, H5D_SELECTION_IO_MODE_ON,
                                     H5D_SELECTION_IO_MODE_OFF)),
    [](const testing::TestParamInfo<IoParam> &info) {
        return std::string(std::get<0>(info.param) == Layout::Chunked ? "Chunked" : "Contiguous") +
               (std::get<1>(info.param) == H5FD_MPIO_COLLECTIVE ? "Collective" : "Independent") +
               selection_name(std::get<2>(info.param));
    });

// ---- bigger, finely interleaved transfers under the driver's and MPI-IO's knobs ----------------
//
// Every rank owns pairs of columns (block 2, stride 2*size) of a 2-D dataset of 64 rows per rank:
// thousands of small pieces per rank, interleaved with every other rank's. Run with the default
// configuration, with small staging buffers and no sieving, and with small collective buffers
// (several two-phase rounds). The whole dataset is then read on every rank with H5S_ALL (the
// library's rank-0-reads-and-broadcasts path for contiguous datasets). On shared storage each
// 8-byte piece of the built-in driver's writes is a round trip under the clients' lock on the file
// (one case took 250 s on 2 ranks): there the dataset has 4 rows per rank and 128 columns (256
// pieces per rank on 2 ranks) and both buffers shrink by as much as the dataset, so they still
// fill several times.

enum class Knob { Defaults, SmallStaging, SmallCollectiveBuffer };

// The plugin's configuration string for a knob, its buffers scaled with the dataset's bytes.
std::string knob_config(Knob k) {
    const bool shared = shared_storage();
    switch (k) {
    case Knob::Defaults:
        return "";
    case Knob::SmallStaging:
        return shared ? "staging_buffer=1K;sieve_gap=0" : "staging_buffer=64K;sieve_gap=0";
    case Knob::SmallCollectiveBuffer:
        return std::string("hint.cb_buffer_size=") + (shared ? "1024" : "65536") +
               ";hint.romio_cb_write=enable;hint.romio_cb_read=enable";
    }
    return "";
}

using LargeParam = std::tuple<H5FD_mpio_xfer_t, H5D_selection_io_mode_t, Knob>;
class LargeInterleaved : public testing::TestWithParam<LargeParam> {};

TEST_P(LargeInterleaved, MatchesBuiltin) {
    const auto [mode, selection, knob] = GetParam();
    const int rank = world_rank(), size = world_size();
    const auto ur = static_cast<hsize_t>(rank), us = static_cast<hsize_t>(size);
    const hsize_t rows = storage_sized<hsize_t>(64, 4) * us, cols = storage_sized<hsize_t>(256, 64) * 2;
    const hsize_t pairs = cols / (2 * us) + (cols % (2 * us) > 2 * ur ? 1 : 0);
    const std::string config = knob_config(knob);
    const std::string dir = test_dir();
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "large", d);
        FaplOptions opt;
        opt.config = d == Driver::Mpiio ? config.c_str() : nullptr;
        Hid fapl = make_fapl(d, opt);
        Hid dxpl = make_dxpl(mode, selection);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        const hsize_t dims[2] = {rows, cols};
        Hid fspace(H5Screate_simple(2, dims, nullptr));
        Hid dset(H5Dcreate2(file, "large", H5T_STD_I32LE, fspace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(dset.valid()));
        const hsize_t start[2] = {0, 2 * ur}, stride[2] = {1, 2 * us}, count[2] = {rows, pairs},
                      block[2] = {1, 2};
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, stride, count, block);
        const hsize_t n = rows * pairs * 2;
        std::vector<int> mine;
        mine.reserve(n);
        for (hsize_t r = 0; r < rows; ++r)
            for (hsize_t p = 0; p < pairs; ++p)
                for (hsize_t c = 0; c < 2; ++c)
                    mine.push_back(value_at<int>(r * cols + 2 * ur + p * 2 * us + c));
        const hsize_t mdims[1] = {n};
        Hid mspace(H5Screate_simple(1, mdims, nullptr));
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, mine.data()) >= 0))
            << error_stack_text();
        std::vector<int> back(n, -1);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, back.data()) >= 0));
        EXPECT_TRUE(back == mine) << "own columns read back differ";
        std::vector<int> all(rows * cols, -1);
        Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE, selection);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, H5S_ALL, H5S_ALL, coll, all.data()) >= 0));
        bool all_ok = true;
        for (hsize_t k = 0; k < rows * cols && all_ok; ++k)
            all_ok = all[k] == value_at<int>(k);
        EXPECT_TRUE(all_ok) << "whole-dataset collective read differs";
    }
    EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "large", Driver::Mpiio), "large",
                                        expected_dataset<int>(rows * cols)));
    EXPECT_EQ(compare_files(path_in(dir, "large", Driver::Mpio), path_in(dir, "large", Driver::Mpiio)), "");
}

INSTANTIATE_TEST_SUITE_P(
    Knobs, LargeInterleaved,
    testing::Combine(testing::Values(H5FD_MPIO_COLLECTIVE, H5FD_MPIO_INDEPENDENT),
                     testing::Values(H5D_SELECTION_IO_MODE_DEFAULT, H5D_SELECTION_IO_MODE_OFF),
                     testing::Values(Knob::Defaults, Knob::SmallStaging, Knob::SmallCollectiveBuffer)),
    [](const testing::TestParamInfo<LargeParam> &info) {
        const Knob knob = std::get<2>(info.param);
        return std::string(std::get<0>(info.param) == H5FD_MPIO_COLLECTIVE ? "Collective" : "Independent") +
               selection_name(std::get<1>(info.param)) +
               (knob == Knob::Defaults       ? "Defaults"
                : knob == Knob::SmallStaging ? "SmallStaging"
                                             : "SmallCollectiveBuffer");
    });

// ---- read-only reopen: selection I/O is off (chunk cache), the library's collective path -------

TEST(DatasetIoReadOnly, ChunkedCollectiveReadAfterReadOnlyReopen) {
    const std::string dir = test_dir();
    const auto pats = patterns();
    std::array<uint32_t, 2> actual_selection{};
    std::array<H5D_mpio_actual_io_mode_t, 2> actual_io{};
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "ro", d);
        Hid fapl = make_fapl(d);
        {
            Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
            ASSERT_TRUE(all_ranks(file.valid()));
            Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
            for (const auto &p : pats) {
                EXPECT_TRUE(all_ranks(create_and_write(file, p, Layout::Chunked, dxpl))) << p.name;
            }
        }
        Hid file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, fapl));
        ASSERT_TRUE(all_ranks(file.valid())) << error_stack_text();
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE);
        for (const auto &p : pats) {
            EXPECT_TRUE(all_ranks(read_back(file, p, dxpl))) << p.name;
            uint32_t sel = 0;
            H5Pget_actual_selection_io_mode(dxpl, &sel);
            H5D_mpio_actual_io_mode_t io{};
            H5Pget_mpio_actual_io_mode(dxpl, &io);
            if (p.name == "int2d_rows") {
                actual_selection[static_cast<size_t>(d)] = sel;
                actual_io[static_cast<size_t>(d)] = io;
            }
        }
        if (d == Driver::Mpiio) {
            const auto st = stats_of(file);
            EXPECT_GT(st.collective_ops, 0u) << "no collective read reached the driver";
            EXPECT_EQ(st.bytes_written, 0u);
        }
    }
    // This must be the library's own collective path (selection I/O off): otherwise the test
    // does not test what it says.
    EXPECT_EQ(actual_selection[0], H5D_SCALAR_IO);
    EXPECT_EQ(actual_selection[1], actual_selection[0]);
    EXPECT_EQ(actual_io[0], H5D_MPIO_CHUNK_COLLECTIVE);
    EXPECT_EQ(actual_io[1], actual_io[0]);
    EXPECT_EQ(compare_files(path_in(dir, "ro", Driver::Mpio), path_in(dir, "ro", Driver::Mpiio)), "");
}

// ---- some ranks (or all) with nothing to transfer in a collective call ---------------------------
//
// Rows of idle ranks are never written. With FillAtAlloc the library writes a fill value (-7) at
// allocation, so both drivers must give identical files. Without it the rows are holes in a fresh
// file and must read as the default fill value 0 through the plugin (which promises never to copy
// process memory into holes). The built-in driver is no oracle there: under OMPIO with 3+ ranks
// its collective writes leave heap garbage in such holes.

enum class Fill { Holes, FillAtAlloc };
using EmptyParam = std::tuple<Layout, H5D_selection_io_mode_t, Fill>;
class EmptySelections : public testing::TestWithParam<EmptyParam> {};

TEST_P(EmptySelections, OddRanksSelectNothingInCollectiveCalls) {
    const auto [layout, selection, fill] = GetParam();
    const int rank = world_rank(), size = world_size();
    const bool idle = rank % 2 == 1;
    const hsize_t rows = total_rows(size), cols = 8;
    const int fill_value = fill == Fill::FillAtAlloc ? -7 : 0;
    const std::string dir = test_dir();
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "empty", d);
        Hid fapl = make_fapl(d);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE, selection);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
        const hsize_t dims[2] = {rows, cols};
        Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
        if (layout == Layout::Chunked)
            set_chunk(dcpl, {5, 3}, {rows, cols});
        if (fill == Fill::FillAtAlloc) {
            H5Pset_fill_value(dcpl, H5T_NATIVE_INT, &fill_value);
            H5Pset_fill_time(dcpl, H5D_FILL_TIME_ALLOC);
        }
        Hid fspace(H5Screate_simple(2, dims, nullptr));
        Hid dset(H5Dcreate2(file, "partial", H5T_STD_I32LE, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
        ASSERT_TRUE(all_ranks(dset.valid()));
        const Block b = row_block(rank);
        const hsize_t start[2] = {b.start, 0}, count[2] = {b.count, cols};
        const auto values =
            values_at<int>(hyperslab_indices({rows, cols}, {b.start, 0}, {1, 1}, {b.count, cols}));
        Hid mspace(H5Screate_simple(2, count, nullptr));
        if (idle) {
            H5Sselect_none(fspace);
            H5Sselect_none(mspace);
        } else {
            H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start, nullptr, count, nullptr);
        }
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, values.data()) >= 0))
            << error_stack_text();
        // a collective call in which nobody transfers anything changes nothing
        Hid none_f(H5Scopy(fspace)), none_m(H5Scopy(mspace));
        H5Sselect_none(none_f);
        H5Sselect_none(none_m);
        std::vector<int> junk(values.size(), -1);
        EXPECT_TRUE(all_ranks(H5Dwrite(dset, H5T_NATIVE_INT, none_m, none_f, dxpl, junk.data()) >= 0));
        // collective read with the same empty selections
        std::vector<int> back(values.size(), -1);
        EXPECT_TRUE(all_ranks(H5Dread(dset, H5T_NATIVE_INT, mspace, fspace, dxpl, back.data()) >= 0));
        if (!idle) {
            EXPECT_EQ(back, values);
        } else {
            EXPECT_EQ(back, std::vector<int>(values.size(), -1)) << "an empty read touched the buffer";
        }
    }
    // expected: rows of working ranks hold values, rows of idle ranks the fill value
    std::vector<int> whole(rows * cols, fill_value);
    for (int r = 0; r < size; r += 2) {
        const Block b = row_block(r);
        for (hsize_t i = b.start * cols; i < (b.start + b.count) * cols; ++i)
            whole[i] = value_at<int>(i);
    }
    EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "empty", Driver::Mpiio), "partial", as_bytes(whole)))
        << "rows no rank wrote must read as the fill value " << fill_value;
    if (fill == Fill::FillAtAlloc) {
        EXPECT_EQ(compare_files(path_in(dir, "empty", Driver::Mpio), path_in(dir, "empty", Driver::Mpiio)),
                  "");
    }
}

INSTANTIATE_TEST_SUITE_P(Modes, EmptySelections,
                         testing::Combine(testing::Values(Layout::Contiguous, Layout::Chunked),
                                          testing::Values(H5D_SELECTION_IO_MODE_DEFAULT,
                                                          H5D_SELECTION_IO_MODE_OFF),
                                          testing::Values(Fill::Holes, Fill::FillAtAlloc)),
                         [](const testing::TestParamInfo<EmptyParam> &info) {
                             return std::string(std::get<0>(info.param) == Layout::Chunked ? "Chunked"
                                                                                           : "Contiguous") +
                                    selection_name(std::get<1>(info.param)) +
                                    (std::get<2>(info.param) == Fill::Holes ? "Holes" : "FillAtAlloc");
                         });

// ---- H5Dwrite_multi / H5Dread_multi over three datasets ------------------------------------------

class MultiDataset : public testing::TestWithParam<H5D_selection_io_mode_t> {};

TEST_P(MultiDataset, WriteMultiCollectiveMatchesBuiltin) {
    const auto selection = GetParam();
    const int rank = world_rank(), size = world_size();
    const hsize_t rows = total_rows(size);
    const Block b = row_block(rank);
    const std::string dir = test_dir();

    struct Spec {
        const char *name;
        Elem elem;
        std::vector<hsize_t> dims, chunk; // chunk empty: contiguous
        int salt;
    };
    const std::vector<Spec> specs = {{"a_int_contig", Elem::Int, {rows, 6}, {}, 1},
                                     {"b_double_chunked", Elem::Double, {rows, 5}, {4, 5}, 2},
                                     {"c_int3d_chunked", Elem::Int, {rows, 2, 3}, {2, 2, 2}, 3}};
    for (Driver d : kDrivers) {
        SCOPED_TRACE(driver_name(d));
        const std::string path = path_in(dir, "multi", d);
        Hid fapl = make_fapl(d);
        Hid dxpl = make_dxpl(H5FD_MPIO_COLLECTIVE, selection);
        Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
        ASSERT_TRUE(all_ranks(file.valid()));
        std::vector<Hid> dsets, fspaces, mspaces;
        std::vector<std::vector<unsigned char>> data, back;
        std::vector<hid_t> ids, mtypes, fids, mids;
        std::vector<const void *> wbufs;
        std::vector<void *> rbufs;
        for (const auto &s : specs) {
            Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
            if (!s.chunk.empty())
                set_chunk(dcpl, s.chunk, s.dims);
            Hid fspace(H5Screate_simple(static_cast<int>(s.dims.size()), s.dims.data(), nullptr));
            dsets.emplace_back(
                H5Dcreate2(file, s.name, file_type(s.elem), fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
            std::vector<hsize_t> start(s.dims.size(), 0), stride(s.dims.size(), 1), count = s.dims;
            start[0] = b.start;
            count[0] = b.count;
            H5Sselect_hyperslab(fspace, H5S_SELECT_SET, start.data(), nullptr, count.data(), nullptr);
            const auto idx = hyperslab_indices(s.dims, start, stride, count);
            data.push_back(s.elem == Elem::Double ? as_bytes(values_at<double>(idx, s.salt))
                                                  : as_bytes(values_at<int>(idx, s.salt)));
            back.emplace_back(data.back().size(), 0);
            const hsize_t n[1] = {idx.size()};
            mspaces.emplace_back(H5Screate_simple(1, n, nullptr));
            fspaces.push_back(std::move(fspace));
        }
        ASSERT_TRUE(all_ranks(dsets[0].valid() && dsets[1].valid() && dsets[2].valid()));
        for (size_t i = 0; i < specs.size(); ++i) {
            ids.push_back(dsets[i]);
            mtypes.push_back(mem_type(specs[i].elem));
            fids.push_back(fspaces[i]);
            mids.push_back(mspaces[i]);
            wbufs.push_back(data[i].data());
            rbufs.push_back(back[i].data());
        }
        EXPECT_TRUE(all_ranks(H5Dwrite_multi(specs.size(), ids.data(), mtypes.data(), mids.data(),
                                             fids.data(), dxpl, wbufs.data()) >= 0))
            << error_stack_text();
        EXPECT_TRUE(all_ranks(H5Dread_multi(specs.size(), ids.data(), mtypes.data(), mids.data(), fids.data(),
                                            dxpl, rbufs.data()) >= 0))
            << error_stack_text();
        for (size_t i = 0; i < specs.size(); ++i) {
            EXPECT_TRUE(back[i] == data[i]) << specs[i].name;
        }
        if (d == Driver::Mpiio) {
            EXPECT_GT(stats_of(file).collective_ops, 0u);
        }
    }
    for (const auto &s : specs) {
        const hsize_t n = product(s.dims);
        EXPECT_TRUE(dataset_equals_on_rank0(path_in(dir, "multi", Driver::Mpiio), s.name,
                                            s.elem == Elem::Double ? expected_dataset<double>(n, s.salt)
                                                                   : expected_dataset<int>(n, s.salt)))
            << s.name;
    }
    EXPECT_EQ(compare_files(path_in(dir, "multi", Driver::Mpio), path_in(dir, "multi", Driver::Mpiio)), "");
}

INSTANTIATE_TEST_SUITE_P(Selection, MultiDataset,
                         testing::Values(H5D_SELECTION_IO_MODE_DEFAULT, H5D_SELECTION_IO_MODE_ON,
                                         H5D_SELECTION_IO_MODE_OFF),
                         [](const testing::TestParamInfo<H5D_selection_io_mode_t> &info) {
                             return std::string(selection_name(info.param));
                         });

} // namespace
