// The Staged strategy: segments in ascending file order, a group at a time through the staging
// buffer, as plan_group (independent_plan.hpp) decides; lone segments stream straight between
// memory and the file.
#include "independent/independent_engine.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

namespace mpiio {

void IndependentEngine::staged(IoRequest &request, Direction dir, bool may_bridge) {
    group_.clear();
    group_memory_.clear();
    StagedOperation op;
    op.dir = dir;
    op.may_bridge = may_bridge;
    // A write that may neither bridge holes nor use a view is a call per stretch of file-adjacent
    // segments: what plan_group would list, written as each stretch ends instead of planned (the
    // plan costs instructions per run that the calls do not need: docs/measurements.md,
    // "D16 one choke point: instructions per run of an independent transfer").
    // Only where plan_group's group limits (staging_buffer, kGroupSegments) would cut a stretch in
    // two does this make one call fewer. Reads never use a view, and their spans are decided
    // segment by segment: they stream too (stream_segments).
    op.regular_runs = request.regular_file_runs();
    op.may_open_view = !request.metadata(); // (independent_engine.hpp)
    op.stretch_by_stretch = dir == Direction::Write && !may_bridge &&
                            !io_->own_view_may_be_usable(op.regular_runs, op.may_open_view);
    // Streaming pays where segments are mostly apart in the file (a run per segment); where memory
    // cuts file runs into many segments (chunks read into a larger array) the group takes them
    // directly (streaming them costs more per chunk: instructions.chunks, docs/measurements.md,
    // "D16 one choke point: instructions per run of an independent transfer").
    if (request.file_blocks() >= request.mem_blocks()) {
        if (dir == Direction::Read) {
            stream_segments<Direction::Read>(request, op);
            return;
        }
        if (op.stretch_by_stretch) {
            stream_segments<Direction::Write>(request, op);
            return;
        }
    }
    request.for_each_segment(
        [&](haddr_t addr, char *memory, std::size_t len) { add_segment(addr, memory, len, op); });
    flush_group(op);
}

// Local. True when a segment at `addr` cannot share a call with the segment before it, which
// ended at `prev_end` (`prev_own_call`: it was kOwnCallBytes or longer), whatever segments follow:
// plan_group would start a new call with it. Writes here go stretch by stretch (no bridging, no
// view): only a file-adjacent segment continues. Reads join the next stretch when its hole plus
// its length is at most sieve_gap (independent_plan.cpp, read_spans), so a segment that alone
// exceeds that, or follows out of order, starts a new call.
template <Direction D>
bool IndependentEngine::starts_new_call(haddr_t prev_end, bool prev_own_call, haddr_t addr,
                                        std::size_t len) const {
    if (addr == prev_end)
        return false;
    if constexpr (D == Direction::Write)
        return true;
    return addr < prev_end || prev_own_call || len >= IndependentLimits::kOwnCallBytes ||
           (addr - prev_end) + len > limits_.sieve_gap;
}

// Local. Writes that go stretch by stretch, and reads: a segment that starts a new call
// (starts_new_call) ends the calls before it. A segment that shares its call with no other
// (almost every run of an irregular or point selection, every block of an interleaved read) moves
// straight between memory and the file without entering the group: per run a comparison and the
// MPI call, as the built-in driver (the group's bookkeeping per run costs more than the call's
// own wrapper: docs/measurements.md,
// "D16 one choke point: instructions per run of an independent transfer"). Segments that may share a
// call go through add_segment and
// plan_group, which make the calls the plan would. The direction is a template argument: this
// runs once per segment.
template <Direction D>
void IndependentEngine::stream_segments(const IoRequest &request, StagedOperation &op) {
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
            if (starts_new_call<D>(lone.addr + lone.len, lone.len >= IndependentLimits::kOwnCallBytes, addr,
                                   len)) { // the common case
                move_lone();
                lone = Lone{addr, memory, len};
                return;
            }
            add_segment(lone.addr, lone.memory, std::exchange(lone.len, 0), op);
            add_segment(addr, memory, len, op);
        } else if (!group_.empty() &&
                   !starts_new_call<D>(group_.back().addr + group_.back().len,
                                       group_.back().len >= IndependentLimits::kOwnCallBytes, addr, len)) {
            add_segment(addr, memory, len, op);
        } else { // the group (if any) ends here, or add_segment moved a long segment on its own
            flush_group(op);
            lone = Lone{addr, memory, len};
        }
    });
    if (lone.len != 0)
        move_lone();
    else
        flush_group(op);
}

// Local. Collects segments into groups that fit the staging buffer; long segments move at once.
void IndependentEngine::add_segment(haddr_t addr, char *memory, std::size_t len, StagedOperation &op) {
    if (len == 0)
        return;
    if (len >= IndependentLimits::kOwnCallBytes) {
        flush_group(op);
        if (op.dir == Direction::Read)
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
            (op.stretch_by_stretch && addr != last_end)) // a group is one stretch there (write_stretch)
            flush_group(op);
    }
    const bool follows = !group_.empty() && group_memory_.back() + group_.back().len == memory;
    group_.push_back(PlannedSegment{addr, len, follows});
    group_memory_.push_back(memory);
}

void IndependentEngine::flush_group(StagedOperation &op) {
    if (group_.empty())
        return;
    if (op.stretch_by_stretch) {
        write_stretch();
        group_.clear();
        group_memory_.clear();
        return;
    }
    const bool writes = op.dir == Direction::Write;
    // Planned optimistically (unless the own handle is already known to be of no use); the
    // handle is asked for (and opened) only when the plan wants a view write.
    const bool view_may_be_usable =
        writes && op.view_usable.value_or(io_->own_view_may_be_usable(op.regular_runs, op.may_open_view));
    std::vector<GroupCall> calls =
        plan_group(group_, op.dir, op.may_bridge, view_may_be_usable, limits_, zeros_from());
    const bool wants_view = std::any_of(
        calls.begin(), calls.end(), [](const GroupCall &c) { return c.kind == GroupCall::Kind::ViewWrite; });
    if (wants_view && !op.view_usable) {
        op.view_usable = io_->own_view_usable(op.regular_runs, op.may_open_view);
        if (!*op.view_usable)
            calls = plan_group(group_, op.dir, op.may_bridge, false, limits_, zeros_from());
    }
    run_group_calls(calls, op.dir);
    group_.clear();
    group_memory_.clear();
}

// Local. Reads: spans into the staging buffer and lone segments straight into memory, then the
// spans' segments copied out. Writes: the spans' holes read first, the segments copied in, then
// the writes.
void IndependentEngine::run_group_calls(const std::vector<GroupCall> &calls, Direction dir) {
    const haddr_t base = group_.front().addr;
    char *buffer = staging_.for_file_bytes(base, group_.back().addr + group_.back().len - base);
    auto copy = [&](const GroupCall &c) {
        for (std::size_t i = c.first; i < c.last; ++i) {
            char *in_buffer = buffer + (group_[i].addr - base);
            if (dir == Direction::Read)
                std::memcpy(group_memory_[i], in_buffer, group_[i].len);
            else
                std::memcpy(in_buffer, group_memory_[i], group_[i].len);
        }
    };
    for (const GroupCall &c : calls) {
        if (c.kind == GroupCall::Kind::ReadSpan && dir == Direction::Write)
            read_back(c.lo, buffer + (c.lo - base), c.hi - c.lo);
        else if (c.kind == GroupCall::Kind::ReadSpan)
            io_->read_bytes(c.lo, buffer + (c.lo - base), c.hi - c.lo);
        else if (c.kind == GroupCall::Kind::Straight && dir == Direction::Read)
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
        case GroupCall::Kind::Straight:
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

// Local. The group's file-adjacent segments as plan_group's stretches: a segment of kOwnCallBytes or
// more (add_segment merges segments adjacent in memory too, so one can grow that long) straight
// from memory on its own; between such segments, a lone segment straight from memory, several
// copied into the staging buffer and written with one call.
void IndependentEngine::write_stretch() {
    const std::size_t n = group_.size();
    auto is_long = [&](std::size_t i) { return group_[i].len >= IndependentLimits::kOwnCallBytes; };
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i + 1;
        while (!is_long(i) && j < n && !is_long(j))
            ++j;
        if (j - i == 1) {
            io_->write_bytes(group_[i].addr, group_memory_[i], group_[i].len);
        } else {
            const haddr_t base = group_[i].addr;
            const std::size_t span = group_[j - 1].addr + group_[j - 1].len - base;
            char *buffer = staging_.for_file_bytes(base, span);
            for (std::size_t k = i; k < j; ++k)
                std::memcpy(buffer + (group_[k].addr - base), group_memory_[k], group_[k].len);
            io_->write_bytes(base, buffer, span);
        }
        i = j;
    }
}

} // namespace mpiio
