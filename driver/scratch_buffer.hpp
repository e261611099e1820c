// Working memory an engine reuses between operations, grown without zero-filling: every byte of it
// is read from the file or copied from memory before it is used, so clearing it (std::vector's
// resize) would only cost a memset of the whole buffer each time it grows. It starts on a page
// boundary (malloc's large blocks start 16 bytes into a page), so that a read into it at an offset
// congruent to the file address modulo 64 is never 1-63 bytes ahead of the page cache's copy of it,
// the kernel's slow case (kernel_copy.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>

namespace mpiio {

class ScratchBuffer {
public:
    static constexpr std::size_t kAlignment = 4096;

    // Local. At least `bytes` of memory, starting on a page; earlier contents are not kept when it
    // grows.
    char *at_least(std::size_t bytes) {
        if (capacity_ < bytes) {
            data_.reset(static_cast<char *>(::operator new[](bytes, std::align_val_t{kAlignment})));
            capacity_ = bytes;
        }
        return data_.get();
    }
    // Local. At least `bytes` of memory starting at file address `addr`'s position within kPhase
    // bytes, so that a read of `addr` into it is co-aligned with the page cache; kPhase bytes more
    // than `bytes` are allocated for it.
    static constexpr std::size_t kPhase = 64;
    char *at_phase_of(std::uint64_t addr, std::size_t bytes) {
        return at_least(bytes + kPhase) + addr % kPhase;
    }
    // Local. Gives the memory back when it grew beyond `limit`.
    void release_above(std::size_t limit) {
        if (capacity_ > limit) {
            data_.reset();
            capacity_ = 0;
        }
    }

private:
    struct AlignedDelete {
        void operator()(char *p) const { ::operator delete[](p, std::align_val_t{kAlignment}); }
    };
    std::unique_ptr<char[], AlignedDelete> data_;
    std::size_t capacity_ = 0;
};

} // namespace mpiio
