// File-level checks, once per case, on the files of the first round, each right after its driver
// ran and before it is deleted (unless --keep-files): a file kept for later would hold its pages
// while the timed runs write theirs, and on this kind of machine those runs then get slow,
// never-touched ones.
// Rank 0 opens the mpio and the mpiio file with HDF5's sec2 driver (neither MPI driver is
// involved in the check), reads every dataset and attribute, and compares each with the expected
// contents (all ranks' selections filled with the deterministic values; this also validates the
// pattern definitions). Elements no rank writes are not compared: parallel HDF5 writes no fill
// value by default, and MPI-IO does not define what a never-written byte holds (collective
// buffering may leave stale buffer bytes there). The raw MPI-IO file is compared with the same
// expected contents in its own layout. Whether the two HDF5 files are byte-for-byte identical
// (informational) is told by their sizes and a digest of all their bytes.
#pragma once

#include "kernel.hpp"
#include "patterns.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace bench {

struct FileCheck {
    bool done = false;                 // rank 0: the first round's checks are over (compare_hdf5_files ran)
    std::vector<std::string> problems; // content differences: the case fails
    std::string bytes_note;            // "identical" or how the HDF5 files differ byte-wise
    bool identical = false;
    bool gaps = false; // some dataset elements are never written
    uint64_t size_mpio = 0, size_mpiio = 0, size_raw = 0;
    std::optional<uint64_t> digest_mpio, digest_mpiio; // of every byte of the file, once checked
};

// Collective (rank 0 reads, the others wait). Checks the file driver `d` (mpio, mpiio or raw)
// wrote at `path` and records its size (and digest) in `fc`, valid on rank 0; `failed` is set on
// every rank when this file has a problem. `raw` gives the raw file's layout.
void check_file(FileCheck &fc, const CaseSpec &c, Driver d, const std::string &path, const RawKernel &raw,
                bool &failed);

// Rank 0, after the first round's checks: marks the check done and, when both the mpio and the
// mpiio file were digested, fills identical and bytes_note.
void compare_hdf5_files(FileCheck &fc);

} // namespace bench
