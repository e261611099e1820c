// See request.hpp.
#include "io/request.hpp"

#include "hdf5/hdf5_internals.hpp"
#include "selection/mpi_build.hpp"
#include "selection/piece_pair.hpp"
#include "selection/sequence_list.hpp"
#include "selection/space_info.hpp"
#include "settings/tuning.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <functional>
#include <limits>

namespace mpiio {
namespace {

namespace sel = selection;

constexpr std::size_t kMaxBlock = std::size_t{1} << 30; // MPI block lengths are int: longer runs split

// Local. Sorted, merged runs as MPI types: an hindexed pair, the memory one relative to the lowest
// run buffer (not MPI_BOTTOM: MPICH 4.0/4.1's MPI_Pack and MPI_Unpack refuse a null buffer even
// with absolute displacements); one run of at most INT_MAX bytes needs no derived type at all.
MpiDescription describe_runs(std::span<const Run> runs) {
    MpiDescription d;
    if (runs.empty())
        return d;
    d.view_disp = static_cast<MPI_Offset>(runs.front().addr);
    if (runs.size() == 1 && runs.front().size <= static_cast<std::size_t>(INT_MAX)) {
        d.memory = {runs.front().buf, static_cast<int>(runs.front().size), MPI_BYTE, runs.front().size};
        return d;
    }
    std::vector<int> lengths;
    std::vector<MPI_Aint> file_disps, mem_disps;
    std::size_t bytes = 0;
    char *base = std::min_element(runs.begin(), runs.end(), [](const Run &a, const Run &b) {
                     return std::less<const char *>()(a.buf, b.buf);
                 })->buf;
    MPI_Aint base_addr = 0;
    check_mpi(MPI_Get_address(base, &base_addr), "MPI_Get_address");
    for (const Run &r : runs) {
        for (std::size_t done = 0; done < r.size; done += kMaxBlock) {
            const std::size_t n = std::min(kMaxBlock, r.size - done);
            MPI_Aint mem_addr = 0;
            check_mpi(MPI_Get_address(r.buf + done, &mem_addr), "MPI_Get_address");
            lengths.push_back(static_cast<int>(n));
            file_disps.push_back(static_cast<MPI_Aint>(r.addr + done - runs.front().addr));
            mem_disps.push_back(MPI_Aint_diff(mem_addr, base_addr));
        }
        bytes += r.size;
    }
    const int n = static_cast<int>(lengths.size());
    Datatype file_type, mem_type;
    check_mpi(MPI_Type_create_hindexed(n, lengths.data(), file_disps.data(), MPI_BYTE, file_type.out()),
              "MPI_Type_create_hindexed (file)");
    check_mpi(MPI_Type_commit(file_type.ptr()), "MPI_Type_commit");
    check_mpi(MPI_Type_create_hindexed(n, lengths.data(), mem_disps.data(), MPI_BYTE, mem_type.out()),
              "MPI_Type_create_hindexed (memory)");
    check_mpi(MPI_Type_commit(mem_type.ptr()), "MPI_Type_commit");
    d.file_owner = std::make_shared<const Datatype>(std::move(file_type));
    d.mem_owner = std::make_shared<const Datatype>(std::move(mem_type));
    d.file_type = runs.size() == 1 ? MPI_BYTE : d.file_owner->get();
    d.memory = {base, 1, d.mem_owner->get(), bytes};
    return d;
}

} // namespace

IoRequest IoRequest::contiguous(haddr_t addr, char *buf, std::size_t bytes) {
    IoRequest r;
    if (bytes == 0)
        return r;
    r.source_ = Source::Contiguous;
    r.lo_ = addr;
    r.end_ = addr + bytes;
    r.bytes_ = bytes;
    r.file_blocks_ = r.mem_blocks_ = 1;
    r.contiguous_buf_ = buf;
    return r;
}

// With a contiguous file type the payload fills [addr + lb, addr + lb + bytes): such a request is
// its first byte and MPI_BYTE. Keeping the library's type (whose lb is already in the first byte)
// would count lb twice whenever another rank's part makes the transfer set a file view.
IoRequest IoRequest::library_types(haddr_t addr, std::size_t count, void *buf) {
    const auto types = hdf5_internals::coll_datatypes();
    IoRequest r;
    MPI_Count mem_size = 0, file_size = 0, lb = 0, extent = 0;
    check_mpi(MPI_Type_size_x(types.buffer, &mem_size), "MPI_Type_size_x");
    check_mpi(MPI_Type_size_x(types.file, &file_size), "MPI_Type_size_x");
    check_mpi(MPI_Type_get_true_extent_x(types.file, &lb, &extent), "MPI_Type_get_true_extent_x");
    r.bytes_ = static_cast<std::size_t>(mem_size) * count;
    if (r.bytes_ == 0)
        return r;
    r.source_ = Source::LibraryTypes;
    r.file_contiguous_ = types.file == MPI_BYTE || file_size == extent;
    r.lo_ = addr + static_cast<haddr_t>(lb); // the first byte touched (MPI_BYTE: lb 0)
    r.end_ = r.file_contiguous_ ? r.lo_ + r.bytes_ : addr + static_cast<haddr_t>(lb + extent);
    r.file_blocks_ = r.mem_blocks_ = 1; // unknown, and not needed: never copied run by run
    r.described_ = true;
    r.mpi_.view_disp = static_cast<MPI_Offset>(r.file_contiguous_ ? r.lo_ : addr);
    r.mpi_.file_type = r.file_contiguous_ ? MPI_BYTE : types.file;
    // A count of the memory type: never above INT_MAX here.
    r.mpi_.memory = {buf, static_cast<int>(count), types.buffer, r.bytes_};
    return r;
}

IoRequest IoRequest::runs(std::span<const Run> runs, std::span<const sel::TypedPiece> duplicates_from) {
    IoRequest r;
    r.pieces_ = duplicates_from;
    for (const sel::TypedPiece &p : duplicates_from)
        r.has_duplicates_ = r.has_duplicates_ || p.types.duplicates;
    if (runs.empty())
        return r;
    r.source_ = Source::Runs;
    r.runs_ = runs;
    r.lo_ = runs.front().addr;
    r.end_ = runs.back().addr + runs.back().size;
    for (const Run &run : runs)
        r.bytes_ += run.size;
    r.file_contiguous_ = runs.size() == 1;
    r.file_blocks_ = r.mem_blocks_ = runs.size();
    return r;
}

IoRequest IoRequest::pieces(std::span<const sel::TypedPiece> pieces, const sel::CombinedFacts &facts) {
    IoRequest r;
    r.pieces_ = pieces;
    r.facts_ = &facts;
    r.has_duplicates_ = facts.duplicates;
    if (facts.bytes == 0)
        return r;
    r.source_ = Source::Pieces;
    r.lo_ = static_cast<haddr_t>(facts.file_offset);
    r.end_ = r.lo_ + static_cast<haddr_t>(facts.file_span);
    r.bytes_ = static_cast<std::size_t>(facts.bytes);
    r.file_contiguous_ = facts.file_contiguous;
    r.file_blocks_ = facts.file_blocks;
    r.mem_blocks_ = facts.mem_blocks;
    return r;
}

const MpiDescription &IoRequest::mpi() {
    if (described_)
        return mpi_;
    described_ = true;
    switch (source_) {
    case Source::Contiguous:
        if (bytes_ <= static_cast<std::size_t>(INT_MAX)) {
            mpi_.memory = {contiguous_buf_, static_cast<int>(bytes_), MPI_BYTE, bytes_};
        } else {
            const sel::TypeSpec run = sel::contiguous_spec(0, static_cast<MPI_Count>(bytes_));
            mpi_.mem_owner = run.owned;
            mpi_.memory = {contiguous_buf_, run.count, run.type, bytes_};
        }
        mpi_.view_disp = static_cast<MPI_Offset>(lo_);
        break;
    case Source::Runs:
        mpi_ = describe_runs(runs_);
        break;
    case Source::Pieces: {
        const sel::CombinedTypes c = sel::combined_types(pieces_, *facts_);
        mpi_.view_disp = static_cast<MPI_Offset>(c.file.offset);
        mpi_.file_type = file_contiguous_ ? MPI_BYTE : c.file.type;
        mpi_.file_owner = c.file.owned;
        mpi_.mem_owner = c.mem.owned;
        mpi_.memory = {const_cast<char *>(static_cast<const char *>(c.mem_base)) + c.mem.offset, c.mem.count,
                       c.mem.type, bytes_};
        break;
    }
    case Source::LibraryTypes: // described when built
    case Source::Nothing:
        break;
    }
    return mpi_;
}

// One piece whose file type is contiguous or a one-level vector: runs of one length at one spacing.
// A nested vector (a 2-D hyperslab with gaps between rows) or several pieces are not evenly spaced
// across rows or pieces, so their view would be an hindexed type.
bool IoRequest::regular_file_runs() const {
    if (source_ == Source::Contiguous)
        return true;
    if (source_ != Source::Pieces || facts_->order.size() != 1)
        return false;
    const sel::TypeSpec &file = pieces_[facts_->order.front()].types.file;
    return file.shape == sel::TypeShape::Contiguous ||
           (file.shape == sel::TypeShape::Vector && file.layout && file.layout->runs.empty() &&
            file.layout->levels.size() <= 1);
}

// Through MPI, the copy is a message from the rank to itself (MPI_Sendrecv on MPI_COMM_SELF): a
// CUDA-aware MPI moves it wherever the buffer lives. Distinct elements never overlap.
void IoRequest::copy_duplicates(bool through_mpi) const {
    if (!has_duplicates_)
        return;
    for (const sel::TypedPiece &p : pieces_) {
        if (!p.types.duplicates)
            continue;
        char *buffer = const_cast<char *>(static_cast<const char *>(p.buffer));
        for (const sel::DuplicateCopy &d : *p.types.duplicates) {
            if (d.from == d.to) // memory that names one element twice holds it already
                continue;
            if (!through_mpi) {
                std::memmove(buffer + d.to, buffer + d.from, static_cast<std::size_t>(d.len));
                continue;
            }
            if (d.len > INT_MAX)
                throw Error(ErrorKind::Unsupported, "a duplicate element of more than 2 GiB");
            const int len = static_cast<int>(d.len);
            check_mpi(MPI_Sendrecv(buffer + d.from, len, MPI_BYTE, 0, 0, buffer + d.to, len, MPI_BYTE, 0, 0,
                                   MPI_COMM_SELF, MPI_STATUS_IGNORE),
                      "MPI_Sendrecv (a point selection's duplicate element)");
        }
    }
}

IoRequest RequestBuilder::vector(uint32_t count, const haddr_t addrs[], const std::size_t sizes[],
                                 char *const bufs[], bool metadata) {
    runs_.clear();
    typed_.clear();
    runs_.reserve(count);
    std::size_t size = 0;
    bool fixed_size = false;
    for (uint32_t i = 0; i < count; ++i) {
        if (!fixed_size) {
            if (sizes[i] == 0 && i > 0)
                fixed_size = true; // this and every later entry repeat the previous size
            else
                size = sizes[i];
        }
        if (size == 0)
            continue;
        if (addrs[i] == HADDR_UNDEF ||
            addrs[i] > static_cast<haddr_t>(std::numeric_limits<MPI_Offset>::max()) - size)
            throw Error(ErrorKind::Config, "vector I/O address out of range for MPI-IO");
        runs_.push_back(Run{addrs[i], size, bufs[i]});
    }
    sel::sort_and_merge(runs_);
    IoRequest request = IoRequest::runs(runs_);
    request.metadata_ = metadata;
    return request;
}

IoRequest RequestBuilder::selection(std::span<const sel::SelectionPiece> pieces, sel::TypeCache &cache,
                                    bool independent) {
    runs_.clear();
    typed_.clear();
    for (const sel::SelectionPiece &p : pieces) {
        const sel::PieceSpaces spaces = sel::query_piece(p.file_space, p.mem_space, p.element_size);
        if (pieces.size() == 1) { // one block on each side (most small requests): no types at all
            if (const auto c = sel::as_contiguous(spaces, p.element_size))
                return IoRequest::contiguous(p.addr + static_cast<haddr_t>(c->file_offset),
                                             p.buf + c->mem_offset, static_cast<std::size_t>(c->bytes));
            const bool listed_runs = (spaces.file.kind == H5S_SEL_HYPERSLABS && !spaces.file.regular) ||
                                     spaces.file.kind == H5S_SEL_POINTS; // no regular shape to build
            if (independent && listed_runs && spaces.file.npoints > 0 &&
                (p.mem_space == H5S_BLOCK || sel::one_linear_range(spaces.mem, p.element_size)))
                if (auto runs = ascending_runs(p, spaces))
                    return *runs;
        }
        typed_.push_back(sel::TypedPiece{static_cast<MPI_Offset>(p.addr), p.buf,
                                         sel::build_piece_pair(spaces, p.element_size, &cache)});
    }
    try {
        sel::combine_facts(typed_, facts_);
        return IoRequest::pieces(typed_, facts_);
    } catch (const Error &e) {
        if (e.kind() != ErrorKind::NotMonotonic)
            throw;
    }
    // The pieces' file sides interleave: their segments, sorted by address.
    facts_.order.resize(typed_.size());
    for (std::size_t k = 0; k < typed_.size(); ++k)
        facts_.order[k] = k;
    sel::for_each_segment(typed_, facts_.order, [&](std::uint64_t addr, char *buf, std::size_t bytes) {
        runs_.push_back(Run{addr, bytes, buf});
    });
    sel::sort_and_merge(runs_);
    return IoRequest::runs(runs_, typed_);
}

// Local. The piece's file runs in selection order, its memory one block. An irregular hyperslab
// lists them ascending; points come in the order the application gave, and only points already
// ascending (h5bench's, most analysis codes') take this path: the others return nothing and go the
// typed way, which sorts them and keeps the last of an element named twice (piece_pair.cpp).
std::optional<IoRequest> RequestBuilder::ascending_runs(const sel::SelectionPiece &p,
                                                        const sel::PieceSpaces &spaces) {
    char *memory =
        p.buf + (p.mem_space == H5S_BLOCK ? 0 : sel::linear_bounds(spaces.mem, p.element_size).low);
    sel::SequenceReader reader(p.file_space, spaces.file, p.element_size);
    MPI_Aint disp = 0;
    MPI_Count len = 0;
    std::size_t n = 0; // the runs are listed_[0, n): it keeps its size, so only growth initialises slots
    while (reader.next(disp, len)) {
        const haddr_t addr = p.addr + static_cast<haddr_t>(disp);
        const auto size = static_cast<std::size_t>(len);
        if (n > 0 && listed_[n - 1].addr + listed_[n - 1].size == addr) {
            listed_[n - 1].size += size; // adjacent in the file, and in memory (one block)
        } else if (n > 0 && listed_[n - 1].addr + listed_[n - 1].size > addr) {
            if (spaces.file.kind == H5S_SEL_POINTS)
                return std::nullopt; // the typed path takes them
            // as the typed path (piece_pair.cpp): never a byte moved for such a hyperslab
            throw Error(ErrorKind::Internal, "HDF5 listed a hyperslab's runs out of order or overlapping");
        } else {
            if (n == listed_.size())
                listed_.resize(std::max<std::size_t>(64, 2 * n));
            listed_[n++] = Run{addr, size, memory};
        }
        memory += size;
    }
    return IoRequest::runs(std::span<const Run>(listed_.data(), n));
}

void RequestBuilder::trim() {
    if (runs_.capacity() > tuning::kKeepRuns)
        std::vector<Run>().swap(runs_);
    if (listed_.capacity() > tuning::kKeepRuns)
        std::vector<Run>().swap(listed_);
    if (typed_.capacity() > tuning::kKeepRuns)
        std::vector<sel::TypedPiece>().swap(typed_);
}

} // namespace mpiio
