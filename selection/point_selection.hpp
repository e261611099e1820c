// The pairing fallback for file selections that are not ascending (point selections given in
// arbitrary order): MPI file views must be monotonic, so the file side is sorted and the memory
// side permuted the same way, keeping HDF5's pairing (i-th file element <-> i-th memory element,
// each in its own selection order).
#pragma once

#include "sequence_list.hpp"
#include "type_spec.hpp"

#include <cstddef>
#include <vector>

namespace mpiio::selection {

struct PairedRuns {
    Runs file;                             // ascending, disjoint, merged
    Runs mem;                              // the matching memory runs, in the same order, merged
    std::vector<DuplicateCopy> duplicates; // elements named more than once (type_spec.hpp)
};

// Local. `file` is the file selection's run list in selection order; the memory side comes from
// `mem` (its selection order) or, when `mem` is null, is the contiguous bytes [0, total). Both are
// cut into common segments, the segments sorted by file displacement, and each side re-merged.
// An element the file selection names more than once keeps its last occurrence (serial HDF5's
// result for a write: the last value wins); the others become `duplicates`, the copies that give
// their memory the element's value after a read.
PairedRuns pair_sorted(Runs &&file, SequenceReader *mem, std::size_t elem_size);

} // namespace mpiio::selection
