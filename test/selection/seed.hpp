// Base seed of the random tests: MPIIO_SEL_SEED or a fixed default, so runs are reproducible.
#pragma once

#include <cstdint>
#include <cstdlib>

namespace seltest {

inline std::uint64_t base_seed(std::uint64_t fallback) {
    const char *s = std::getenv("MPIIO_SEL_SEED");
    return s && *s ? std::strtoull(s, nullptr, 0) : fallback;
}

// Number of random cases: MPIIO_SEL_CASES scales them (default 1.0).
inline std::uint64_t cases(std::uint64_t n) {
    const char *s = std::getenv("MPIIO_SEL_CASES");
    return s && *s ? static_cast<std::uint64_t>(static_cast<double>(n) * std::strtod(s, nullptr)) : n;
}

} // namespace seltest
