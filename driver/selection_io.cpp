// read_selection / write_selection: the library's default raw-data path once a driver has
// selection callbacks. Under a collective transfer every rank calls once per operation (count may
// be 0): all pieces (datasets of H5Dwrite_multi, chunks of a chunked dataset) become one
// collective MPI call with at most one file-view change. Independent transfers never touch the
// view and combine requests through the staging buffer.
#include "error.hpp"
#include "file.hpp"
#include "run_io.hpp"
#include "selection_runs.hpp"
#include "transfer_state.hpp"

namespace mpiio {
namespace {

void selection_io(File *file, Direction dir, const SelectionRequest &request) {
    if (transfer_state::xfer_mode() == H5FD_MPIO_COLLECTIVE) {
        if (dir == Direction::Write)
            extend_before_collective_write(file);
        std::vector<Run> runs;
        auto prep_error = capture([&] { runs = selection_runs(request); });
        collective_runs(file, dir, runs, prep_error);
    } else {
        independent_runs(file, dir, selection_runs(request));
    }
}

} // namespace

void read_selection(File *file, size_t count, const hid_t mem_spaces[], const hid_t file_spaces[],
                    const haddr_t offsets[], const size_t element_sizes[], void *bufs[]) {
    selection_io(file, Direction::Read,
                 SelectionRequest{count, mem_spaces, file_spaces, offsets, element_sizes,
                                  reinterpret_cast<char *const *>(bufs)});
}

void write_selection(File *file, size_t count, const hid_t mem_spaces[], const hid_t file_spaces[],
                     const haddr_t offsets[], const size_t element_sizes[], const void *bufs[]) {
    if (file->state->read_only && transfer_state::xfer_mode() != H5FD_MPIO_COLLECTIVE)
        throw Error(ErrorKind::Config, "write to a file opened read-only");
    selection_io(file, Direction::Write,
                 SelectionRequest{count, mem_spaces, file_spaces, offsets, element_sizes,
                                  const_cast<char *const *>(reinterpret_cast<const char *const *>(bufs))});
}

} // namespace mpiio
