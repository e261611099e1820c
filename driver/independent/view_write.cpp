// A view write: many short stretches of a staged write as one MPI_File_write_at through a file
// view of the rank's own handle (io/mpi_io.hpp).
#include "independent/independent_engine.hpp"

#include <cstring>

namespace mpiio {

// Local. Segments [first, last) as one MPI_File_write_at through a view of the rank's own handle:
// the file-adjacent segments as one block each, an hvector when the blocks have one length at one
// spacing (a strided hyperslab; MPI builds it in constant time), else an hindexed type. The data
// comes straight from memory when the segments' memory is one block, else gathered.
void IndependentEngine::view_write(const GroupCall &c) {
    view_lengths_.clear();
    view_offsets_.clear();
    std::size_t payload = 0;
    for (std::size_t i = c.first; i < c.last; ++i) {
        const auto offset = static_cast<MPI_Aint>(group_[i].addr - c.lo);
        if (!view_offsets_.empty() && view_offsets_.back() + view_lengths_.back() == offset)
            view_lengths_.back() += static_cast<int>(group_[i].len);
        else {
            view_offsets_.push_back(offset);
            view_lengths_.push_back(static_cast<int>(group_[i].len));
        }
        payload += group_[i].len;
    }
    const char *data = group_memory_[c.first];
    if (!c.from_memory) {
        char *packed = packed_.at_least(payload);
        std::size_t at = 0;
        for (std::size_t i = c.first; i < c.last; ++i) {
            std::memcpy(packed + at, group_memory_[i], group_[i].len);
            at += group_[i].len;
        }
        data = packed;
    }
    const std::size_t n = view_lengths_.size();
    bool regular = n >= 2;
    const MPI_Aint spacing = regular ? view_offsets_[1] : 0;
    for (std::size_t k = 1; k < n && regular; ++k)
        regular =
            view_lengths_[k] == view_lengths_[0] && view_offsets_[k] == static_cast<MPI_Aint>(k) * spacing;
    Datatype view;
    if (regular)
        check_mpi(
            MPI_Type_create_hvector(static_cast<int>(n), view_lengths_[0], spacing, MPI_BYTE, view.out()),
            "MPI_Type_create_hvector (view write)");
    else
        check_mpi(MPI_Type_create_hindexed(static_cast<int>(n), view_lengths_.data(), view_offsets_.data(),
                                           MPI_BYTE, view.out()),
                  "MPI_Type_create_hindexed (view write)");
    check_mpi(MPI_Type_commit(view.ptr()), "MPI_Type_commit (view write)");
    io_->write_through_own_view(c.lo, view.get(), data, payload, n, c.hi);
}

} // namespace mpiio
