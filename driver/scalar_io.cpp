// read / write: one contiguous request from the library.
//
// The rule is the built-in driver's (H5FDmpio.c), which is the contract the library was tested
// against: when the library's transfer mode is COLLECTIVE (and, for reads, the request is raw
// data), `size` is a COUNT of the memory datatype the library put in its API context, the file
// datatype there describes the file layout from `addr`, and the transfer is collective (or
// individual under a collective view when the collective option says INDIVIDUAL_IO). Otherwise
// `size` is a byte count and the transfer is independent - never a collective call, because
// metadata reads are often made by rank 0 alone.
#include "error.hpp"
#include "file.hpp"
#include "run_io.hpp"
#include "transfer_state.hpp"

namespace mpiio {
namespace {

// Local. The library's collective request as the driver's collective transfer sees it.
CollectiveRequest context_request(haddr_t addr, size_t count, void *buf) {
    const auto types = transfer_state::coll_datatypes();
    CollectiveRequest r;
    r.view_disp = static_cast<MPI_Offset>(addr);
    r.file = types.file;
    r.mem_base = buf;
    r.mem = types.buffer;
    r.mem_count = static_cast<int>(count); // a count of the memory type: never above INT_MAX here
    MPI_Count type_size = 0;
    check_mpi(MPI_Type_size_x(types.buffer, &type_size), "MPI_Type_size_x");
    r.bytes = static_cast<size_t>(type_size) * count;
    MPI_Count lb = 0, extent = 0;
    check_mpi(MPI_Type_get_true_extent_x(types.file, &lb, &extent), "MPI_Type_get_true_extent_x");
    r.end = addr + static_cast<haddr_t>(lb + extent);
    return r;
}

} // namespace

void read_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, void *buf) {
    if (type == H5FD_MEM_DRAW && transfer_state::xfer_mode() == H5FD_MPIO_COLLECTIVE) {
        CollectiveRequest request;
        std::optional<Error> prep = capture([&] { request = context_request(addr, size, buf); });
        // collective_transfer also honours the library's "rank 0 reads and broadcasts" request.
        collective_transfer(file, Direction::Read, prep ? CollectiveRequest{} : request, prep);
        return;
    }
    independent_transfer(file, Direction::Read, addr, static_cast<char *>(buf), size);
}

void write_scalar(File *file, H5FD_mem_t type, haddr_t addr, size_t size, const void *buf) {
    FileState &st = *file->state;
    if (st.read_only)
        throw Error(ErrorKind::Config, "write to a file opened read-only");
    char *data = const_cast<char *>(static_cast<const char *>(buf)); // MPI takes void*: never written
    if (transfer_state::xfer_mode() == H5FD_MPIO_COLLECTIVE) {
        if (transfer_state::collective_opt() != H5FD_MPIO_COLLECTIVE_IO && type != H5FD_MEM_DRAW)
            throw Error(ErrorKind::Internal,
                        "metadata write with individual I/O under a collective transfer");
        extend_before_collective_write(file);
        CollectiveRequest request;
        std::optional<Error> prep = capture([&] { request = context_request(addr, size, data); });
        collective_transfer(file, Direction::Write, prep ? CollectiveRequest{} : request, prep);
        return;
    }
    independent_transfer(file, Direction::Write, addr, data, size);
}

} // namespace mpiio
