// The aggregating route of a collective transfer (collective_engine.hpp, step 3; the plan:
// aggregation.hpp). Every rank sends its pieces of each window to the window's aggregator (a
// write) or receives them from it (a read) with MPI datatypes over its own memory, and each
// aggregator moves its window's bytes through the independent engine: long calls, holes between
// the ranks' pieces bridged where the cost model says so (no rank writes those holes in the
// transfer, and no other transfer runs meanwhile). An aggregator's failed call
// does not leave the others waiting: every rank goes through every round, and one agreement at
// the end fails the transfer on every rank. A deferred write (write_behind.hpp) keeps the windows
// in the aggregators' memory instead, and every rank a copy of its own part.
#include "collective/aggregation.hpp"
#include "collective/collective_engine.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace mpiio {
namespace {

// Local. One datatype over `groups` (aggregation.hpp): a block per single piece, an hvector per
// group of several, all placed by `place(group)` (block lengths fit an int: no piece is longer
// than a window). `memory_side`: the groups' memory strides, else their file strides (or, with
// `packed`, none: the pieces follow one another).
template <class Place>
Datatype groups_type(std::span<const aggregation::Group> groups, Place &&place, bool memory_side,
                     bool packed) {
    std::vector<int> lengths(groups.size());
    std::vector<MPI_Aint> displacements(groups.size());
    std::vector<MPI_Datatype> types(groups.size(), MPI_BYTE);
    std::vector<Datatype> vectors; // freed once the whole type holds them
    for (std::size_t i = 0; i < groups.size(); ++i) {
        const aggregation::Group &g = groups[i];
        displacements[i] = place(g);
        const auto stride =
            static_cast<MPI_Aint>(memory_side ? g.mem_stride : static_cast<std::int64_t>(g.stride));
        if (g.count == 1 || packed || stride == static_cast<MPI_Aint>(g.len)) {
            lengths[i] = static_cast<int>(g.count * g.len);
            continue;
        }
        vectors.emplace_back();
        check_mpi(MPI_Type_create_hvector(static_cast<int>(g.count), static_cast<int>(g.len), stride,
                                          MPI_BYTE, vectors.back().out()),
                  "MPI_Type_create_hvector (aggregation pieces)");
        lengths[i] = 1;
        types[i] = vectors.back().get();
    }
    Datatype type;
    check_mpi(MPI_Type_create_struct(static_cast<int>(groups.size()), lengths.data(), displacements.data(),
                                     types.data(), type.out()),
              "MPI_Type_create_struct (aggregation pieces)");
    check_mpi(MPI_Type_commit(type.ptr()), "MPI_Type_commit (aggregation pieces)");
    return type;
}

MPI_Aint absolute_address(const aggregation::Group &g) {
    MPI_Aint address = 0;
    check_mpi(MPI_Get_address(g.mem, &address), "MPI_Get_address");
    return address;
}

// The tag of the aggregating route's point-to-point data messages on the file's communicator (the
// library's own messages there use other tags; every message is received within its round).
constexpr int kDataTag = 0x6d70;

} // namespace

// Collective (MPI_Comm_split_type, a broadcast inside each node and one MPI_Allgather, on the
// file's first aggregated transfer). The aggregators: aggregation::aggregator_count of them,
// chosen over the nodes by aggregation::choose_aggregators (one per node by default, each node's
// lowest rank, as MPI-IO layers pick their own).
const std::vector<int> &CollectiveEngine::aggregators() {
    if (!aggregators_.empty())
        return aggregators_;
    Comm node;
    check_mpi(MPI_Comm_split_type(ctx_.comm, MPI_COMM_TYPE_SHARED, ctx_.rank, MPI_INFO_NULL, node.out()),
              "MPI_Comm_split_type (nodes)");
    int leader = ctx_.rank; // the node's lowest rank (node ranks follow the file's: the split's key)
    check_mpi(MPI_Bcast(&leader, 1, MPI_INT, 0, node.get()), "MPI_Bcast (node leader)");
    std::vector<int> node_of(static_cast<std::size_t>(ctx_.size));
    check_mpi(MPI_Allgather(&leader, 1, MPI_INT, node_of.data(), 1, MPI_INT, ctx_.comm),
              "MPI_Allgather (nodes)");
    ctx_.io->count_collective_call();
    std::vector<int> leaders(node_of);
    std::sort(leaders.begin(), leaders.end());
    nodes_ = static_cast<std::size_t>(std::unique(leaders.begin(), leaders.end()) - leaders.begin());
    const std::size_t count = aggregation::aggregator_count(nodes_, node_of.size(), ctx_.aggregators_asked,
                                                            ctx_.cb_nodes, ctx_.server_count);
    aggregators_ = aggregation::choose_aggregators(node_of, count);
    return aggregators_;
}

std::string CollectiveEngine::describe_aggregation() const {
    if (aggregators_.empty())
        return "not used";
    std::string ranks;
    for (std::size_t i = 0; i < aggregators_.size() && i < 8; ++i)
        ranks += (i ? ", " : "") + std::to_string(aggregators_[i]);
    if (aggregators_.size() > 8)
        ranks += ", ...";
    return std::to_string(aggregators_.size()) + " of " + std::to_string(nodes_) + " node(s) (ranks " +
           ranks + "), window " + bytes_text(ctx_.aggregation_window) +
           ", each window's owner fixed by its offset";
}

// Local to an aggregator (its receives of one write round, which every sender's MPI_Isend
// matches). Pieces of different ranks overlap (bytes several ranks write in one transfer, which MPI
// leaves undefined: the highest rank's are kept), so they cannot land in the window in one go: a
// batch of consecutive ranks at a time is received into a staging buffer of at most a window (or of
// one rank's pieces, when those alone are more), then copied into place in rank order. The window
// and the staging buffer are all the aggregator holds, whatever the ranks send.
template <class GroupsFrom>
void CollectiveEngine::receive_batches(char *window, std::uint64_t window_lo, std::uint64_t received,
                                       std::span<const int> recv_words, GroupsFrom &&groups_from) {
    const auto ranks = recv_words.size();
    auto bytes_of = [&](std::size_t r) {
        std::uint64_t n = 0;
        for (const aggregation::Group &g : groups_from(r))
            n += g.count * g.len;
        return n;
    };
    std::uint64_t largest = 0;
    for (std::size_t r = 0; r < ranks; ++r)
        if (recv_words[r] != 0)
            largest = std::max(largest, bytes_of(r));
    const std::uint64_t limit = std::max<std::uint64_t>(ctx_.aggregation_window, largest);
    staging_bytes_ = std::min(received, limit);
    char *stage = staging_.at_least(staging_bytes_);
    std::size_t r = 0;
    while (r < ranks) {
        const std::size_t first = r;
        std::uint64_t batch = 0;
        std::vector<Datatype> types;
        std::vector<MPI_Request> receives;
        for (; r < ranks; ++r) {
            if (recv_words[r] == 0)
                continue;
            const std::uint64_t n = bytes_of(r);
            if (batch != 0 && batch + n > limit)
                break;
            // a rank's pieces follow one another in the staging buffer, in the order they are sent
            MPI_Aint next = 0;
            auto packed = [&next](const aggregation::Group &g) {
                const MPI_Aint at = next;
                next += static_cast<MPI_Aint>(g.count * g.len);
                return at;
            };
            types.push_back(groups_type(groups_from(r), packed, false, true));
            receives.emplace_back();
            check_mpi(MPI_Irecv(stage + batch, 1, types.back().get(), static_cast<int>(r), kDataTag,
                                ctx_.comm, &receives.back()),
                      "MPI_Irecv (aggregation data, overlapping pieces)");
            batch += n;
        }
        check_mpi(MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE),
                  "MPI_Waitall (aggregation data, overlapping pieces)");
        const char *piece = stage;
        for (std::size_t q = first; q < r; ++q)
            for (const aggregation::Group &g : groups_from(q))
                for (std::uint64_t k = 0; k < g.count; ++k, piece += g.len)
                    std::memmove(window + (g.addr + k * g.stride - window_lo), piece, g.len);
    }
}

// Collective. Moves every rank's request through the aggregators, window by window.
void CollectiveEngine::aggregate_route(IoRequest &mine, Direction dir, std::uint64_t lo, std::uint64_t hi,
                                       haddr_t unwritten_from, const TransferShape &shape, bool defer) {
    MpiIo &io = *ctx_.io;
    const std::vector<int> &aggs = aggregators();
    const aggregation::Plan plan = aggregation::make_plan(lo, hi, aggs.size(), ctx_.aggregation_window);
    const bool aggregator = std::find(aggs.begin(), aggs.end(), ctx_.rank) != aggs.end();

    // The library's own memory datatype (selection I/O off; its file side is one range) has no
    // segments to walk: its bytes go through a packed copy, made and unpacked by MPI.
    const bool packed = mine.source() == IoRequest::Source::LibraryTypes && !mine.empty();
    const MemoryBuffer *memory = packed ? &mine.mpi().memory : nullptr;
    segments_.clear();
    if (packed) {
        char *stream = packed_.at_least(mine.bytes());
        if (dir == Direction::Write) {
            int position = 0;
            check_mpi(MPI_Pack(memory->base, memory->count, memory->type, stream,
                               static_cast<int>(mine.bytes()), &position, ctx_.comm),
                      "MPI_Pack (aggregation)");
        }
        segments_.push_back({static_cast<std::uint64_t>(mine.lo()), stream, mine.bytes()});
    } else {
        mine.for_each_segment([&](haddr_t addr, char *bytes, std::size_t len) {
            segments_.push_back({static_cast<std::uint64_t>(addr), bytes, static_cast<std::uint64_t>(len)});
        });
    }
    // Every rank's part of the library's collective metadata write is metadata (the transfer is
    // one callback on every rank), so the aggregator's own flag stands for the window's; an
    // aggregator with no part of its own cannot tell, and opens no handle of its own either.
    const bool metadata = mine.metadata() || mine.empty();
    aggregation::SegmentCursor cursor(segments_);
    const auto ranks = static_cast<std::size_t>(ctx_.size);
    std::vector<int> send_words(ranks), recv_words(ranks), send_word_at(ranks), recv_word_at(ranks);
    std::vector<int> zeros(ranks, 0);
    std::vector<MPI_Datatype> send_types(ranks, MPI_BYTE), recv_types(ranks, MPI_BYTE);
    std::vector<int> send_counts(ranks), recv_counts(ranks);
    std::optional<Error> error;
    if (dir == Direction::Write)
        window_cache_.clear(); // (what it writes replaces it, round by round)
    // A deferred write: this rank's copy of its own part (without the memory, it writes the part
    // itself after the agreement), and no kept window counted as this transfer's yet.
    const bool own_kept = defer && write_behind_.keep_own(segments_);
    if (defer)
        write_behind_.begin_transfer();

    for (std::uint64_t round = 0; round < plan.rounds; ++round) {
        // This rank's pieces of the round, grouped by aggregator (ascending: the cursor's order)
        // and, within each, by strides.
        std::vector<std::vector<aggregation::Group>> to(aggs.size());
        cursor.take_round(plan, round, [&](std::size_t owner, const aggregation::Segment &s) {
            aggregation::append_grouped(to[owner], s);
        });
        std::fill(send_words.begin(), send_words.end(), 0);
        staging_bytes_ = 0;
        std::vector<std::int64_t> send_desc;
        for (std::size_t a = 0; a < aggs.size(); ++a) {
            send_words[static_cast<std::size_t>(aggs[a])] =
                static_cast<int>(aggregation::kGroupWords * to[a].size());
            for (const aggregation::Group &g : to[a])
                send_desc.insert(send_desc.end(),
                                 {static_cast<std::int64_t>(g.addr), static_cast<std::int64_t>(g.len),
                                  static_cast<std::int64_t>(g.stride), static_cast<std::int64_t>(g.count)});
        }
        // Their descriptions, so that each aggregator knows where every byte goes.
        check_mpi(MPI_Alltoall(send_words.data(), 1, MPI_INT, recv_words.data(), 1, MPI_INT, ctx_.comm),
                  "MPI_Alltoall (aggregation piece counts)");
        int send_total = 0, recv_total = 0;
        for (std::size_t r = 0; r < ranks; ++r) {
            send_word_at[r] = send_total;
            recv_word_at[r] = recv_total;
            send_total += send_words[r];
            recv_total += recv_words[r];
        }
        std::vector<std::int64_t> recv_desc(static_cast<std::size_t>(recv_total));
        check_mpi(MPI_Alltoallv(send_desc.data(), send_words.data(), send_word_at.data(), MPI_INT64_T,
                                recv_desc.data(), recv_words.data(), recv_word_at.data(), MPI_INT64_T,
                                ctx_.comm),
                  "MPI_Alltoallv (aggregation pieces)");
        io.count_collective_call();
        io.count_collective_call();
        // The groups received, in rank order (rank r's start at recv_word_at[r] / kGroupWords).
        std::vector<aggregation::Group> from;
        for (std::size_t w = 0; w + aggregation::kGroupWords <= recv_desc.size();
             w += aggregation::kGroupWords)
            from.push_back({static_cast<std::uint64_t>(recv_desc[w]),
                            static_cast<std::uint64_t>(recv_desc[w + 1]),
                            static_cast<std::uint64_t>(recv_desc[w + 2]),
                            static_cast<std::uint64_t>(recv_desc[w + 3]), nullptr, 0});

        // The aggregator's window: the span of the pieces it received, in its own buffer. Pieces
        // of different ranks that overlap (a write of the same bytes by two ranks, which MPI
        // leaves undefined) may not land in one receive buffer: they are received one after the
        // other behind the window and copied into it in rank order, the highest rank's last.
        std::uint64_t window_lo = UINT64_MAX, window_hi = 0, received = 0, covered = 0;
        for (const aggregation::Group &g : from) {
            window_lo = std::min(window_lo, g.addr);
            window_hi = std::max(window_hi, g.end());
            received += g.count * g.len;
        }
        const std::vector<aggregation::Range> ranges = aggregation::merge_pieces(from);
        for (const aggregation::Range &range : ranges)
            covered += range.hi - range.lo;
        const bool reorder = dir == Direction::Write && received > covered;
        const std::uint64_t span = received == 0 ? 0 : window_hi - window_lo;
        char *window = received == 0 ? nullptr : window_.at_least(span);

        // Datatypes: this rank's memory for each aggregator it sends to (absolute addresses, from
        // MPI_BOTTOM), and the window's places for each rank it receives from.
        std::vector<Datatype> owned;
        std::fill(send_counts.begin(), send_counts.end(), 0);
        std::fill(recv_counts.begin(), recv_counts.end(), 0);
        std::fill(send_types.begin(), send_types.end(), MPI_BYTE);
        std::fill(recv_types.begin(), recv_types.end(), MPI_BYTE);
        for (std::size_t a = 0; a < aggs.size(); ++a) {
            if (to[a].empty())
                continue;
            owned.push_back(groups_type(to[a], absolute_address, true, false));
            send_types[static_cast<std::size_t>(aggs[a])] = owned.back().get();
            send_counts[static_cast<std::size_t>(aggs[a])] = 1;
        }
        auto groups_from = [&](std::size_t r) {
            return std::span<const aggregation::Group>(
                from.data() + recv_word_at[r] / aggregation::kGroupWords,
                static_cast<std::size_t>(recv_words[r]) / aggregation::kGroupWords);
        };
        auto in_window = [&](const aggregation::Group &g) {
            return static_cast<MPI_Aint>(g.addr - window_lo);
        };
        for (std::size_t r = 0; r < ranks && !reorder; ++r) { // (reordered rounds: receive_batches)
            if (recv_words[r] == 0)
                continue;
            owned.push_back(groups_type(groups_from(r), in_window, false, false));
            recv_types[r] = owned.back().get();
            recv_counts[r] = 1;
        }

        // The window's bytes as runs of the independent engine (touching pieces merged).
        runs_.clear();
        for (const aggregation::Range &range : ranges)
            runs_.push_back(Run{range.lo, static_cast<std::size_t>(range.hi - range.lo),
                                window + (range.lo - window_lo)});
        auto move_window = [&] {
            if (!aggregator || error || runs_.empty())
                return;
            io.count_aggregator_window();
            if (dir == Direction::Read && write_behind_.active()) { // (a read of the deferred bytes)
                if (write_behind_.serve(round, runs_)) {
                    io.count_cached_read(covered);
                    return;
                }
                // (then read back like any bytes; no rank wrote since: transfer() checked)
                error = write_all_windows(WriteOut{{}, {}, unwritten_from});
                if (error)
                    return;
            }
            if (dir == Direction::Read && window_cache_.serve(runs_)) {
                io.count_cached_read(covered);
                return;
            }
            if (defer) {
                bool kept = false;
                std::optional<Error> e = capture([&] {
                    std::vector<std::size_t> ranks_from(ranks + 1, from.size());
                    for (std::size_t r = 0; r < ranks; ++r)
                        ranks_from[r] = static_cast<std::size_t>(recv_word_at[r]) / aggregation::kGroupWords;
                    kept = keep_deferred_window(round, window_lo, window, span, from, ranges, ranks_from,
                                                unwritten_from, error);
                });
                if (!error)
                    error = std::move(e);
                if (kept || error)
                    return;
            }
            IoRequest request = IoRequest::runs(runs_);
            request.mark_metadata(metadata); // (no handle of its own for metadata: as for the ranks)
            error = capture([&] { ctx_.independent->move(request, dir, true, unwritten_from); });
            if (!error)
                window_cache_.keep(runs_);
        };
        if (dir == Direction::Write) {
            // Point to point: every rank sends its pieces for each aggregator from its own memory;
            // an aggregator receives every rank's into the window at their places, or, when pieces
            // of different ranks overlap, a batch of ranks at a time through a staging buffer
            // (receive_batches), so that it never holds more than two windows.
            std::vector<MPI_Request> sends;
            for (std::size_t a = 0; a < aggs.size(); ++a) {
                const auto to_rank = static_cast<std::size_t>(aggs[a]);
                if (send_counts[to_rank] == 0)
                    continue;
                sends.emplace_back();
                check_mpi(MPI_Isend(MPI_BOTTOM, 1, send_types[to_rank], aggs[a], kDataTag, ctx_.comm,
                                    &sends.back()),
                          "MPI_Isend (aggregation data)");
            }
            if (reorder) {
                receive_batches(window, window_lo, received, recv_words, groups_from);
            } else if (received > 0) {
                std::vector<MPI_Request> receives;
                for (std::size_t r = 0; r < ranks; ++r) {
                    if (recv_counts[r] == 0)
                        continue;
                    receives.emplace_back();
                    check_mpi(MPI_Irecv(window, 1, recv_types[r], static_cast<int>(r), kDataTag, ctx_.comm,
                                        &receives.back()),
                              "MPI_Irecv (aggregation data)");
                }
                check_mpi(
                    MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE),
                    "MPI_Waitall (aggregation data received)");
            }
            check_mpi(MPI_Waitall(static_cast<int>(sends.size()), sends.data(), MPI_STATUSES_IGNORE),
                      "MPI_Waitall (aggregation data sent)");
            io.note_aggregation_buffer(span + staging_bytes_);
            move_window();
        } else {
            move_window();
            // Reversed: the window's places go out, this rank's memory takes them in.
            check_mpi(MPI_Alltoallw(window, recv_counts.data(), zeros.data(), recv_types.data(), MPI_BOTTOM,
                                    send_counts.data(), zeros.data(), send_types.data(), ctx_.comm),
                      "MPI_Alltoallw (aggregation data)");
        }
        io.count_collective_call();
    }

    if (defer) {
        finish_deferred(aggregator, unwritten_from, error);
        write_behind_.start(shape); // (every rank, failed or not: the same state everywhere)
    } else if (dir == Direction::Write) {
        sync_after_collective_write(error);
    }
    if (error)
        window_cache_.clear();    // (a round it kept may hold bytes a later failed round changed)
    changes_seen_ = io.changes(); // (its own writes and sync are what it kept)
    agree(ctx_.comm, error);      // every rank fails together: none waits for another's next call
    io.count_collective_call();
    // Agreed, so the same on every rank (whatever fails locally below): only a rewrite of these
    // bytes right after them is deferred.
    if (dir == Direction::Read || defer)
        previous_ = shape;
    if (defer && !own_kept)
        write_own_part_without_copy();
    if (dir == Direction::Write && !mine.empty()) {
        io.set_eof(std::max(io.eof(), mine.end()));
    } else if (dir == Direction::Read) {
        if (packed) {
            int position = 0;
            check_mpi(MPI_Unpack(segments_.front().mem, static_cast<int>(mine.bytes()), &position,
                                 memory->base, memory->count, memory->type, ctx_.comm),
                      "MPI_Unpack (aggregation)");
        }
        mine.copy_duplicates(!ctx_.host_copies);
    }
    packed_.release_above(ctx_.aggregation_window);  // (a whole transfer's copy is not kept)
    staging_.release_above(ctx_.aggregation_window); // (nor one rank's pieces larger than a window)
}

} // namespace mpiio
