// One driver run = write phase + read phase of a whole file. Common result type and the two
// kernels (HDF5 through a driver, raw MPI-IO).
#pragma once

#include "buffers.hpp"
#include "common.hpp"
#include "patterns.hpp"

#include <h5fd_mpiio.h>

#include <string>
#include <type_traits>
#include <vector>

namespace bench {

struct PhaseTimes {
    double seconds = 0;      // max over ranks of (phase end - phase start after a barrier)
    double data_seconds = 0; // max over ranks of the time inside data calls (H5Dwrite / MPI_File_write*)
};

// Collective. A phase's times from this rank's (whole phase, inside data calls): each the slowest
// rank's.
PhaseTimes reduce_times(double local, double data);

// What the library did with the data calls (collected during the warm-up only).
struct Probe {
    bool valid = false;
    uint32_t no_coll_cause_global = 0; // OR of H5Pget_mpio_no_collective_cause (global)
    unsigned io_modes = 0;             // bit per H5D_mpio_actual_io_mode_t seen
    unsigned selection_modes = 0;      // bit per H5D_selection_io_mode_t seen
    std::string describe() const;
};

// The integer counters of H5FD_mpiio_stats_t (summed over ranks and reported): every field of
// the header's list whose type is uint64_t, so a counter added there is reported here too.
#define BENCH_IF_COUNTER(type, statement)                                                                    \
    if constexpr (std::is_same_v<type, uint64_t>) {                                                          \
        statement;                                                                                           \
    }

// Sum over ranks of the mpiio driver's counters for the last file written / read.
struct DriverStats {
    bool valid = false;
    H5FD_mpiio_stats_t write{}, read{};
};

// Prebuilt HDF5 objects of a case (types, dataspaces, property lists), reused for every run.
class H5Kernel {
public:
    H5Kernel(const CaseSpec &c, const std::string &plugin_config);
    ~H5Kernel();
    H5Kernel(const H5Kernel &) = delete;
    H5Kernel &operator=(const H5Kernel &) = delete;

    PhaseTimes write(Driver d, const std::string &path, Buffers &buf, Probe *probe, DriverStats *stats);
    PhaseTimes read(Driver d, const std::string &path, Buffers &buf, Probe *probe, DriverStats *stats);
    // Collective, untimed: every rank reads its own selections of the file at `path`, which
    // driver `d` wrote, independently and with default properties: through HDF5's sec2 driver (no
    // MPI driver involved), or for a subfiled file through the subfiling driver again (only it
    // reads a stub plus subfiles).
    void read_back(Driver d, const std::string &path, Buffers &buf);
    // Attribute values read in the last read that differ from the expected ones (local).
    uint64_t attr_mismatches() const { return attr_mismatches_; }
    // Why the driver refused a data call of the last write or read, the same on every rank; ""
    // when it refused none (only the subfiling driver's refusals are caught: refusal.hpp).
    const std::string &refusal() const { return refusal_; }

private:
    hid_t fapl(Driver d, bool for_write) const;
    PhaseTimes phase(bool write, hid_t fapl, hid_t dxpl, Driver d, const std::string &path, Buffers &buf,
                     Probe *probe, DriverStats *stats);
    const CaseSpec &c_;
    std::string config_;
    std::vector<hid_t> ftypes_, fspaces_, dcpls_; // per dataset
    std::vector<hid_t> mtypes_, mspaces_, sels_;  // per access
    hid_t gcpl_ = -1, fcpl_ = -1, dxpl_ = -1, attr_space_ = -1, particle_ = -1, no_chunk_cache_ = -1;
    std::vector<hid_t> members_; // 1-member compound per field
    uint64_t attr_mismatches_ = 0;
    std::string refusal_;
};

// The raw MPI-IO layout and plan of each access (raw_kernel.cpp): datasets back to back in
// time-step order, chunked datasets chunk-major, like HDF5 allocates them; the file view and
// memory datatype of each access are described once per case and turned into MPI datatypes inside
// the timed region (HDF5 builds its datatypes inside H5Dwrite too).
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
    MPI_Datatype make() const;                 // creates and commits the MPI datatype (not for Contig)
};

struct RawPlan {
    uint64_t bytes = 0;     // bytes this rank moves
    uint64_t file_disp = 0; // first file byte, relative to the dataset's raw image
    uint64_t mem_disp = 0;  // first memory byte, relative to the memory array
    TypeDesc file, mem;
    bool use_view = false;     // a file view is needed (same on every rank)
    std::vector<ByteRun> runs; // sorted by file offset, merged (for packing compressed chunks)
};

class RawKernel {
public:
    explicit RawKernel(const CaseSpec &c); // collective (agrees on file views)
    PhaseTimes write(const std::string &path, Buffers &buf) { return run(true, path, buf); }
    PhaseTimes read(const std::string &path, Buffers &buf) { return run(false, path, buf); }
    const std::vector<RawPlan> &plans() const { return plans_; } // per access

private:
    PhaseTimes run(bool write, const std::string &path, Buffers &buf);
    double write_packed(MPI_File fh, int t, size_t i, unsigned char *mem, uint64_t &cbase);
    double read_packed(MPI_File fh, int t, size_t i, unsigned char *mem);
    uint64_t base(int t, int d) const; // byte offset of dataset d of time step t (uncompressed)
    const CaseSpec &c_;
    std::vector<RawPlan> plans_; // per access
    // Compressed cases: where each rank's compressed chunks of (t, access) went, and their sizes.
    struct Packed {
        uint64_t offset = 0;
        std::vector<uint64_t> sizes;
    };
    std::vector<Packed> packed_; // [t * accesses + i]
    std::vector<unsigned char> stage_, cbuf_;
};

} // namespace bench
