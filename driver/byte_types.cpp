#include "byte_types.hpp"

#include "error.hpp"

#include <climits>
#include <cstring>
#include <vector>

namespace mpiio {

namespace {
constexpr std::size_t kBlock = std::size_t{1} << 30;
}

ByteRun byte_run(std::size_t bytes) {
    ByteRun run;
    if (bytes <= static_cast<std::size_t>(INT_MAX)) {
        run.count = static_cast<int>(bytes);
        return run;
    }
    const std::size_t blocks = bytes / kBlock;
    const std::size_t rest = bytes % kBlock;
    Datatype block, blocks_type;
    check_mpi(MPI_Type_contiguous(static_cast<int>(kBlock), MPI_BYTE, block.out()), "MPI_Type_contiguous");
    check_mpi(MPI_Type_contiguous(static_cast<int>(blocks), block.get(), blocks_type.out()),
              "MPI_Type_contiguous");
    if (rest == 0) {
        run.owned = std::move(blocks_type);
    } else {
        int lengths[2] = {1, static_cast<int>(rest)};
        MPI_Aint displacements[2] = {0, static_cast<MPI_Aint>(blocks * kBlock)};
        MPI_Datatype types[2] = {blocks_type.get(), MPI_BYTE};
        check_mpi(MPI_Type_create_struct(2, lengths, displacements, types, run.owned.out()),
                  "MPI_Type_create_struct");
    }
    check_mpi(MPI_Type_commit(run.owned.ptr()), "MPI_Type_commit");
    run.type = run.owned.get();
    run.count = 1;
    return run;
}

void zero_fill_after(void *buf, int count, MPI_Datatype type, std::size_t done, std::size_t total) {
    if (done >= total)
        return;
    if (type == MPI_BYTE) {
        std::memset(static_cast<char *>(buf) + done, 0, total - done);
        return;
    }
    // Non-contiguous memory: pack, clear the unread tail, unpack (only on short reads).
    if (total > static_cast<std::size_t>(INT_MAX))
        throw Error(ErrorKind::Unsupported, "short read of more than 2 GiB into a derived datatype");
    std::vector<char> packed(total);
    int position = 0;
    check_mpi(MPI_Pack(buf, count, type, packed.data(), static_cast<int>(total), &position, MPI_COMM_SELF),
              "MPI_Pack");
    std::memset(packed.data() + done, 0, total - done);
    position = 0;
    check_mpi(MPI_Unpack(packed.data(), static_cast<int>(total), &position, buf, count, type, MPI_COMM_SELF),
              "MPI_Unpack");
}

} // namespace mpiio
