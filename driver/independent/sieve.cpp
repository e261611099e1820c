// The SieveTyped strategy: short blocks dense enough to sieve, the extent read into one buffer and
// the selected bytes copied by MPI's datatype engine (or memcpy for vector runs).
#include "independent/independent_engine.hpp"

#include <cstring>
#include <string>

namespace mpiio {
namespace {

// Local. Where `bytes` of working memory for one operation come from: `scratch` while they fit the
// staging buffer (kept between calls), else a buffer of the operation's own, `own`; never
// zero-filled, both starting on a page.
ScratchBuffer &operation_scratch(ScratchBuffer &scratch, std::size_t bytes, std::size_t limit,
                                 ScratchBuffer &own) {
    return bytes > limit ? own : scratch;
}

// Local. MPI_Pack/MPI_Unpack must move exactly the type's bytes. MPICH 4.0.2 was seen to stop one
// byte short on a committed hindexed type of adjacent byte blocks (position 202 of 203, the type's
// size and contents right; a copy of the type packed all 203) inside t_filters_parallel: a wrong
// last byte, silently. A short copy is an error here, never wrong data.
void check_copied(int position, int bytes, const char *what) {
    if (position != bytes)
        throw Error(ErrorKind::Mpi, std::string(what) + " moved " + std::to_string(position) + " of " +
                                        std::to_string(bytes) + " bytes (the MPI library's datatype engine)");
}

// Local. The selected bytes between `buffer` (the file from the request's first byte) and the
// caller's memory, by MPI_Pack/MPI_Unpack of the request's types; strided memory goes through a
// packed copy.
void copy_with_datatypes(const MpiDescription &d, char *buffer, Direction dir, ScratchBuffer &packed_scratch,
                         std::size_t limit) {
    const int bytes = static_cast<int>(d.memory.bytes);
    const bool packed_memory = d.memory.type == MPI_BYTE;
    ScratchBuffer own;
    char *contiguous =
        packed_memory
            ? static_cast<char *>(d.memory.base)
            : operation_scratch(packed_scratch, d.memory.bytes, limit, own).at_least(d.memory.bytes);
    int position = 0;
    if (dir == Direction::Read) {
        check_mpi(MPI_Pack(buffer, 1, d.file_type, contiguous, bytes, &position, MPI_COMM_SELF),
                  "MPI_Pack (sieved read)");
        check_copied(position, bytes, "MPI_Pack (sieved read)");
        if (!packed_memory) {
            position = 0;
            check_mpi(MPI_Unpack(contiguous, bytes, &position, d.memory.base, d.memory.count, d.memory.type,
                                 MPI_COMM_SELF),
                      "MPI_Unpack (sieved read)");
            check_copied(position, bytes, "MPI_Unpack (sieved read)");
        }
        return;
    }
    if (!packed_memory) {
        check_mpi(MPI_Pack(d.memory.base, d.memory.count, d.memory.type, contiguous, bytes, &position,
                           MPI_COMM_SELF),
                  "MPI_Pack (sieved write)");
        check_copied(position, bytes, "MPI_Pack (sieved write)");
        position = 0;
    }
    check_mpi(MPI_Unpack(contiguous, bytes, &position, buffer, 1, d.file_type, MPI_COMM_SELF),
              "MPI_Unpack (sieved write)");
    check_copied(position, bytes, "MPI_Unpack (sieved write)");
}

} // namespace

// Local. Reads [lo, end) into one buffer, puts the selected bytes between it and memory (by MPI's
// datatype engine; explicit byte runs by memcpy), and for a write writes the whole range back (the holes it
// read rewritten unchanged). An extent larger than the staging buffer gets a buffer of its own: handing short
// blocks one by one to staged groups costs several times MPI's engine (docs/measurements.md,
// "Sieved extents larger than the staging buffer").
void IndependentEngine::sieve_typed(IoRequest &request, Direction dir) {
    const haddr_t lo = request.lo();
    const std::size_t span = request.end() - lo;
    ScratchBuffer own;
    char *buffer = operation_scratch(staging_, span, limits_.staging_buffer, own).for_file_bytes(lo, span);
    if (dir == Direction::Read)
        io_->read_bytes(lo, buffer, span);
    else
        read_back(lo, buffer, span);
    if (request.source() == IoRequest::Source::Runs) {
        // Explicit byte runs (vector I/O): a copy each, no datatype engine.
        request.for_each_segment([&](haddr_t addr, char *memory, std::size_t len) {
            if (dir == Direction::Read)
                std::memcpy(memory, buffer + (addr - lo), len);
            else
                std::memcpy(buffer + (addr - lo), memory, len);
        });
    } else {
        const MpiDescription &d = request.mpi();
        if (static_cast<haddr_t>(d.view_disp) != lo)
            throw Error(ErrorKind::Internal,
                        "sieved request whose file type does not start at its first byte");
        copy_with_datatypes(d, buffer, dir, packed_, limits_.staging_buffer);
    }
    if (dir == Direction::Write)
        io_->write_bytes(lo, buffer, span);
}

} // namespace mpiio
