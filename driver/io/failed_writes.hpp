// Writes that fail where no agreement follows (independent calls, including a collective
// transfer's independent route, which has no collective call after its exchange): the failing
// rank reports the error at once and remembers it; every rank then fails the file's next
// collective step (the next collective transfer's exchange, flush, truncate or close) with it. So a
// lost write is never silent on the ranks that did not see it, without an extra collective call on
// the fast path - the way POSIX reports write-back errors at fsync and close. The one channel for
// deferred write errors.
#pragma once

#include "common/agreement.hpp"

#include <optional>
#include <utility>

namespace mpiio {

class FailedWrites {
public:
    // Local. Runs one write step; if it throws, remembers the (first) error and rethrows it.
    template <class Step> void run(Step &&step) {
        std::optional<Error> error = capture(std::forward<Step>(step));
        if (!error)
            return;
        remember(*error);
        throw *error;
    }

    // Local. Remembers `error` unless an earlier one is still unreported.
    void remember(const Error &error) {
        if (!first_)
            first_ = error;
    }

    // Local. The error this rank brings into a collective agreement: its own `local` error, else an
    // earlier failed write (consumed: it is reported once).
    std::optional<Error> with(std::optional<Error> local) {
        if (local || !first_)
            return local;
        Error earlier(first_->kind(),
                      std::string("an earlier write on this rank failed, so the file may lack data: ") +
                          first_->what(),
                      first_->where());
        first_.reset();
        return earlier;
    }

private:
    std::optional<Error> first_;
};

} // namespace mpiio
