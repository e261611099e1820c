// A sparse exchange of word lists: each rank sends a message to the few ranks it has something for
// and learns who sent it what, without any array indexed by rank. It is how the aggregating route
// tells each aggregator, once per transfer, which pieces of which windows each rank holds: a rank
// sends one message per aggregator it has bytes for, an aggregator receives one per such rank,
// and the whole costs one MPI_Ibarrier (a non-blocking consensus: synchronous sends, probes for
// what arrives, and a barrier each rank enters once all its sends were received; when the barrier
// completes, every message has arrived).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <span>
#include <vector>

namespace mpiio {

struct WordMessage {
    int rank = 0; // the destination (outgoing) or the source (received)
    std::vector<std::int64_t> words;
};

// Collective over `comm` (every rank calls it, with its own messages, possibly none). Sends every
// message of `outgoing` (at most one per destination) and returns the messages this rank received,
// by ascending source rank. `tag` must be one no other message on `comm` uses while the exchange
// runs. Messages of the next exchange cannot be taken for this one's as long as a collective call
// on `comm` separates the two (the aggregating route's route summary does).
std::vector<WordMessage> sparse_exchange(MPI_Comm comm, std::span<const WordMessage> outgoing, int tag);

} // namespace mpiio
