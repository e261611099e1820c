// Types for arbitrary run lists (irregular hyperslabs, points, paired and sorted pieces).
#pragma once

#include "sequence_list.hpp"
#include "type_spec.hpp"

namespace mpiio::selection {

class TypeCache;

// Local. The runs (in the order given) as a TypeSpec whose offset is the lowest displacement;
// `runs` is consumed (shifted in place to be relative to that offset). Cached by the relative run
// list, so the same pattern at another position reuses the committed type.
TypeSpec build_from_runs(Runs &&runs, TypeCache *cache);

} // namespace mpiio::selection
