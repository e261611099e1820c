// A rank's part of a collective selection transfer: pieces (the datasets of H5Dwrite_multi, or
// the chunks of a chunked dataset) described by selection/'s datatypes for MPI collective I/O
// (regular hyperslabs as nested vectors, cached by shape), and moved on the independent route as
// one call when the file side is contiguous, else as byte runs through the staging buffer.
// Pieces that cannot form one ascending file type (overlapping pieces, points named twice) use
// byte runs on both routes.
#pragma once

#include "collective_transfer.hpp"

#include <span>

namespace mpiio {

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

    std::span<const selection::SelectionPiece> pieces_;
    FileState &st_;
    CollectiveRequest request_;
    bool runs_built_ = false; // st_.scratch.runs holds this transfer's runs
};

// Local. The runs of `pieces`, sorted by file address and merged, into `runs` (cleared first).
void selection_runs(std::span<const selection::SelectionPiece> pieces, std::vector<Run> &runs);

} // namespace mpiio
