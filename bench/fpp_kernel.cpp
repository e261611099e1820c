// The file-per-process ceiling (fpp_kernel.hpp): each rank's bytes of every access, packed in
// access order, written to and read from the rank's own file with pwrite/pread.
#include "fpp_kernel.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace bench {

namespace {

// The access's memory bytes (a Vector or Indexed memory side) packed in file order into `packed`,
// or, `to_memory`, from `packed` back into place.
void pack(const RawPlan &p, unsigned char *mem, unsigned char *packed, bool to_memory) {
    auto move = [&](uint64_t mem_off, uint64_t packed_off, uint64_t len) {
        unsigned char *m = mem + p.mem_disp + mem_off, *s = packed + packed_off;
        to_memory ? std::memcpy(m, s, len) : std::memcpy(s, m, len);
    };
    if (p.mem.kind == TypeDesc::Vector)
        for (uint64_t k = 0; k < p.mem.count; ++k)
            move(k * p.mem.stride, k * p.mem.block, p.mem.block);
    else
        for (size_t k = 0, at = 0; k < p.mem.lens.size(); at += static_cast<size_t>(p.mem.lens[k++]))
            move(static_cast<uint64_t>(p.mem.disps[k]), at, static_cast<uint64_t>(p.mem.lens[k]));
}

// Local. The whole of `len` bytes at `offset`, however many calls it takes; aborts on an error.
void transfer_all(int fd, bool write, unsigned char *at, uint64_t len, uint64_t offset,
                  const std::string &path) {
    while (len > 0) {
        const ssize_t n = write ? ::pwrite(fd, at, len, static_cast<off_t>(offset))
                                : ::pread(fd, at, len, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            fatal(std::string(write ? "pwrite" : "pread") + " of " + path + ": " +
                  (n == 0 ? "end of file" : std::strerror(errno)));
        at += n;
        len -= static_cast<uint64_t>(n);
        offset += static_cast<uint64_t>(n);
    }
}

} // namespace

FppKernel::FppKernel(const CaseSpec &c, const std::vector<RawPlan> &plans) : c_(c), plans_(plans) {
    if (c.compressed())
        refusal_ = "compressed chunks are the library's packing of every rank's bytes: no file per process "
                   "holds the same bytes";
}

std::string FppKernel::own_file(const std::string &path) { return path + "." + std::to_string(rank()); }

void FppKernel::remove(const std::string &path) {
    ::unlink(own_file(path).c_str());
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

PhaseTimes FppKernel::run(bool write, const std::string &path, Buffers &buf) {
    if (!refusal_.empty())
        return {};
    const std::string file = own_file(path);
    double data = 0;
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    const double t0 = MPI_Wtime();
    const int fd = ::open(file.c_str(), write ? O_CREAT | O_TRUNC | O_WRONLY : O_RDONLY, 0644);
    if (fd < 0)
        fatal("open of " + file + ": " + std::strerror(errno));
    uint64_t offset = 0; // the rank's bytes back to back, in time-step and access order
    for (int t = 0; t < c_.timesteps; ++t)
        for (size_t i = 0; i < c_.accesses.size(); ++i) {
            const RawPlan &p = plans_[i];
            if (p.bytes == 0)
                continue;
            unsigned char *mem = buf.ptr(t, c_.accesses[i].array);
            const bool contiguous = p.mem.kind == TypeDesc::Contig; // the caller's memory as it is
            if (!contiguous)
                stage_.resize(p.bytes);
            unsigned char *at = contiguous ? mem + p.mem_disp : stage_.data();
            const double d0 = MPI_Wtime();
            if (write && !contiguous)
                pack(p, mem, at, false);
            transfer_all(fd, write, at, p.bytes, offset, file);
            if (!write && !contiguous)
                pack(p, mem, at, true);
            data += MPI_Wtime() - d0;
            offset += p.bytes;
        }
    if (write && ::fsync(fd) != 0) // as the other drivers' H5Fflush / MPI_File_sync before closing
        fatal("fsync of " + file + ": " + std::strerror(errno));
    if (::close(fd) != 0)
        fatal("close of " + file + ": " + std::strerror(errno));
    return reduce_times(MPI_Wtime() - t0, data);
}

} // namespace bench
