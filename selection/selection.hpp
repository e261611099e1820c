// selection/: HDF5 dataspace selections -> MPI datatypes (ARCHITECTURE.md D5). Public HDF5 API
// only, no dependency on driver/ logic; every function is local (no communication).
//
//   build_type        one selection in its own order            (piece_pair.hpp)
//   append_byte_runs  file + memory sides as paired byte runs    (byte_runs.hpp)
//   build_piece_pair  file + memory types of one piece           (piece_pair.hpp)
//   combine_pieces    many pieces -> one file + one memory type  (combine.hpp)
//   TypeCache         LRU of committed types by selection shape  (type_cache.hpp)
#pragma once

#include "byte_runs.hpp"
#include "combine.hpp"
#include "common/error.hpp"
#include "piece_pair.hpp"
#include "type_cache.hpp"
#include "type_spec.hpp"
