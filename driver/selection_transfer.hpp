// A rank's part of a collective selection transfer: pieces (the datasets of H5Dwrite_multi, or
// the chunks of a chunked dataset) described by selection/'s datatypes for MPI collective I/O
// (regular hyperslabs as nested vectors, cached by shape), and moved on the independent route as
// one call when the file side is contiguous; as one sieved range when the file side is dense
// enough, whose selected bytes MPI's datatype engine packs or unpacks when the file or memory
// type's blocks are short, and memcpy copies run by run when they are not (kRunCopyMinBlock);
// else as byte runs.
// Pieces that cannot form one ascending file type (overlapping pieces, points named twice) use
// byte runs on both routes.
#pragma once

#include "collective_transfer.hpp"

#include <span>

namespace mpiio {

// Mean bytes per block (of the file type or the memory type, whichever has more blocks, counted
// before MPI merges any) from which a sieved range's bytes are copied run by run with memcpy
// rather than by MPI_Pack/MPI_Unpack. MPICH 4.0's datatype engine copies blocks of MPI_BYTE a byte
// at a time: 125 us against memcpy's 13 us for 256 KiB in 128-byte blocks (941 against 81 us in
// 1 KiB blocks), which made MPICH's strided1d/coll read 0.85x the built-in driver. Open MPI's
// engine runs at memcpy's speed there. Shorter blocks stay with the engine: for 2048 blocks of 4
// bytes it takes 6-10 us, a memcpy per run 8-9 us before the runs are even built.
inline constexpr std::uint64_t kRunCopyMinBlock = 64;

class SelectionTransfer final : public RankTransfer {
public:
    // Local. Builds the datatypes (or the runs); throws Error(Selection) for selections HDF5
    // describes inconsistently, before any byte moves.
    SelectionTransfer(std::span<const selection::SelectionPiece> pieces, FileState &st);

    std::pair<std::uint64_t, std::uint64_t> extent() const override;
    bool contiguous_in_file() const override { return request_.file_contiguous; }
    CollectiveRequest collective_request() override { return request_; }
    void move_independently(File *file, Direction dir, bool bridge_write_gaps) override;

private:
    void build_runs();
    // The file side is a derived type dense enough to sieve: the whole extent goes through one
    // buffer (the staging buffer; window by window through it when larger and of long runs),
    // the selected bytes are packed or unpacked by MPI's datatype engine, or copied run by run
    // (kRunCopyMinBlock).
    bool sieve_with_datatypes(Direction dir, bool bridge_write_gaps) const;
    void move_sieved(File *file, Direction dir);
    void move_sieved_in_windows(File *file, Direction dir);
    // Local. The selected bytes between the sieve buffer (holding the file from the request's
    // first byte) and the caller's memory, by MPI_Pack/MPI_Unpack of the request's types.
    void copy_with_datatypes(char *buffer, Direction dir);

    std::span<const selection::SelectionPiece> pieces_;
    FileState &st_;
    CollectiveRequest request_;
    std::uint64_t copy_blocks_ = 0; // blocks of the file or memory type, whichever has more
    bool runs_built_ = false;       // st_.scratch.runs holds this transfer's runs
};

// Local. The runs of `pieces`, sorted by file address and merged, into `runs` (cleared first).
void selection_runs(std::span<const selection::SelectionPiece> pieces, std::vector<Run> &runs);

} // namespace mpiio
