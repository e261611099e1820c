// A rank's part of a collective selection transfer: pieces (the datasets of H5Dwrite_multi, or
// the chunks of a chunked dataset) described by selection/'s datatypes for MPI collective I/O
// (regular hyperslabs as nested vectors, cached by shape), and moved on the independent route as
// one call when the file side is contiguous; as one sieved range whose selected bytes MPI's
// datatype engine packs or unpacks when the file side is dense enough; else as byte runs.
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
    // The file side is a derived type dense enough to sieve: the whole extent goes through one
    // buffer, the selected bytes are packed or unpacked by MPI's datatype engine.
    bool sieve_with_datatypes(Direction dir, bool bridge_write_gaps) const;
    void move_sieved(File *file, Direction dir);

    std::span<const selection::SelectionPiece> pieces_;
    FileState &st_;
    CollectiveRequest request_;
    bool runs_built_ = false; // st_.scratch.runs holds this transfer's runs
};

// Local. The runs of `pieces`, sorted by file address and merged, into `runs` (cleared first).
void selection_runs(std::span<const selection::SelectionPiece> pieces, std::vector<Run> &runs);

} // namespace mpiio
