#include "aggregate/window_cache.hpp"

#include <cstring>
#include <new>

namespace mpiio {

void WindowCache::keep(std::span<const Run> runs) noexcept {
    if (!enabled() || runs.empty())
        return;
    try {
        keep_round(runs);
    } catch (const std::bad_alloc &) {
        clear();
    }
}

void WindowCache::keep_round(std::span<const Run> runs) {
    std::size_t size = 0;
    for (const Run &r : runs)
        size += r.size;
    if (size > limit_)
        return;
    while (!rounds_.empty() && bytes_ + size > limit_) {
        bytes_ -= rounds_.front().bytes.size();
        rounds_.pop_front();
    }
    Round round;
    round.slots.reserve(runs.size());
    round.bytes.resize(size);
    std::size_t at = 0;
    for (const Run &r : runs) {
        round.slots.push_back({r.addr, r.addr + r.size, at});
        std::memcpy(round.bytes.data() + at, r.buf, r.size);
        at += r.size;
    }
    bytes_ += size;
    rounds_.push_back(std::move(round));
}

// Whether each run lies wholly inside one of the round's slots (both ascending: one sweep).
bool WindowCache::holds(const Round &round, std::span<const Run> runs) {
    std::size_t s = 0;
    for (const Run &r : runs) {
        while (s < round.slots.size() && round.slots[s].hi <= r.addr)
            ++s;
        if (s == round.slots.size() || round.slots[s].lo > r.addr || r.addr + r.size > round.slots[s].hi)
            return false;
    }
    return true;
}

bool WindowCache::serve(std::span<const Run> runs) const {
    if (runs.empty())
        return false;
    for (auto round = rounds_.rbegin(); round != rounds_.rend(); ++round) { // newest first
        if (!holds(*round, runs))
            continue;
        std::size_t s = 0;
        for (const Run &r : runs) {
            while (round->slots[s].hi <= r.addr)
                ++s;
            const Slot &slot = round->slots[s];
            std::memcpy(r.buf, round->bytes.data() + slot.at + (r.addr - slot.lo), r.size);
        }
        return true;
    }
    return false;
}

} // namespace mpiio
