// The pairing rule itself, checked against HDF5's data path rather than its sequence lists:
// H5Dread(file selection -> memory selection) on an in-memory (core) file must produce the same
// buffer as moving the bytes with the built pair (MPI_Pack through the file type from the dataset's
// bytes, MPI_Unpack through the memory type into the buffer).
#include "oracle.hpp"
#include "random_selection.hpp"
#include "seed.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

namespace {

using namespace seltest;
namespace sel = mpiio::selection;

std::size_t extent_elements(hid_t space) {
    return static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
}

TEST(SelectionSemantics, PairMovesTheBytesH5DreadMoves) {
    Hid fapl(H5Pcreate(H5P_FILE_ACCESS));
    ASSERT_GE(H5Pset_fapl_core(fapl, 1 << 20, false), 0);
    Hid file(H5Fcreate("selection-semantics.h5", H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    ASSERT_TRUE(file.valid());
    const std::uint64_t base = base_seed(900000);
    int failures = 0, checked = 0;
    const std::uint64_t n = cases(400);
    for (std::uint64_t i = 0; i < n && failures < 5; ++i) {
        const std::uint64_t seed = base + i;
        Gen g(seed);
        const Kind fkind = static_cast<Kind>(g.u(0, 5));
        const int rank = static_cast<int>(g.u(1, 4));
        const std::size_t elem = g.u(1, 16);
        const MemKind mkind = static_cast<MemKind>(g.u(0, 5));
        std::string err;
        try {
            Hid fspace = random_selection(g, fkind, rank);
            const std::uint64_t npoints = static_cast<std::uint64_t>(H5Sget_select_npoints(fspace));
            if (npoints == 0)
                continue;
            Hid mspace = random_mem_selection(g, mkind, npoints);
            Hid type(H5Tcreate(H5T_OPAQUE, elem));
            H5Tset_tag(type, "bytes");
            Hid dset(H5Dcreate2(file, ("d" + std::to_string(i)).c_str(), type, fspace, H5P_DEFAULT,
                                H5P_DEFAULT, H5P_DEFAULT));
            const std::size_t fbytes = extent_elements(fspace) * elem;
            std::vector<unsigned char> data(fbytes);
            for (std::size_t k = 0; k < fbytes; ++k)
                data[k] = static_cast<unsigned char>(g.u(0, 255));
            if (H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data.data()) < 0)
                throw std::runtime_error("H5Dwrite failed");
            // The memory extent H5Dread sees (H5S_BLOCK as an explicit 1-D space of n elements).
            Hid block;
            hid_t read_mspace = mspace;
            std::size_t mbytes = 0;
            if (mspace == H5S_BLOCK) {
                hsize_t d[1] = {npoints};
                block = Hid(H5Screate_simple(1, d, nullptr));
                read_mspace = block;
                mbytes = npoints * elem;
            } else if (mspace == H5S_ALL) {
                mbytes = fbytes;
            } else {
                mbytes = extent_elements(mspace) * elem;
            }
            std::vector<unsigned char> want(mbytes, 0xEE), got(mbytes, 0xEE);
            if (H5Dread(dset, type, read_mspace, fspace, H5P_DEFAULT, want.data()) < 0)
                throw std::runtime_error("H5Dread failed");
            sel::TypePair pair = sel::build_piece_pair(fspace, mspace, elem);
            std::vector<unsigned char> packed(static_cast<std::size_t>(pair.file.bytes));
            int pos = 0;
            MPI_Pack(data.data() + pair.file.offset, pair.file.count, pair.file.type, packed.data(),
                     static_cast<int>(packed.size()), &pos, MPI_COMM_SELF);
            pos = 0;
            MPI_Unpack(packed.data(), static_cast<int>(packed.size()), &pos, got.data() + pair.mem.offset,
                       pair.mem.count, pair.mem.type, MPI_COMM_SELF);
            ++checked;
            if (got != want) {
                std::size_t k = 0;
                while (got[k] == want[k])
                    ++k;
                err = "buffers differ at byte " + std::to_string(k) + " (file " + describe_space(fspace) +
                      ", mem " + describe_space(mspace) + ")";
            }
            H5Ldelete(file, ("d" + std::to_string(i)).c_str(), H5P_DEFAULT);
        } catch (const std::exception &e) {
            err = std::string("exception: ") + e.what();
        }
        if (!err.empty()) {
            ++failures;
            ADD_FAILURE() << "seed " << seed << " file " << kind_name(fkind) << " mem "
                          << mem_kind_name(mkind) << " elem " << elem << ": " << err;
        }
    }
    EXPECT_GT(checked, static_cast<int>(n / 2));
    std::printf("H5Dread comparisons: %d\n", checked);
}

} // namespace
