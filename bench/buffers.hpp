// The memory arrays of a case for all time steps: filled with the deterministic values before
// the write phase, poisoned before every read phase and compared after it.
#pragma once

#include "patterns.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

struct Buffers {
    // arrays[t][a]
    std::vector<std::vector<std::vector<unsigned char>>> arrays;
    unsigned char *ptr(int t, int a) { return arrays[static_cast<size_t>(t)][static_cast<size_t>(a)].data(); }
};

// Allocates the arrays of every time step and fills them with the values the accesses write.
Buffers make_write_buffers(const CaseSpec &c);
// Allocates arrays of the same shape, poisoned (0xA5 bytes).
Buffers make_read_buffers(const CaseSpec &c);
void poison(Buffers &b);

struct Mismatch {
    uint64_t count = 0; // differing bytes (local)
    std::string first;  // description of the first difference
};
// Local. Compares what was read with what was written.
Mismatch compare_buffers(const CaseSpec &c, const Buffers &expected, const Buffers &got);

} // namespace bench
