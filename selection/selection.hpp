// selection/: HDF5 dataspace selections -> MPI datatypes (docs/decisions.md D5). Public HDF5 API
// only, no dependency on driver/ logic; every function is local (no communication).
//
//   build_type        one selection in its own order             (piece_pair.hpp)
//   build_piece_pair  file + memory types of one piece            (piece_pair.hpp)
//   combine_facts     many pieces: their file order and facts     (combine.hpp)
//   combined_types    many pieces -> one file + one memory type   (combine.hpp)
//   for_each_segment  paired (file, memory, length) segments      (segments.hpp)
//   sort_and_merge    byte runs sorted by file address            (byte_runs.hpp)
//   TypeCache         LRU of committed types by selection shape   (type_cache.hpp)
#pragma once

#include "byte_runs.hpp"
#include "combine.hpp"
#include "common/error.hpp"
#include "piece_pair.hpp"
#include "segments.hpp"
#include "type_cache.hpp"
#include "type_spec.hpp"
