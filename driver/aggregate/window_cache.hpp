// An aggregator's copy of the bytes its windows held in the file's last aggregated transfers, so
// that a collective read of the same bytes needs no call to the file system. HDF5 asks for such
// reads all the time on compound datasets: before it writes one field it reads the records back to
// merge the field in, and every field it reads reads the whole records again, so each field of a
// time step moves every record through the storage once more (on shared storage a round trip and
// the bytes over the network each time).
//
// The copy is only as good as the promise that no byte of it changed in the file. The collective
// engine keeps that promise: every write, resize and sync on any rank of the file drops every
// aggregator's copy at the next collective transfer (a counter in the route summary,
// collective_engine.cpp); a write transfer replaces it; a round that failed is never kept.
// Writers outside the file's communicator are outside what MPI makes visible without a sync on
// this side: a flush (H5Fflush, even with sync=never or read-only) drops the copies. So do bytes
// an application writes behind the library's back through the file's MPI handle
// (H5Fget_vfd_handle): seen after a flush, as by the library's own chunk cache.
#pragma once

#include "io/request.hpp"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <span>
#include <vector>

namespace mpiio {

class WindowCache {
public:
    // Local. The most bytes the copy holds (config window_cache); 0 turns it off.
    void set_limit(std::size_t bytes) {
        limit_ = bytes;
        clear();
    }
    bool enabled() const { return limit_ > 0; }
    // Local. Forgets every byte.
    void clear() {
        rounds_.clear();
        bytes_ = 0;
    }
    // Local. Keeps a copy of `runs` (one round's file ranges and their bytes, ascending, not
    // overlapping), dropping the oldest rounds kept when the copy would pass the limit; a round
    // larger than the limit is not kept. Never throws: without memory it keeps nothing (the
    // aggregator must reach the round's collective calls whatever happens here).
    void keep(std::span<const Run> runs) noexcept;
    // Local. Copies every run's bytes from one kept round into its memory when that round holds
    // all of them; false (nothing copied) otherwise. `runs`: ascending, not overlapping.
    bool serve(std::span<const Run> runs) const;
    std::size_t bytes() const { return bytes_; }

private:
    struct Slot {
        std::uint64_t lo, hi; // a file range
        std::size_t at;       // where its bytes start in Round::bytes
    };
    struct Round {
        std::vector<Slot> slots; // ascending
        std::vector<char> bytes;
    };
    void keep_round(std::span<const Run> runs);
    static bool holds(const Round &round, std::span<const Run> runs);

    std::deque<Round> rounds_; // oldest first
    std::size_t bytes_ = 0;
    std::size_t limit_ = 0;
};

} // namespace mpiio
