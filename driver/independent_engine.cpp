// See independent_engine.hpp.
#include "independent_engine.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <string>
#include <utility>

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

void IndependentEngine::bind(MpiIo *io, const IndependentLimits &limits) {
    io_ = io;
    limits_ = limits;
}

void IndependentEngine::move(IoRequest &request, Direction dir, bool may_bridge) {
    RequestShape shape;
    shape.bytes = request.bytes();
    shape.span = request.end() - request.lo();
    shape.file_blocks = request.file_blocks();
    shape.mem_blocks = request.mem_blocks();
    shape.file_contiguous = request.file_contiguous();
    shape.one_memory_type = request.one_memory_type();
    if (request.needs_view())
        throw Error(ErrorKind::Internal, "an independent transfer of a request that needs a file view");
    IoTimer timer = io_->timer(); // one clock pair for the whole operation
    switch (choose_strategy(shape, dir, may_bridge, limits_)) {
    case Strategy::Nothing:
        return;
    case Strategy::Direct:
        direct(request, dir);
        break;
    case Strategy::SieveTyped:
        sieve_typed(request, dir);
        break;
    case Strategy::Staged:
        staged(request, dir, may_bridge);
        break;
    }
    if (dir == Direction::Read)
        request.copy_duplicates();
}

void IndependentEngine::direct(IoRequest &request, Direction dir) {
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

// Local. Reads [lo, end) into one buffer, puts the selected bytes between it and memory (by MPI's
// datatype engine; explicit byte runs by memcpy), and for a write writes the whole range back (the holes it
// read rewritten unchanged). An extent larger than the staging buffer gets a buffer of its own: handing short
// blocks one by one to staged groups costs several times MPI's engine (cs1d/coll, large size,
// 4-byte blocks in 1 MiB windows under ROMIO: 0.32x / 0.52x the single buffer's rate).
void IndependentEngine::sieve_typed(IoRequest &request, Direction dir) {
    const haddr_t lo = request.lo();
    const std::size_t span = request.end() - lo;
    // At the file's position within 64 bytes, as run_group_calls' buffer (kernel_copy.hpp).
    ScratchBuffer own;
    char *buffer = operation_scratch(staging_, span, limits_.staging_buffer, own).at_phase_of(lo, span);
    io_->read_bytes(lo, buffer, span);
    if (request.source() == IoRequest::Source::Runs) {
        // Explicit byte runs (vector I/O): a copy each, no datatype engine.
        request.for_each_segment([&](haddr_t addr, char *memory, std::size_t len) {
            if (dir == Direction::Read)
                copy_unaligned(memory, buffer + (addr - lo), len);
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

void IndependentEngine::staged(IoRequest &request, Direction dir, bool may_bridge) {
    group_.clear();
    group_memory_.clear();
    view_usable_.reset();
    // A write that may neither bridge holes nor use a view is a call per stretch of file-adjacent
    // segments: what plan_group would list, written as each stretch ends instead of planned (under
    // ROMIO, irregular selections of 10,000 runs: 1.3 M instructions of planning per H5Dwrite).
    // Only where plan_group's group limits (staging_buffer, kGroupSegments) would cut a stretch in
    // two does this make one call fewer. Reads never use a view, and their spans are decided
    // segment by segment: they stream too (stream_segments).
    regular_runs_ = request.regular_file_runs();
    stretch_by_stretch_ =
        dir == Direction::Write && !may_bridge && !io_->own_view_may_be_usable(regular_runs_);
    // Streaming pays where segments are mostly apart in the file (a run per segment); where memory
    // cuts file runs into many segments (chunks read into a larger array) the group takes them
    // directly (instructions.chunks: the stream cost 770 instructions more per 16 x 16 chunk read).
    if (request.file_blocks() >= request.mem_blocks()) {
        if (dir == Direction::Read) {
            stream_segments<Direction::Read>(request, may_bridge);
            return;
        }
        if (stretch_by_stretch_) {
            stream_segments<Direction::Write>(request, may_bridge);
            return;
        }
    }
    request.for_each_segment([&](haddr_t addr, char *memory, std::size_t len) {
        add_segment(addr, memory, len, dir, may_bridge);
    });
    flush_group(dir, may_bridge);
}

// Local. True when a segment at `addr` cannot share a call with the segment before it, which
// ended at `prev_end` (`prev_direct`: it was kDirectBytes or longer), whatever segments follow:
// plan_group would start a new call with it. Writes here go stretch by stretch (no bridging, no
// view): only a file-adjacent segment continues. Reads join the next stretch when its hole plus
// its length is at most gap_cost (independent_plan.cpp, read_spans), so a segment that alone
// exceeds that, or follows out of order, starts a new call.
template <Direction D>
bool IndependentEngine::starts_new_call(haddr_t prev_end, bool prev_direct, haddr_t addr,
                                        std::size_t len) const {
    if (addr == prev_end)
        return false;
    if constexpr (D == Direction::Write)
        return true;
    return addr < prev_end || prev_direct || len >= IndependentLimits::kDirectBytes ||
           (addr - prev_end) + len > limits_.gap_cost;
}

// Local. Writes that go stretch by stretch, and reads: a segment that starts a new call
// (starts_new_call) ends the calls before it. A segment that shares its call with no other
// (almost every run of an irregular or point selection, every block of an interleaved read) moves
// straight between memory and the file without entering the group: per run a comparison and the
// MPI call, as the built-in driver (callgrind, romio321, irregular/ind: the group's bookkeeping
// cost 150 instructions per run). Segments that may share a call go through add_segment and
// plan_group, which make the calls the plan would. The direction is a template argument: this
// runs once per segment.
template <Direction D> void IndependentEngine::stream_segments(const IoRequest &request, bool may_bridge) {
    struct Lone {
        haddr_t addr = 0;
        char *memory = nullptr;
        std::size_t len = 0; // 0: no segment waits outside the group
    } lone;
    auto move_lone = [&] {
        if constexpr (D == Direction::Read)
            io_->read_bytes(lone.addr, lone.memory, lone.len);
        else
            io_->write_bytes(lone.addr, lone.memory, lone.len);
    };
    request.for_each_segment([&](haddr_t addr, char *memory, std::size_t len) {
        if (len == 0)
            return;
        if (lone.len != 0) {
            if (starts_new_call<D>(lone.addr + lone.len, lone.len >= IndependentLimits::kDirectBytes, addr,
                                   len)) { // the common case
                move_lone();
                lone = Lone{addr, memory, len};
                return;
            }
            add_segment(lone.addr, lone.memory, std::exchange(lone.len, 0), D, may_bridge);
            add_segment(addr, memory, len, D, may_bridge);
        } else if (!group_.empty() &&
                   !starts_new_call<D>(group_.back().addr + group_.back().len,
                                       group_.back().len >= IndependentLimits::kDirectBytes, addr, len)) {
            add_segment(addr, memory, len, D, may_bridge);
        } else { // the group (if any) ends here, or add_segment moved a long segment on its own
            flush_group(D, may_bridge);
            lone = Lone{addr, memory, len};
        }
    });
    if (lone.len != 0)
        move_lone();
    else
        flush_group(D, may_bridge);
}

// Local. Collects segments into groups that fit the staging buffer; long segments move at once.
void IndependentEngine::add_segment(haddr_t addr, char *memory, std::size_t len, Direction dir,
                                    bool may_bridge) {
    if (len == 0)
        return;
    if (len >= IndependentLimits::kDirectBytes) {
        flush_group(dir, may_bridge);
        if (dir == Direction::Read)
            io_->read_bytes(addr, memory, len);
        else
            io_->write_bytes(addr, memory, len);
        return;
    }
    if (!group_.empty()) {
        PlannedSegment &last = group_.back();
        const haddr_t last_end = last.addr + last.len;
        const bool fits = addr + len - group_.front().addr <= limits_.staging_buffer;
        if (fits && last_end == addr && group_memory_.back() + last.len == memory) {
            last.len += len; // contiguous in both: one segment
            return;
        }
        if (addr < last_end || !fits || group_.size() == IndependentLimits::kGroupSegments ||
            (stretch_by_stretch_ && addr != last_end)) // a group is one stretch there (write_stretch)
            flush_group(dir, may_bridge);
    }
    const bool follows = !group_.empty() && group_memory_.back() + group_.back().len == memory;
    group_.push_back(PlannedSegment{addr, len, follows});
    group_memory_.push_back(memory);
}

void IndependentEngine::flush_group(Direction dir, bool may_bridge) {
    if (group_.empty())
        return;
    if (stretch_by_stretch_) {
        write_stretch();
        group_.clear();
        group_memory_.clear();
        return;
    }
    const bool writes = dir == Direction::Write;
    // Planned optimistically (unless the own handle is already known to be of no use); the
    // handle is asked for (and opened) only when the plan wants a view write.
    const bool view_may_be_usable =
        writes && view_usable_.value_or(io_->own_view_may_be_usable(regular_runs_));
    std::vector<GroupCall> calls = plan_group(group_, dir, may_bridge, view_may_be_usable, limits_);
    const bool wants_view = std::any_of(
        calls.begin(), calls.end(), [](const GroupCall &c) { return c.kind == GroupCall::Kind::ViewWrite; });
    if (wants_view && !view_usable_) {
        view_usable_ = io_->own_view_usable(regular_runs_);
        if (!*view_usable_)
            calls = plan_group(group_, dir, may_bridge, false, limits_);
    }
    run_group_calls(calls, dir);
    group_.clear();
    group_memory_.clear();
}

// Local. Reads: spans into the staging buffer and lone segments straight into memory, then the
// spans' segments copied out. Writes: the spans' holes read first, the segments copied in, then
// the writes.
void IndependentEngine::run_group_calls(const std::vector<GroupCall> &calls, Direction dir) {
    const haddr_t base = group_.front().addr;
    // The buffer at the file's position within 64 bytes: the kernel's copies into it are
    // co-aligned; reads copy out with vector moves, fast at any alignment (kernel_copy.hpp).
    char *buffer = staging_.at_phase_of(base, group_.back().addr + group_.back().len - base);
    auto copy = [&](const GroupCall &c) {
        for (std::size_t i = c.first; i < c.last; ++i) {
            char *in_buffer = buffer + (group_[i].addr - base);
            if (dir == Direction::Read)
                copy_unaligned(group_memory_[i], in_buffer, group_[i].len);
            else
                std::memcpy(in_buffer, group_memory_[i], group_[i].len);
        }
    };
    for (const GroupCall &c : calls) {
        if (c.kind == GroupCall::Kind::ReadSpan)
            io_->read_bytes(c.lo, buffer + (c.lo - base), c.hi - c.lo);
        else if (c.kind == GroupCall::Kind::Direct && dir == Direction::Read)
            io_->read_bytes(c.lo, group_memory_[c.first], c.hi - c.lo);
    }
    if (dir == Direction::Read) {
        for (const GroupCall &c : calls)
            if (c.kind == GroupCall::Kind::ReadSpan)
                copy(c);
        return;
    }
    for (const GroupCall &c : calls) {
        switch (c.kind) {
        case GroupCall::Kind::ReadSpan:
            break;
        case GroupCall::Kind::Direct:
            io_->write_bytes(c.lo, group_memory_[c.first], c.hi - c.lo);
            break;
        case GroupCall::Kind::WriteSpan:
            copy(c);
            io_->write_bytes(c.lo, buffer + (c.lo - base), c.hi - c.lo);
            break;
        case GroupCall::Kind::ViewWrite:
            view_write(c);
            break;
        }
    }
}

// Local. The group's file-adjacent segments as plan_group's stretches: a segment of kDirectBytes or
// more (add_segment merges segments adjacent in memory too, so one can grow that long) straight
// from memory on its own; between such segments, a lone segment straight from memory, several
// copied into the staging buffer and written with one call.
void IndependentEngine::write_stretch() {
    const std::size_t n = group_.size();
    auto is_long = [&](std::size_t i) { return group_[i].len >= IndependentLimits::kDirectBytes; };
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (!is_long(i) && j < n && !is_long(j))
            ++j;
        if (j - i == 1) {
            io_->write_bytes(group_[i].addr, group_memory_[i], group_[i].len);
        } else {
            const haddr_t base = group_[i].addr;
            const std::size_t span = group_[j - 1].addr + group_[j - 1].len - base;
            char *buffer = staging_.at_least(span);
            for (std::size_t k = i; k < j; ++k)
                std::memcpy(buffer + (group_[k].addr - base), group_memory_[k], group_[k].len);
            io_->write_bytes(base, buffer, span);
        }
        i = j;
    }
}

// Local. Segments [first, last) as one MPI_File_write_at through a view of the rank's own handle:
// the file-adjacent segments as one block each, an hvector when the blocks have one length at one
// spacing (a strided hyperslab; MPI builds it in constant time), else an hindexed type. The data
// comes straight from memory when the segments' memory is one block, else gathered.
void IndependentEngine::view_write(const GroupCall &c) {
    view_lengths_.clear();
    view_offsets_.clear();
    std::size_t payload = 0;
    for (std::size_t i = c.first; i < c.last; ++i) {
        const auto offset = static_cast<MPI_Aint>(group_[i].addr - c.lo);
        if (!view_offsets_.empty() && view_offsets_.back() + view_lengths_.back() == offset)
            view_lengths_.back() += static_cast<int>(group_[i].len);
        else {
            view_offsets_.push_back(offset);
            view_lengths_.push_back(static_cast<int>(group_[i].len));
        }
        payload += group_[i].len;
    }
    const char *data = group_memory_[c.first];
    if (!c.from_memory) {
        char *packed = packed_.at_least(payload);
        std::size_t at = 0;
        for (std::size_t i = c.first; i < c.last; ++i) {
            std::memcpy(packed + at, group_memory_[i], group_[i].len);
            at += group_[i].len;
        }
        data = packed;
    }
    const std::size_t n = view_lengths_.size();
    bool regular = n >= 2;
    const MPI_Aint spacing = regular ? view_offsets_[1] : 0;
    for (std::size_t k = 1; k < n && regular; ++k)
        regular =
            view_lengths_[k] == view_lengths_[0] && view_offsets_[k] == static_cast<MPI_Aint>(k) * spacing;
    Datatype view;
    if (regular)
        check_mpi(
            MPI_Type_create_hvector(static_cast<int>(n), view_lengths_[0], spacing, MPI_BYTE, view.out()),
            "MPI_Type_create_hvector (view write)");
    else
        check_mpi(MPI_Type_create_hindexed(static_cast<int>(n), view_lengths_.data(), view_offsets_.data(),
                                           MPI_BYTE, view.out()),
                  "MPI_Type_create_hindexed (view write)");
    check_mpi(MPI_Type_commit(view.ptr()), "MPI_Type_commit (view write)");
    io_->write_through_own_view(c.lo, view.get(), data, payload, n, c.hi);
}

void IndependentEngine::trim() {
    staging_.release_above(limits_.staging_buffer + ScratchBuffer::kPhase); // at_phase_of's slack
    packed_.release_above(limits_.staging_buffer);
    constexpr std::size_t kKeepSegments = std::size_t{1} << 12;
    if (group_.capacity() > kKeepSegments) {
        std::vector<PlannedSegment>().swap(group_);
        std::vector<char *>().swap(group_memory_);
    }
}

} // namespace mpiio
