// Runs a collective chunk I/O decision: gathers exactly the global facts the knobs need, decides
// (decision.hpp), and drives a Transport so that every rank makes the same sequence of
// collective calls. Collective over `comm`.
#pragma once

#include "decision.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <exception>
#include <span>
#include <vector>

namespace mpiio::chunkio {

// How the plan reaches the file. Indices refer to this rank's pieces (local_addresses).
class Transport {
public:
    virtual ~Transport() = default;
    // Collective: one collective transfer of the given local pieces (possibly none). Every rank
    // calls it the same number of times; it must agree on errors itself.
    virtual void collective(std::span<const std::size_t> pieces) = 0;
    // Collective: the same for all local pieces (linked-chunk I/O).
    virtual void collective_all() = 0;
    // Local: an independent transfer of the given local pieces.
    virtual void independent(std::span<const std::size_t> pieces) = 0;
};

// What was done, identical on every rank.
struct Report {
    Plan::Kind kind = Plan::Kind::Linked;
    std::uint64_t collective_chunks = 0;  // chunks written/read collectively (multi-chunk)
    std::uint64_t independent_chunks = 0; // chunks done independently (multi-chunk)
    std::uint64_t collective_calls = 0;   // collective transfers issued
};

// local_addresses: this rank's pieces, sorted ascending, unique. local_failure: an error this rank
// already has (it then joins every collective step with no pieces, and rethrows it at the end;
// the other ranks fail too, with an Error(OtherRank)).
Report execute(MPI_Comm comm, const Knobs &knobs, const std::vector<std::uint64_t> &local_addresses,
               Transport &transport, std::exception_ptr local_failure = nullptr);

} // namespace mpiio::chunkio
