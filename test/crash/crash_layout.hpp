// What the crash writer writes (crash_writer.cpp) and the checker expects (crash_check.cpp).
#pragma once

#include <hdf5.h>

namespace crash {

inline constexpr hsize_t kPerRank = 4096; // ints per rank per dataset
inline constexpr hsize_t kChunk = 1000;   // chunk length, not aligned with rank blocks

// Element i of a dataset in version 0 (written first, then read back and rewritten before the first
// flush: a file that still holds it lost the rewrite), 1 (the rewrite, flushed) or 2 (after the
// flush).
inline int value(hsize_t i, int version) {
    return static_cast<int>(i) + (version == 2 ? 1000000 : version == 0 ? 2000000 : 0);
}

} // namespace crash
