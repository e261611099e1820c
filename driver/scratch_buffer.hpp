// Working memory an engine reuses between operations, grown without zero-filling: every byte of it
// is read from the file or copied from memory before it is used, so clearing it (std::vector's
// resize) would only cost a memset of the whole buffer each time it grows.
#pragma once

#include <cstddef>
#include <memory>

namespace mpiio {

class ScratchBuffer {
public:
    // Local. At least `bytes` of memory; earlier contents are not kept when it grows.
    char *at_least(std::size_t bytes) {
        if (capacity_ < bytes) {
            data_ = std::make_unique_for_overwrite<char[]>(bytes);
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
    std::unique_ptr<char[]> data_;
    std::size_t capacity_ = 0;
};

} // namespace mpiio
