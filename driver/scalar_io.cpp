// read / write: one contiguous request from the library.
//
// The rule is the built-in driver's (H5FDmpio.c), which is the contract the library was tested
// against: when the library's transfer mode is COLLECTIVE (and, for reads, the request is raw
// data), `size` is a COUNT of the memory datatype the library put in its API context, the file
// datatype there describes the file layout from `addr`, and every rank joins one collective
// transfer. Otherwise `size` is a byte count and the transfer is independent - never a collective
// call, because metadata reads are often made by rank 0 alone.
#include "collective_transfer.hpp"
#include "failed_writes.hpp"
#include "file.hpp"
#include "hdf5_internals.hpp"

namespace mpiio {
namespace {

// The library's own collective request (its derived datatypes from the API context) as a rank's
// part of a collective transfer. A file type whose bytes fill its extent is one contiguous range
// and can move independently; any other file type needs a file view, hence MPI collective I/O.
class ContextTransfer final : public RankTransfer {
public:
    // Local.
    ContextTransfer(haddr_t addr, size_t count, void *buf) {
        const auto types = hdf5_internals::coll_datatypes();
        request_.file = types.file;
        request_.mem_base = buf;
        request_.mem = types.buffer;
        request_.mem_count = static_cast<int>(count); // a count of the memory type: never above INT_MAX here
        MPI_Count mem_size = 0, file_size = 0, lb = 0, extent = 0;
        check_mpi(MPI_Type_size_x(types.buffer, &mem_size), "MPI_Type_size_x");
        request_.bytes = static_cast<size_t>(mem_size) * count;
        check_mpi(MPI_Type_size_x(types.file, &file_size), "MPI_Type_size_x");
        check_mpi(MPI_Type_get_true_extent_x(types.file, &lb, &extent), "MPI_Type_get_true_extent_x");
        request_.end = addr + static_cast<haddr_t>(lb + extent);
        // With a contiguous file type the payload fills [addr + lb, addr + lb + bytes).
        request_.file_contiguous = types.file == MPI_BYTE || file_size == extent;
        lo_ = request_.file_contiguous ? addr + static_cast<haddr_t>(types.file == MPI_BYTE ? 0 : lb) : addr;
        request_.view_disp = static_cast<MPI_Offset>(request_.file_contiguous ? lo_ : addr);
        if (request_.file_contiguous)
            request_.end = lo_ + request_.bytes;
    }
    std::pair<std::uint64_t, std::uint64_t> extent() const override {
        return request_.bytes == 0 ? std::pair<std::uint64_t, std::uint64_t>{0, 0}
                                   : std::pair<std::uint64_t, std::uint64_t>{lo_, request_.end};
    }
    bool contiguous_in_file() const override { return request_.file_contiguous; }
    bool movable_independently() const override { return request_.file_contiguous; }
    CollectiveRequest collective_request() override { return request_; }
    void move_independently(File *file, Direction dir, bool) override {
        if (request_.bytes > 0)
            independent_transfer(file, dir, lo_, request_.mem_base, request_.mem_count, request_.mem,
                                 request_.bytes);
    }

private:
    CollectiveRequest request_;
    haddr_t lo_ = 0;
};

// Collective.
void collective_scalar(File *file, Direction dir, haddr_t addr, size_t size, void *buf) {
    std::optional<ContextTransfer> mine;
    std::optional<Error> prep = capture([&] { mine.emplace(addr, size, buf); });
    collective_transfer(file, dir, mine ? &*mine : nullptr, prep);
}

} // namespace

void read_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, void *buf) {
    if (type == H5FD_MEM_DRAW && hdf5_internals::xfer_mode() == H5FD_MPIO_COLLECTIVE) {
        collective_scalar(file, Direction::Read, addr, size, buf);
        return;
    }
    independent_bytes(file, Direction::Read, addr, static_cast<char *>(buf), size);
}

void write_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, const void *buf) {
    FileState &st = *file->state;
    char *data = const_cast<char *>(static_cast<const char *>(buf)); // MPI takes void*: never written
    if (hdf5_internals::xfer_mode() == H5FD_MPIO_COLLECTIVE) {
        if (hdf5_internals::collective_opt() != H5FD_MPIO_COLLECTIVE_IO && type != H5FD_MEM_DRAW)
            throw Error(ErrorKind::Internal,
                        "metadata write with individual I/O under a collective transfer");
        collective_scalar(file, Direction::Write, addr, size, data);
        return;
    }
    if (st.read_only)
        throw Error(ErrorKind::Config, "write to a file opened read-only");
    remembering_failed_write(st, [&] { independent_bytes(file, Direction::Write, addr, data, size); });
}

} // namespace mpiio
