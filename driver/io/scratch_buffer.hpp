// Working memory an engine reuses between operations, grown without zero-filling: every byte of it
// is read from the file or copied from memory before it is used, so clearing it (std::vector's
// resize) would only cost a memset of the whole buffer each time it grows. It starts on a page
// boundary, as MPI-IO layers and file systems that align their own buffers prefer.
//
// Memory that holds file bytes to be read or written in one call is placed at the file offset's
// own offset within a page (for_file_bytes): clients that cut a transfer at the memory's page
// boundaries (FUSE with direct I/O: requests of 32 pages of the caller's memory) then cut it at
// the file's page boundaries, which are whole stripes of a striped or erasure-coded volume. Cut
// elsewhere, every request of a write ends inside a stripe the servers must read first: a
// GlusterFS disperse volume read 64 times for a 4 MiB write into existing bytes from a page plus
// 16 bytes, and not at all from a page (docs/measurements.md, "Memory at the file's page offset").
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
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
    // Local. Room for the file bytes [file_offset, file_offset + bytes), at file_offset's offset
    // within a page (at most a page more than `bytes`); earlier contents are not kept.
    char *for_file_bytes(std::uint64_t file_offset, std::size_t bytes) {
        const std::size_t skew = static_cast<std::size_t>(file_offset % kAlignment);
        return at_least(skew + bytes) + skew;
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

// A copy of the file bytes [lo, lo + size), placed as ScratchBuffer::for_file_bytes places them:
// what an aggregator keeps to write later. Throws std::bad_alloc without the memory.
class FileBytes {
public:
    FileBytes() = default;
    FileBytes(std::uint64_t lo, const char *bytes, std::size_t size)
        : data_(memory_.for_file_bytes(lo, size)), size_(size) {
        std::memcpy(data_, bytes, size);
    }
    char *data() { return data_; }
    const char *data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    ScratchBuffer memory_;
    char *data_ = nullptr;
    std::size_t size_ = 0;
};

} // namespace mpiio
