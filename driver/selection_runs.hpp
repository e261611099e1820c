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

// Local. The runs of every piece, the i-th selected element of a file selection paired with the
// i-th of its memory selection (each in its own iteration order, as HDF5 pairs them), sorted by
// file address and merged. Throws Error when a piece's two selections differ in size.
std::vector<Run> selection_runs(const SelectionRequest &request);

} // namespace mpiio
