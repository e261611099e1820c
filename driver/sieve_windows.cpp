// See sieve_windows.hpp.
#include "sieve_windows.hpp"

#include <algorithm>
#include <cstring>

namespace mpiio {

SieveWindows::SieveWindows(File *file, Direction dir, std::vector<char> &buffer, size_t limit, haddr_t end)
    : file_(file), dir_(dir), buffer_(buffer), limit_(std::max<size_t>(limit, 1)), end_(end) {
    if (buffer_.size() < limit_)
        buffer_.resize(limit_);
}

void SieveWindows::move(haddr_t addr, char *memory, size_t bytes) {
    while (bytes > 0) {
        if (!open_ || addr < window_ || addr >= window_end_)
            open_at(addr);
        const size_t take = std::min<size_t>(bytes, window_end_ - addr);
        char *in_buffer = buffer_.data() + (addr - window_);
        if (dir_ == Direction::Read)
            std::memcpy(memory, in_buffer, take);
        else
            std::memcpy(in_buffer, memory, take);
        used_end_ = std::max<haddr_t>(used_end_, addr + take);
        addr += take;
        memory += take;
        bytes -= take;
    }
}

void SieveWindows::open_at(haddr_t addr) {
    close();
    window_ = addr;
    // At least one byte, so that a segment past `end` (a caller's error) still moves forward.
    window_end_ = addr + std::min<haddr_t>(limit_, end_ > addr ? end_ - addr : 1);
    used_end_ = addr;
    independent_bytes(file_, Direction::Read, window_, buffer_.data(),
                      static_cast<size_t>(window_end_ - window_));
    open_ = true;
}

void SieveWindows::close() {
    if (open_ && dir_ == Direction::Write)
        independent_bytes(file_, Direction::Write, window_, buffer_.data(),
                          static_cast<size_t>(used_end_ - window_));
    open_ = false;
}

} // namespace mpiio
