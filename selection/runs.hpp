// A list of byte runs (displacement, length): the explicit form of a selection, and the layout of
// an indexed TypeSpec. No HDF5 and no MPI calls: just the two arrays.
#pragma once

#include <mpi.h>

#include <cstddef>
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

// Adapts a run list to the next() interface of pair_walk (pairing.hpp).
class RunsReader {
public:
    explicit RunsReader(const Runs &runs, MPI_Aint base = 0) : runs_(runs), base_(base) {}
    bool next(MPI_Aint &disp, MPI_Count &len) {
        if (i_ == runs_.size())
            return false;
        disp = base_ + runs_.disp[i_];
        len = runs_.len[i_++];
        return true;
    }

private:
    const Runs &runs_;
    MPI_Aint base_;
    std::size_t i_ = 0;
};

} // namespace mpiio::selection
