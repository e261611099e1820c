// ctl: HDF5 asks every MPI driver for its communicator, rank, size, info and whether independent
// writes need MPI_File_sync (the library calls ctl directly and crashes on a NULL callback).
#include "common/error.hpp"
#include "file/file.hpp"

#include <H5FDmpi.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace mpiio {

void control(File *file, uint64_t op_code, uint64_t flags, const void *input, void **output) {
    FileState &st = *file->state;
    // The convention: *output points at the caller's variable of the answer's type.
    auto answer = [&](auto value) {
        using T = decltype(value);
        if (output == nullptr || *output == nullptr)
            throw Error(ErrorKind::Config, "ctl opcode " + std::to_string(op_code) + " given no output");
        *static_cast<T *>(*output) = value;
    };
    switch (op_code) {
    case H5FD_CTL_GET_MPI_COMMUNICATOR_OPCODE:
        answer(st.comm.get()); // not duplicated: the library uses it until close
        return;
    case H5FD_CTL_GET_MPI_RANK_OPCODE:
        answer(st.rank);
        return;
    case H5FD_CTL_GET_MPI_SIZE_OPCODE:
        answer(st.size);
        return;
    case H5FD_CTL_GET_MPI_INFO_OPCODE:
        answer(st.info.get()); // never MPI_INFO_NULL: the library duplicates it
        return;
    case H5FD_CTL_GET_MPI_FILE_SYNC_OPCODE:
        answer(st.sync_after_collective_write);
        return;
    case H5FD_MPIIO_CTL_GET_STATS: {
        // `input` is the caller's struct size; callers built against the first header (which
        // passed none) know only the fields before collective_ops.
        const size_t size = input ? *static_cast<const size_t *>(input) : offsetof(Stats, collective_ops);
        if (output == nullptr || *output == nullptr)
            throw Error(ErrorKind::Config, "ctl opcode " + std::to_string(op_code) + " given no output");
        std::memcpy(*output, &st.io.stats(), std::min(size, sizeof(Stats)));
        return;
    }
    default:
        if (flags & H5FD_CTL_FAIL_IF_UNKNOWN_FLAG)
            throw Error(ErrorKind::Unsupported, "unknown ctl opcode " + std::to_string(op_code));
        return;
    }
}

} // namespace mpiio
