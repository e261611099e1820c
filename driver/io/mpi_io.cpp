// See mpi_io.hpp.
#include "io/mpi_io.hpp"

#include "io/mpi_layer.hpp"
#include "io/mpi_runtime.hpp"
#include "selection/mpi_build.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <limits>
#include <new>
#include <vector>

namespace mpiio {
namespace {

constexpr char kNative[] = "native";

// The errors of the run-by-run path, kept out of line (cold, never inlined) so that the path
// itself (byte_call, account) stays small.
[[noreturn, gnu::cold, gnu::noinline]] void address_out_of_range() {
    throw Error(ErrorKind::Config, "file address out of range for MPI-IO");
}

// What a short write means: the MPI-IO layers report a write the storage cut short (pwrite's
// count) as a success with fewer bytes, where the next write would have failed with ENOSPC,
// EDQUOT or EFBIG.
constexpr char kShortWriteCause[] =
    " (the storage took no more: no space left on the device, a quota or a file "
    "size limit reached?)";

[[noreturn, gnu::cold, gnu::noinline]] void short_write(const char *call, std::size_t bytes,
                                                        MPI_Offset offset, std::size_t done) {
    throw Error(ErrorKind::Io, std::string(call) + ": write of " + std::to_string(bytes) +
                                   " bytes at offset " + std::to_string(offset) + " transferred only " +
                                   std::to_string(done) + kShortWriteCause);
}

// Local. Refuses addresses MPI_Offset cannot hold before any call is made (HADDR_UNDEF, all ones,
// is above every such address).
inline void check_address(haddr_t addr, std::size_t bytes) {
    static_assert(HADDR_UNDEF > static_cast<haddr_t>(std::numeric_limits<MPI_Offset>::max()));
    if (bytes > static_cast<std::size_t>(std::numeric_limits<MPI_Offset>::max()) ||
        addr > static_cast<haddr_t>(std::numeric_limits<MPI_Offset>::max()) - bytes) [[unlikely]]
        address_out_of_range();
}

// Local. The bytes a call of MPI_BYTE items moved (MPI_Get_count does less work than the general
// MPI_Get_elements_x); inline, as the run-by-run path makes one call per run.
inline std::size_t bytes_moved(const MPI_Status &status) {
    int n = 0;
    check_mpi(MPI_Get_count(&status, MPI_BYTE, &n), "MPI_Get_count");
    return n == MPI_UNDEFINED ? 0 : static_cast<std::size_t>(n);
}

// The data calls as one signature: writes take const memory, reads not.
using MemoryCall = int (*)(MPI_File, MPI_Offset, void *, int, MPI_Datatype, MPI_Status *);
template <int (*Write)(MPI_File, MPI_Offset, const void *, int, MPI_Datatype, MPI_Status *)>
int from_const(MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype type, MPI_Status *status) {
    return Write(fh, offset, buf, count, type, status);
}

// The four data calls, indexed by MpiIo::Call (the order of its enumerators).
struct CallKind {
    const char *name;
    MemoryCall fn;
    bool write, collective;
};
constexpr CallKind kCallKinds[] = {{"MPI_File_read_at", MPI_File_read_at, false, false},
                                   {"MPI_File_write_at", from_const<MPI_File_write_at>, true, false},
                                   {"MPI_File_read_at_all", MPI_File_read_at_all, false, true},
                                   {"MPI_File_write_at_all", from_const<MPI_File_write_at_all>, true, true}};

// Local. False when the handle's layer reports romio_ds_write as anything but "disable".
bool write_sieving_off(MPI_File fh) {
    const std::optional<Info> in_effect = mpi_file_hints(fh);
    if (!in_effect)
        return false;
    char value[MPI_MAX_INFO_VAL + 1] = {};
    int present = 0;
    if (MPI_Info_get(in_effect->get(), "romio_ds_write", MPI_MAX_INFO_VAL, value, &present) != MPI_SUCCESS)
        return false;
    return !present || std::strcmp(value, "disable") == 0;
}

} // namespace

void MpiIo::bind(MPI_File *shared, OwnHandleSettings own, haddr_t eof) {
    shared_ = shared;
    own_settings_ = std::move(own);
    eof_ = eof;
    written_end_ = eof;
}

// Local. The bytes a call moved (MPI_Get_count for MPI_BYTE does less work than the general
// MPI_Get_elements_x).
std::size_t MpiIo::moved(const MPI_Status &status, const MemoryBuffer &memory) const {
    if (memory.type == MPI_BYTE)
        return bytes_moved(status);
    MPI_Count n = 0;
    check_mpi(MPI_Get_elements_x(&status, memory.type, &n), "MPI_Get_elements_x");
    return n == MPI_UNDEFINED ? 0 : static_cast<std::size_t>(n);
}

// Local (independent calls) or collective (the *_all calls): the shared handle's data calls, each
// timed, logged for tests, its count checked and counted (account). Reads zero the memory past
// what they moved (past the end of the file); a write that moved less than asked throws.
// byte_call is the same call for contiguous bytes without the general cases. The kind is a
// template argument: no table lookup or branch on it per call.
template <MpiIo::Call C> std::size_t MpiIo::call(MPI_Offset offset, const MemoryBuffer &memory) {
    constexpr CallKind k = kCallKinds[static_cast<std::size_t>(C)];
    MPI_Status status{};
    int code = MPI_SUCCESS;
    {
        IoTimer t = timer();
        code = k.fn(*shared_, offset, memory.base, memory.count, memory.type, &status);
    }
    check_mpi(code, k.name);
    record(k.collective ? (k.write ? 'W' : 'R') : (k.write ? 'w' : 'r'), static_cast<haddr_t>(offset),
           memory.bytes, memory.base);
    return account<C>(offset, memory, moved(status, memory));
}

// Local. The run-by-run path: one independent call of at most INT_MAX contiguous bytes (a call per
// run of an irregular or point selection, per block of an interleaved read), with call's checks and
// counts but none of its general cases: no datatype to ask about, and nothing to time or log unless
// asked (those go through call). Where every run is a call of its own, the instructions around each
// call are what the plugin spends beside the built-in driver's (docs/measurements.md,
// "D16 one choke point: instructions per run of an independent transfer").
template <MpiIo::Call C> std::size_t MpiIo::byte_call(haddr_t addr, char *buf, std::size_t bytes) {
    constexpr CallKind k = kCallKinds[static_cast<std::size_t>(C)];
    static_assert(!k.collective);
    check_address(addr, bytes);
    const auto offset = static_cast<MPI_Offset>(addr);
    const MemoryBuffer memory{buf, static_cast<int>(bytes), MPI_BYTE, bytes};
    if (log_ != nullptr || (clocked_ && !timing_)) [[unlikely]]
        return call<C>(offset, memory);
    MPI_Status status{};
    check_mpi(k.fn(*shared_, offset, buf, memory.count, MPI_BYTE, &status), k.name);
    return account<C>(offset, memory, bytes_moved(status));
}

// Local. Counts a call that moved `done` bytes of `memory`; a read zero-fills what it did not
// move, a short write throws.
template <MpiIo::Call C>
std::size_t MpiIo::account(MPI_Offset offset, const MemoryBuffer &memory, std::size_t done) {
    constexpr CallKind k = kCallKinds[static_cast<std::size_t>(C)];
    ++(k.write ? (k.collective ? stats_.collective_writes : stats_.independent_writes)
               : (k.collective ? stats_.collective_reads : stats_.independent_reads));
    if (k.collective)
        ++stats_.collective_mpi_calls;
    if (!k.write) {
        stats_.bytes_read += done;
        if (done < memory.bytes) [[unlikely]] // past the end of the file
            zero_fill_after(memory, done);
        return done;
    }
    if (done != memory.bytes) [[unlikely]]
        short_write(k.name, memory.bytes, offset, done);
    stats_.bytes_written += done;
    return done;
}

std::size_t MpiIo::read_at(haddr_t addr, const MemoryBuffer &memory) {
    check_address(addr, memory.bytes);
    return call<Call::ReadAt>(static_cast<MPI_Offset>(addr), memory);
}

void MpiIo::write_at(haddr_t addr, const MemoryBuffer &memory) {
    check_address(addr, memory.bytes);
    note_write(addr + memory.bytes); // before: a failed write counts
    call<Call::WriteAt>(static_cast<MPI_Offset>(addr), memory);
    eof_ = std::max<haddr_t>(eof_, addr + memory.bytes);
}

// MPI counts are int: a larger range goes as one derived type of 1 GiB blocks.
std::size_t MpiIo::read_bytes(haddr_t addr, char *buf, std::size_t bytes) {
    if (bytes <= static_cast<std::size_t>(INT_MAX)) [[likely]]
        return byte_call<Call::ReadAt>(addr, buf, bytes);
    const selection::TypeSpec run = selection::contiguous_spec(0, static_cast<MPI_Count>(bytes));
    return read_at(addr, {buf, run.count, run.type, bytes});
}

void MpiIo::write_bytes(haddr_t addr, const char *buf, std::size_t bytes) {
    char *data = const_cast<char *>(buf); // MPI takes void*: never written
    if (bytes <= static_cast<std::size_t>(INT_MAX)) [[likely]] {
        note_write(addr + bytes);
        byte_call<Call::WriteAt>(addr, data, bytes);
        eof_ = std::max<haddr_t>(eof_, addr + bytes);
        return;
    }
    const selection::TypeSpec run = selection::contiguous_spec(0, static_cast<MPI_Count>(bytes));
    write_at(addr, {data, run.count, run.type, bytes});
}

// A second handle sees and makes writes exactly as the shared one does only outside atomic mode
// (set on the shared handle by H5Fset_mpi_atomicity) and where writes are visible without
// MPI_File_sync (decided at open). Write sieving is disabled on it: sieving reads the holes between
// the runs and writes them back, which loses whatever another rank writes there meanwhile.
bool MpiIo::own_view_may_be_usable(bool regular, bool may_open) {
    if (!own_settings_.allowed || own_unusable_ || (!may_open && own_ == MPI_FILE_NULL))
        return false;
    if (regular || own_settings_.any_layer)
        return true;
    if (!irregular_views_pay_off_)
        irregular_views_pay_off_ = irregular_view_writes_pay_off(*shared_);
    return *irregular_views_pay_off_;
}

bool MpiIo::atomic() const {
    int atomic = 0;
    check_mpi(MPI_File_get_atomicity(*shared_, &atomic), "MPI_File_get_atomicity");
    return atomic != 0;
}

bool MpiIo::own_view_usable(bool regular, bool may_open) {
    if (!own_view_may_be_usable(regular, may_open) || atomic())
        return false;
    if (own_ != MPI_FILE_NULL)
        return true;
    Info hints;
    if (own_settings_.hints != MPI_INFO_NULL)
        check_mpi(MPI_Info_dup(own_settings_.hints, hints.out()), "MPI_Info_dup");
    else
        check_mpi(MPI_Info_create(hints.out()), "MPI_Info_create");
    check_mpi(MPI_Info_set(hints.get(), "romio_ds_write", "disable"), "MPI_Info_set");
    if (open_mpi_file(MPI_COMM_SELF, own_settings_.path.c_str(), MPI_MODE_WRONLY, hints.get(), &own_) !=
        MPI_SUCCESS) {
        own_ = MPI_FILE_NULL;
        own_unusable_ = true;
        return false;
    }
    // Open MPI 5's romio341 ignores the open's hints: set them again, and use the handle only if
    // the layer then reports write sieving off (or does not know the hint: OMPIO never sieves
    // writes).
    set_mpi_file_hints(own_, hints.get());
    if (!write_sieving_off(own_)) {
        close_mpi_file(&own_);
        own_ = MPI_FILE_NULL;
        own_unusable_ = true;
    }
    return own_ != MPI_FILE_NULL;
}

void MpiIo::write_through_own_view(haddr_t disp, MPI_Datatype file_type, const char *data, std::size_t bytes,
                                   std::size_t runs, haddr_t end) {
    check_address(disp, bytes);
    note_write(end);
    MPI_Status status{};
    {
        IoTimer t = timer();
        check_mpi(MPI_File_set_view(own_, static_cast<MPI_Offset>(disp), MPI_BYTE, file_type, kNative,
                                    MPI_INFO_NULL),
                  "MPI_File_set_view (own handle)");
        check_mpi(
            MPI_File_write_at(own_, 0, const_cast<char *>(data), static_cast<int>(bytes), MPI_BYTE, &status),
            "MPI_File_write_at (view write)");
    }
    record('v', disp, bytes, data);
    ++stats_.independent_writes;
    ++stats_.view_writes;
    const MemoryBuffer memory{const_cast<char *>(data), static_cast<int>(bytes), MPI_BYTE, bytes};
    const std::size_t done = moved(status, memory);
    if (done != bytes)
        throw Error(ErrorKind::Io, "write of " + std::to_string(bytes) + " bytes in " + std::to_string(runs) +
                                       " runs from address " + std::to_string(disp) + " transferred only " +
                                       std::to_string(done) + kShortWriteCause);
    stats_.bytes_written += done;
    eof_ = std::max(eof_, end);
    // MPI makes bytes written through one handle visible through another only after MPI_File_sync
    // on the writing one: before the write returns, so that every later read of this rank (the
    // shared handle, any route) and every later write through the shared handle find them there.
    ++stats_.own_handle_syncs;
    {
        IoTimer t = timer();
        check_mpi(MPI_File_sync(own_), "MPI_File_sync (own handle, after a view write)");
    }
}

void MpiIo::set_view(MPI_Offset disp, MPI_Datatype file_type, MPI_Info hints) {
    ++stats_.set_views;
    ++stats_.collective_mpi_calls;
    check_mpi(MPI_File_set_view(*shared_, disp, MPI_BYTE, file_type, kNative, hints), "MPI_File_set_view");
}

void MpiIo::reset_view(MPI_Info hints) {
    ++stats_.set_views;
    ++stats_.collective_mpi_calls;
    check_mpi(MPI_File_set_view(*shared_, 0, MPI_BYTE, MPI_BYTE, kNative, hints),
              "MPI_File_set_view (reset)");
}

std::size_t MpiIo::shared_read(MPI_Offset offset, const MemoryBuffer &memory, bool individual) {
    return individual ? call<Call::ReadAt>(offset, memory) : call<Call::ReadAtAll>(offset, memory);
}

void MpiIo::shared_write(MPI_Offset offset, const MemoryBuffer &memory, bool individual, haddr_t end) {
    if (memory.bytes > 0) {
        note_write(end);
    }
    if (individual)
        call<Call::WriteAt>(offset, memory);
    else
        call<Call::WriteAtAll>(offset, memory);
    if (memory.bytes > 0)
        eof_ = std::max(eof_, end);
}

void MpiIo::sync() {
    ++stats_.syncs;
    ++changes_;
    check_mpi(MPI_File_sync(*shared_), "MPI_File_sync");
}

MPI_Offset MpiIo::size() const { return mpi_file_size(*shared_); }

void MpiIo::set_size(MPI_Offset size, const char *what) {
    ++stats_.truncates;
    ++changes_;
    set_mpi_file_size(*shared_, size, what);
}

std::optional<Error> MpiIo::close_own_handle(const std::string &file_name) {
    if (own_ == MPI_FILE_NULL || !mpi_usable())
        return std::nullopt;
    const int code = close_mpi_file(&own_);
    own_ = MPI_FILE_NULL;
    if (code == MPI_SUCCESS)
        return std::nullopt;
    return Error(ErrorKind::Mpi, "MPI_File_close of this rank's own handle on '" + file_name +
                                     "' (view writes) failed: " + mpi_error_string(code));
}

int open_mpi_file(MPI_Comm comm, const char *name, int amode, MPI_Info hints, MPI_File *fh) {
    return MPI_File_open(comm, name, amode, hints, fh);
}

int close_mpi_file(MPI_File *fh) { return MPI_File_close(fh); }

int delete_mpi_file(const char *name, MPI_Info hints) { return MPI_File_delete(name, hints); }

MPI_Offset mpi_file_size(MPI_File fh) {
    MPI_Offset size = 0;
    check_mpi(MPI_File_get_size(fh, &size), "MPI_File_get_size");
    return size;
}

void set_mpi_file_size(MPI_File fh, MPI_Offset size, const char *what) {
    check_mpi(MPI_File_set_size(fh, size), what);
}

std::optional<Info> mpi_file_hints(MPI_File fh) {
    Info in_effect;
    if (MPI_File_get_info(fh, in_effect.out()) != MPI_SUCCESS)
        return std::nullopt;
    return in_effect;
}

void set_mpi_file_hints(MPI_File fh, MPI_Info hints) { MPI_File_set_info(fh, hints); }

void zero_fill_after(const MemoryBuffer &memory, std::size_t done) {
    if (done >= memory.bytes)
        return;
    if (memory.type == MPI_BYTE) {
        std::memset(static_cast<char *>(memory.base) + done, 0, memory.bytes - done);
        return;
    }
    // Non-contiguous memory: pack, clear the unread tail, unpack (only on short reads).
    if (memory.bytes > static_cast<std::size_t>(INT_MAX))
        throw Error(ErrorKind::Unsupported, "short read of more than 2 GiB into a derived datatype");
    std::vector<char> packed(memory.bytes);
    const int total = static_cast<int>(memory.bytes);
    int position = 0;
    check_mpi(
        MPI_Pack(memory.base, memory.count, memory.type, packed.data(), total, &position, MPI_COMM_SELF),
        "MPI_Pack");
    std::memset(packed.data() + done, 0, memory.bytes - done);
    position = 0;
    check_mpi(
        MPI_Unpack(packed.data(), total, &position, memory.base, memory.count, memory.type, MPI_COMM_SELF),
        "MPI_Unpack");
}

} // namespace mpiio
