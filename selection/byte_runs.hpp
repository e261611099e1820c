// Selections -> byte runs: (file address, length, memory address) triples, the form every
// independent transfer and the driver's run-based collective fallback use. One path for scalar,
// vector, selection and chunk I/O: vectors are runs already, selections come through here.
#pragma once

#include "common/error.hpp"
#include "pairing.hpp"
#include "sequence_list.hpp"

#include <hdf5.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mpiio::selection {

struct ByteRun {
    std::uint64_t addr; // absolute file address
    std::size_t size;   // bytes, > 0
    char *buf;          // memory address
};

// One piece of a selection I/O request: a file selection at file address `addr` (a contiguous
// dataset or one chunk) paired with a memory selection in `buf`. mem_space may be H5S_ALL (the
// same selection as the file side) or H5S_BLOCK (a packed buffer of the selected elements).
struct SelectionPiece {
    hid_t file_space;
    hid_t mem_space;
    std::uint64_t addr;
    std::size_t element_size;
    char *buf;
};

// Local. The segments of one piece, file side in its selection order, read in batches of
// sequences (never the whole list at once: walking a large selection needs no memory of its
// size). Segments are not merged. Throws Error(Selection) when the two selections hold different
// numbers of elements or HDF5 describes one inconsistently: at construction for the counts, during
// for_each (possibly after some segments were emitted) for the sequences.
class PieceWalk {
public:
    explicit PieceWalk(const SelectionPiece &p)
        : piece_(p), file_info_(query_space(p.file_space, p.element_size)),
          file_(p.file_space, file_info_, p.element_size) {
        const hid_t mem_space = p.mem_space == H5S_ALL ? p.file_space : p.mem_space;
        if (mem_space == H5S_BLOCK)
            return;
        if (mem_space == p.file_space) // H5S_ALL: the same selection, asked once
            mem_.emplace(mem_space, file_info_, p.element_size);
        else
            mem_.emplace(mem_space, p.element_size);
        if (mem_->total_bytes() != file_.total_bytes())
            throw Error(ErrorKind::Selection, "the file selection holds " +
                                                  std::to_string(elements(file_.total_bytes())) +
                                                  " elements but the memory selection " +
                                                  std::to_string(elements(mem_->total_bytes())));
    }

    MPI_Count total_bytes() const { return file_.total_bytes(); }

    // Calls emit(file address, memory address, bytes) for each segment. Once only.
    template <class Emit> void for_each(Emit &&emit) {
        if (file_.total_bytes() == 0)
            return;
        pair_walk(file_, mem_ ? &*mem_ : nullptr, [&](MPI_Aint fd, MPI_Aint md, MPI_Count len) {
            emit(piece_.addr + static_cast<std::uint64_t>(fd), piece_.buf + md,
                 static_cast<std::size_t>(len));
        });
    }

private:
    MPI_Count elements(MPI_Count bytes) const { return bytes / static_cast<MPI_Count>(piece_.element_size); }

    SelectionPiece piece_;
    SpaceInfo file_info_;
    SequenceReader file_;
    std::optional<SequenceReader> mem_;
};

// Local. Appends one piece's runs, file side in its selection order, neighbours contiguous in
// both file and memory merged as they come. Clears `ordered` when a run starts before the end of
// the previous one (the list then needs sort_and_merge). Throws Error(Selection) when the two
// selections hold different numbers of elements or HDF5 describes one inconsistently (nothing has
// been transferred then).
void append_byte_runs(const SelectionPiece &piece, std::vector<ByteRun> &runs, bool &ordered);

// Local. Sorts runs by file address (stable) and merges runs adjacent in both file and memory.
void sort_and_merge(std::vector<ByteRun> &runs);

} // namespace mpiio::selection
