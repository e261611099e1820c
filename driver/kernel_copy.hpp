// Reads whose memory is misaligned with the file. A read from the page cache ends in the kernel's
// copy into the caller's memory (copy_to_user), which on CPUs with fast `rep movsb` (ERMS/FSRM) is
// that instruction; on some of them it runs at a third of its speed when destination and source
// differ in their position within 64 bytes. Measured here (AMD EPYC, Linux 6.18, tmpfs): 4 KiB
// preads into memory 8-24 bytes past the file's 64-byte phase took 2.6-2.8x as long as co-aligned
// ones reading through a 16 MiB file, 1.5x with the file's pages in the CPU's cache, 32-56 bytes
// past it no longer; glibc's malloc gives a buffer of 128 KiB or more (its default mmap threshold)
// its own pages and starts it 16 bytes into the first, so every 4 KiB block of h5perf's interleaved
// read is such a read, for the built-in driver too. glibc's memcpy uses the same instruction from 4 KiB up
// and pays the same. So a short read into such memory goes into a co-aligned bounce buffer and is copied out
// with vector moves (copy_unaligned): two copies, both fast (docs/architecture.md, "Reads into misaligned
// memory").
#pragma once

#include <cstddef>
#include <cstdint>

namespace mpiio {

// Which relative misalignments, (destination - source) mod 64, slow the kernel's copy down: `low`
// for 1-31 (probed at 16; 8-24 measured slow here), `high` for 32-63 (probed at 48). 0 never does.
struct SlowCopyPhases {
    bool low = false;
    bool high = false;
    bool any() const { return low || high; }
    // Whether a copy from file address `addr` into `memory` is in a slow phase.
    bool slow(const void *memory, std::uint64_t addr) const {
        const auto phase = static_cast<unsigned>((reinterpret_cast<std::uintptr_t>(memory) - addr) % 64);
        return phase != 0 && (phase < 32 ? low : high);
    }
};

// Local, no MPI call, never fails. Measured once per process, at the first open with
// read_bounce=auto (later calls return the first answer): the best of 7 reads of 16 KiB from a pipe
// into memory co-aligned, 16 and 48 bytes past the pages the kernel copies from; a phase is slow
// when its best read takes 1.5x the co-aligned one or more. Well under a millisecond; no slow phase
// when the pipe cannot be made or filled, or without SSE2 (copy_unaligned is then memcpy).
SlowCopyPhases probe_slow_copy_phases() noexcept;

// Local. memcpy(dst, src, n) with 16-byte vector moves (no `rep movsb`): the same speed at any
// relative alignment.
void copy_unaligned(char *dst, const char *src, std::size_t n);

} // namespace mpiio
