// How HDF5 pairs a file selection with a memory selection: the i-th selected byte of the file
// side goes with the i-th selected byte of the memory side, each side in its own selection order.
// This one walk is used by every path that needs explicit byte pairs (the byte runs of the
// driver's independent transfers and of its run-based collective fallback, and the sorted pairs
// behind point selections given out of order).
#pragma once

#include "common/error.hpp"

#include <mpi.h>

#include <algorithm>

namespace mpiio::selection {

// Local. Reads `file` and `mem` side by side (both have bool next(MPI_Aint &disp, MPI_Count &len))
// and calls emit(file_disp, mem_disp, length) for every segment that lies inside one sequence of
// each side, in file-selection order. With `mem` null the memory side is the contiguous bytes
// from 0 (a packed buffer). Throws Error(Selection) when the two sides hold different numbers of
// bytes.
template <class FileSource, class MemSource, class Emit>
void pair_walk(FileSource &file, MemSource *mem, Emit &&emit) {
    MPI_Aint fd = 0, md = 0, packed_next = 0;
    MPI_Count fl = 0, ml = 0;
    while (true) {
        if (fl == 0 && !file.next(fd, fl))
            break;
        if (ml == 0) {
            if (mem == nullptr) {
                md = packed_next;
                ml = fl;
                packed_next += static_cast<MPI_Aint>(fl);
            } else if (!mem->next(md, ml)) {
                throw Error(ErrorKind::Selection,
                            "the memory selection holds fewer elements than the file selection");
            }
        }
        const MPI_Count take = std::min(fl, ml);
        emit(fd, md, take);
        fd += static_cast<MPI_Aint>(take);
        md += static_cast<MPI_Aint>(take);
        fl -= take;
        ml -= take;
    }
    MPI_Aint extra_d = 0;
    MPI_Count extra_l = 0;
    if (ml != 0 || (mem != nullptr && mem->next(extra_d, extra_l)))
        throw Error(ErrorKind::Selection, "the memory selection holds more elements than the file selection");
}

} // namespace mpiio::selection
