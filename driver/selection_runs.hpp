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

// One piece of a request with the "0 / NULL repeats the previous entry" conventions expanded.
struct RequestPiece {
    hid_t mem_space;
    hid_t file_space;
    haddr_t offset; // absolute file address of the piece (dataset or chunk)
    size_t element_size;
    char *buf;
};

// Local. The request's pieces in request order.
std::vector<RequestPiece> expand_pieces(const SelectionRequest &request);

// Local. Appends one piece's runs: the i-th selected element of the file selection paired with
// the i-th of the memory selection (each in its own iteration order, as HDF5 pairs them).
// Clears `ordered` when a run starts before the end of the previous one (the list then needs
// sort_and_merge); neighbours that are contiguous in file and memory are merged as they come.
// Throws Error when the two selections differ in size.
void append_runs(const RequestPiece &piece, std::vector<Run> &runs, bool &ordered);

// Local. The runs of all pieces into `runs` (cleared first; passing the same vector every time
// keeps its memory), sorted by file address and merged.
void selection_runs(const SelectionRequest &request, std::vector<Run> &runs);

} // namespace mpiio
