// One driver run = write phase + read phase of a whole file. Common result type and the two
// kernels (HDF5 through a driver, raw MPI-IO).
#pragma once

#include "buffers.hpp"
#include "common.hpp"
#include "layout.hpp"
#include "patterns.hpp"

#include <h5fd_mpiio.h>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace bench {

struct PhaseTimes {
    double seconds = 0;      // max over ranks of (phase end - phase start after a barrier)
    double data_seconds = 0; // max over ranks of the time inside data calls (H5Dwrite / MPI_File_write*)
};

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
    // Attribute values read in the last read phase that differ from the expected ones (local).
    uint64_t attr_mismatches() const { return attr_mismatches_; }

private:
    hid_t fapl(Driver d, bool for_write) const;
    const CaseSpec &c_;
    std::string config_;
    std::vector<hid_t> ftypes_, fspaces_, dcpls_; // per dataset
    std::vector<hid_t> mtypes_, mspaces_, sels_;  // per access
    hid_t gcpl_ = -1, dxpl_ = -1, attr_space_ = -1, particle_ = -1;
    std::vector<hid_t> members_; // 1-member compound per field
    std::vector<int32_t> attr_read_;
    uint64_t attr_mismatches_ = 0;
};

class RawKernel {
public:
    explicit RawKernel(const CaseSpec &c); // collective (agrees on file views)
    PhaseTimes write(const std::string &path, Buffers &buf);
    PhaseTimes read(const std::string &path, Buffers &buf);
    // Byte offset of dataset d of time step t in the raw file (uncompressed cases only).
    uint64_t base(int t, int d) const;

private:
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
