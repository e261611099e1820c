// File-level checks, once per case, on the files of the first round: rank 0 opens the mpio and
// the mpiio file with HDF5's sec2 driver (neither MPI driver is involved in the check), reads
// every dataset and attribute, and compares
//   * the two files with each other (dataset by dataset),
//   * each with the expected contents (all ranks' selections filled with the deterministic
//     values; this also validates the pattern definitions). Elements no rank writes are not
//     compared: parallel HDF5 writes no fill value by default, and MPI-IO does not define what
//     a never-written byte holds (collective buffering may leave stale buffer bytes there),
//   * the raw MPI-IO file with the same expected contents in its own layout,
// and reports whether the two HDF5 files are byte-for-byte identical (informational).
#pragma once

#include "kernel.hpp"
#include "patterns.hpp"

#include <string>
#include <vector>

namespace bench {

struct FileCheck {
    bool done = false;
    std::vector<std::string> problems; // content differences: the case fails
    std::string bytes_note;            // "identical" or how the HDF5 files differ byte-wise
    bool identical = false;
    bool gaps = false; // some dataset elements are never written
    uint64_t size_mpio = 0, size_mpiio = 0, size_raw = 0;
};

// Collective (rank 0 works, the others wait); the result is valid on rank 0, `failed` on all.
FileCheck check_files(const CaseSpec &c, const std::string &mpio_path, const std::string &mpiio_path,
                      const std::string &raw_path, const RawKernel *raw, bool &failed);

} // namespace bench
