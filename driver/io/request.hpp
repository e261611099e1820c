// One rank's data transfer, as every data callback describes it (docs/decisions.md D16): the file
// side (its extent, whether it is one contiguous range, its bytes as segments), the memory side
// and the byte count. read/write with plain bytes, read/write with the library's own derived
// datatypes (selection I/O off), read_vector/write_vector and read_selection/write_selection all
// become this one value; the engines (independent_engine.hpp, collective_engine.hpp) work from it
// alone.
//
// Segments are (file address, memory address, length) triples in ascending file order. They come
// from one of three sources, which the request hides: one contiguous range, a sorted list of byte
// runs, or typed selection pieces walked from their run layouts (no HDF5 call after building).
#pragma once

#include "io/mpi_io.hpp"
#include "selection/byte_runs.hpp"
#include "selection/combine.hpp"
#include "selection/piece_pair.hpp"
#include "selection/segments.hpp"
#include "selection/type_cache.hpp"

#include <H5FDdevelop.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

namespace mpiio {

using Run = selection::ByteRun;

// The request as MPI datatypes: a file type from `view_disp` (MPI_BYTE when contiguous: then
// `view_disp` is the first byte) and a memory buffer.
struct MpiDescription {
    MPI_Offset view_disp = 0;
    MPI_Datatype file_type = MPI_BYTE;
    MemoryBuffer memory;
    std::shared_ptr<const Datatype> file_owner, mem_owner; // keep derived types alive
};

class IoRequest {
public:
    enum class Source { Nothing, Contiguous, LibraryTypes, Runs, Pieces };

    // Local. `bytes` contiguous bytes at `addr`, memory `buf`.
    static IoRequest contiguous(haddr_t addr, char *buf, std::size_t bytes);
    // Local. The library's own collective request (selection I/O off): `count` items of the memory
    // type it put in its API context, its file type from `addr` (hdf5_internals::coll_datatypes).
    static IoRequest library_types(haddr_t addr, std::size_t count, void *buf);
    // Local. Sorted, merged runs (the span must outlive the request); `duplicates_from`: the typed
    // pieces they came from, whose duplicate elements a read fills in (copy_duplicates).
    static IoRequest runs(std::span<const Run> runs,
                          std::span<const selection::TypedPiece> duplicates_from = {});
    // Local. Typed selection pieces in the order `facts` gives (both must outlive the request).
    static IoRequest pieces(std::span<const selection::TypedPiece> pieces,
                            const selection::CombinedFacts &facts);

    // --- the facts the engines decide on -----------------------------------------------------------
    haddr_t lo() const { return lo_; }   // first file byte
    haddr_t end() const { return end_; } // one past the last; lo == end when nothing moves
    std::size_t bytes() const { return bytes_; }
    bool empty() const { return bytes_ == 0; }
    bool file_contiguous() const { return file_contiguous_; } // [lo, lo + bytes) in order
    // Only a file view can describe the file side (the library's file type with holes): such a
    // request takes MPI collective I/O.
    bool needs_view() const { return source_ == Source::LibraryTypes && !file_contiguous_; }
    std::uint64_t file_blocks() const { return file_blocks_; }
    std::uint64_t mem_blocks() const { return mem_blocks_; }
    // The memory side is one buffer or one datatype that already exists (no type to build for a
    // single call).
    bool one_memory_type() const {
        return source_ == Source::Contiguous || source_ == Source::LibraryTypes || mem_blocks_ <= 1 ||
               (source_ == Source::Pieces && facts_->order.size() == 1);
    }
    Source source() const { return source_; }
    // The file side is one range, or one piece of runs of one length at one spacing (a one-level
    // vector): a view of them is an hvector, cheap for any MPI-IO layer to flatten.
    bool regular_file_runs() const;
    // The library's metadata (a vector write of the metadata cache): the independent engine opens
    // no handle of its own for it (independent_engine.hpp).
    bool metadata() const { return metadata_; }
    // Local. Marks a request the engines built themselves as the library's metadata (an
    // aggregator's window of a metadata transfer: collective_engine.hpp).
    void mark_metadata(bool metadata) { metadata_ = metadata; }

    // Local. The request as MPI datatypes, built on first use (a collective transfer on the
    // independent route never needs them).
    const MpiDescription &mpi();

    // Local. Calls emit(file address, memory address, bytes) for each segment, in ascending file
    // order. Not for needs_view() requests.
    template <class Emit> void for_each_segment(Emit &&emit) const {
        switch (source_) {
        case Source::Contiguous:
            emit(lo_, contiguous_buf_, bytes_);
            return;
        case Source::LibraryTypes: // contiguous in the file (else needs_view)
            throw Error(ErrorKind::Internal, "segments of the library's derived datatypes");
        case Source::Runs:
            for (const Run &r : runs_)
                emit(r.addr, r.buf, r.size);
            return;
        case Source::Pieces:
            selection::for_each_segment(pieces_, facts_->order, emit);
            return;
        case Source::Nothing:
            return;
        }
    }

    // Local. After a read: fills the memory of elements a point selection named more than once
    // from their kept occurrence (selection::TypePair::duplicates), by memmove or, where the
    // caller's buffer must not be touched by the CPU (host_copies=off), through MPI.
    void copy_duplicates(bool through_mpi) const;

private:
    friend class RequestBuilder; // (marks vector requests of metadata)

    Source source_ = Source::Nothing;
    haddr_t lo_ = 0, end_ = 0;
    std::size_t bytes_ = 0;
    bool file_contiguous_ = true;
    std::uint64_t file_blocks_ = 0, mem_blocks_ = 0;
    char *contiguous_buf_ = nullptr;
    std::span<const Run> runs_;
    std::span<const selection::TypedPiece> pieces_;
    const selection::CombinedFacts *facts_ = nullptr;
    bool has_duplicates_ = false;
    bool metadata_ = false;
    bool described_ = false;
    MpiDescription mpi_;
};

// The storage selection and vector requests are built in, reused by every operation on a file so
// that a request of one block allocates nothing (each build clears what the last one left;
// ascending_runs' list keeps its size and is overwritten from its start).
class RequestBuilder {
public:
    // Local. A vector request: the "size 0 repeats the previous entry" convention expanded, empty
    // entries dropped, sorted by address and merged; `metadata`: it holds the library's metadata.
    IoRequest vector(uint32_t count, const haddr_t addrs[], const std::size_t sizes[], char *const bufs[],
                     bool metadata = false);
    // Local. Selection pieces (the datasets of H5Dwrite_multi, or the chunks of a chunked dataset)
    // with their datatypes (cached by shape in `cache`); pieces whose file sides cannot form one
    // ascending sequence (two selections of the same bytes' range) become sorted byte runs. Throws
    // Error(Selection) for selections HDF5 describes inconsistently, before any byte moves.
    // `independent`: the independent engine will move it, so a single piece whose file side is an
    // irregular hyperslab or ascending points and whose memory is one block becomes byte runs
    // straight from HDF5's sequence list, with no datatype and no shape hash (the engine walks
    // runs: a type it never uses costs more than the calls themselves, docs/measurements.md,
    // "D23 view writes under each MPI-IO layer (view_writes=auto)").
    IoRequest selection(std::span<const selection::SelectionPiece> pieces, selection::TypeCache &cache,
                        bool independent = false);

    // Local. Drops large buffers after an operation that needed them (at most a few MiB are kept).
    void trim();

private:
    std::optional<IoRequest> ascending_runs(const selection::SelectionPiece &piece,
                                            const selection::PieceSpaces &spaces);

    std::vector<Run> runs_;
    std::vector<Run> listed_; // ascending_runs' runs: only their first few are the request's
    std::vector<selection::TypedPiece> typed_;
    selection::CombinedFacts facts_;
};

} // namespace mpiio
