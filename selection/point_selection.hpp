// The pairing fallback for file selections that are not ascending (point selections given in
// arbitrary order): MPI file views must be monotonic, so the file side is sorted and the memory
// side permuted the same way, keeping HDF5's pairing (i-th file element <-> i-th memory element,
// each in its own selection order).
#pragma once

#include "sequence_list.hpp"

#include <cstddef>

namespace mpiio::selection {

struct PairedRuns {
    Runs file; // ascending, disjoint, merged
    Runs mem;  // the matching memory runs, in the same order, merged
};

// Local. `file` is the file selection's run list in selection order; the memory side comes from
// `mem` (its selection order) or, when `mem` is null, is the contiguous bytes [0, total). Both are
// cut into common segments, the segments sorted by file displacement, and each side re-merged.
// Throws Error(NotMonotonic) when the file selection names an element twice.
PairedRuns pair_sorted(Runs &&file, SequenceReader *mem);

} // namespace mpiio::selection
