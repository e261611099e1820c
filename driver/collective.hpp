// Agreement on the outcome of a collective step, so that one rank's failure fails every rank
// instead of leaving the others waiting in the next collective call.
//
// Pattern used by every collective callback: each rank does its part and catches its own error
// (a rank whose local preparation failed still joins the collective MPI call with an empty
// request), then all ranks call agree(). On success that costs one MPI_Allreduce of one int.
#pragma once

#include "error.hpp"

#include <mpi.h>

#include <exception>
#include <optional>

namespace mpiio {

// Collective over `comm`. If any rank passed an error, every rank throws: the failing ranks their
// own error, the others an Error(OtherRank) quoting the lowest failing rank's message.
void agree(MPI_Comm comm, const std::optional<Error> &local_error);

// Runs `step` and converts anything it throws into an Error (local; never throws).
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

// capture() then agree(): the usual way to end a collective step.
template <class Step> void collectively(MPI_Comm comm, Step &&step) {
    agree(comm, capture(std::forward<Step>(step)));
}

} // namespace mpiio
