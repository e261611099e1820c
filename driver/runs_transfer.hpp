// A rank's part of a collective transfer given as sorted, merged byte runs (vector requests, and
// selections whose pieces cannot form one ascending file type).
#pragma once

#include "collective_transfer.hpp"

#include <vector>

namespace mpiio {

class RunsTransfer final : public RankTransfer {
public:
    explicit RunsTransfer(const std::vector<Run> &runs) : runs_(runs) {}
    std::pair<std::uint64_t, std::uint64_t> extent() const override {
        if (runs_.empty())
            return {0, 0};
        return {runs_.front().addr, runs_.back().addr + runs_.back().size};
    }
    bool contiguous_in_file() const override { return runs_.size() <= 1; }
    CollectiveRequest collective_request() override { return request_from_runs(runs_); }
    void move_independently(File *file, Direction dir, bool bridge_write_gaps) override {
        independent_runs(file, dir, runs_, bridge_write_gaps);
    }

private:
    const std::vector<Run> &runs_; // sorted by address, merged
};

} // namespace mpiio
