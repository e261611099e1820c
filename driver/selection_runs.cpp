#include "selection_runs.hpp"

#include "error.hpp"

#include <algorithm>
#include <array>
#include <limits>

namespace mpiio {
namespace {

// Owns a dataspace selection iterator.
class SelectionIterator {
public:
    SelectionIterator(hid_t space, size_t element_size)
        : id_(H5Ssel_iter_create(space, element_size, H5S_SEL_ITER_SHARE_WITH_DATASPACE)) {
        if (id_ < 0)
            throw Error(ErrorKind::Internal, "H5Ssel_iter_create failed");
    }
    SelectionIterator(const SelectionIterator &) = delete;
    SelectionIterator &operator=(const SelectionIterator &) = delete;
    ~SelectionIterator() { H5Ssel_iter_close(id_); }

    // Next (offset, length) sequence in bytes; false when the selection is exhausted.
    bool next(hsize_t &offset, size_t &length) {
        if (pos_ == count_) {
            size_t nelem = 0;
            if (H5Ssel_iter_get_seq_list(id_, kBatch, std::numeric_limits<size_t>::max(), &count_, &nelem,
                                         offsets_.data(), lengths_.data()) < 0)
                throw Error(ErrorKind::Internal, "H5Ssel_iter_get_seq_list failed");
            pos_ = 0;
            if (count_ == 0)
                return false;
        }
        offset = offsets_[pos_];
        length = lengths_[pos_];
        ++pos_;
        return true;
    }

private:
    static constexpr size_t kBatch = 1024;
    hid_t id_;
    size_t count_ = 0, pos_ = 0;
    std::array<hsize_t, kBatch> offsets_{};
    std::array<size_t, kBatch> lengths_{};
};

// Local. Appends the runs of one piece; clears `ordered` if a run starts before the end of the
// previous one (the list then needs sorting).
void append_piece_runs(hid_t mem_space, hid_t file_space, haddr_t file_addr, size_t element_size, char *buf,
                       std::vector<Run> &runs, bool &ordered) {
    const hssize_t file_n = H5Sget_select_npoints(file_space);
    const hssize_t mem_n = H5Sget_select_npoints(mem_space);
    if (file_n < 0 || mem_n < 0)
        throw Error(ErrorKind::Internal, "cannot count the selected elements of a selection I/O request");
    if (file_n != mem_n)
        throw Error(ErrorKind::Config, "selection I/O request selects " + std::to_string(file_n) +
                                           " elements in the file but " + std::to_string(mem_n) +
                                           " in memory");
    if (file_n == 0)
        return;
    // At most one run per element; reserving avoids repeated reallocation of large run lists.
    runs.reserve(runs.size() + static_cast<size_t>(std::min<hssize_t>(file_n, hssize_t{1} << 22)));
    SelectionIterator file_it(file_space, element_size), mem_it(mem_space, element_size);
    hsize_t file_off = 0, mem_off = 0;
    size_t file_len = 0, mem_len = 0;
    while (true) {
        if (file_len == 0 && !file_it.next(file_off, file_len))
            break;
        if (mem_len == 0 && !mem_it.next(mem_off, mem_len))
            throw Error(ErrorKind::Internal, "memory selection ended before the file selection");
        const size_t n = std::min(file_len, mem_len);
        const haddr_t addr = file_addr + file_off;
        if (runs.empty()) {
            runs.push_back(Run{addr, n, buf + mem_off});
        } else {
            Run &last = runs.back();
            const haddr_t last_end = last.addr + last.size;
            if (last_end == addr && last.buf + last.size == buf + mem_off) {
                last.size += n; // contiguous in both: extend in place
            } else {
                ordered = ordered && addr >= last_end;
                runs.push_back(Run{addr, n, buf + mem_off});
            }
        }
        file_off += n;
        mem_off += n;
        file_len -= n;
        mem_len -= n;
    }
}

// Local. Calls visit(mem_space, file_space, offset, element_size, buf) for every piece, with the
// "0 / NULL repeats the previous entry" conventions expanded.
template <class Visit> void for_each_piece(const SelectionRequest &request, Visit &&visit) {
    size_t element_size = 0;
    char *buf = nullptr;
    bool fixed_size = false, fixed_buf = false;
    for (size_t i = 0; i < request.count; ++i) {
        if (!fixed_size) {
            if (request.element_sizes[i] == 0 && i > 0)
                fixed_size = true;
            else
                element_size = request.element_sizes[i];
        }
        if (!fixed_buf) {
            if (request.bufs[i] == nullptr && i > 0)
                fixed_buf = true;
            else
                buf = request.bufs[i];
        }
        if (element_size == 0 || buf == nullptr)
            throw Error(ErrorKind::Config, "selection I/O request without element size or buffer");
        visit(request.mem_spaces[i], request.file_spaces[i], request.offsets[i], element_size, buf);
    }
}

} // namespace

std::vector<RequestPiece> expand_pieces(const SelectionRequest &request) {
    std::vector<RequestPiece> pieces;
    pieces.reserve(request.count);
    for_each_piece(request, [&](hid_t mem, hid_t file, haddr_t offset, size_t element_size, char *buf) {
        pieces.push_back(RequestPiece{mem, file, offset, element_size, buf});
    });
    return pieces;
}

void append_runs(const RequestPiece &p, std::vector<Run> &runs, bool &ordered) {
    append_piece_runs(p.mem_space, p.file_space, p.offset, p.element_size, p.buf, runs, ordered);
}

void selection_runs(const SelectionRequest &request, std::vector<Run> &runs) {
    runs.clear();
    bool ordered = true;
    for_each_piece(request, [&](hid_t mem, hid_t file, haddr_t offset, size_t element_size, char *buf) {
        append_piece_runs(mem, file, offset, element_size, buf, runs, ordered);
    });
    if (!ordered) // appending already merged neighbours of an ordered list
        sort_and_merge(runs);
}

} // namespace mpiio
