// The caller's buffer is the caller's (docs/decisions.md D18). The application's buffers here live
// on pages the CPU may not touch (PROT_NONE) outside the MPI calls that may move their bytes (the
// file data calls, MPI_Sendrecv, MPI_Bcast, MPI_Alltoallw, MPI_Pack and MPI_Unpack, wrapped below
// through PMPI, open the pages for their duration; an MPI_Isend from them or MPI_Irecv into them
// keeps them open until its MPI_Wait or MPI_Waitall): as device memory with a CUDA-aware MPI-IO layer, where
// MPI moves the bytes and a CPU copy by the driver crashes. A fault on a guarded page outside those calls is
// counted as a touch (the pages are then opened so the copy completes; the next wrapped call that moves
// guarded bytes closes them again when it returns).
//
// - host_copies=off: no pattern, in either transfer mode, touches the buffer on writes or reads
//   (strided, interleaved, irregular, points with duplicates, chunks), every byte moves through MPI
//   calls on the buffer, the bytes read are the ones written and the file equals the built-in
//   driver's;
// - the default configuration hands the buffer of a contiguous transfer to MPI, as the built-in
//   driver does: no touch;
// - the detector works: the default configuration's strided read and collective strided write,
//   which sieve through the staging buffer, are seen touching the buffer.
#include "common.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <numeric>
#include <string>
#include <tuple>
#include <vector>

namespace {

using namespace mpiio_test;

// ---- the guarded pages ----------------------------------------------------------------------

char *g_lo = nullptr;         // the guarded region (page-aligned), or null
std::size_t g_len = 0;        // its length
std::atomic<bool> g_closed{}; // the pages are PROT_NONE now
std::atomic<long> g_touches{}, g_calls{};
struct sigaction g_previous {};

void set_open(bool open) {
    if (g_lo != nullptr) {
        mprotect(g_lo, g_len, open ? PROT_READ | PROT_WRITE : PROT_NONE);
        g_closed = !open;
    }
}

void on_fault(int sig, siginfo_t *info, void *context) {
    char *addr = static_cast<char *>(info->si_addr);
    if (g_closed && addr >= g_lo && addr < g_lo + g_len) {
        ++g_touches;
        set_open(true);
        return;
    }
    // Not ours: the previous handler (or the default action) as if we were not here.
    sigaction(SIGSEGV, &g_previous, nullptr);
    if (g_previous.sa_flags & SA_SIGINFO)
        g_previous.sa_sigaction(sig, info, context);
    else
        std::raise(SIGSEGV);
}

// A page-aligned region whose pages are guarded while a Guard is alive (one at a time).
class GuardedMemory {
public:
    explicit GuardedMemory(std::size_t bytes) {
        const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
        len_ = (bytes + page - 1) / page * page + page;
        void *p = mmap(nullptr, len_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        data_ = p == MAP_FAILED ? nullptr : static_cast<char *>(p);
    }
    ~GuardedMemory() {
        if (data_ != nullptr)
            munmap(data_, len_);
    }
    GuardedMemory(const GuardedMemory &) = delete;
    GuardedMemory &operator=(const GuardedMemory &) = delete;
    template <class T> T *as() { return reinterpret_cast<T *>(data_); }
    char *data() { return data_; }
    std::size_t length() const { return len_; }

private:
    char *data_ = nullptr;
    std::size_t len_ = 0;
};

// While alive, `memory` may be touched only inside the wrapped MPI calls; touches and calls counted.
class Guard {
public:
    explicit Guard(GuardedMemory &memory) {
        g_touches = 0;
        g_calls = 0;
        g_lo = memory.data();
        g_len = memory.length();
        struct sigaction sa {};
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGSEGV, &sa, &g_previous);
        set_open(false);
    }
    ~Guard() {
        set_open(true);
        g_lo = nullptr;
        g_len = 0;
        sigaction(SIGSEGV, &g_previous, nullptr);
    }
    Guard(const Guard &) = delete;
    Guard &operator=(const Guard &) = delete;
    long touches() const { return g_touches; }
    long calls() const { return g_calls; }
};

// Whether `count` items of `type` from `buf` reach into the guarded region (the type's true extent,
// so a buffer described from another base counts too).
bool reaches_region(const void *buf, int count, MPI_Datatype type) {
    if (g_lo == nullptr || count <= 0)
        return false;
    MPI_Aint lb = 0, extent = 0, true_lb = 0, true_extent = 0;
    PMPI_Type_get_extent(type, &lb, &extent);
    PMPI_Type_get_true_extent(type, &true_lb, &true_extent);
    const char *first = static_cast<const char *>(buf) + true_lb;
    const char *end = first + (count - 1) * extent + true_extent;
    return first < g_lo + g_len && end > g_lo;
}

int g_depth = 0; // wrapped calls in progress (an MPI call may make another)

// Runs an MPI call that moves `reaches` guarded bytes with the pages open, and counts it; the pages
// close again when the outermost such call returns (also after a touch opened them).
template <class Call> int with_pages_open(bool reaches, Call call) {
    if (!reaches)
        return call();
    if (g_depth++ == 0) {
        ++g_calls;
        set_open(true);
    }
    const int rc = call();
    if (--g_depth == 0 && g_lo != nullptr)
        set_open(false);
    return rc;
}

// Sends of guarded bytes still in flight (MPI_Isend until its MPI_Wait/MPI_Waitall): the pages
// stay open meanwhile, as MPI may read them at any time until then.
std::vector<MPI_Request> g_sends_in_flight;

void opened_for(MPI_Request request) {
    if (g_depth++ == 0) {
        ++g_calls;
        set_open(true);
    }
    g_sends_in_flight.push_back(request);
}

// After requests completed: the pages close when the last guarded send among them was the last.
void completed(const std::vector<MPI_Request> &requests) {
    for (MPI_Request r : requests) {
        const auto at = std::find(g_sends_in_flight.begin(), g_sends_in_flight.end(), r);
        if (at == g_sends_in_flight.end())
            continue;
        g_sends_in_flight.erase(at);
        if (--g_depth == 0 && g_lo != nullptr)
            set_open(false);
    }
}

// Posts a request on the caller's pages: open while the call runs and until the request completes.
template <class Post> int posted_on_pages(bool reaches, MPI_Request *request, Post &&post) {
    if (reaches && g_depth++ == 0) // (open while the call itself runs too)
        set_open(true);
    const int rc = post();
    if (reaches) {
        --g_depth;
        opened_for(*request);
    }
    return rc;
}

} // namespace

// The MPI calls that may move the caller's bytes (PMPI wrappers; the program exports them).
extern "C" {
int MPI_File_read_at(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                     MPI_Status *st) {
    return with_pages_open(reaches_region(buf, count, type),
                           [&] { return PMPI_File_read_at(fh, offset, buf, count, type, st); });
}
int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype type,
                      MPI_Status *st) {
    return with_pages_open(reaches_region(buf, count, type),
                           [&] { return PMPI_File_write_at(fh, offset, buf, count, type, st); });
}
int MPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type,
                         MPI_Status *st) {
    return with_pages_open(reaches_region(buf, count, type),
                           [&] { return PMPI_File_read_at_all(fh, offset, buf, count, type, st); });
}
int MPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype type,
                          MPI_Status *st) {
    return with_pages_open(reaches_region(buf, count, type),
                           [&] { return PMPI_File_write_at_all(fh, offset, buf, count, type, st); });
}
int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm,
                 MPI_Status *st) {
    const bool reaches =
        reaches_region(sendbuf, sendcount, sendtype) || reaches_region(recvbuf, recvcount, recvtype);
    return with_pages_open(reaches, [&] {
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                             source, recvtag, comm, st);
    });
}
// The aggregating route's exchange and its packing of the library's memory datatype.
int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[],
                  const MPI_Datatype recvtypes[], MPI_Comm comm) {
    int size = 0;
    PMPI_Comm_size(comm, &size);
    bool reaches = false;
    for (int r = 0; r < size && !reaches; ++r)
        reaches =
            reaches_region(static_cast<const char *>(sendbuf) + sdispls[r], sendcounts[r], sendtypes[r]) ||
            reaches_region(static_cast<char *>(recvbuf) + rdispls[r], recvcounts[r], recvtypes[r]);
    return with_pages_open(reaches, [&] {
        return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls,
                              recvtypes, comm);
    });
}
// The aggregating route's point-to-point sends of the callers' pieces (a write) and receives into
// them (a read): the pages stay open until the request's MPI_Wait or MPI_Waitall.
int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request) {
    return posted_on_pages(reaches_region(buf, count, type), request,
                           [&] { return PMPI_Isend(buf, count, type, dest, tag, comm, request); });
}
int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request) {
    return posted_on_pages(reaches_region(buf, count, type), request,
                           [&] { return PMPI_Irecv(buf, count, type, source, tag, comm, request); });
}
int MPI_Wait(MPI_Request *request, MPI_Status *status) {
    const std::vector<MPI_Request> waited{*request};
    const int rc = PMPI_Wait(request, status);
    completed(waited);
    return rc;
}
int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    const std::vector<MPI_Request> waited(requests, requests + count);
    const int rc = PMPI_Waitall(count, requests, statuses);
    completed(waited);
    return rc;
}
int MPI_Pack(const void *inbuf, int incount, MPI_Datatype type, void *outbuf, int outsize, int *position,
             MPI_Comm comm) {
    return with_pages_open(reaches_region(inbuf, incount, type),
                           [&] { return PMPI_Pack(inbuf, incount, type, outbuf, outsize, position, comm); });
}
int MPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype type,
               MPI_Comm comm) {
    return with_pages_open(reaches_region(outbuf, outcount, type), [&] {
        return PMPI_Unpack(inbuf, insize, position, outbuf, outcount, type, comm);
    });
}
int MPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
    return with_pages_open(reaches_region(buf, count, type),
                           [&] { return PMPI_Bcast(buf, count, type, root, comm); });
}
}

namespace {

// ---- the patterns -----------------------------------------------------------------------------

// Elements of the dataset per rank (a call each where the runs scatter). On shared storage each of
// those calls is a round trip under the clients' lock on the file (93 s for the suite on 2 ranks):
// there a quarter of them, every pattern still scattered (the irregular one in 2 blocks).
hsize_t per_rank() { return storage_sized<hsize_t>(512, 128); }

enum class Pattern { Contiguous, Strided, Interleaved, Irregular, Points, Chunks };

const char *pattern_name(Pattern p) {
    switch (p) {
    case Pattern::Contiguous:
        return "contiguous";
    case Pattern::Strided:
        return "strided";
    case Pattern::Interleaved:
        return "interleaved";
    case Pattern::Irregular:
        return "irregular";
    case Pattern::Points:
        return "points";
    case Pattern::Chunks:
        return "chunks";
    }
    return "?";
}

// This rank's elements of the 1-D dataset, in selection order: what it writes; `reads` is what it
// reads back (for points with `duplicates`, the same elements with some named twice, which a read
// fills from one copy; the built-in driver refuses those collectively).
struct Selection {
    std::vector<hsize_t> writes, reads;
};

Selection selection_of(Pattern p, bool duplicates) {
    const auto r = static_cast<hsize_t>(world_rank()), s = static_cast<hsize_t>(world_size());
    const hsize_t band = r * per_rank();
    Selection out;
    switch (p) {
    case Pattern::Contiguous:
        for (hsize_t k = 0; k < per_rank(); ++k)
            out.writes.push_back(band + k);
        break;
    case Pattern::Strided: // every other element of the rank's band
        for (hsize_t k = 0; k < per_rank(); k += 2)
            out.writes.push_back(band + k);
        break;
    case Pattern::Interleaved: // every s-th element from the rank: the ranks' extents overlap
    case Pattern::Chunks:      // the same over 64-element chunks
        for (hsize_t k = 0; k < per_rank(); ++k)
            out.writes.push_back(k * s + r);
        break;
    case Pattern::Irregular: // blocks of 8-14 elements at irregular places of the band
        for (hsize_t k = 0; k < per_rank() / 64; ++k)
            for (hsize_t e = 0; e < 8 + k % 7; ++e)
                out.writes.push_back(band + k * 64 + k % 5 + e);
        break;
    case Pattern::Points: // a quarter of the band, out of order
        for (hsize_t k = 0; k < per_rank() / 4; ++k)
            out.writes.push_back(band + (k * 37) % per_rank());
        break;
    }
    out.reads = out.writes;
    if (p == Pattern::Points && duplicates)
        for (hsize_t k = 0; k < out.writes.size(); k += 3)
            out.reads.push_back(out.writes[k]); // named twice
    return out;
}

// The file selection of `elements` (a hyperslab union in ascending order, or points as listed).
Hid file_selection(hid_t fspace, Pattern p, const std::vector<hsize_t> &elements) {
    Hid sel(H5Scopy(fspace));
    if (p == Pattern::Points) {
        H5Sselect_elements(sel, H5S_SELECT_SET, elements.size(), elements.data());
        return sel;
    }
    H5Sselect_none(sel);
    for (std::size_t k = 0; k < elements.size();) {
        std::size_t j = k + 1;
        while (j < elements.size() && elements[j] == elements[j - 1] + 1)
            ++j;
        const hsize_t start[1] = {elements[k]}, count[1] = {j - k};
        H5Sselect_hyperslab(sel, H5S_SELECT_OR, start, nullptr, count, nullptr);
        k = j;
    }
    return sel;
}

struct Outcome {
    long write_touches = -1, write_calls = -1, read_touches = -1, read_calls = -1;
    bool ok = false;     // every call succeeded
    bool values = false; // the values read are the ones written
};

// Collective. Creates `path`, writes this rank's selection of pattern `p` from guarded memory and
// reads it back into guarded memory, counting touches of the buffers outside MPI calls.
Outcome run(Driver d, const char *config, Pattern p, H5FD_mpio_xfer_t mode, const std::string &path) {
    Outcome o;
    const Selection sel = selection_of(p, d == Driver::Mpiio);
    FaplOptions options;
    options.config = config;
    Hid fapl = make_fapl(d, options);
    Hid dxpl = make_dxpl(mode);
    const hsize_t dims[1] = {per_rank() * static_cast<hsize_t>(world_size())};
    GuardedMemory out(sel.writes.size() * sizeof(int)), in(sel.reads.size() * sizeof(int));
    if (out.data() == nullptr || in.data() == nullptr)
        return o;
    const std::vector<int> values = values_at<int>(sel.writes);
    std::copy(values.begin(), values.end(), out.as<int>());
    Hid file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, fapl));
    Hid fspace(H5Screate_simple(1, dims, nullptr));
    Hid dcpl(H5Pcreate(H5P_DATASET_CREATE));
    if (p == Pattern::Chunks) {
        const hsize_t chunk[1] = {64};
        H5Pset_chunk(dcpl, 1, chunk);
    }
    Hid dset(H5Dcreate2(file, "d", H5T_NATIVE_INT, fspace, H5P_DEFAULT, dcpl, H5P_DEFAULT));
    bool ok = all_ranks(dset.valid());
    {
        // Every element first holds -1 - its index (each rank its own band, unguarded), so that the
        // holes of a pattern hold the same bytes in both drivers' files (an MPI-IO layer's
        // read-modify-write of holes past the end of the file may write anything there).
        const hsize_t start[1] = {static_cast<hsize_t>(world_rank()) * per_rank()}, count[1] = {per_rank()};
        std::vector<int> before(per_rank());
        for (hsize_t k = 0; k < per_rank(); ++k)
            before[k] = -1 - static_cast<int>(start[0] + k);
        Hid band(H5Scopy(fspace));
        H5Sselect_hyperslab(band, H5S_SELECT_SET, start, nullptr, count, nullptr);
        Hid mspace(H5Screate_simple(1, count, nullptr));
        Hid coll = make_dxpl(H5FD_MPIO_COLLECTIVE);
        ok = H5Dwrite(dset, H5T_NATIVE_INT, mspace, band, coll, before.data()) >= 0 && ok;
        ok = H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0 && ok;
    }
    // One guarded H5Dwrite or H5Dread of `elements` from or into `memory`: its touches and calls.
    auto guarded = [&](bool write, const std::vector<hsize_t> &elements, GuardedMemory &memory, long &touches,
                       long &calls) {
        Hid fsel = file_selection(fspace, p, elements);
        const hsize_t n[1] = {elements.size()};
        Hid mspace(H5Screate_simple(1, n, nullptr));
        Guard guard(memory);
        ok = (write ? H5Dwrite(dset, H5T_NATIVE_INT, mspace, fsel, dxpl, memory.data())
                    : H5Dread(dset, H5T_NATIVE_INT, mspace, fsel, dxpl, memory.data())) >= 0 &&
             ok;
        touches = guard.touches();
        calls = guard.calls();
    };
    guarded(true, sel.writes, out, o.write_touches, o.write_calls);
    ok = H5Fflush(file, H5F_SCOPE_GLOBAL) >= 0 && ok;
    guarded(false, sel.reads, in, o.read_touches, o.read_calls);
    const std::vector<int> expected = values_at<int>(sel.reads);
    o.values = std::equal(expected.begin(), expected.end(), in.as<int>());
    dset.reset();
    file.reset();
    o.ok = all_ranks(ok);
    return o;
}

const char *mode_name(H5FD_mpio_xfer_t m) { return m == H5FD_MPIO_COLLECTIVE ? "coll" : "ind"; }

using Params = std::tuple<Pattern, H5FD_mpio_xfer_t>;

class NoHostCopies : public testing::TestWithParam<Params> {};

// host_copies=off: the buffers are never touched, every pattern moves through MPI calls on them,
// and the file is the built-in driver's.
TEST_P(NoHostCopies, EveryByteMovesThroughMpiOnTheCallersBuffer) {
    const auto [p, mode] = GetParam();
    const std::string stem = std::string(pattern_name(p)) + "." + mode_name(mode);
    const Outcome reference = run(Driver::Mpio, nullptr, p, mode, test_file(stem, Driver::Mpio));
    ASSERT_TRUE(reference.ok && all_ranks(reference.values)) << "the built-in driver's run failed";
    const Outcome o = run(Driver::Mpiio, "host_copies=off", p, mode, test_file(stem, Driver::Mpiio));
    ASSERT_TRUE(o.ok) << error_stack_text();
    EXPECT_TRUE(all_ranks(o.values)) << "the values read back differ from those written";
    EXPECT_EQ(o.write_touches, 0) << "the driver touched the caller's buffer with the CPU while writing";
    EXPECT_EQ(o.read_touches, 0) << "the driver touched the caller's buffer with the CPU while reading";
    EXPECT_GT(o.write_calls, 0) << "no MPI call wrote from the caller's buffer";
    EXPECT_GT(o.read_calls, 0) << "no MPI call read into the caller's buffer";
    EXPECT_EQ(compare_files(test_file(stem, Driver::Mpio), test_file(stem, Driver::Mpiio)), "");
}

INSTANTIATE_TEST_SUITE_P(Patterns, NoHostCopies,
                         testing::Combine(testing::Values(Pattern::Contiguous, Pattern::Strided,
                                                          Pattern::Interleaved, Pattern::Irregular,
                                                          Pattern::Points, Pattern::Chunks),
                                          testing::Values(H5FD_MPIO_INDEPENDENT, H5FD_MPIO_COLLECTIVE)),
                         [](const testing::TestParamInfo<Params> &info) {
                             return std::string(pattern_name(std::get<0>(info.param))) + "_" +
                                    mode_name(std::get<1>(info.param));
                         });

// The default configuration hands a contiguous transfer's buffer to MPI, in both transfer modes, as
// the built-in driver does.
TEST(DefaultConfiguration, HandsContiguousBuffersToMpi) {
    for (const H5FD_mpio_xfer_t mode : {H5FD_MPIO_INDEPENDENT, H5FD_MPIO_COLLECTIVE}) {
        const std::string stem = std::string("default.") + mode_name(mode);
        const Outcome o =
            run(Driver::Mpiio, nullptr, Pattern::Contiguous, mode, test_file(stem, Driver::Mpiio));
        ASSERT_TRUE(o.ok) << error_stack_text();
        EXPECT_TRUE(all_ranks(o.values)) << mode_name(mode);
        EXPECT_EQ(o.write_touches, 0) << mode_name(mode) << ": the write copied the caller's buffer";
        EXPECT_EQ(o.read_touches, 0) << mode_name(mode) << ": the read copied into the caller's buffer";
        EXPECT_GT(o.write_calls, 0) << mode_name(mode);
        EXPECT_GT(o.read_calls, 0) << mode_name(mode);
    }
}

// The detector sees a CPU copy: the default configuration reads every other element through its
// staging buffer (the 4-byte holes are bridged) and copies them out.
TEST(Detector, SeesTheStagingCopyOfTheDefaultConfiguration) {
    const Outcome o = run(Driver::Mpiio, nullptr, Pattern::Strided, H5FD_MPIO_INDEPENDENT,
                          test_file("detector", Driver::Mpiio));
    ASSERT_TRUE(o.ok) << error_stack_text();
    EXPECT_TRUE(all_ranks(o.values));
    EXPECT_GT(o.read_touches, 0) << "a sieved read's copy out of the staging buffer went unseen";
    // And a write: a collective strided write whose ranks' extents are disjoint takes the
    // independent route (unless CI forces a route), where each rank sieves its own extent and
    // MPI_Unpack copies the caller's bytes into the staging buffer. Where auto aggregates instead
    // (shared storage), the write asks for the independent route.
    if (const char *forced = std::getenv("MPIIO_TEST_CONFIG"); forced != nullptr && *forced != '\0')
        return;
    const char *route = auto_route(test_dir()) == "auto" ? nullptr : "collective_route=independent";
    const Outcome w = run(Driver::Mpiio, route, Pattern::Strided, H5FD_MPIO_COLLECTIVE,
                          test_file("detector.write", Driver::Mpiio));
    ASSERT_TRUE(w.ok) << error_stack_text();
    EXPECT_GT(w.write_touches, 0) << "a sieved write's copy into the staging buffer went unseen";
}

} // namespace
