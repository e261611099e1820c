// The collective chunk I/O knobs for one operation: the application's DXPL settings
// (H5Pset_dxpl_mpio_chunk_opt, _num, _ratio), each overridden by the config string when set there.
#pragma once

#include "config.hpp"
#include "decision.hpp"

#include <hdf5.h>

namespace mpiio {

// Local. The DXPL values are read by their property names ("mpio_chunk_opt_hard", ..., see
// hdf5-1.14-contract.md section 5): HDF5 has setters but no getters for them.
chunkio::Knobs chunk_knobs(hid_t dxpl_id, const Config &config);

} // namespace mpiio
