// Working memory an engine reuses between operations, grown without zero-filling: every byte of it
// is read from the file or copied from memory before it is used, so clearing it (std::vector's
// resize) would only cost a memset of the whole buffer each time it grows. It starts on a page
// boundary, as MPI-IO layers and file systems that align their own buffers prefer.
#pragma once

#include <cstddef>
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
