// A byte run: the unit every transfer reduces to.
#pragma once

#include <hdf5.h>

#include <cstddef>

namespace mpiio {

struct Run {
    haddr_t addr;     // absolute file address
    std::size_t size; // bytes, > 0
    char *buf;        // memory address
};

enum class Direction { Read, Write };

} // namespace mpiio
