// A sieved range moved through the staging buffer one window at a time, so that the memory a
// sieve holds never exceeds staging_buffer however large the rank's range (SelectionTransfer).
#pragma once

#include "run_io.hpp"

namespace mpiio {

// Local. Selected bytes are handed in as (file address, memory, length) segments. A window opens
// at the first byte of a segment outside the current one: it is the file range from there, at most
// `limit` bytes and never past `end` (the rank's extent), read whole. A write copies its bytes in
// and, when the window closes, writes it back from its start up to its last selected byte (holes
// inside rewritten with what was read: only for a range that is the rank's own). Ascending
// segments make each window read (and written) once; a segment before the current window just
// opens a new one, which reads the file as earlier windows left it.
class SieveWindows {
public:
    SieveWindows(File *file, Direction dir, std::vector<char> &buffer, size_t limit, haddr_t end);
    SieveWindows(const SieveWindows &) = delete;
    SieveWindows &operator=(const SieveWindows &) = delete;

    void move(haddr_t addr, char *memory, size_t bytes);
    // Writes back the last window of a write. Not called when a step failed: the write is
    // incomplete then, and the caller's failed-write handling reports it.
    void finish() { close(); }

private:
    void open_at(haddr_t addr);
    void close();

    File *file_;
    Direction dir_;
    std::vector<char> &buffer_;
    size_t limit_;
    haddr_t end_;
    haddr_t window_ = 0, window_end_ = 0, used_end_ = 0; // [window_, window_end_) is in the buffer
    bool open_ = false;
};

} // namespace mpiio
