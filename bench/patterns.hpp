// Access patterns. A case = pattern + mode + size. It says, for one rank, which datasets every
// time step holds, which memory arrays the rank writes from, and the list of data calls
// (accesses), each with
//   * what HDF5 gets: memory type/space and the file selection (built the way an application
//     would: one hyperslab, a union of rectangles, a point list);
//   * what the selection means element by element: runs of (global element index in the
//     dataset, memory element index, length), used to build the raw MPI-IO file view and the
//     deterministic values.
#pragma once

#include "common.hpp"
#include "sizes.hpp"
#include "values.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

// Element type of a dataset in the file.
enum class FileType {
    Native,   // float, or int for id_1 (per field)
    Particle, // h5bench's 8-member compound record (32 bytes)
    Member,   // 1-member compound holding one field (h5bench's INTERLEAVED/CONTIG files)
};

struct DsetSpec {
    std::string name;
    FileType ftype = FileType::Native;
    int field = 0;               // value field (Native / Member)
    std::vector<uint64_t> dims;  // global dims
    std::vector<uint64_t> chunk; // empty: contiguous layout
    int deflate = 0;             // gzip level (0 = no filter)
    int nattrs = 0;              // 4-int attributes attached to the dataset
    // Read with the chunk cache off (H5Pset_chunk_cache 0). A read-only file's chunks no larger
    // than the cache turn HDF5's selection I/O off: HDF5 then builds an MPI datatype per chunk and
    // hands the driver one derived-type read, and that dominates both drivers' time.
    bool read_without_chunk_cache = false;
    size_t esize() const { return ftype == FileType::Particle ? 32 : 4; }
    uint64_t nelems() const;
};

// How the memory buffer of an access is laid out.
enum class MemKind {
    Plain,  // array of 4-byte values of one field (SoA)
    Member, // array of Particle records, the access moves one field
    Record, // array of Particle records, the access moves whole records
};

struct ElemRun {
    uint64_t g; // first global element index in the dataset (row-major linear)
    uint64_t m; // first memory element index in the array
    uint64_t n; // elements
};

struct Hyperslab {
    std::vector<uint64_t> start, stride, count, block; // stride/block empty = 1
};

struct Access {
    int dset = 0;  // index into CaseSpec::dsets
    int array = 0; // index into CaseSpec::arrays
    int field = 0; // value field (ignored for Record)
    MemKind mem = MemKind::Plain;
    uint64_t mem_first = 0;         // the call's buffer starts at this memory element
    uint64_t count = 0;             // elements moved
    std::vector<uint64_t> mem_dims; // HDF5 memory dataspace (product == count)
    // The file selection, as the application would build it: slabs[0] with SELECT_SET, the
    // rest OR-ed; or a point list (npoints x rank coordinates, in memory order).
    std::vector<Hyperslab> slabs;
    std::vector<uint64_t> points;
    std::vector<ElemRun> runs; // sorted by g
};

struct ArraySpec {
    size_t elem_bytes = 4; // 4 (SoA) or 32 (Particle records)
    uint64_t count = 0;
};

struct CaseSpec {
    std::string pattern;  // e.g. cc1d
    std::string id;       // pattern/mode, e.g. cc1d/coll
    std::string what;     // one-line description
    std::string raw_note; // how the raw MPI-IO run differs, if it does
    Mode mode;
    Size size = Size::Medium;
    int timesteps = 3;
    std::vector<DsetSpec> dsets;   // the datasets of every time step ("Timestep_<t>/<name>")
    std::vector<ArraySpec> arrays; // memory arrays of one time step
    std::vector<Access> accesses;  // data calls of one time step, in order
    bool compressed() const;
    int deflate_level() const;
    uint64_t bytes_per_step() const; // data bytes this rank moves per time step
};

// Fills the case's datasets, arrays and accesses for rank r of p (patterns.cpp).
using CaseBuilder = void (*)(CaseSpec &c, const PatternDims &dims, uint64_t r, uint64_t p);

struct PatternInfo {
    const char *name;
    const char *what;
    const char *default_modes; // comma list; modes in the default matrix
    const char *allowed_modes; // comma list
    bool in_default;
    CaseBuilder build;
    int max_timesteps = 0; // > 0: at most this many time steps before --min-phase raises them
};
const std::vector<PatternInfo> &pattern_table();
const PatternInfo *find_pattern(const std::string &name);

// Builds the case as seen by rank `r` of `p` ranks.
CaseSpec build_case(const std::string &pattern, const Mode &mode, Size size, int timesteps, int r, int p);

// Bytes between consecutive elements of the access's memory array, and the offset of the moved
// part inside one element.
inline size_t mem_stride(const CaseSpec &c, const Access &a) {
    return c.arrays[static_cast<size_t>(a.array)].elem_bytes;
}
inline size_t mem_member_offset(const Access &a) {
    return a.mem == MemKind::Member ? particle_offset(a.field) : 0;
}
// Offset of the moved part inside one file element.
inline size_t file_member_offset(const CaseSpec &c, const Access &a) {
    const bool record = c.dsets[static_cast<size_t>(a.dset)].ftype == FileType::Particle;
    return record && a.mem != MemKind::Record ? particle_offset(a.field) : 0;
}
// Bytes moved per element.
inline size_t moved_bytes(const Access &a) { return a.mem == MemKind::Record ? 32 : 4; }

} // namespace bench
