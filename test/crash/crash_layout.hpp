// What the crash writer writes (crash_writer.cpp) and the checker expects (crash_check.cpp).
#pragma once

#include <hdf5.h>

namespace crash {

inline constexpr hsize_t kPerRank = 4096; // ints per rank per dataset
inline constexpr hsize_t kChunk = 1000;   // chunk length, not aligned with rank blocks

// Element i of a dataset in version 1 (written before the first flush) or 2 (after it).
inline int value(hsize_t i, int version) { return static_cast<int>(i) + (version == 2 ? 1000000 : 0); }

} // namespace crash
