// See kernel_copy.hpp.
#include "kernel_copy.hpp"

#include "scratch_buffer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#if defined(__x86_64__) || defined(__SSE2__)
#include <emmintrin.h>
#define MPIIO_HAVE_SSE2 1
#endif

namespace mpiio {
namespace {

// A pipe's two ends, closed on every path. Non-blocking: a pipe smaller than the probe's write (a
// user past fs.pipe-user-pages-soft gets one page) gives a short write, never a hang.
class Pipe {
public:
    Pipe() {
        if (::pipe2(fds_, O_NONBLOCK | O_CLOEXEC) != 0)
            fds_[0] = fds_[1] = -1;
    }
    ~Pipe() {
        for (int fd : fds_)
            if (fd >= 0)
                ::close(fd);
    }
    Pipe(const Pipe &) = delete;
    Pipe &operator=(const Pipe &) = delete;
    bool ok() const { return fds_[0] >= 0; }
    int in() const { return fds_[1]; }
    int out() const { return fds_[0]; }

private:
    int fds_[2];
};

// Local. ::write or ::read of exactly `bytes`, retried when a signal interrupts it; false otherwise.
template <class Call> bool whole(Call call, std::size_t bytes) {
    ssize_t got = -1;
    do
        got = call();
    while (got < 0 && errno == EINTR);
    return got == static_cast<ssize_t>(bytes);
}

SlowCopyPhases measure() {
    constexpr std::size_t kBytes = 16384; // within a pipe's default capacity: one write, one read
    constexpr int kRounds = 7;
    constexpr std::size_t kPhases[] = {0, 16, 48};
    Pipe pipe;
    if (!pipe.ok())
        return {};
    ScratchBuffer source, target;
    char *src = source.at_least(kBytes);
    char *dst = target.at_least(kBytes + 64);
    std::memset(src, 1, kBytes);
    std::memset(dst, 0, kBytes + 64);
    double best[3] = {1e9, 1e9, 1e9};
    for (int round = 0; round < kRounds; ++round)
        for (std::size_t k = 0; k < 3; ++k) {
            if (!whole([&] { return ::write(pipe.in(), src, kBytes); }, kBytes))
                return {};
            const auto start = std::chrono::steady_clock::now();
            const bool read = whole([&] { return ::read(pipe.out(), dst + kPhases[k], kBytes); }, kBytes);
            const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
            if (!read)
                return {};
            best[k] = std::min(best[k], took.count());
        }
    constexpr double kSlower = 1.5;
    return SlowCopyPhases{best[1] >= kSlower * best[0], best[2] >= kSlower * best[0]};
}

} // namespace

SlowCopyPhases probe_slow_copy_phases() noexcept {
#ifdef MPIIO_HAVE_SSE2
    // Called after the collective open, where a rank must not fail alone: no answer is an answer.
    static const SlowCopyPhases phases = [] {
        try {
            return measure();
        } catch (...) {
            return SlowCopyPhases{};
        }
    }();
    return phases;
#else
    return {}; // copy_unaligned is memcpy here: a bounce would copy no faster
#endif
}

void copy_unaligned(char *dst, const char *src, std::size_t n) {
    std::size_t i = 0;
#ifdef MPIIO_HAVE_SSE2
    for (; i + 64 <= n; i += 64) {
        const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i));
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 16));
        const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 32));
        const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i *>(src + i + 48));
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i), a);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i + 16), b);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i + 32), c);
        _mm_storeu_si128(reinterpret_cast<__m128i *>(dst + i + 48), d);
    }
#endif
    if (i < n)
        std::memcpy(dst + i, src + i, n - i); // under 64 bytes (or no SSE2): glibc's small copies
}

} // namespace mpiio
