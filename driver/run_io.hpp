// Transfers of byte runs: (file address, length, memory address) triples, the common form that
// vector requests and selections (after pairing their file and memory sequences) reduce to.
#pragma once

#include "collective.hpp"
#include "file.hpp"
#include "run.hpp"

#include <memory>
#include <optional>
#include <vector>

namespace mpiio {

// Local. Sorts runs by file address (stable) and merges runs adjacent in both file and memory.
void sort_and_merge(std::vector<Run> &runs);

// What one rank contributes to a collective transfer: the file view (displacement + file type)
// and the memory side (base, count, type). Empty (count 0) for a rank with nothing to move.
struct CollectiveRequest {
    MPI_Offset view_disp = 0;
    MPI_Datatype file = MPI_BYTE;
    void *mem_base = nullptr;
    MPI_Datatype mem = MPI_BYTE;
    int mem_count = 0;
    size_t bytes = 0; // payload bytes
    haddr_t end = 0;  // one past the highest file byte (for the EOF estimate)
    std::shared_ptr<const Datatype> file_type, mem_type; // keep derived types alive
};

// Collective. Sets the view, makes one MPI_File_{read,write}_at_all (or the individual variant
// under the library's INDIVIDUAL_IO option), restores the byte view, syncs if the MPI-IO layer
// needs it, and agrees on the outcome. A rank whose preparation failed (prep_error) joins with
// no data; every rank fails if any did. Short reads leave zeros.
void collective_transfer(File *file, Direction dir, const CollectiveRequest &request,
                         std::optional<Error> prep_error);

// Local. The collective request describing sorted, merged runs (hindexed byte blocks).
CollectiveRequest request_from_runs(const std::vector<Run> &runs);

// Collective. One MPI_File_{read,write}_at_all (or the individual variant under the library's
// INDIVIDUAL_IO option) under a file view of the sorted runs. A rank whose preparation failed
// (prep_error) joins with no data; every rank fails if any did.
void collective_runs(File *file, Direction dir, const std::vector<Run> &runs,
                     std::optional<Error> prep_error);

// Local. One independent MPI_File_{read,write}_at of `bytes` contiguous bytes (any size);
// returns the bytes moved. Reads past the end of the file leave the rest of `buf` zeroed; a
// short write throws.
size_t independent_transfer(File *file, Direction dir, haddr_t addr, char *buf, size_t bytes);

// Local. Independent transfer of sorted, merged runs with as few MPI calls as the staging buffer
// allows: file-contiguous runs are gathered into one call; reads (and writes on a one-rank
// file, where no other writer can race) also bridge gaps of up to config.sieve_gap bytes by
// reading the gap and writing it back unchanged.
void independent_runs(File *file, Direction dir, const std::vector<Run> &runs);

} // namespace mpiio
