// Byte runs of a selection in its own iteration order, read with H5Ssel_iter_get_seq_list (row-major
// for hyperslabs, the given order for points). Used for irregular hyperslabs, points and the
// pairing fallback; regular hyperslabs never come here.
#pragma once

#include <hdf5.h>
#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mpiio::selection {

// Run list (displacement, length) in bytes, in visiting order.
struct Runs {
    std::vector<MPI_Aint> disp;
    std::vector<MPI_Count> len;

    std::size_t size() const { return disp.size(); }
    bool empty() const { return disp.empty(); }
    // Appends a run, extending the last one when it continues it exactly. Local.
    void push(MPI_Aint d, MPI_Count l) {
        if (!disp.empty() && disp.back() + static_cast<MPI_Aint>(len.back()) == d) {
            len.back() += l;
        } else {
            disp.push_back(d);
            len.push_back(l);
        }
    }
};

// Streams one selection's sequences in batches, so the whole list never needs to exist twice.
class SequenceReader {
public:
    SequenceReader(hid_t space, std::size_t elem_size, std::size_t batch = 1 << 16);
    SequenceReader(const SequenceReader &) = delete;
    SequenceReader &operator=(const SequenceReader &) = delete;
    ~SequenceReader();
    // Next sequence in selection order; false after the last. Local.
    bool next(MPI_Aint &disp, MPI_Count &len);

private:
    hid_t iter_ = H5I_INVALID_HID;
    std::vector<hsize_t> off_;
    std::vector<size_t> len_;
    std::size_t pos_ = 0, n_ = 0;
    bool done_ = false;
};

// Local. Every run of `space` in selection order, adjacent runs merged. `expected_runs` only
// pre-sizes the arrays (point selections know their count: one run per point at most).
Runs sequence_runs(hid_t space, std::size_t elem_size, std::size_t expected_runs = 0);

// Local. True when runs are strictly ascending and disjoint (a valid MPI filetype order).
bool ascending_disjoint(const Runs &runs);

} // namespace mpiio::selection
