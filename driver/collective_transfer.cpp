// See collective_transfer.hpp for the steps.
#include "collective_transfer.hpp"

#include "common/agreement.hpp"
#include "failed_writes.hpp"
#include "hdf5_internals.hpp"
#include "route.hpp"

#include <algorithm>
#include <array>

namespace mpiio {
namespace {

constexpr char kNative[] = "native";

MPI_Count elements(const MPI_Status &status, MPI_Datatype type) {
    MPI_Count n = 0;
    check_mpi(MPI_Get_elements_x(&status, type, &n), "MPI_Get_elements_x");
    return n == MPI_UNDEFINED ? 0 : n;
}

// Local. What this rank says in the exchange (route.hpp).
std::array<std::int64_t, route::kWords> describe(RankTransfer &mine) {
    const auto [lo, hi] = mine.extent();
    std::int64_t flags = 0;
    if (mine.contiguous_in_file())
        flags |= route::kContiguous;
    if (mine.movable_independently())
        flags |= route::kIndependentCapable;
    return {static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi), flags};
}

// Collective. The library's "rank 0 reads, the others receive" request: it asks for it when every
// rank reads all of a small contiguous dataset (H5D__mpio_opt_possible), and the built-in driver
// honours it in read, read_vector and read_selection. It also decides correctness past the
// physical EOF: there a collective MPI-IO read (ROMIO and OMPIO alike) can report a full count and
// leave stale bytes, where rank 0's independent read reports the short count that gets zeroed.
void broadcast_read(File *file, RankTransfer *mine, std::optional<Error> local) {
    FileState &st = *file->state;
    CollectiveRequest request;
    if (!local && mine != nullptr)
        local = capture([&] { request = mine->collective_request(); });
    if (!local && mine != nullptr && st.rank == 0)
        local = capture([&] {
            if (!mine->movable_independently())
                throw Error(ErrorKind::Unsupported, "rank-0 broadcast read of a non-contiguous file range");
            mine->move_independently(file, Direction::Read, true);
        });
    agree(st.comm.get(), with_failed_write(st, local));
    check_mpi(MPI_Bcast(request.mem_base, request.mem_count, request.mem, 0, st.comm.get()),
              "MPI_Bcast (data)");
    st.stats.collective_mpi_calls += 2;
    ++st.stats.rank0_bcast_reads;
    if (st.rank != 0)
        st.stats.bytes_read += request.bytes;
}

// Collective. MPI collective I/O of every rank's request; a rank whose part failed joins every
// call with nothing and throws at the end.
void mpi_route(File *file, Direction dir, RankTransfer *mine, const route::Decision &decision,
               bool individual) {
    FileState &st = *file->state;
    Stats &stats = st.stats;
    CollectiveRequest request;
    std::optional<Error> local = capture([&] {
        if (mine != nullptr)
            request = mine->collective_request();
    });
    if (local)
        request = CollectiveRequest{};
    auto keep_first = [&](std::optional<Error> e) {
        if (!local)
            local = std::move(e);
    };
    if (dir == Direction::Write)
        keep_first(extend_before_collective_write(file));
    const bool view = !decision.all_contiguous;
    if (view) {
        keep_first(capture([&] {
            check_mpi(MPI_File_set_view(file->fh, request.view_disp, MPI_BYTE, request.file, kNative,
                                        st.info.get()),
                      "MPI_File_set_view");
        }));
        ++stats.set_views;
        ++stats.collective_mpi_calls;
    }
    MPI_Count moved = 0;
    keep_first(capture([&] {
        MPI_Status status{};
        const MPI_Offset offset = view ? 0 : request.view_disp;
        IoTimer timer(stats, st.io_timer_running);
        if (dir == Direction::Read)
            check_mpi(individual ? MPI_File_read_at(file->fh, offset, request.mem_base, request.mem_count,
                                                    request.mem, &status)
                                 : MPI_File_read_at_all(file->fh, offset, request.mem_base, request.mem_count,
                                                        request.mem, &status),
                      individual ? "MPI_File_read_at" : "MPI_File_read_at_all");
        else
            check_mpi(individual ? MPI_File_write_at(file->fh, offset, request.mem_base, request.mem_count,
                                                     request.mem, &status)
                                 : MPI_File_write_at_all(file->fh, offset, request.mem_base,
                                                         request.mem_count, request.mem, &status),
                      individual ? "MPI_File_write_at" : "MPI_File_write_at_all");
        moved = elements(status, request.mem);
    }));
    if (!individual)
        ++stats.collective_mpi_calls;
    auto &calls = dir == Direction::Read ? (individual ? stats.independent_reads : stats.collective_reads)
                                         : (individual ? stats.independent_writes : stats.collective_writes);
    ++calls;
    if (view) {
        keep_first(capture([&] {
            check_mpi(MPI_File_set_view(file->fh, 0, MPI_BYTE, MPI_BYTE, kNative, st.info.get()),
                      "MPI_File_set_view (reset)");
        }));
        ++stats.set_views;
        ++stats.collective_mpi_calls;
    }
    if (dir == Direction::Write && !individual && st.sync_after_collective_write) {
        keep_first(capture([&] { check_mpi(MPI_File_sync(file->fh), "MPI_File_sync"); }));
        ++stats.syncs;
        ++stats.collective_mpi_calls;
    }
    if (!local && dir == Direction::Write && static_cast<size_t>(moved) != request.bytes)
        local = Error(ErrorKind::Io, "collective write transferred " + std::to_string(moved) + " of " +
                                         std::to_string(request.bytes) + " bytes");
    if (local) {
        if (dir == Direction::Write && !st.failed_write)
            st.failed_write = *local;
        throw *local;
    }
    if (dir == Direction::Read) {
        stats.bytes_read += static_cast<uint64_t>(moved);
        zero_fill_after(request.mem_base, request.mem_count, request.mem, static_cast<size_t>(moved),
                        request.bytes);
    } else {
        stats.bytes_written += request.bytes;
        st.eof = std::max<haddr_t>(st.eof, request.end);
    }
}

// The part of a rank that moves nothing.
class NoTransfer final : public RankTransfer {
public:
    std::pair<std::uint64_t, std::uint64_t> extent() const override { return {0, 0}; }
    bool contiguous_in_file() const override { return true; }
    CollectiveRequest collective_request() override { return {}; }
    void move_independently(File *, Direction, bool) override {}
};

} // namespace

void settle_collective_write(FileState &st) {
    if (st.pending_barrier != MPI_REQUEST_NULL)
        check_mpi(MPI_Wait(&st.pending_barrier, MPI_STATUS_IGNORE),
                  "MPI_Wait (barrier after a collective write)");
}

void collective_transfer(File *file, Direction dir, RankTransfer *mine, std::optional<Error> prep_error) {
    FileState &st = *file->state;
    ++st.stats.collective_ops;
    if (!prep_error)
        prep_error = capture([&] { settle_collective_write(st); });
    if (!prep_error && dir == Direction::Write && st.read_only)
        prep_error = Error(ErrorKind::Config, "write to a file opened read-only");
    const bool individual = hdf5_internals::collective_opt() != H5FD_MPIO_COLLECTIVE_IO;
    if (dir == Direction::Read && !individual && hdf5_internals::rank0_bcast()) {
        broadcast_read(file, mine, std::move(prep_error));
        return;
    }
    std::array<std::int64_t, route::kWords> words{};
    if (!prep_error && mine != nullptr)
        prep_error = capture([&] { words = describe(*mine); });
    allgather_agreeing(st.comm.get(), words, with_failed_write(st, std::move(prep_error)),
                       st.scratch.exchange);
    ++st.stats.collective_mpi_calls;
    const route::Decision decision =
        route::decide(st.scratch.exchange, st.config.collective_route, individual,
                      dir == Direction::Read ? st.config.read_overlap_limit : 1);
    NoTransfer nothing;
    if (!decision.independent) {
        ++st.stats.mpi_route_ops;
        mpi_route(file, dir, mine, decision, individual);
        return;
    }
    ++st.stats.independent_route_ops;
    if (mine == nullptr) // nothing to move: still posts its part of the barrier below
        mine = &nothing;
    if (dir == Direction::Read) {
        mine->move_independently(file, dir, true);
        return;
    }
    std::optional<Error> error = capture([&] { mine->move_independently(file, dir, decision.disjoint); });
    // Where the MPI-IO layer says writes are not visible to other ranks until synced, a collective
    // write syncs on this route too, as on the MPI route (every rank is here: the call matches).
    if (st.sync_after_collective_write) {
        std::optional<Error> sync_error =
            capture([&] { check_mpi(MPI_File_sync(file->fh), "MPI_File_sync (after a collective write)"); });
        if (!error)
            error = std::move(sync_error);
        ++st.stats.syncs;
        ++st.stats.collective_mpi_calls;
    }
    // Posted on every rank, failed or not, once its own bytes are written (see pending_barrier).
    check_mpi(MPI_Ibarrier(st.comm.get(), &st.pending_barrier), "MPI_Ibarrier (after a collective write)");
    ++st.stats.collective_mpi_calls;
    if (error) {
        if (!st.failed_write)
            st.failed_write = *error;
        throw *error;
    }
}

} // namespace mpiio
