// The collective chunk I/O knobs for one operation: the application's DXPL settings
// (H5Pset_dxpl_mpio_chunk_opt, _num, _ratio, read through hdf5_internals), each overridden by the
// config string when set there.
#pragma once

#include "chunkio/decision.hpp"
#include "settings/config.hpp"

#include <hdf5.h>

namespace mpiio {

// Local.
chunkio::Knobs chunk_knobs(hid_t dxpl_id, const Config &config);

} // namespace mpiio
