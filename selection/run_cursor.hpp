// The runs of one TypeSpec, enumerated in its type-map order without MPI or HDF5: contiguous
// bytes, the odometer of a regular hyperslab's levels, or the explicit run list of an indexed
// type. The driver's independent transfers walk selections this way (an HDF5 selection iterator
// costs about 4,000 instructions to create and close per piece; this costs nothing to start).
#pragma once

#include "common/error.hpp"
#include "type_spec.hpp"

#include <array>

namespace mpiio::selection {

class RunCursor {
public:
    // `base` is added to every displacement (on top of spec.offset). Local. Throws
    // Error(Internal) for a combined (struct) type, which has no layout of its own.
    RunCursor(const TypeSpec &spec, MPI_Aint base) : spec_(spec), base_(base + spec.offset) {
        if (spec.bytes > 0 && spec.shape != TypeShape::Contiguous && !spec.layout)
            throw Error(ErrorKind::Internal, "RunCursor: a type without a run layout");
        if (spec.layout && spec.layout->runs.empty()) {
            const auto &levels = spec.layout->levels;
            if (levels.size() > index_.size())
                throw Error(ErrorKind::Unsupported, "RunCursor: more than 64 hyperslab levels");
        }
    }

    // The next run; false after the last. Local.
    bool next(MPI_Aint &disp, MPI_Count &len) {
        if (done_ || spec_.bytes == 0)
            return false;
        if (!spec_.layout) { // contiguous
            done_ = true;
            disp = base_;
            len = spec_.bytes;
            return true;
        }
        const RunLayout &layout = *spec_.layout;
        if (!layout.runs.empty()) {
            if (i_ == layout.runs.size())
                return false;
            disp = base_ + layout.runs.disp[i_];
            len = layout.runs.len[i_++];
            done_ = i_ == layout.runs.size();
            return true;
        }
        disp = base_ + position_;
        len = layout.inner_bytes;
        advance(layout);
        return true;
    }

private:
    // The odometer: the innermost level that has not reached its count moves one stride on, the
    // levels inside it start over.
    void advance(const RunLayout &layout) {
        for (std::size_t k = 0; k < layout.levels.size(); ++k) {
            const auto [count, stride] = layout.levels[k];
            if (++index_[k] < count) {
                position_ += stride;
                return;
            }
            position_ -= static_cast<MPI_Aint>(count - 1) * stride;
            index_[k] = 0;
        }
        done_ = true;
    }

    const TypeSpec &spec_;
    MPI_Aint base_;
    MPI_Aint position_ = 0;
    std::array<MPI_Count, 64> index_{};
    std::size_t i_ = 0;
    bool done_ = false;
};

} // namespace mpiio::selection
