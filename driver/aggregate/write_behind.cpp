// See write_behind.hpp.
#include "aggregate/write_behind.hpp"

#include <algorithm>
#include <cstring>
#include <new>

namespace mpiio {

std::vector<WriteBehind::Window>::iterator WriteBehind::find_round(std::uint64_t round) {
    return std::lower_bound(windows_.begin(), windows_.end(), round,
                            [](const Window &x, std::uint64_t r) { return x.round < r; });
}

void WriteBehind::clear() noexcept {
    shape_.reset();
    own_written_ = false;
    written_ranges_.clear();
    own_runs_.clear();
    own_bytes_.clear();
    own_bytes_.shrink_to_fit();
    own_lo_ = own_hi_ = 0;
    drop_windows();
}

bool WriteBehind::keep_own(std::span<const aggregation::Segment> segments) noexcept {
    own_runs_.clear();
    own_lo_ = own_hi_ = 0;
    try {
        std::size_t size = 0;
        for (const aggregation::Segment &s : segments)
            size += s.len;
        own_bytes_.resize(size);
        std::size_t at = 0;
        for (const aggregation::Segment &s : segments) {
            if (s.len == 0)
                continue;
            std::memcpy(own_bytes_.data() + at, s.mem, s.len);
            if (!own_runs_.empty() && own_runs_.back().addr + own_runs_.back().size == s.addr)
                own_runs_.back().size += static_cast<std::size_t>(s.len); // (touching: one run)
            else
                own_runs_.push_back(Run{s.addr, static_cast<std::size_t>(s.len), own_bytes_.data() + at});
            at += s.len;
        }
    } catch (const std::bad_alloc &) {
        own_runs_.clear();
        own_bytes_.clear();
        return false;
    }
    if (!own_runs_.empty()) {
        own_lo_ = own_runs_.front().addr;
        own_hi_ = own_runs_.back().addr + own_runs_.back().size;
    }
    return true;
}

bool WriteBehind::own_waiting_in(std::uint64_t lo, std::uint64_t hi) const {
    if (!shape_ || own_written_ || own_runs_.empty() || hi <= own_lo_ || own_hi_ <= lo)
        return false;
    // The first run ending past `lo` (ascending, not overlapping): does it start before `hi`?
    auto at = std::upper_bound(own_runs_.begin(), own_runs_.end(), lo,
                               [](std::uint64_t x, const Run &r) { return x < r.addr + r.size; });
    return at != own_runs_.end() && at->addr < hi;
}

void WriteBehind::note_independent_write(std::uint64_t lo, std::uint64_t hi) {
    if (!touches_pending(lo, hi))
        return;
    lo = std::max(lo, static_cast<std::uint64_t>(shape_->lo));
    hi = std::min(hi, static_cast<std::uint64_t>(shape_->hi));
    if (!written_ranges_.empty() && written_ranges_.back().lo <= hi && lo <= written_ranges_.back().hi) {
        written_ranges_.back().lo = std::min(written_ranges_.back().lo, lo); // (rewrites of one place)
        written_ranges_.back().hi = std::max(written_ranges_.back().hi, hi);
        return;
    }
    written_ranges_.push_back({lo, hi});
}

std::vector<WriteBehind::Window> WriteBehind::take_unkept() {
    std::vector<Window> unkept;
    for (auto w = windows_.begin(); w != windows_.end();) {
        if (w->kept_this_transfer) {
            ++w;
            continue;
        }
        window_bytes_ -= w->bytes.size();
        unkept.push_back(std::move(*w));
        w = windows_.erase(w);
    }
    return unkept;
}

bool WriteBehind::keep_window(std::uint64_t round, std::uint64_t lo, const char *bytes, std::uint64_t span,
                              std::span<const aggregation::Group> groups, std::span<const int> rank_of,
                              std::size_t limit) noexcept {
    if (window_bytes_ + span > limit)
        return false;
    try {
        Window w;
        w.round = round;
        w.lo = lo;
        w.bytes = FileBytes(lo, bytes, span);
        w.groups.assign(groups.begin(), groups.end());
        w.rank_of.assign(rank_of.begin(), rank_of.end());
        w.ranges = aggregation::merge_pieces(w.groups);
        w.kept_this_transfer = true;
        windows_.insert(find_round(round), std::move(w));
    } catch (const std::bad_alloc &) {
        return false;
    }
    window_bytes_ += span;
    return true;
}

WriteBehind::Window *WriteBehind::window(std::uint64_t round) {
    auto at = find_round(round);
    return at != windows_.end() && at->round == round ? &*at : nullptr;
}

void WriteBehind::drop(std::uint64_t round) {
    Window *w = window(round);
    if (w == nullptr)
        return;
    window_bytes_ -= w->bytes.size();
    windows_.erase(windows_.begin() + (w - windows_.data()));
}

bool WriteBehind::covers(std::span<const aggregation::Range> outer,
                         std::span<const aggregation::Range> inner) {
    std::size_t o = 0;
    for (const aggregation::Range &r : inner) {
        while (o < outer.size() && outer[o].hi <= r.lo)
            ++o;
        if (o == outer.size() || outer[o].lo > r.lo || outer[o].hi < r.hi)
            return false;
    }
    return true;
}

bool WriteBehind::serve(std::uint64_t round, std::span<const Run> runs) const {
    const Window *at = window(round);
    if (runs.empty() || at == nullptr)
        return false;
    const Window &w = *at;
    std::vector<aggregation::Range> wanted;
    wanted.reserve(runs.size());
    for (const Run &r : runs)
        wanted.push_back({r.addr, r.addr + r.size});
    if (!covers(w.ranges, wanted))
        return false;
    for (const Run &r : runs)
        std::memcpy(r.buf, w.bytes.data() + (r.addr - w.lo), r.size);
    return true;
}

std::vector<Run> WriteBehind::write_out_runs(Window &w, std::span<const std::int64_t> own_written,
                                             std::span<const aggregation::Range> written_since,
                                             bool &partial) {
    auto left_out = [&](int r) {
        return static_cast<std::size_t>(r) < own_written.size() &&
               own_written[static_cast<std::size_t>(r)] != 0;
    };
    std::vector<aggregation::Range> ranges;
    if (std::any_of(w.rank_of.begin(), w.rank_of.end(), left_out)) {
        std::vector<aggregation::Group> kept;
        for (std::size_t i = 0; i < w.groups.size(); ++i)
            if (!left_out(w.rank_of[i]))
                kept.push_back(w.groups[i]);
        ranges = aggregation::merge_pieces(kept);
        partial = true;
    } else {
        ranges = w.ranges;
        partial = false;
    }
    // Without the bytes independent writes touched since (both ascending: one sweep each).
    std::vector<aggregation::Range> cut;
    std::size_t k = 0;
    for (aggregation::Range r : ranges) {
        while (k < written_since.size() && written_since[k].hi <= r.lo)
            ++k;
        for (std::size_t j = k; j < written_since.size() && written_since[j].lo < r.hi; ++j) {
            partial = true;
            if (written_since[j].lo > r.lo)
                cut.push_back({r.lo, written_since[j].lo});
            r.lo = std::max(r.lo, written_since[j].hi);
            if (r.lo >= r.hi)
                break;
        }
        if (r.lo < r.hi)
            cut.push_back(r);
    }
    std::vector<Run> runs;
    runs.reserve(cut.size());
    for (const aggregation::Range &r : cut)
        runs.push_back(Run{r.lo, static_cast<std::size_t>(r.hi - r.lo), w.bytes.data() + (r.lo - w.lo)});
    return runs;
}

} // namespace mpiio
