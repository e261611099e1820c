// Which way a transfer moves bytes. A header of its own, so that the pure decisions
// (independent/independent_plan.hpp, collective/route.hpp) need neither MPI nor HDF5.
#pragma once

namespace mpiio {

enum class Direction { Read, Write };

} // namespace mpiio
