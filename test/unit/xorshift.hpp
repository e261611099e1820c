// A deterministic pseudo-random generator for the unit tests' randomized tables (xorshift64):
// the same seed gives the same cases on every machine, so a failure names a reproducible trial.
#pragma once

#include <cstdint>

namespace mpiio_test {

class XorShift {
public:
    explicit XorShift(std::uint64_t seed) : state_(seed) {}

    // A number in [0, n).
    std::uint64_t operator()(std::uint64_t n) {
        state_ ^= state_ << 13;
        state_ ^= state_ >> 7;
        state_ ^= state_ << 17;
        return state_ % n;
    }

private:
    std::uint64_t state_;
};

} // namespace mpiio_test
