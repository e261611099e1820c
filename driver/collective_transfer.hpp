// Collective transfers: every rank calls once per operation (possibly with nothing to move), and
// the operation chooses its route (ARCHITECTURE.md D12):
//
//   1. describe (local): each rank's file range, whether it is contiguous, whether its bytes can
//      move with independent calls, and its local error (a failed preparation, or an earlier
//      failed write: failed_writes.hpp);
//   2. exchange (collective): one MPI_Allgather of those words, which is also the error
//      agreement: if any rank failed, every rank throws here, before any byte moves;
//   3. decide (local, identical everywhere): route::decide;
//   4. move: independent route - each rank moves its own bytes with independent calls (reads
//      sieved through the staging buffer, window by window when larger; writes read back the
//      holes inside the rank's own range only when no two ranges overlap, the assumption MPI-IO's
//      two-phase write makes about holes inside an aggregator's domain), no further collective
//      call; MPI route - the file extended to the EOA when it grew (holes then read as zeros),
//      one MPI_File_{read,write}_at_all with the byte view when every rank is contiguous, else
//      set_view + *_all + view reset.
//
// An error while moving fails this rank at once; for writes it also fails every rank's next
// collective step on the file (failed_writes.hpp).
#pragma once

#include "collective_request.hpp"
#include "file.hpp"

#include <cstdint>
#include <optional>

namespace mpiio {

// One rank's part of a collective transfer, in the forms both routes need.
class RankTransfer {
public:
    virtual ~RankTransfer() = default;
    // [lo, hi) of the file bytes this rank touches; lo == hi when it touches none. Local.
    virtual std::pair<std::uint64_t, std::uint64_t> extent() const = 0;
    // The file side is one contiguous range. Local.
    virtual bool contiguous_in_file() const = 0;
    // The bytes can move with independent calls (false only when the file side needs a view).
    virtual bool movable_independently() const { return true; }
    // The MPI collective description. Local; may throw.
    virtual CollectiveRequest collective_request() = 0;
    // Moves the bytes with independent calls. `bridge_write_gaps`: no other rank writes inside
    // this rank's range in this operation. Local; may throw.
    virtual void move_independently(File *file, Direction dir, bool bridge_write_gaps) = 0;
};

// Collective. `mine` is this rank's part (null, or ignored, when `prep_error` says its
// preparation failed: the rank then joins with nothing and every rank fails).
void collective_transfer(File *file, Direction dir, RankTransfer *mine, std::optional<Error> prep_error);

} // namespace mpiio
