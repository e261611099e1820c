// What this process holds right now, from /proc and the C library: open file descriptors,
// resident memory, and heap bytes in use (to tell real growth from allocator fragmentation).
#pragma once

#include <cstdint>

namespace mpiio_test {

long open_fd_count();             // entries in /proc/self/fd (minus the one used to list it)
std::int64_t resident_bytes();    // VmRSS
std::int64_t heap_in_use_bytes(); // malloc'ed and not freed (mallinfo2: uordblks + hblkhd)

} // namespace mpiio_test
