// Per-operation overhead: many tiny collective data calls on a contiguous dataset, through the
// built-in mpio driver, the mpiio plugin, and a raw MPI_File_{write,read}_at_all loop for
// reference. Every call moves `bytes` bytes per rank; rank r's piece of call i sits at element
// i * P + r, so the pieces of one call are adjacent in the file.
#pragma once

#include "common.hpp"

#include <string>

namespace bench {

struct OpLoopSpec {
    int ops = 2000;         // timed calls per loop
    int bytes = 8;          // per rank per call (a multiple of 8)
    std::string config;     // mpiio driver config string
    bool collective = true; // collective transfers (H5FD_MPIO_COLLECTIVE, MPI_File_*_all), or independent
};

// Microseconds per call (slowest rank) of one write loop and one read loop over the same file,
// and the number of values the read loop got wrong (over all ranks).
struct OpLoopTimes {
    double write_us = 0, read_us = 0;
    uint64_t wrong = 0;
};

// Collective. Creates the file (untimed: file and dataset creation with early allocation, a few
// untimed warm-up calls), times `ops` writes then `ops` reads (collective or independent transfers,
// as spec.collective says), verifies the values read, closes and deletes the file.
OpLoopTimes run_h5_op_loop(Driver d, const std::string &path, const OpLoopSpec &spec);
OpLoopTimes run_raw_op_loop(const std::string &path, const OpLoopSpec &spec);

// Collective. Creates a file holding one small dataset (untimed), then times `cycles` pairs of
// H5Fopen (read-write) + H5Fclose: what a file costs a driver apart from its data (the driver's
// open, EOF and truncate, close, and HDF5's own superblock work); microseconds per pair, slowest
// rank. Deletes the file. The raw loop times MPI_File_open + MPI_File_close pairs.
double run_h5_open_close_loop(Driver d, const std::string &path, int cycles, const std::string &config);
double run_raw_open_close_loop(const std::string &path, int cycles);

} // namespace bench
