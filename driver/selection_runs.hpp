// Pairs the file and memory sides of HDF5 selection I/O requests into byte runs.
#pragma once

#include "run_io.hpp"

#include <hdf5.h>

#include <vector>

namespace mpiio {

// One selection I/O request as the library passes it: `count` pieces (datasets or chunks), each
// a file selection at file address offsets[i] and a memory selection in bufs[i], of elements of
// element_sizes[i] bytes. A zero element size or NULL buffer repeats the previous entry.
struct SelectionRequest {
    size_t count;
    const hid_t *mem_spaces;
    const hid_t *file_spaces;
    const haddr_t *offsets;
    const size_t *element_sizes;
    char *const *bufs;
};

// The runs of one piece (a chunk or a contiguous dataset) at file address `address`.
struct PieceRuns {
    haddr_t address;
    std::vector<Run> runs; // sorted by file address, merged
};

// Local. Every piece's runs: the i-th selected element of a file selection paired with the i-th
// of its memory selection (each in its own iteration order, as HDF5 pairs them). Pieces are
// sorted by address; pieces at the same address are combined. Throws Error when a piece's two
// selections differ in size.
std::vector<PieceRuns> selection_pieces(const SelectionRequest &request);

// Local. The runs of all pieces into `runs` (cleared first; passing the same vector every time
// keeps its memory), sorted by file address and merged.
void selection_runs(const SelectionRequest &request, std::vector<Run> &runs);

} // namespace mpiio
