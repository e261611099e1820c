// Byte runs of a selection in its own iteration order, read with H5Ssel_iter_get_seq_list (row-major
// for hyperslabs, the given order for points). Used for irregular hyperslabs, points and the
// pairing fallback; regular hyperslabs never come here.
#pragma once

#include "runs.hpp"
#include "space_info.hpp"

#include <hdf5.h>
#include <mpi.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace mpiio::selection {

// Streams one selection's sequences in batches, so the whole list never needs to exist twice.
//
// Every sequence is checked against what the selection says of itself (query_space): it must lie
// inside the bounding box's linear range and the extent, and the sequences together must hold
// exactly npoints elements. HDF5 1.14.5 can build hyperslabs (some
// OR-combinations) whose iterator yields elements outside the selection, even past the end of
// the dataset; such a selection throws Error(Selection) before any byte moves.
class SequenceReader {
public:
    // Batches start small (a one-block selection costs no large allocation) and double while
    // they come back full, up to max_batch sequences.
    SequenceReader(hid_t space, std::size_t elem_size, std::size_t max_batch = 1 << 16);
    // The same with the selection's facts already read (query_space).
    SequenceReader(hid_t space, const SpaceInfo &info, std::size_t elem_size,
                   std::size_t max_batch = 1 << 16);
    SequenceReader(const SequenceReader &) = delete;
    SequenceReader &operator=(const SequenceReader &) = delete;
    ~SequenceReader();
    // Next sequence in selection order; false after the last. Local. Inline: an irregular or
    // point selection calls it once per run.
    bool next(MPI_Aint &disp, MPI_Count &len) {
        if (single_ || pos_ == n_)
            return next_batch(disp, len);
        take(disp, len);
        return true;
    }
    // Bytes the selection holds (npoints x element size).
    MPI_Count total_bytes() const { return expected_bytes_; }

private:
    [[noreturn]] void inconsistent(const std::string &what) const;
    [[noreturn]] void inconsistent_element(MPI_Aint disp) const;
    bool fetch(); // the next batch from HDF5; false when the selection is exhausted
    bool next_batch(MPI_Aint &disp, MPI_Count &len); // next() at the start of a batch
    // The sequence at pos_, checked against the bounding box and the element count.
    void take(MPI_Aint &disp, MPI_Count &len) {
        disp = static_cast<MPI_Aint>(off_[pos_]);
        len = static_cast<MPI_Count>(len_[pos_]);
        ++pos_;
        seen_bytes_ += len;
        if (disp < low_ || disp + static_cast<MPI_Aint>(len) > high_ || seen_bytes_ > expected_bytes_)
            inconsistent_element(disp);
    }

    static constexpr std::size_t kFirstBatch = 64;
    hid_t iter_ = H5I_INVALID_HID;
    // One sequence from low_, no iterator needed: H5S_SEL_ALL (low_ stays 0), or a regular
    // hyperslab whose elements fill its bounding box's linear range.
    bool single_ = false;
    std::array<hsize_t, kFirstBatch> first_off_;
    std::array<size_t, kFirstBatch> first_len_;
    std::vector<hsize_t> more_off_; // once a batch came back full
    std::vector<size_t> more_len_;
    hsize_t *off_ = first_off_.data();
    size_t *len_ = first_len_.data();
    std::size_t capacity_ = kFirstBatch, pos_ = 0, n_ = 0, max_batch_;
    bool done_ = false;
    std::size_t elem_size_;
    MPI_Count expected_bytes_ = 0, seen_bytes_ = 0;
    MPI_Aint low_ = 0, high_ = 0; // linear byte range of the bounding box: [low_, high_)
};

// Local. Every run of `space` (whose facts `info` holds) in selection order, adjacent runs
// merged. Point selections pre-size the arrays (one run per point at most).
Runs sequence_runs(hid_t space, const SpaceInfo &info, std::size_t elem_size);

// Local. True when runs are strictly ascending and disjoint (a valid MPI filetype order).
bool ascending_disjoint(const Runs &runs);

} // namespace mpiio::selection
