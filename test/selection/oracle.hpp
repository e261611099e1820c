// Test oracle, part 2: HDF5's own sequence lists (H5Ssel_iter_get_seq_list) versus what a built
// TypeSpec / TypePair / CombinedTypes really describes (flatten.hpp). Every check returns an
// empty string on success and a description of the first difference otherwise.
#pragma once

#include "flatten.hpp"

#include "selection/selection.hpp"

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace seltest {

// Runs of a selection in its own order, merged. At most `limit` runs.
std::vector<ByteRun> hdf5_runs(hid_t space, std::size_t elem_size, std::size_t limit = SIZE_MAX);

// One (file, memory) pairing of byte ranges.
struct Segment {
    std::int64_t file, mem, len;
    bool operator==(const Segment &) const = default;
};

// Cuts two byte streams into common segments (false when their totals differ).
bool pair_streams(const std::vector<ByteRun> &file, const std::vector<ByteRun> &mem,
                  std::vector<Segment> &out);
// Merges segments continuing on both sides.
std::vector<Segment> normalize(const std::vector<Segment> &segs);

// Checks a spec against MPI (size, lb, true extent, flags, MPI_Pack agreement for small types)
// and appends its runs at `base + offset` to `runs`. `limit`: flatten at most that many runs.
std::string spec_runs(const mpiio::selection::TypeSpec &spec, std::int64_t base, std::vector<ByteRun> &runs,
                      std::size_t limit = 1u << 22);

// build_type: spec == the selection's own sequence list.
std::string check_single(hid_t space, std::size_t elem_size, const mpiio::selection::TypeSpec &spec);

// build_piece_pair: file type monotonic, and the (file, mem) pairing equals HDF5's pairing of
// the two sequence lists, sorted by file offset. mem_space may be H5S_BLOCK or H5S_ALL.
std::string check_pair(hid_t file_space, hid_t mem_space, std::size_t elem_size,
                       const mpiio::selection::TypePair &pair);

// The expected (absolute) segments of one piece: file runs at file_address, memory runs at
// mem_address, sorted by file offset.
std::vector<Segment> expected_segments(hid_t file_space, hid_t mem_space, std::size_t elem_size,
                                       std::int64_t file_address, std::int64_t mem_address);

std::string describe(const std::vector<Segment> &segs, std::size_t max = 6);

} // namespace seltest
