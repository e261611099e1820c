// Writes that fail where no agreement follows (independent MPI calls, including the independent
// route of a collective transfer, which has no collective call after its exchange): the failing
// rank reports the error at once, and remembers it; every rank then fails the file's next
// collective step (the next collective transfer's exchange, flush, truncate or close) with it. So
// a lost write is never silent on the ranks that did not see it, without an extra collective call
// on the fast path; the same way POSIX reports write-back errors at fsync and close.
#pragma once

#include "common/agreement.hpp"
#include "file.hpp"

#include <optional>
#include <utility>

namespace mpiio {

// Local. Runs one write step; if it throws, remembers the (first) error and rethrows it.
template <class Step> void remembering_failed_write(FileState &st, Step &&step) {
    std::optional<Error> error = capture(std::forward<Step>(step));
    if (!error)
        return;
    if (!st.failed_write)
        st.failed_write = *error;
    throw *error;
}

// Local. The error this rank brings into a collective agreement: its own `local` error, else an
// earlier failed write (consumed: it is reported once).
inline std::optional<Error> with_failed_write(FileState &st, std::optional<Error> local) {
    if (local || !st.failed_write)
        return local;
    Error earlier(st.failed_write->kind(),
                  std::string("an earlier write on this rank failed, so the file may lack data: ") +
                      st.failed_write->what(),
                  st.failed_write->where());
    st.failed_write.reset();
    return earlier;
}

} // namespace mpiio
