// Agreement on the outcome of a collective step, so that one rank's failure fails every rank
// instead of leaving the others waiting in the next collective call (docs/decisions.md D10, D13).
//
// The pattern of every collective step: each rank does its local part and catches its own error
// (capture), a rank whose part failed still joins the collective MPI calls with an empty request,
// then all ranks agree. agree() costs one MPI_Allreduce of one word on success;
// allgather_agreeing() and allreduce_max_agreeing() fold the agreement into an exchange the step
// needs anyway (one MPI_Allgather or MPI_Allreduce), bcast_from_rank0_agreeing() into one
// MPI_Bcast where only rank 0 can fail. Only on failure does a broadcast of the first failing
// rank's message follow.
#pragma once

#include "common/error.hpp"

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <new>
#include <optional>
#include <span>
#include <vector>

namespace mpiio {

// Runs `step` and converts anything it throws into an Error. Local; never throws.
template <class Step> std::optional<Error> capture(Step &&step) noexcept {
    try {
        step();
        return std::nullopt;
    } catch (const Error &e) {
        return e;
    } catch (const std::bad_alloc &) {
        return Error(ErrorKind::Internal, "out of memory");
    } catch (const std::exception &e) {
        return Error(ErrorKind::Internal, e.what());
    } catch (...) {
        return Error(ErrorKind::Internal, "unknown exception");
    }
}

// Collective over `comm`. If any rank passed an error, every rank throws: the failing ranks
// their own error, the others Error(OtherRank) quoting the lowest failing rank's message.
void agree(MPI_Comm comm, const std::optional<Error> &local_error);

// capture() then agree(): the usual way to end a collective step. Collective.
template <class Step> void collectively(MPI_Comm comm, Step &&step) {
    agree(comm, capture(std::forward<Step>(step)));
}

// Collective over `comm`. Every rank contributes `mine` (the same number of words on every rank)
// and its local error, in one MPI_Allgather. On success `all` holds every rank's words, rank by
// rank; if any rank passed an error, every rank throws exactly as agree() does.
void allgather_agreeing(MPI_Comm comm, std::span<const std::int64_t> mine,
                        const std::optional<Error> &local_error, std::vector<std::int64_t> &all);

// Collective over `comm`, called by every rank once all know that rank `first` is the lowest
// failing one (from an exchange of their own that carried the failure): shares its message so
// every rank reports the real cause, then throws on every rank - the failing ranks their own
// error, the others Error(OtherRank).
[[noreturn]] void raise_agreed_failure(MPI_Comm comm, int first, const std::optional<Error> &local_error);

// Collective over `comm`. Every rank contributes `words` (the same number on every rank) and its
// local error, in one MPI_Allreduce; `words` becomes their element-wise maximum, filled in before
// any error is raised (so a caller catching the failure can still read them). If any rank passed
// an error, every rank throws exactly as agree() does.
void allreduce_max_agreeing(MPI_Comm comm, std::span<std::int64_t> words,
                            const std::optional<Error> &local_error);

// Collective over `comm`, for a step only rank 0 does (reading the file size, say): rank 0's
// `words` (the same number on every rank) reach every rank in one MPI_Bcast. If rank 0 passed an
// error, every rank throws: rank 0 its own, the others Error(OtherRank) quoting it. `rank0_error`
// is read on rank 0 only.
void bcast_from_rank0_agreeing(MPI_Comm comm, std::span<std::int64_t> words,
                               const std::optional<Error> &rank0_error);

} // namespace mpiio
