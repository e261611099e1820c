// Raw MPI-IO layout: where each dataset's bytes go in the raw file (datasets back to back in
// time-step order; chunked datasets chunk-major, like HDF5 allocates them), and the file view +
// memory datatype of each access, described once per case and turned into MPI datatypes inside
// the timed region (HDF5 builds its datatypes inside H5Dwrite too).
#pragma once

#include "patterns.hpp"

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace bench {

// Byte offset (within the dataset's raw image) of element g: row-major for contiguous
// datasets, chunk-major for chunked ones.
uint64_t raw_elem_offset(const DsetSpec &d, uint64_t g);
// Bytes of the dataset's raw image (whole chunks for chunked datasets).
uint64_t raw_dset_bytes(const DsetSpec &d);

struct ByteRun {
    uint64_t file, mem, len;
};

// A datatype description: contiguous bytes, a regular vector of blocks, or an indexed list.
struct TypeDesc {
    enum Kind { Contig, Vector, Indexed } kind = Contig;
    uint64_t bytes = 0;                        // Contig: total bytes
    uint64_t count = 0, block = 0, stride = 0; // Vector (bytes)
    std::vector<int> lens;                     // Indexed
    std::vector<MPI_Aint> disps;               // Indexed, relative to the plan's displacement
    // Creates and commits the MPI datatype (not for Contig).
    MPI_Datatype make() const;
};

struct RawPlan {
    uint64_t bytes = 0;     // bytes this rank moves
    uint64_t file_disp = 0; // first file byte, relative to the dataset's raw image
    uint64_t mem_disp = 0;  // first memory byte, relative to the memory array
    TypeDesc file, mem;
    bool use_view = false;     // a file view is needed (same on every rank; set by finalize_views)
    std::vector<ByteRun> runs; // sorted by file offset, merged (kept for packing/compression)
};

// Local. The plan of one access of one rank.
RawPlan make_plan(const CaseSpec &c, const Access &a);
// Collective: an access uses a file view on all ranks if any rank needs one.
void finalize_views(std::vector<RawPlan> &plans);

// Bytes between consecutive elements of the access's memory array, and the offset of the moved
// part inside one element.
size_t mem_stride(const CaseSpec &c, const Access &a);
size_t mem_member_offset(const Access &a);
// Offset of the moved part inside one file element.
size_t file_member_offset(const CaseSpec &c, const Access &a);
// Bytes moved per element.
inline size_t moved_bytes(const Access &a) { return a.mem == MemKind::Record ? 32 : 4; }

} // namespace bench
