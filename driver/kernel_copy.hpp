// Reads whose memory is misaligned with the file. A read from the page cache ends in the kernel's
// copy into the caller's memory (copy_to_user), which on CPUs with fast `rep movsb` (ERMS/FSRM) is
// that instruction; on some of them it runs at a third of its speed when the destination lies 1-31
// bytes ahead of the source modulo 4096 (the store of each line aliases the load of the next: "4K
// aliasing"). The page cache's source is the file's offset within its page, so what matters is
// (memory - file address) mod 4096. Measured here (AMD EPYC, Linux 6.18, tmpfs, 4 KiB preads): 8-24
// bytes ahead 2.4-3.7 us a read against 1.0-1.4 co-aligned or 32 bytes and more ahead, and the same
// whatever the position once it is not 1-31 bytes ahead (a read 2 KiB into a page, 16 bytes off
// within 64 bytes, is not slow). glibc's malloc gives a buffer of 128 KiB or more (its default mmap
// threshold) its own pages and starts it 16 bytes into the first, so 4 KiB blocks read at
// page-aligned file addresses (an aligned dataset, H5Pset_alignment) into such a buffer are all
// slow, for the built-in driver too. glibc's memcpy uses the same instruction from 4 KiB up and
// pays the same. So a read into such memory goes into a bounce buffer at the file's position
// and is copied out with vector moves (copy_unaligned): two copies, both fast (docs/architecture.md,
// "Reads into misaligned memory").
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpiio {

// Which relative positions d = (destination - source) mod 4096 slow the kernel's copy down: `low`
// for d 1-31 (probed at 16; 8-24 measured slow here), `high` for 32-63 (probed at 48). d = 0 and d
// of 64 or more never do (nor a destination behind the source: d 4033-4095).
struct SlowCopyPhases {
    static constexpr unsigned kPage = 4096;
    static constexpr unsigned kSlowBelow = 64;
    bool low = false;
    bool high = false;
    // Whether a copy from file address `addr` into `memory` is in a slow position.
    bool slow(const void *memory, std::uint64_t addr) const {
        const auto d = static_cast<unsigned>((reinterpret_cast<std::uintptr_t>(memory) - addr) % kPage);
        return d != 0 && d < kSlowBelow && (d < 32 ? low : high);
    }
};

// Local, no MPI call, never fails. Measured once per process, at the first open with
// read_bounce=auto (later calls return the first answer): the best of 7 reads of 16 KiB from a pipe
// into memory co-aligned, 16 and 48 bytes ahead of the pages the kernel copies from; a position is
// slow when its best read takes 1.5x the co-aligned one or more. Well under a millisecond; none slow
// when the pipe cannot be made or filled, or without SSE2 (copy_unaligned is then memcpy).
SlowCopyPhases probe_slow_copy_phases() noexcept;

// Local. memcpy(dst, src, n) with 16-byte vector moves (no `rep movsb`): the same speed at any
// relative alignment.
void copy_unaligned(char *dst, const char *src, std::size_t n);

} // namespace mpiio
