// Selections -> byte runs: (file address, length, memory address) triples, the form every
// independent transfer and the driver's run-based collective fallback use. One path for scalar,
// vector, selection and chunk I/O: vectors are runs already, selections come through here.
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

// Local. Appends one piece's runs, file side in its selection order, neighbours contiguous in
// both file and memory merged as they come. Clears `ordered` when a run starts before the end of
// the previous one (the list then needs sort_and_merge). Throws Error(Selection) when the two
// selections hold different numbers of elements or HDF5 describes one inconsistently (nothing has
// been transferred then).
void append_byte_runs(const SelectionPiece &piece, std::vector<ByteRun> &runs, bool &ordered);

// Local. Sorts runs by file address (stable) and merges runs adjacent in both file and memory.
void sort_and_merge(std::vector<ByteRun> &runs);

} // namespace mpiio::selection
