// The aggregating route of a collective transfer (collective_engine.hpp, step 3; the plan:
// aggregation.hpp). Every rank sends its pieces of each window to the window's aggregator (a
// write) or receives them from it (a read) with MPI datatypes over its own memory, and each
// aggregator moves its window's bytes through the independent engine: long calls, holes between
// the ranks' pieces bridged where the cost model says so (no rank writes those holes in the
// transfer, and no other transfer runs meanwhile). An aggregator's failed call
// does not leave the others waiting: every rank goes through every round, and one agreement at
// the end fails the transfer on every rank. A deferred write (write_behind.hpp) keeps the windows
// in the aggregators' memory instead, and every rank a copy of its own part.
#include "aggregate/aggregation.hpp"
#include "aggregate/sparse_exchange.hpp"
#include "collective/collective_engine.hpp"
#include "settings/config.hpp"

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

// The tags of the aggregating route's point-to-point messages on the file's communicator: the
// pieces' descriptions (sparse_exchange.hpp) and the bytes (the library's own messages there use
// other tags; every message of a transfer is received before its closing agreement).
constexpr int kDataTag = 0x6d70, kPiecesTag = 0x6d71;

} // namespace

// Collective (one MPI_Allgather of a word per rank, on the file's first aggregated transfer). The
// aggregators: aggregation::aggregator_count of them, chosen over the hosts by
// aggregation::choose_aggregators (one per host by default, each host's lowest rank, as ROMIO picks
// its own). Hosts are told apart by MPI's processor name, as ROMIO does, not by
// MPI_COMM_TYPE_SHARED: MPICH 5.0 (Debian unstable) makes every rank a node of its own there,
// which would make every rank a writer of every stripe. (The names are hashed to 64 bits: two
// hosts share an aggregator only if their names collide, about 1 in 10^11 at 10^4 hosts.)
const std::vector<int> &CollectiveEngine::aggregators() {
    if (!aggregators_.empty())
        return aggregators_;
    char name[MPI_MAX_PROCESSOR_NAME] = {};
    int length = 0;
    // (A failure names no host rather than throwing before the gather the other ranks are in.)
    if (MPI_Get_processor_name(name, &length) != MPI_SUCCESS)
        length = 0;
    const auto named = static_cast<std::size_t>(std::clamp(length, 0, MPI_MAX_PROCESSOR_NAME));
    const std::uint64_t mine = fnv1a(std::string(name, named));
    std::vector<std::uint64_t> host_keys(static_cast<std::size_t>(ctx_.size));
    check_mpi(MPI_Allgather(&mine, 1, MPI_UINT64_T, host_keys.data(), 1, MPI_UINT64_T, ctx_.comm),
              "MPI_Allgather (hosts)");
    ctx_.io->count_collective_call();
    const std::vector<int> node_of = aggregation::node_leaders(host_keys);
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

// Local to an aggregator (its receives of one write window, which every sender's MPI_Isend
// matches). Pieces of different ranks overlap (bytes several ranks write in one transfer, which MPI
// leaves undefined: the highest rank's are kept), so they cannot land in the window in one go: a
// batch of consecutive senders at a time is received into a staging buffer of at most a window (or
// of one rank's pieces, when those alone are more), then copied into place in rank order. The
// window and the staging buffer are all the aggregator holds, whatever the ranks send.
void CollectiveEngine::receive_batches(char *window, std::uint64_t window_lo, std::uint64_t received,
                                       const aggregation::WindowPieces &pieces) {
    using Sender = aggregation::WindowPieces::Sender;
    auto bytes_of = [&](const Sender &s) {
        std::uint64_t n = 0;
        for (const aggregation::Group &g : pieces.groups_of(s))
            n += g.count * g.len;
        return n;
    };
    std::uint64_t largest = 0;
    for (const Sender &s : pieces.senders)
        largest = std::max(largest, bytes_of(s));
    const std::uint64_t limit = std::max<std::uint64_t>(ctx_.aggregation_window, largest);
    staging_bytes_ = std::min(received, limit);
    char *stage = staging_.at_least(staging_bytes_);
    std::size_t i = 0;
    while (i < pieces.senders.size()) {
        const std::size_t first = i;
        std::uint64_t batch = 0;
        std::vector<Datatype> types;
        std::vector<MPI_Request> receives;
        for (; i < pieces.senders.size(); ++i) {
            const Sender &s = pieces.senders[i];
            const std::uint64_t n = bytes_of(s);
            if (batch != 0 && batch + n > limit)
                break;
            // a rank's pieces follow one another in the staging buffer, in the order they are sent
            MPI_Aint next = 0;
            auto packed = [&next](const aggregation::Group &g) {
                const MPI_Aint at = next;
                next += static_cast<MPI_Aint>(g.count * g.len);
                return at;
            };
            types.push_back(groups_type(pieces.groups_of(s), packed, false, true));
            receives.emplace_back();
            check_mpi(MPI_Irecv(stage + batch, 1, types.back().get(), s.rank, kDataTag, ctx_.comm,
                                &receives.back()),
                      "MPI_Irecv (aggregation data, overlapping pieces)");
            batch += n;
        }
        check_mpi(MPI_Waitall(static_cast<int>(receives.size()), receives.data(), MPI_STATUSES_IGNORE),
                  "MPI_Waitall (aggregation data, overlapping pieces)");
        const char *piece = stage;
        for (std::size_t q = first; q < i; ++q)
            for (const aggregation::Group &g : pieces.groups_of(pieces.senders[q]))
                for (std::uint64_t k = 0; k < g.count; ++k, piece += g.len)
                    std::memmove(window + (g.addr + k * g.stride - window_lo), piece, g.len);
    }
}

// Collective. Moves every rank's request through the aggregators, window by window:
//   1. each rank cuts its segments into the windows it has bytes in (aggregation::cut_into_batches)
//      and tells each aggregator it has bytes for, once, which pieces of which windows
//      (sparse_exchange: one message per such aggregator and one barrier, nothing per rank count);
//   2. it posts its side of the bytes at once, from or into its own memory: a write's MPI_Isend
//      per window, a read's MPI_Irecv per window;
//   3. each aggregator takes its windows in file order (those no rank has a byte of never come
//      up): receives the window's pieces, writes it; or reads it and sends the pieces back;
//   4. every rank waits for its own side, then one agreement.
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
    std::optional<Error> error;
    if (dir == Direction::Write)
        window_cache_.clear(); // (what it writes replaces it, window by window)
    // A deferred write: this rank's copy of its own part (without the memory, it writes the part
    // itself after the agreement), and no kept window counted as this transfer's yet.
    const bool own_kept = defer && write_behind_.keep_own(segments_);
    if (defer)
        write_behind_.begin_transfer();

    // 1. This rank's pieces by window, and what each aggregator learns of them.
    const std::vector<aggregation::Batch> batches = aggregation::cut_into_batches(plan, segments_);
    std::vector<WordMessage> outgoing;
    {
        std::vector<std::vector<std::int64_t>> words(aggs.size());
        for (const aggregation::Batch &b : batches)
            aggregation::describe_batch(b, words[b.aggregator]);
        for (std::size_t a = 0; a < aggs.size(); ++a)
            if (!words[a].empty())
                outgoing.push_back({aggs[a], std::move(words[a])});
    }
    const std::vector<WordMessage> incoming = sparse_exchange(ctx_.comm, outgoing, kPiecesTag);
    io.count_collective_call(); // (its barrier)
    std::vector<aggregation::WindowPieces> windows;
    if (aggregator) {
        std::vector<aggregation::SenderWords> senders;
        for (const WordMessage &m : incoming)
            senders.push_back({m.rank, m.words});
        windows = aggregation::windows_from(senders);
    }

    // 2. This rank's side of the bytes, from or into its own memory (absolute addresses, from
    // MPI_BOTTOM), a message per window in file order: the order its aggregator takes them in.
    std::vector<Datatype> own_types;
    std::vector<MPI_Request> own_requests(batches.size(), MPI_REQUEST_NULL);
    own_types.reserve(batches.size());
    for (std::size_t i = 0; i < batches.size(); ++i) {
        own_types.push_back(groups_type(batches[i].groups, absolute_address, true, false));
        const int to = aggs[batches[i].aggregator];
        if (dir == Direction::Write)
            check_mpi(
                MPI_Isend(MPI_BOTTOM, 1, own_types.back().get(), to, kDataTag, ctx_.comm, &own_requests[i]),
                "MPI_Isend (aggregation data)");
        else
            check_mpi(
                MPI_Irecv(MPI_BOTTOM, 1, own_types.back().get(), to, kDataTag, ctx_.comm, &own_requests[i]),
                "MPI_Irecv (aggregation data)");
    }

    // 3. The aggregator's windows.
    for (const aggregation::WindowPieces &pieces : windows) {
        const std::vector<aggregation::Group> &from = pieces.groups;
        // The window: the span of the pieces received, in the aggregator's own buffer. Pieces of
        // different ranks that overlap (a write of the same bytes by two ranks, which MPI leaves
        // undefined) may not land in one receive buffer: they are received one batch of senders
        // after the other and copied into it in rank order, the highest rank's last.
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
        char *window = received == 0 ? nullptr : window_.for_file_bytes(window_lo, span);
        auto in_window = [&](const aggregation::Group &g) {
            return static_cast<MPI_Aint>(g.addr - window_lo);
        };

        // The window's bytes as runs of the independent engine (touching pieces merged).
        runs_.clear();
        for (const aggregation::Range &range : ranges)
            runs_.push_back(Run{range.lo, static_cast<std::size_t>(range.hi - range.lo),
                                window + (range.lo - window_lo)});
        auto move_window = [&] {
            if (error || runs_.empty())
                return;
            io.count_aggregator_window();
            if (dir == Direction::Read && write_behind_.active()) { // (a read of the deferred bytes)
                if (write_behind_.serve(pieces.round, runs_)) {
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
                    kept = keep_deferred_window(pieces.round, window_lo, window, span, from, ranges,
                                                pieces.rank_of_groups(), unwritten_from, error);
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
        // Every sender's pieces: the window's places for it (reads: what goes back to it).
        std::vector<Datatype> types;
        std::vector<MPI_Request> requests;
        auto post_each_sender = [&](bool receive) {
            for (const aggregation::WindowPieces::Sender &s : pieces.senders) {
                types.push_back(groups_type(pieces.groups_of(s), in_window, false, false));
                requests.emplace_back();
                if (receive)
                    check_mpi(MPI_Irecv(window, 1, types.back().get(), s.rank, kDataTag, ctx_.comm,
                                        &requests.back()),
                              "MPI_Irecv (aggregation data)");
                else
                    check_mpi(MPI_Isend(window, 1, types.back().get(), s.rank, kDataTag, ctx_.comm,
                                        &requests.back()),
                              "MPI_Isend (aggregation data)");
            }
            check_mpi(MPI_Waitall(static_cast<int>(requests.size()), requests.data(), MPI_STATUSES_IGNORE),
                      receive ? "MPI_Waitall (aggregation data received)"
                              : "MPI_Waitall (aggregation data sent)");
        };
        if (dir == Direction::Write) {
            staging_bytes_ = 0;
            if (reorder)
                receive_batches(window, window_lo, received, pieces);
            else
                post_each_sender(true);
            io.note_aggregation_buffer(span + staging_bytes_);
            move_window();
        } else {
            move_window();
            post_each_sender(false); // (before the buffer takes the next window)
        }
    }

    // 4. This rank's own side, then the transfer's end on every rank.
    check_mpi(MPI_Waitall(static_cast<int>(own_requests.size()), own_requests.data(), MPI_STATUSES_IGNORE),
              dir == Direction::Write ? "MPI_Waitall (aggregation data sent)"
                                      : "MPI_Waitall (aggregation data received)");
    if (defer) {
        finish_deferred(aggregator, unwritten_from, error);
        write_behind_.start(shape); // (every rank, failed or not: the same state everywhere)
    } else if (dir == Direction::Write) {
        sync_after_collective_write(error);
    }
    if (error)
        window_cache_.clear();    // (a window it kept may hold bytes a later failed window changed)
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
