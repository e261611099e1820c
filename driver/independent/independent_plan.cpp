// See independent_plan.hpp.
#include "independent/independent_plan.hpp"

#include <algorithm>
#include <climits>

namespace mpiio {
namespace {

// A maximal run of file-adjacent segments: [first, last), file bytes [lo, hi). A segment of
// kOwnCallBytes or more is a stretch of its own that nothing joins (`own_call`).
struct Stretch {
    std::size_t first, last;
    std::uint64_t lo, hi;
    bool own_call = false;
};

std::vector<Stretch> stretches_of(std::span<const PlannedSegment> segments) {
    std::vector<Stretch> out;
    out.reserve(segments.size());
    for (std::size_t i = 0; i < segments.size(); ++i) {
        const std::uint64_t end = segments[i].addr + segments[i].len;
        const bool own_call = segments[i].len >= IndependentLimits::kOwnCallBytes;
        if (!own_call && !out.empty() && !out.back().own_call && out.back().hi == segments[i].addr) {
            out.back().last = i + 1;
            out.back().hi = end;
        } else {
            out.push_back(Stretch{i, i + 1, segments[i].addr, end, own_call});
        }
    }
    return out;
}

// Stretches [first, last) of `stretches`, read or written as one span.
struct Span {
    std::size_t first, last;
};

// Reads: the next stretch joins the span when its hole plus its own length is at most sieve_gap
// (what joining adds: the hole read, and the stretch copied once more out of the staging buffer,
// against the call it saves). 4 KiB blocks 4 KiB apart therefore go a call each (sieved, h5perf's
// interleaved read ran slower than the built-in driver's call per block: docs/architecture.md).
std::vector<Span> read_spans(const std::vector<Stretch> &st, const IndependentLimits &limits) {
    std::vector<Span> spans;
    spans.reserve(st.size());
    for (std::size_t k = 0; k < st.size(); ++k) {
        if (!spans.empty() && !st[k].own_call && !st[k - 1].own_call &&
            (st[k].lo - st[k - 1].hi) + (st[k].hi - st[k].lo) <= limits.sieve_gap)
            spans.back().last = k + 1;
        else
            spans.push_back(Span{k, k + 1});
    }
    return spans;
}

// Bytes of [lo, hi) a bridged write reads back: those below zeros_from (the rest is known zeros).
std::uint64_t read_back_bytes(std::uint64_t lo, std::uint64_t hi, std::uint64_t zeros_from) {
    return lo >= zeros_from ? 0 : std::min(hi, zeros_from) - lo;
}

// Writes that may bridge: a bridged span is read back (below zeros_from) before it is written
// whole, so the next stretch joins when its hole plus what joining adds to the read back - the hole
// and the stretch, below zeros_from - is at most sieve_gap (against the call it saves). A span of m
// stretches, S bytes from its first to its last byte, R of them read back and B bytes wanted is
// kept only when it costs less than m calls: 1 call (2 with a read back) + S + R bytes against m
// calls + B bytes.
std::vector<Span> write_spans(const std::vector<Stretch> &st, bool may_bridge,
                              const IndependentLimits &limits, std::uint64_t zeros_from) {
    std::vector<Span> spans;
    spans.reserve(st.size());
    if (!may_bridge) { // every stretch on its own
        for (std::size_t k = 0; k < st.size(); ++k)
            spans.push_back(Span{k, k + 1});
        return spans;
    }
    for (std::size_t k = 0; k < st.size(); ++k) {
        const bool join = may_bridge && !spans.empty() && !st[k].own_call && !st[k - 1].own_call &&
                          (st[k].lo - st[k - 1].hi) + read_back_bytes(st[k - 1].hi, st[k].hi, zeros_from) <=
                              limits.sieve_gap;
        if (join)
            spans.back().last = k + 1;
        else
            spans.push_back(Span{k, k + 1});
    }
    std::vector<Span> kept;
    kept.reserve(spans.size());
    for (const Span &s : spans) {
        const std::size_t m = s.last - s.first;
        std::uint64_t wanted = 0;
        for (std::size_t k = s.first; k < s.last; ++k)
            wanted += st[k].hi - st[k].lo;
        const std::uint64_t extent = st[s.last - 1].hi - st[s.first].lo;
        const std::uint64_t read = read_back_bytes(st[s.first].lo, st[s.last - 1].hi, zeros_from);
        const std::size_t calls = read == 0 ? 1 : 2;
        const bool worth =
            m > calls && extent + read - wanted <= (m - calls) * std::uint64_t{limits.sieve_gap};
        if (m == 1 || worth) {
            kept.push_back(s);
            continue;
        }
        for (std::size_t k = s.first; k < s.last; ++k)
            kept.push_back(Span{k, k + 1});
    }
    return kept;
}

// One stretch on its own: a lone segment straight from/to memory, else through the staging buffer.
void one_stretch(const Stretch &s, Direction dir, std::vector<GroupCall> &calls) {
    if (s.last - s.first == 1)
        calls.push_back(GroupCall{GroupCall::Kind::Straight, s.first, s.last, s.lo, s.hi, false});
    else
        calls.push_back(
            GroupCall{dir == Direction::Read ? GroupCall::Kind::ReadSpan : GroupCall::Kind::WriteSpan,
                      s.first, s.last, s.lo, s.hi, false});
}

bool memory_follows(std::span<const PlannedSegment> segments, std::size_t first, std::size_t last) {
    for (std::size_t i = first + 1; i < last; ++i)
        if (!segments[i].memory_follows)
            return false;
    return true;
}

} // namespace

Strategy choose_strategy(const RequestShape &s, Direction dir, bool may_bridge,
                         const IndependentLimits &limits) {
    if (s.bytes == 0)
        return Strategy::Nothing;
    if (!limits.host_copies)
        return s.file_contiguous ? Strategy::OneCall : Strategy::RunByRun;
    const std::uint64_t blocks = std::max(s.file_blocks, s.mem_blocks);
    const bool short_blocks = s.bytes < IndependentLimits::kEngineCopyBelow * blocks;
    const bool short_memory_blocks = s.bytes < IndependentLimits::kEngineCopyBelow * s.mem_blocks;
    if (s.file_contiguous && (s.one_memory_type || short_memory_blocks))
        return Strategy::OneCall;
    if (s.file_contiguous || !short_blocks || s.bytes > static_cast<std::size_t>(INT_MAX))
        return Strategy::Staged;
    // Short blocks: one sieved range when the bytes read and copied beyond one call's cost
    // less than the calls they save (reads: the holes read, every byte copied once more), or than
    // the calls saved minus the read back (writes, which read the range back below zeros_from and
    // write it whole).
    const auto k = s.file_blocks;
    const auto g = std::uint64_t{limits.sieve_gap};
    const std::uint64_t read = read_back_bytes(s.lo, s.lo + s.span, s.zeros_from);
    const std::uint64_t calls = read == 0 ? 1 : 2;
    const bool worth = dir == Direction::Read
                           ? s.span <= (k - 1) * g
                           : may_bridge && k >= calls && s.span + read - s.bytes <= (k - calls) * g;
    return worth ? Strategy::SieveTyped : Strategy::Staged;
}

std::vector<GroupCall> plan_group(std::span<const PlannedSegment> segments, Direction dir, bool may_bridge,
                                  bool view_usable, const IndependentLimits &limits,
                                  std::uint64_t zeros_from) {
    std::vector<GroupCall> calls;
    const std::vector<Stretch> st = stretches_of(segments);
    calls.reserve(st.size());
    if (dir == Direction::Read) {
        for (const Span &sp : read_spans(st, limits)) {
            if (sp.last - sp.first == 1) {
                one_stretch(st[sp.first], dir, calls);
                continue;
            }
            calls.push_back(GroupCall{GroupCall::Kind::ReadSpan, st[sp.first].first, st[sp.last - 1].last,
                                      st[sp.first].lo, st[sp.last - 1].hi, false});
        }
        return calls;
    }
    const std::vector<Span> spans = write_spans(st, may_bridge, limits, zeros_from);
    // The holes of bridged spans are read first (the segments are copied in afterwards).
    for (const Span &sp : spans)
        if (sp.last - sp.first > 1)
            calls.push_back(GroupCall{GroupCall::Kind::ReadSpan, st[sp.first].first, st[sp.last - 1].last,
                                      st[sp.first].lo, st[sp.last - 1].hi, false});
    std::size_t i = 0;
    while (i < spans.size()) {
        const Span &sp = spans[i];
        if (sp.last - sp.first > 1) {
            calls.push_back(GroupCall{GroupCall::Kind::WriteSpan, st[sp.first].first, st[sp.last - 1].last,
                                      st[sp.first].lo, st[sp.last - 1].hi, false});
            ++i;
            continue;
        }
        if (!view_usable) { // a call per stretch
            one_stretch(st[sp.first], dir, calls);
            ++i;
            continue;
        }
        // Consecutive unbridged stretches: many go through the rank's own view as one call.
        std::size_t j = i;
        std::uint64_t payload = 0;
        while (j < spans.size() && spans[j].last - spans[j].first == 1 && !st[spans[j].first].own_call &&
               j - i < IndependentLimits::kViewWriteMaxRuns &&
               payload + (st[spans[j].first].hi - st[spans[j].first].lo) <=
                   static_cast<std::uint64_t>(INT_MAX)) {
            payload += st[spans[j].first].hi - st[spans[j].first].lo;
            ++j;
        }
        j = std::max(j, i + 1); // a stretch beyond INT_MAX bytes still moves, on its own
        // Through the view when the stretches are many and short: the calls it saves then cost more
        // than their bytes. Stretches of sieve_gap bytes or more on average move as well with a call
        // each (through the view h5perf's interleaved write of 4 KiB blocks was slower than the
        // built-in driver under MPICH: docs/measurements.md,
        // "The cost model of a rank's own transfers (sieve_gap)"), and the rank's own handle is an
        // extra open of the file.
        const bool short_stretches = payload < (j - i) * std::uint64_t{limits.sieve_gap};
        if (j - i >= IndependentLimits::kViewWriteMinRuns && short_stretches) {
            const std::size_t first = st[spans[i].first].first, last = st[spans[j - 1].first].last;
            calls.push_back(GroupCall{GroupCall::Kind::ViewWrite, first, last, st[spans[i].first].lo,
                                      st[spans[j - 1].first].hi, memory_follows(segments, first, last)});
            i = j;
            continue;
        }
        for (; i < j; ++i)
            one_stretch(st[spans[i].first], dir, calls);
    }
    return calls;
}

} // namespace mpiio
