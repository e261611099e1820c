#include "sequence_list.hpp"

#include "common/error.hpp"

#include <algorithm>
#include <array>
#include <cstdint>

namespace mpiio::selection {

SequenceReader::SequenceReader(hid_t space, std::size_t elem_size, std::size_t max_batch)
    : SequenceReader(space, query_space(space, elem_size), elem_size, max_batch) {}

// Local. SHARE_WITH_DATASPACE avoids copying the selection: the space is not modified meanwhile.
SequenceReader::SequenceReader(hid_t space, const SpaceInfo &info, std::size_t elem_size,
                               std::size_t max_batch)
    : max_batch_(std::max(max_batch, kFirstBatch)), elem_size_(elem_size) {
    expected_bytes_ = static_cast<MPI_Count>(info.npoints) * static_cast<MPI_Count>(elem_size);
    if (info.npoints == 0) {
        done_ = true;
        return;
    }
    // "All" is the whole extent in order: one sequence, nothing to check. A regular hyperslab (visited
    // in row-major order) whose elements fill its bounding box's linear range is that one range: no
    // iterator (three library calls less per small request). Irregular ones keep the iterator and its
    // checks (HDF5 can build broken OR-combinations).
    const LinearBounds bounds = linear_bounds(info, elem_size);
    low_ = bounds.low;
    high_ = bounds.high;
    single_ =
        info.kind == H5S_SEL_ALL || (info.kind == H5S_SEL_HYPERSLABS && one_linear_range(info, elem_size));
    if (single_)
        return;
    iter_ = check_h5(H5Ssel_iter_create(space, elem_size, H5S_SEL_ITER_SHARE_WITH_DATASPACE),
                     "H5Ssel_iter_create");
}

SequenceReader::~SequenceReader() {
    if (iter_ >= 0)
        H5Ssel_iter_close(iter_);
}

void SequenceReader::inconsistent(const std::string &what) const {
    throw Error(ErrorKind::Selection,
                "HDF5 describes this selection inconsistently (" + what + "; H5Sget_select_npoints: " +
                    std::to_string(expected_bytes_ / static_cast<MPI_Count>(elem_size_)) +
                    " elements, bounding box from element " +
                    std::to_string(low_ / static_cast<MPI_Aint>(elem_size_)) + " to " +
                    std::to_string(high_ / static_cast<MPI_Aint>(elem_size_) - 1) +
                    "); refusing the transfer so that no byte outside the selection is touched");
}

bool SequenceReader::fetch() {
    // Every byte the selection claims has been seen: no call to learn that the iterator is done.
    if (done_ || seen_bytes_ == expected_bytes_)
        return false;
    if (n_ == capacity_ && capacity_ < max_batch_) { // the last batch came back full: grow
        capacity_ = std::min(max_batch_, 2 * capacity_);
        more_off_.resize(capacity_);
        more_len_.resize(capacity_);
        off_ = more_off_.data();
        len_ = more_len_.data();
    }
    size_t nseq = 0, nelem = 0;
    check_h5(H5Ssel_iter_get_seq_list(iter_, capacity_, SIZE_MAX, &nseq, &nelem, off_, len_),
             "H5Ssel_iter_get_seq_list");
    pos_ = 0;
    n_ = nseq;
    if (nseq == 0) {
        done_ = true;
        inconsistent("its iterator yields " +
                     std::to_string(seen_bytes_ / static_cast<MPI_Count>(elem_size_)) + " elements");
    }
    return true;
}

bool SequenceReader::next_batch(MPI_Aint &disp, MPI_Count &len) {
    if (single_) {
        if (done_)
            return false;
        done_ = true;
        disp = low_; // 0 for "all"
        len = expected_bytes_;
        seen_bytes_ = expected_bytes_;
        return true;
    }
    if (!fetch())
        return false;
    take(disp, len);
    return true;
}

void SequenceReader::inconsistent_element(MPI_Aint disp) const {
    inconsistent("its iterator yields element " + std::to_string(disp / static_cast<MPI_Aint>(elem_size_)) +
                 (seen_bytes_ > expected_bytes_ ? ", one more than it has" : ", outside its bounding box"));
}

Runs sequence_runs(hid_t space, const SpaceInfo &info, std::size_t elem_size) {
    Runs runs;
    if (info.kind == H5S_SEL_POINTS) {
        runs.disp.reserve(info.npoints);
        runs.len.reserve(info.npoints);
    }
    SequenceReader reader(space, info, elem_size);
    MPI_Aint d;
    MPI_Count l;
    while (reader.next(d, l))
        runs.push(d, l);
    return runs;
}

bool ascending_disjoint(const Runs &runs) {
    for (std::size_t i = 1; i < runs.size(); ++i)
        if (runs.disp[i - 1] + static_cast<MPI_Aint>(runs.len[i - 1]) > runs.disp[i])
            return false;
    return true;
}

} // namespace mpiio::selection
