// open / close / delete: the collective lifetime of an MPI file.
#include "common/agreement.hpp"
#include "file/comm_pool.hpp"
#include "file/file.hpp"
#include "file/file_layout.hpp"
#include "hdf5/hdf5_internals.hpp"
#include "io/mpi_layer.hpp"
#include "io/mpi_runtime.hpp"
#include "settings/storage.hpp"

#include <H5FDmpi.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>

namespace mpiio {
namespace {

struct MpiParams {
    FileComm comm;                     // the file's (comm_pool.hpp)
    MPI_Info info = MPI_INFO_NULL;     // the FAPL's hints: borrowed from the FAPL, or owned_info
    Info owned_info;                   // (only when the public getter had to duplicate them)
    std::optional<Config> config;      // empty when the config string is invalid
    std::uint64_t config_hash = 0;     // of its canonical text (0 when invalid)
    std::optional<Error> config_error; // why, reported collectively once the comm is known
};

// Local. The configuration of `text` and the hash of its canonical text. Programs open many files
// with one configuration: the last one is kept (its canonical text costs about as much as the
// rest of the driver's open).
std::pair<Config, std::uint64_t> parsed_config(std::string_view text) {
    static std::mutex mutex;
    static std::optional<std::pair<std::string, std::pair<Config, std::uint64_t>>> last;
    std::lock_guard lock(mutex);
    if (!last || last->first != text) {
        Config config = parse_config(std::string(text)); // throws before the cache changes
        const std::uint64_t hash = fnv1a(config.canonical());
        last.emplace(std::string(text), std::pair{std::move(config), hash});
    }
    return last->second;
}

// Local. The FAPL's communicator, hints and config string through the public getters (when the
// library's own property functions are not available: hdf5_internals.hpp item 7). The
// communicator and hints come back duplicated: `owned_comm` and `params.owned_info` free them.
hdf5_internals::FaplSettings fapl_settings_public(hid_t fapl_id, Comm &owned_comm, MpiParams &params,
                                                  std::string &config) {
    hdf5_internals::FaplSettings fapl;
    if (H5Pget_mpi_params(fapl_id, &fapl.comm, &fapl.info) < 0)
        throw Error(ErrorKind::Internal, "cannot read the MPI communicator and info from the FAPL");
    owned_comm = Comm(fapl.comm);
    params.owned_info = Info(fapl.info);
    const ssize_t length = H5Pget_driver_config_str(fapl_id, nullptr, 0);
    if (length > 0) {
        config.assign(static_cast<size_t>(length) + 1, '\0');
        if (H5Pget_driver_config_str(fapl_id, config.data(), config.size()) < 0)
            throw Error(ErrorKind::Internal, "cannot read the driver config string from the FAPL");
        config.resize(static_cast<size_t>(length));
        fapl.config = config.c_str();
    }
    return fapl;
}

// Collective over the FAPL's communicator unless the comm pool reuses one (comm_pool.hpp; the same
// decision on every rank). Communicator, hints and configuration for a file: the FAPL's
// communicator (or the config's choice when the FAPL has none) as the file's own, its hints
// borrowed.
MpiParams mpi_params_from_fapl(hid_t fapl_id) {
    MpiParams params;
    hdf5_internals::FaplSettings fapl;
    Comm owned_comm;         // (public getters only)
    std::string config_text; // (public getters only)
    if (!hdf5_internals::peek_fapl(fapl_id, fapl))
        fapl = fapl_settings_public(fapl_id, owned_comm, params, config_text);
    params.info = fapl.info;
    params.config_error = capture([&] {
        auto [config, hash] = parsed_config(fapl.config != nullptr ? fapl.config : "");
        params.config = std::move(config);
        params.config_hash = hash;
    });
    MPI_Comm parent = fapl.comm;
    if (parent == MPI_COMM_NULL)
        parent = params.config && params.config->comm == CommChoice::Self ? MPI_COMM_SELF : MPI_COMM_WORLD;
    int inter = 0;
    check_mpi(MPI_Comm_test_inter(parent, &inter), "MPI_Comm_test_inter");
    if (inter)
        throw Error(ErrorKind::Config, "the FAPL's communicator is an intercommunicator; "
                                       "MPI-IO needs an intracommunicator");
    params.comm = file_comm_for(parent);
    return params;
}

// The configuration's part of an agreement: its hash and the hash's complement. After an
// MPI_Allreduce of their maxima a rank holds its own two words only when every rank's hash is the
// same (the largest h and the largest ~h belong to one rank only when all are equal).
struct ConfigWords {
    std::uint64_t hash;
    explicit ConfigWords(const MpiParams &params) : hash(params.config_hash) {}
    std::int64_t word0() const { return static_cast<std::int64_t>(hash); }
    std::int64_t word1() const { return static_cast<std::int64_t>(~hash); }
    // Collective outcome, local check: every rank gets the same answer from the same maxima.
    void check(std::int64_t max0, std::int64_t max1) const {
        if (max0 != word0() || max1 != word1())
            throw Error(ErrorKind::Config, "the driver config string differs between ranks; "
                                           "every rank must pass the same configuration");
    }
};

// Collective: one MPI_Allreduce before the delete. Fails every rank when any rank could not get
// ready or the ranks parsed different configurations; it returns on a rank only once every rank
// has reached it (the barrier the delete needs).
void agree_before_delete(MPI_Comm comm, const MpiParams &params, const std::optional<Error> &local_error) {
    const ConfigWords config(params);
    std::array<std::int64_t, 2> words{config.word0(), config.word1()};
    allreduce_max_agreeing(comm, words, local_error);
    config.check(words[0], words[1]);
}

// Local. A copy of `hints` the file keeps (an empty info for MPI_INFO_NULL; MPI_INFO_NULL itself
// only when MPI cannot make one, which every user of the file's hints accepts).
Info kept_copy(MPI_Info hints) {
    Info copy;
    if (hints != MPI_INFO_NULL)
        MPI_Info_dup(hints, copy.out());
    else
        MPI_Info_create(copy.out());
    return copy;
}

// The hints MPI_File_open is given: the FAPL's own (borrowed, possibly MPI_INFO_NULL, as the
// built-in driver passes them) or, when the config adds hint.<name> entries, a merged copy.
struct RequestedHints {
    MPI_Info fapl = MPI_INFO_NULL;
    Info merged;
    MPI_Info get() const { return merged ? merged.get() : fapl; }
};

// Local. The FAPL's hints plus the config's hint.<name> entries (config wins; none when the
// configuration could not be parsed).
RequestedHints hints_for_open(const MpiParams &params) {
    RequestedHints hints{params.info, Info()};
    if (!params.config || params.config->hints.empty())
        return hints;
    hints.merged = kept_copy(params.info);
    if (!hints.merged)
        throw Error(ErrorKind::Mpi, "cannot copy the FAPL's MPI info to add the config's hints");
    for (const auto &[key, value] : params.config->hints)
        check_mpi(MPI_Info_set(hints.merged.get(), key.c_str(), value.c_str()), "MPI_Info_set");
    return hints;
}

// Local. The hints in effect: what the MPI-IO layer reports, plus every requested hint it does
// not list (so H5Fget_access_plist hands back what the application set).
Info hints_in_effect(MPI_File fh, MPI_Info requested) {
    std::optional<Info> reported = mpi_file_hints(fh);
    if (!reported)
        throw Error(ErrorKind::Mpi, "MPI_File_get_info failed");
    Info in_effect = std::move(*reported);
    int nkeys = 0;
    if (requested != MPI_INFO_NULL)
        check_mpi(MPI_Info_get_nkeys(requested, &nkeys), "MPI_Info_get_nkeys");
    for (int i = 0; i < nkeys; ++i) {
        char key[MPI_MAX_INFO_KEY + 1] = {};
        check_mpi(MPI_Info_get_nthkey(requested, i, key), "MPI_Info_get_nthkey");
        int length = 0, present = 0;
        check_mpi(MPI_Info_get_valuelen(in_effect.get(), key, &length, &present), "MPI_Info_get_valuelen");
        if (present)
            continue;
        check_mpi(MPI_Info_get_valuelen(requested, key, &length, &present), "MPI_Info_get_valuelen");
        std::string value(static_cast<size_t>(length) + 1, '\0');
        check_mpi(MPI_Info_get(requested, key, length + 1, value.data(), &present), "MPI_Info_get");
        value.resize(static_cast<size_t>(length));
        check_mpi(MPI_Info_set(in_effect.get(), key, value.c_str()), "MPI_Info_set");
    }
    return in_effect;
}

// Local. The cb_nodes hint the application asked for (0: none, or not a number).
unsigned long requested_cb_nodes(MPI_Info requested) {
    char value[MPI_MAX_INFO_VAL + 1] = {};
    int present = 0;
    if (requested == MPI_INFO_NULL ||
        MPI_Info_get(requested, "cb_nodes", MPI_MAX_INFO_VAL, value, &present) != MPI_SUCCESS || !present)
        return 0;
    char *end = nullptr;
    const unsigned long n = std::strtoul(value, &end, 10);
    return end != value && *end == '\0' ? n : 0;
}

// Local. Whether writes become visible to other ranks (and handles) only after MPI_File_sync, as
// the built-in driver decides it: ROMIO's romio_visibility_immediate hint, overridden by
// HDF5_DO_MPI_FILE_SYNC.
bool writes_need_sync_to_be_visible(MPI_Info hints) {
    bool required = false;
    char value[MPI_MAX_INFO_VAL + 1] = {};
    int present = 0;
    if (hints != MPI_INFO_NULL &&
        MPI_Info_get(hints, "romio_visibility_immediate", MPI_MAX_INFO_VAL, value, &present) == MPI_SUCCESS &&
        present)
        required = std::strcmp(value, "false") == 0;
    if (const char *env = std::getenv("HDF5_DO_MPI_FILE_SYNC")) {
        if (!std::strcmp(env, "TRUE") || !std::strcmp(env, "1"))
            required = true;
        else if (!std::strcmp(env, "FALSE") || !std::strcmp(env, "0"))
            required = false;
    }
    return required;
}

// Local. Whether `name` starts with an MPI-IO file system prefix ("ufs:", "lustre:", ...).
bool has_mpiio_prefix(const std::string &name) {
    const auto colon = name.find(':');
    return colon != std::string::npos && colon > 1 && name.find('/') > colon;
}

// Local. Why this rank could not open `name` as `flags` ask, checked with the operating system
// before the collective MPI_File_open where a failure on some ranks only would hang (OMPIO:
// mpi_layer.hpp). A permission lookup with the effective ids (no open: on a parallel file system
// an open and a close are two requests to the metadata server per rank), so that the rank that
// cannot open the file, and every other, fails with an error instead. Names with an MPI-IO prefix
// ("ufs:", "lustre:", ...) are left to the MPI-IO layer.
std::optional<Error> access_problem(const std::string &name, unsigned flags) {
    if (has_mpiio_prefix(name))
        return std::nullopt;
    auto failure = [&](const std::string &what, int err) {
        return Error(ErrorKind::Io, "cannot open '" + name + "' " + what + ": " + std::strerror(err));
    };
    const bool rdwr = flags & H5F_ACC_RDWR, exclusive = (flags & H5F_ACC_CREAT) && (flags & H5F_ACC_EXCL);
    if (::faccessat(AT_FDCWD, name.c_str(), rdwr ? R_OK | W_OK : R_OK, AT_EACCESS) == 0)
        return exclusive ? std::optional(failure("for exclusive creation", EEXIST)) : std::nullopt;
    const int err = errno;
    if (exclusive && err != ENOENT && ::faccessat(AT_FDCWD, name.c_str(), F_OK, 0) == 0)
        return failure("for exclusive creation", EEXIST);
    if (err == ENOENT && (flags & H5F_ACC_CREAT)) {
        const auto slash = name.find_last_of('/');
        const std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : name.substr(0, slash));
        if (::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
            return failure("for creation in '" + dir + "'", errno);
        return std::nullopt;
    }
    const bool path_problem = err == ENOENT || err == ENOTDIR || err == ELOOP || err == ENAMETOOLONG;
    return failure(path_problem ? "" : (rdwr ? "for reading and writing" : "for reading"), err);
}

int access_mode(unsigned flags) {
    int amode = (flags & H5F_ACC_RDWR) ? MPI_MODE_RDWR : MPI_MODE_RDONLY;
    if (flags & H5F_ACC_CREAT)
        amode |= MPI_MODE_CREATE;
    if (flags & H5F_ACC_EXCL)
        amode |= MPI_MODE_EXCL;
    return amode;
}

// Closes the MPI file when an error unwinds open after every rank opened it. Every error after
// the open is agreed on, so all ranks run this destructor together (MPI_File_close is collective).
struct OpenedFile {
    MPI_File fh = MPI_FILE_NULL;
    ~OpenedFile() {
        if (fh != MPI_FILE_NULL && mpi_usable())
            close_mpi_file(&fh);
    }
};

} // namespace

// Collective. The built-in driver's collective calls (MPI_File_open, then rank 0's size in one
// MPI_Bcast: every rank must see the same EOF, the library derives "new file?" and "truncated
// file?" from it) after one agreement of its own, an MPI_Allreduce before the open: every rank
// must pass the same configuration to MPI_File_open (ROMIO hangs when ranks ask for different
// collective-buffering hints), and under OMPIO a failure of some ranks only would hang inside
// MPI_File_open (mpi_layer.hpp), so there every rank but 0 first checks its access to the file
// (rank 0's own failure OMPIO hands to every rank itself). ROMIO's MPI_File_open fails on every
// rank or on none. The size comes from the open file (MPI_File_get_size), not from a lookup of
// the path before the open: folded into the agreement that lookup saved the broadcast but cost
// rank 0 more than the broadcast does, on the path every rank waits for (docs/measurements.md,
// "Open and close cost").
File *open_file(const char *name, unsigned flags, hid_t fapl_id, haddr_t maxaddr) {
    if (name == nullptr || *name == '\0')
        throw Error(ErrorKind::Config, "no file name given");
    if (maxaddr == 0 || maxaddr == HADDR_UNDEF)
        throw Error(ErrorKind::Config, "invalid maximum address for an MPI file");
    ensure_mpi_initialized();

    MpiParams params = mpi_params_from_fapl(fapl_id);
    const MPI_Comm comm = params.comm.get();
    const ConfigWords config(params);

    // Everything a rank prepares before the open, agreed on in one collective call. The objects
    // are allocated here too: nothing after the last agreement may fail on one rank alone.
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    std::unique_ptr<FileState> state;
    std::unique_ptr<File> file;
    RequestedHints requested;
    std::optional<Error> ready_error = params.config_error;
    if (!ready_error)
        ready_error = capture([&] {
            state = std::make_unique<FileState>();
            file = std::make_unique<File>();
            std::memset(&file->pub, 0, sizeof(file->pub)); // the library fills pub in after open
            state->rank = rank;
            check_mpi(MPI_Comm_size(comm, &state->size), "MPI_Comm_size");
            state->name = name;
            state->read_only = !(flags & H5F_ACC_RDWR);
            requested = hints_for_open(params);
            state->config = std::move(*params.config); // (params' copy is not read after this)
            if (rank != 0 && open_needs_agreement_first())
                if (auto problem = access_problem(name, flags))
                    throw *problem;
        });
    std::array<std::int64_t, 2> words{config.word0(), config.word1()};
    allreduce_max_agreeing(comm, words, ready_error);
    config.check(words[0], words[1]);

    OpenedFile opened;
    const int code = open_mpi_file(comm, name, access_mode(flags), requested.get(), &opened.fh);
    if (code != MPI_SUCCESS) { // on every rank (see above)
        opened.fh = MPI_FILE_NULL;
        throw Error(ErrorKind::Mpi,
                    "MPI_File_open of '" + std::string(name) + "' failed: " + mpi_error_string(code));
    }
    // Rank 0's size, the type of the file system the file lies on, the file's layout there and the
    // cb_nodes hint asked for, in one broadcast (the type picks the storage class's defaults,
    // settings/storage.hpp; the layout and the hint the aggregating route's windows and
    // aggregators, file/file_layout.hpp: every rank plans with the same).
    MPI_Offset size = 0;
    std::array<std::int64_t, 3 + kLayoutWords> rank0_words{};
    std::optional<Error> size_error;
    if (rank == 0)
        size_error = capture([&] {
            size = mpi_file_size(opened.fh);
            rank0_words[1] = file_system_magic(name);
            const auto layout = to_words(probe_layout(name, layout_attribute_of(rank0_words[1]), opened.fh));
            std::copy(layout.begin(), layout.end(), rank0_words.begin() + 3);
            rank0_words[2] = static_cast<std::int64_t>(requested_cb_nodes(requested.get()));
        });
    rank0_words[0] = size;
    bcast_from_rank0_agreeing(comm, rank0_words, size_error); // every rank has a handle: closed together
    size = static_cast<MPI_Offset>(rank0_words[0]);
    state->storage = resolve_storage_tuning(state->config, rank0_words[1]);
    state->layout = apply_layout_keys(
        layout_from_words(std::span<const std::int64_t, kLayoutWords>(rank0_words.data() + 3, kLayoutWords)),
        state->config);
    const auto cb_nodes = static_cast<std::size_t>(rank0_words[2]);
    // Collective (the same answer on every rank). Hints are advisory: a refusal is not an error.
    // MPI_File_set_info takes no MPI_INFO_NULL: a rank that requested nothing passes an empty info.
    if (open_dropped_hints(opened.fh)) {
        const Info again = kept_copy(requested.get());
        set_mpi_file_hints(opened.fh, again.get());
    }

    // Local steps that cannot fail on one rank alone: the hints in effect (the requested ones when
    // the MPI-IO layer will not tell; never MPI_INFO_NULL, ctl.cpp), whether writes need
    // MPI_File_sync to become visible.
    if (capture([&] { state->info = hints_in_effect(opened.fh, requested.get()); }))
        state->info = kept_copy(requested.get());
    const bool sync_needed = writes_need_sync_to_be_visible(state->info.get());
    state->sync_after_collective_write = state->config.sync == SyncPolicy::Auto && sync_needed;
    // The rank's own handle (view writes, where the storage class takes them) sees and makes writes
    // as the shared one does only where writes are visible without MPI_File_sync (mpi_io.hpp); its
    // name is fixed now, to the file the shared handle just opened (own_handle_path.hpp).
    if (state->storage.view_writes && !sync_needed && !state->read_only)
        state->own_path = OwnHandlePath(name);
    OwnHandleSettings own{state->own_path.path(), state->info.get(), !state->own_path.path().empty(),
                          state->config.view_writes == ViewWrites::On};

    if ((flags & H5F_ACC_TRUNC) && size > 0) {
        collectively(comm,
                     [&] { set_mpi_file_size(opened.fh, 0, "MPI_File_set_size (truncate on create)"); });
        size = 0;
    }

    state->extent.known_size = static_cast<haddr_t>(size);
    state->comm = std::move(params.comm);
    file->fh = opened.fh;
    opened.fh = MPI_FILE_NULL;
    state->io.bind(&file->fh, std::move(own), static_cast<haddr_t>(size));
    state->io.measure_time(state->config.stats == StatsMode::Summary);
    state->independent.bind(&state->io,
                            IndependentLimits{state->config.staging_buffer, state->storage.sieve_gap,
                                              state->config.host_copies == HostCopies::On});
    state->collective.bind(CollectiveContext{
        .comm = state->comm.get(),
        .rank = state->rank,
        .size = state->size,
        .hints = state->info.get(),
        .route = state->storage.route,
        .route_min_block = state->storage.sieve_gap,
        .read_overlap_limit = state->storage.read_overlap_limit,
        .host_copies = state->config.host_copies == HostCopies::On,
        .read_only = state->read_only,
        .sync_after_write = state->sync_after_collective_write,
        .io = &state->io,
        .independent = &state->independent,
        .failed_writes = &state->failed_writes,
        .extent = &state->extent,
        .aggregation_window = aggregation::window_for(state->config.staging_buffer, state->layout.unit),
        .window_cache = state->config.window_cache,
        .write_behind = state->storage.write_behind,
        .aggregators_asked = state->config.aggregators.value_or(0),
        .cb_nodes = cb_nodes,
        .server_count = state->layout.count_is_servers ? static_cast<std::size_t>(state->layout.count) : 0});
    file->state = state.release();
    return file.release();
}

// Collective. The agreement on what failed before the close (a write no agreement followed, the
// superblock HDF5 writes after its last truncate among them; the rank's own handle; the statistics)
// rides on the closing truncate's exchange when HDF5 left one (truncate_while_closing): then the
// close costs the built-in driver's collective calls. Otherwise it is an MPI_Iallreduce posted
// before MPI_File_close and completed after it, so that its latency hides behind the close's own
// synchronisation; so is the agreement on the truncate's MPI_File_set_size when that ran. A
// read-only file without statistics has nothing that can fail on one rank and agrees on nothing.
// An error of MPI_File_close itself is this rank's alone (the built-in driver's behaviour).
void close_file(File *file) {
    std::unique_ptr<File> owner(file);
    std::unique_ptr<FileState> state(file->state); // (its communicator returns to the pool on every path)
    const MPI_Comm comm = state->comm.get();
    std::optional<Error> error = capture([&] { state->collective.settle(); }); // this rank's, not agreed yet
    // (collective, normally done at the library's closing truncate already; its failure is agreed)
    std::optional<Error> pending_error = capture([&] { state->collective.write_out_pending(); });
    if (!error)
        error = std::move(pending_error);
    if (state->config.stats == StatsMode::Summary) { // collective: every rank prints, whatever failed
        std::optional<Error> stats_error = capture([&] {
            print_stats_summary(comm, state->rank, state->name,
                                StatsHeader{describe(state->storage), describe(state->layout),
                                            state->collective.describe_aggregation()},
                                state->io.stats());
        });
        if (!error)
            error = std::move(stats_error);
    }
    std::optional<Error> view_error = state->io.close_own_handle(state->name);
    if (!error)
        error = std::move(view_error);
    error = state->failed_writes.with(std::move(error));
    bool agree_after_close = !state->read_only || state->config.stats == StatsMode::Summary;
    std::optional<Error> agreed_failure; // known to every rank
    if (state->extent.truncate_at_close) {
        std::optional<Error> resize_error;
        agreed_failure = capture(
            [&] { agree_after_close = truncate_while_closing(file, std::move(error), resize_error); });
        error = std::move(resize_error);
    }
    const std::int64_t mine = error ? INT64_MAX - state->rank : INT64_MIN;
    std::int64_t first = INT64_MIN;
    MPI_Request request = MPI_REQUEST_NULL;
    if (agree_after_close && !agreed_failure)
        check_mpi(MPI_Iallreduce(&mine, &first, 1, MPI_INT64_T, MPI_MAX, comm, &request),
                  "MPI_Iallreduce (close agreement)");
    const int code = close_mpi_file(&file->fh);
    if (request != MPI_REQUEST_NULL)
        check_mpi(MPI_Wait(&request, MPI_STATUS_IGNORE), "MPI_Wait (close agreement)");
    if (agreed_failure)
        throw *agreed_failure;
    if (first != INT64_MIN)
        raise_agreed_failure(comm, static_cast<int>(INT64_MAX - first), error);
    if (error) // (nothing this rank could not agree on is expected here)
        throw *error;
    if (code != MPI_SUCCESS)
        throw Error(ErrorKind::Mpi,
                    "MPI_File_close of '" + state->name + "' failed: " + mpi_error_string(code));
}

void delete_file(const char *name, hid_t fapl_id) {
    if (name == nullptr || *name == '\0')
        throw Error(ErrorKind::Config, "no file name given");
    ensure_mpi_initialized();
    MpiParams params = mpi_params_from_fapl(fapl_id);
    const MPI_Comm comm = params.comm.get();
    // Nobody may still hold the file open when rank 0 removes it.
    agree_before_delete(comm, params, params.config_error);
    int rank = 0;
    check_mpi(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
    std::optional<Error> error;
    if (rank == 0)
        error = capture([&] {
            const int code = delete_mpi_file(name, params.info);
            if (code != MPI_SUCCESS)
                throw Error(ErrorKind::Mpi, "MPI_File_delete of '" + std::string(name) +
                                                "' failed: " + mpi_error_string(code));
        });
    agree(comm, error);
}

} // namespace mpiio
