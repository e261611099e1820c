// Byte runs: (file address, length, memory address) triples, the form of vector requests and of
// selections whose pieces cannot form one ascending file type; and the selection piece, one
// (file selection, memory selection, address) of a selection I/O request.
#pragma once

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpiio::selection {

struct ByteRun {
    std::uint64_t addr; // absolute file address
    std::size_t size;   // bytes, > 0
    char *buf;          // memory address
};

// One piece of a selection I/O request: a file selection at file address `addr` (a contiguous
// dataset or one chunk) paired with a memory selection in `buf`. mem_space may be H5S_ALL (the
// same selection as the file side) or H5S_BLOCK (a packed buffer of the selected elements).
struct SelectionPiece {
    hid_t file_space;
    hid_t mem_space;
    std::uint64_t addr;
    std::size_t element_size;
    char *buf;
};

// Local. Sorts runs by file address (stable) and merges runs adjacent in both file and memory.
void sort_and_merge(std::vector<ByteRun> &runs);

} // namespace mpiio::selection
