// read_vector / write_vector: many (address, size, buffer) requests in one call.
//
// The library uses vectors for collective metadata writes, collective chunk fill and filtered
// chunk I/O. Under a collective transfer every rank calls exactly once (count may be 0), so the
// whole vector is one collective transfer (collective_transfer.hpp); independent vectors become as
// few independent calls as the staging buffer allows.
#include "failed_writes.hpp"
#include "file.hpp"
#include "hdf5_internals.hpp"
#include "runs_transfer.hpp"

#include <limits>

namespace mpiio {
namespace {

// Local. Expands the "size 0 repeats the previous entry" convention into runs (empty requests
// dropped), sorted by address and merged, into `runs` (cleared first).
void vector_runs(uint32_t count, const haddr_t addrs[], const size_t sizes[], char *const bufs[],
                 std::vector<Run> &runs) {
    runs.clear();
    runs.reserve(count);
    size_t size = 0;
    bool fixed_size = false;
    for (uint32_t i = 0; i < count; ++i) {
        if (!fixed_size) {
            if (sizes[i] == 0 && i > 0)
                fixed_size = true; // this and every later entry repeat the previous size
            else
                size = sizes[i];
        }
        if (size == 0)
            continue;
        if (addrs[i] == HADDR_UNDEF ||
            addrs[i] > static_cast<haddr_t>(std::numeric_limits<MPI_Offset>::max()) - size)
            throw Error(ErrorKind::Config, "vector I/O address out of range for MPI-IO");
        runs.push_back(Run{addrs[i], size, bufs[i]});
    }
    selection::sort_and_merge(runs);
}

void vector_io(File *file, Direction dir, uint32_t count, const haddr_t addrs[], const size_t sizes[],
               char *const bufs[]) {
    FileState &st = *file->state;
    ++st.stats.vector_calls;
    std::vector<Run> &runs = st.scratch.runs;
    if (hdf5_internals::xfer_mode() == H5FD_MPIO_COLLECTIVE) {
        auto prep_error = capture([&] { vector_runs(count, addrs, sizes, bufs, runs); });
        RunsTransfer mine(runs);
        collective_transfer(file, dir, &mine, prep_error);
        return;
    }
    vector_runs(count, addrs, sizes, bufs, runs);
    if (dir == Direction::Write)
        remembering_failed_write(st, [&] { independent_runs(file, dir, runs, st.size == 1); });
    else
        independent_runs(file, dir, runs, false);
}

} // namespace

void read_vector(File *file, uint32_t count, const H5FD_mem_t[], const haddr_t addrs[], const size_t sizes[],
                 void *bufs[]) {
    vector_io(file, Direction::Read, count, addrs, sizes, reinterpret_cast<char *const *>(bufs));
}

void write_vector(File *file, uint32_t count, const H5FD_mem_t[], const haddr_t addrs[], const size_t sizes[],
                  const void *bufs[]) {
    if (file->state->read_only && hdf5_internals::xfer_mode() != H5FD_MPIO_COLLECTIVE)
        throw Error(ErrorKind::Config, "write to a file opened read-only");
    vector_io(file, Direction::Write, count, addrs, sizes,
              const_cast<char *const *>(reinterpret_cast<const char *const *>(bufs)));
}

} // namespace mpiio
