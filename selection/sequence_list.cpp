#include "sequence_list.hpp"

#include "error.hpp"

#include <cstdint>

namespace mpiio::selection {

// Local. SHARE_WITH_DATASPACE avoids copying the selection: the space is not modified meanwhile.
SequenceReader::SequenceReader(hid_t space, std::size_t elem_size, std::size_t batch)
    : off_(batch), len_(batch) {
    iter_ = check_h5(H5Ssel_iter_create(space, elem_size, H5S_SEL_ITER_SHARE_WITH_DATASPACE),
                     "H5Ssel_iter_create");
}

SequenceReader::~SequenceReader() {
    if (iter_ >= 0)
        H5Ssel_iter_close(iter_);
}

bool SequenceReader::next(MPI_Aint &disp, MPI_Count &len) {
    if (pos_ == n_) {
        if (done_)
            return false;
        size_t nseq = 0, nelem = 0;
        check_h5(
            H5Ssel_iter_get_seq_list(iter_, off_.size(), SIZE_MAX, &nseq, &nelem, off_.data(), len_.data()),
            "H5Ssel_iter_get_seq_list");
        pos_ = 0;
        n_ = nseq;
        if (nseq == 0) {
            done_ = true;
            return false;
        }
    }
    disp = static_cast<MPI_Aint>(off_[pos_]);
    len = static_cast<MPI_Count>(len_[pos_]);
    ++pos_;
    return true;
}

Runs sequence_runs(hid_t space, std::size_t elem_size, std::size_t expected_runs) {
    Runs runs;
    runs.disp.reserve(expected_runs);
    runs.len.reserve(expected_runs);
    SequenceReader reader(space, elem_size);
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
