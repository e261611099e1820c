// See independent_engine.hpp: the choice of strategy and the strategies that move a request without
// the driver's buffers, OneCall (one MPI call, the memory side described by MPI's datatypes: the
// common case, kept beside the choice) and RunByRun (a call per run, for host_copies=off); the
// others have files of their own (sieve.cpp, staged.cpp, view_write.cpp).
#include "independent/independent_engine.hpp"

#include <algorithm>
#include <cstring>

namespace mpiio {

void IndependentEngine::bind(MpiIo *io, const IndependentLimits &limits) {
    io_ = io;
    limits_ = limits;
}

void IndependentEngine::move(IoRequest &request, Direction dir, bool may_bridge, haddr_t unwritten_from) {
    unwritten_from_ = unwritten_from;
    if (dir == Direction::Read && reads_only_zeros(request)) {
        request.for_each_segment([](haddr_t, char *memory, std::size_t len) { std::memset(memory, 0, len); });
        request.copy_duplicates(!limits_.host_copies);
        return;
    }
    RequestShape shape;
    shape.bytes = request.bytes();
    shape.span = request.end() - request.lo();
    shape.file_blocks = request.file_blocks();
    shape.mem_blocks = request.mem_blocks();
    shape.file_contiguous = request.file_contiguous();
    shape.one_memory_type = request.one_memory_type();
    shape.zeros_from = zeros_from();
    shape.lo = request.lo();
    if (request.needs_view())
        throw Error(ErrorKind::Internal, "an independent transfer of a request that needs a file view");
    IoTimer timer = io_->timer(); // one clock pair for the whole operation
    switch (choose_strategy(shape, dir, may_bridge, limits_)) {
    case Strategy::Nothing:
        return;
    case Strategy::OneCall:
        one_call(request, dir);
        break;
    case Strategy::SieveTyped:
        sieve_typed(request, dir);
        break;
    case Strategy::Staged:
        staged(request, dir, may_bridge);
        break;
    case Strategy::RunByRun:
        run_by_run(request, dir);
        break;
    }
    if (dir == Direction::Read)
        request.copy_duplicates(!limits_.host_copies);
}

// Local. A write's read of [addr, addr + len) before it rewrites the range (its holes unchanged):
// the part no rank has written is zeros without a call - at or past unwritten_from_ (no rank before
// the operation) and past this rank's own writes since (an earlier group of the same operation).
void IndependentEngine::read_back(haddr_t addr, char *buffer, std::size_t len) {
    const haddr_t zeros = zeros_from();
    const std::size_t known = addr >= zeros ? 0 : std::min<haddr_t>(len, zeros - addr);
    if (known != 0)
        io_->read_bytes(addr, buffer, known);
    std::memset(buffer + known, 0, len - known);
}

// Local. Where the file holds zeros no rank wrote, for a write about to be planned: at or past
// unwritten_from_ and this rank's own written end now (the plan's read backs come before its writes).
haddr_t IndependentEngine::zeros_from() const { return std::max(unwritten_from_, io_->written_end()); }

// Local. A read wholly at or past zeros_from() asks for bytes no rank ever wrote: zeros, without
// a call (the library's background read of a fresh compound dataset before its first field is
// written). Not without host copies (the zeros would be the driver's copy), nor for the library's
// own datatypes (no segments to fill).
bool IndependentEngine::reads_only_zeros(const IoRequest &request) const {
    return limits_.host_copies && request.bytes() != 0 &&
           request.source() != IoRequest::Source::LibraryTypes && request.lo() >= zeros_from();
}

void IndependentEngine::one_call(IoRequest &request, Direction dir) {
    if (request.source() == IoRequest::Source::Contiguous) { // no datatype at all
        request.for_each_segment([&](haddr_t addr, char *memory, std::size_t len) {
            if (dir == Direction::Read)
                io_->read_bytes(addr, memory, len);
            else
                io_->write_bytes(addr, memory, len);
        });
        return;
    }
    const MpiDescription &d = request.mpi();
    if (dir == Direction::Read)
        io_->read_at(request.lo(), d.memory);
    else
        io_->write_at(request.lo(), d.memory);
}

// Local. A call per run, straight between the caller's memory and the file; segments adjacent in
// both the file and memory are one run. No byte passes through the driver's buffers.
void IndependentEngine::run_by_run(const IoRequest &request, Direction dir) {
    haddr_t addr = 0;
    char *memory = nullptr;
    std::size_t len = 0;
    auto move_run = [&] {
        if (len == 0)
            return;
        if (dir == Direction::Read)
            io_->read_bytes(addr, memory, len);
        else
            io_->write_bytes(addr, memory, len);
    };
    request.for_each_segment([&](haddr_t a, char *m, std::size_t n) {
        if (n == 0)
            return;
        if (len != 0 && addr + len == a && memory + len == m) {
            len += n;
            return;
        }
        move_run();
        addr = a;
        memory = m;
        len = n;
    });
    move_run();
}

void IndependentEngine::trim() {
    staging_.release_above(limits_.staging_buffer);
    packed_.release_above(limits_.staging_buffer);
    if (group_.capacity() > tuning::kKeepSegments) {
        std::vector<PlannedSegment>().swap(group_);
        std::vector<char *>().swap(group_memory_);
    }
}

} // namespace mpiio
