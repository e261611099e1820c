#include "settings/config.hpp"

#include "common/error.hpp"

#include <mpi.h>

#include <array>
#include <functional>
#include <type_traits>

namespace mpiio {
namespace {

std::string trim(const std::string &s) {
    const char *ws = " \t\r\n";
    const auto b = s.find_first_not_of(ws);
    if (b == std::string::npos)
        return {};
    const auto e = s.find_last_not_of(ws);
    return s.substr(b, e - b + 1);
}

[[noreturn]] void bad_value(const std::string &key, const std::string &value, const std::string &expected) {
    throw Error(ErrorKind::Config,
                "config key '" + key + "' has invalid value '" + value + "' (" + expected + ")");
}

// An enumerated setting: its names in documentation order.
template <class Enum, size_t N> using Choices = std::array<std::pair<const char *, Enum>, N>;

// Looks `value` up in `choices`; throws naming the key and the allowed names.
template <class Enum, size_t N>
Enum choose(const std::string &key, const std::string &value, const Choices<Enum, N> &choices) {
    std::string allowed;
    for (const auto &[name, e] : choices) {
        if (value == name)
            return e;
        allowed += allowed.empty() ? name : std::string(" | ") + name;
    }
    bad_value(key, value, "allowed: " + allowed);
}

template <class Enum, size_t N> std::string name_of(Enum e, const Choices<Enum, N> &choices) {
    for (const auto &[name, value] : choices)
        if (value == e)
            return name;
    return "?";
}

constexpr Choices<CommChoice, 2> kComm{{{"world", CommChoice::World}, {"self", CommChoice::Self}}};
constexpr Choices<SyncPolicy, 3> kSync{
    {{"auto", SyncPolicy::Auto}, {"flush", SyncPolicy::Flush}, {"never", SyncPolicy::Never}}};
constexpr Choices<StatsMode, 2> kStats{{{"off", StatsMode::Off}, {"summary", StatsMode::Summary}}};
constexpr Choices<ViewWrites, 3> kViewWrites{
    {{"auto", ViewWrites::Auto}, {"on", ViewWrites::On}, {"off", ViewWrites::Off}}};
constexpr Choices<WriteBehindChoice, 3> kWriteBehind{
    {{"auto", WriteBehindChoice::Auto}, {"on", WriteBehindChoice::On}, {"off", WriteBehindChoice::Off}}};
constexpr Choices<HostCopies, 2> kHostCopies{{{"on", HostCopies::On}, {"off", HostCopies::Off}}};
constexpr Choices<StorageChoice, 3> kStorage{
    {{"auto", StorageChoice::Auto}, {"local", StorageChoice::Local}, {"shared", StorageChoice::Shared}}};

// Keys earlier releases took and this one no longer does: an error that says why, not "unknown".
constexpr std::array<std::pair<const char *, const char *>, 1> kRetiredKeys{
    {{"read_bounce",
      "was removed: reads are no longer bounced through a buffer of the driver's (see host_copies)"}}};
constexpr Choices<CollectiveRoute, 5> kRoute{
    {{"auto", CollectiveRoute::Auto},
     {"collective", CollectiveRoute::Collective},
     {"independent", CollectiveRoute::Independent},
     {"aggregate", CollectiveRoute::Aggregate},
     {"aggregate_interleaved", CollectiveRoute::AggregateInterleaved}}};
constexpr Choices<Config::ChunkOpt, 3> kChunkOpt{{{"default", Config::ChunkOpt::Default},
                                                  {"linked", Config::ChunkOpt::Linked},
                                                  {"multi", Config::ChunkOpt::Multi}}};

// Numbers are plain decimal digits: std::stoull alone would also take a sign, and skip \v or \f
// before one ("\v-1" would wrap to 2^64 - 1).
bool starts_with_digit(const std::string &value) {
    return !value.empty() && value[0] >= '0' && value[0] <= '9';
}

// A byte count with an optional K, M or G suffix (binary multiples).
std::size_t parse_bytes(const std::string &key, const std::string &value) {
    std::size_t pos = 0;
    unsigned long long n = 0;
    try {
        n = std::stoull(value, &pos);
    } catch (const std::exception &) {
        pos = 0;
    }
    std::string suffix = pos ? trim(value.substr(pos)) : "";
    unsigned shift = 0;
    if (suffix == "K" || suffix == "k" || suffix == "KiB")
        shift = 10;
    else if (suffix == "M" || suffix == "m" || suffix == "MiB")
        shift = 20;
    else if (suffix == "G" || suffix == "g" || suffix == "GiB")
        shift = 30;
    else if (!suffix.empty())
        pos = 0;
    if (pos == 0 || !starts_with_digit(value) || n > (~0ull >> shift))
        bad_value(key, value, "expected a byte count such as 65536, 64K or 4M");
    return static_cast<std::size_t>(n << shift);
}

unsigned parse_unsigned(const std::string &key, const std::string &value, unsigned max, unsigned min = 0) {
    size_t pos = 0;
    unsigned long n = 0;
    try {
        n = std::stoul(value, &pos);
    } catch (const std::exception &) {
        pos = 0;
    }
    if (pos == 0 || pos != value.size() || !starts_with_digit(value) || n < min || n > max)
        bad_value(key, value,
                  "expected a whole number from " + std::to_string(min) + " to " + std::to_string(max));
    return static_cast<unsigned>(n);
}

template <class T> std::string optional_text(const std::optional<T> &v) {
    return v ? std::to_string(static_cast<long long>(*v)) : "-";
}

// The one table of configuration keys. Each key's documentation (KeyDoc: its values, the default
// `fallback` parsed by the default-consistency test (empty when the application's DXPL decides or
// the storage class does), what the default means on local and on shared storage, a one-line
// summary and the full meaning) is what docs/configuration.md, the README's key table and
// h5plugin.json are generated from; `apply` parses a value into the Config, `show` prints the
// setting for Config::canonical (so ranks configured differently in any way are caught at open).
struct KeySpec : KeyEntry {
    std::function<void(Config &, const std::string &key, const std::string &value)> apply;
    std::function<std::string(const Config &)> show;
};

// Key makers: a key that names one of `choices`, a byte count, or a whole number, stored in one
// field of Config.
template <class Field, class Enum, size_t N>
KeySpec named_key(const char *key, const KeyDoc &doc, Field Config::*field, const Choices<Enum, N> &choices) {
    return {{key, "choice", doc},
            [field, &choices](Config &c, const std::string &k, const std::string &v) {
                c.*field = choose(k, v, choices);
            },
            [field, &choices](const Config &c) -> std::string {
                if constexpr (std::is_same_v<Field, Enum>)
                    return name_of(c.*field, choices);
                else
                    return c.*field ? name_of(*(c.*field), choices) : "-";
            }};
}

template <class Field>
KeySpec bytes_key(const char *key, const KeyDoc &doc, Field Config::*field, bool positive) {
    return {{key, "bytes", doc},
            [field, positive](Config &c, const std::string &k, const std::string &v) {
                const std::size_t n = parse_bytes(k, v);
                if (positive && n == 0)
                    bad_value(k, v, "must be positive");
                c.*field = n;
            },
            [field](const Config &c) {
                if constexpr (std::is_same_v<Field, std::size_t>)
                    return std::to_string(c.*field);
                else
                    return optional_text(c.*field);
            }};
}

template <class Field>
KeySpec number_key(const char *key, const KeyDoc &doc, Field Config::*field, unsigned min, unsigned max) {
    return {{key, "number", doc},
            [field, min, max](Config &c, const std::string &k, const std::string &v) {
                c.*field = parse_unsigned(k, v, max, min);
            },
            [field](const Config &c) {
                if constexpr (std::is_same_v<Field, unsigned>)
                    return std::to_string(c.*field);
                else
                    return optional_text(c.*field);
            }};
}

// One entry per key (the documentation is generated from it: settings/config_reference.cpp).
// clang-format off
const std::vector<KeySpec> &key_table() {
    static const std::vector<KeySpec> table = {
        named_key("comm", {.values = "world | self", .fallback = "world", .on_local = "world", .on_shared = "world",
             .summary = "The communicator a file opens with when the file access property list names none.",
             .meaning = "communicator when the FAPL has none"}, &Config::comm, kComm),
        named_key("sync", {.values = "auto | flush | never", .fallback = "auto", .on_local = "auto", .on_shared = "auto",
             .summary = "When the driver calls `MPI_File_sync`: where the built-in driver does (`auto`), only at `H5Fflush` (`flush`), or never (scratch files).",
             .meaning = "`auto`: `MPI_File_sync` on `H5Fflush`, and after every collective write when the MPI-IO layer says writes are not immediately visible (`romio_visibility_immediate=false` or `HDF5_DO_MPI_FILE_SYNC`), as the built-in driver; `flush`: only on `H5Fflush`; `never`: no sync (scratch files)"}, &Config::sync, kSync),
        named_key("stats", {.values = "off | summary", .fallback = "off", .on_local = "off", .on_shared = "off",
             .summary = "`summary`: at close rank 0 prints the release, the storage class, the settings in effect and what the driver did to stderr.",
             .meaning = "per-file statistics printed by rank 0 to stderr at close; the time spent in MPI-IO data calls is measured only then (`H5Fget_mpiio_stats` reports 0 seconds otherwise)"}, &Config::stats, kStats),
        named_key("storage", {.values = "auto | local | shared", .fallback = "auto", .on_local = "auto: `local`", .on_shared = "auto: `shared`",
             .summary = "Which storage class's defaults the file takes; `auto` reads the type of the file system the file is on, once per open.",
             .meaning = "which storage class's defaults the file takes (`sieve_gap`, `read_overlap_limit`, the route `collective_route=auto` takes): `auto` asks the operating system for the type of the file system the file lies on (rank 0, once per open): tmpfs, ramfs and local disk file systems (ext4, xfs, btrfs, ...) are local, where an MPI-IO call costs microseconds; network, parallel and FUSE file systems (NFS, Lustre, GPFS, CephFS, BeeGFS, GlusterFS and other FUSE mounts, ...) are shared, where a call costs a round trip to a server; an unknown type counts as local. `stats=summary` prints the class and the values in effect"}, &Config::storage, kStorage),
        named_key("collective_route", {.values = "auto | collective | independent | aggregate | aggregate_interleaved", .fallback = "auto", .on_local = "auto: rank by rank where extents are disjoint, else MPI collective I/O", .on_shared = "auto: `aggregate` (CephFS: `aggregate_interleaved`)",
             .summary = "How a collective transfer moves its bytes: MPI collective I/O, each rank on its own, or the driver's aggregation (one rank per node).",
             .meaning = "how a collective transfer moves its bytes: `auto` follows the storage class (`storage`): on local storage each rank moves its own extent with independent calls when no two ranks' extents overlap (writes then may read back and rewrite the holes inside the rank's own extent), for reads also when they overlap within `read_overlap_limit`, and MPI collective I/O otherwise; on shared storage `aggregate` under every MPI-IO layer: it keeps the writers of a file few (every rank writing its own extent had the client hosts take the servers' locks in turn), never reads back holes no rank wrote (the layers' collective writes do), and fails a transfer on every rank together (OMPIO's collective write leaves the other ranks waiting when one rank's write fails); on CephFS `aggregate_interleaved` (its objects take no extent locks, and each rank writing its own contiguous block through its own client kept up with the MPI-IO layers where one aggregator did not); `collective` always uses MPI collective I/O; `independent` never does (writes then bridge holes only when the extents are disjoint); `aggregate` has the lowest rank of each node move every rank's bytes, `staging_buffer` bytes at a time, with one agreement at the end (bytes two ranks write in one transfer keep the highest rank's); `aggregate_interleaved` is `aggregate` except for writes where every rank's file side is one contiguous block of at least `sieve_gap` bytes (what a call is worth on the storage) and the blocks ascend with the rank (each rank its own part of a dataset), which each rank then writes with independent calls (reads aggregate: the aggregators' windows, read in file order, are what a client's readahead turns into whole-object reads), unless the transfer moves the very range the last collective transfer moved (the library's read and rewrite of a compound dataset's records, field by field: the aggregators answer and defer those, `window_cache`, `write_behind`); every choice but `collective` leaves a transfer where the library itself hands over a file datatype with holes (selection I/O off) to MPI collective I/O"}, &Config::collective_route, kRoute),
        number_key("read_overlap_limit", {.values = "ratio, 1-65536", .fallback = "", .on_local = "4", .on_shared = "not used (reads are aggregated)",
             .summary = "How much overlapping collective reads may read beyond the bytes they cover before the `auto` route takes MPI collective I/O.",
             .meaning = "`auto` route of collective reads whose ranks' extents overlap (interleaved blocks, point selections): each rank still reads inside its own extent on its own when the extents add up to at most this many times the file range they cover together, so the file system serves at most that many times the bytes MPI collective I/O would read once and exchange; above it, MPI collective I/O. `1`: only disjoint extents, as for writes (a write never bridges another rank's bytes). Default: `4` (on shared storage `auto` reads through the aggregators: the limit does not apply there)"}, &Config::read_overlap_limit, 1, 65536),
        bytes_key("staging_buffer", {.values = "bytes, K/M/G suffix", .fallback = "4M", .on_local = "4M", .on_shared = "4M",
             .summary = "The largest buffer a rank stages its small byte runs in, and the most bytes an aggregator holds at once.",
             .meaning = "largest buffer a rank's own transfer stages bytes in: many small byte runs become one MPI call per this many bytes (a run of 64 KiB or more moves with a call of its own, straight from or to the caller's memory); also the most bytes an aggregator of `collective_route=aggregate` holds at once, rounded to whole stripe units of the file (`stripe_unit`)"}, &Config::staging_buffer, true),
        bytes_key("stripe_unit", {.values = "bytes, K/M/G suffix", .fallback = "", .on_local = "the file system's", .on_shared = "the file system's",
             .summary = "The unit the aggregating route cuts the file into, one writer per unit; unset: the file's layout as its file system reports it.",
             .meaning = "the file's stripe (lock, block) unit as the aggregating route (`collective_route=aggregate`) uses it: an aggregator's window is a whole number of units (`staging_buffer` rounded down to them, at least one unit; units of a page or less, and above 64 MiB, leave the window at `staging_buffer`), and each window belongs to one aggregator by its file offset, the same at every transfer, so no two clients write one unit in a transfer and a unit keeps its writer from step to step. Unset: what rank 0 finds at open: CephFS's `ceph.file.layout`, Lustre's `lustre.lov`, the MPI-IO layer's `striping_unit` hint, else `st_blksize` (GPFS's block size). `stats=summary` prints the layout and where it came from"}, &Config::stripe_unit, true),
        number_key("stripe_count", {.values = "servers, 1-65536", .fallback = "", .on_local = "the file system's", .on_shared = "the file system's",
             .summary = "Over how many servers the file's stripes lie: the aggregators are then at most one per server, a divisor of it; unset: the file system's.",
             .meaning = "the number of servers (object storage targets) the file's stripes go round, each locking its own stripes: with it, the aggregators are its largest divisor that the nodes (and the `cb_nodes` hint) allow, so that each server's stripes have one writer and every writer as many servers as the next. Unset: Lustre's `lustre.lov` stripe count or the MPI-IO layer's `striping_factor`; CephFS's count is reported but not followed (its objects take no extent locks)"}, &Config::stripe_count, 1, 65536),
        number_key("aggregators", {.values = "ranks, 1-1048576", .fallback = "", .on_local = "one per node", .on_shared = "one per node",
             .summary = "How many ranks aggregate on the aggregating route (more than one per node when more than the nodes); unset: one per node, fitted to the stripe count.",
             .meaning = "the number of aggregator ranks of the aggregating route (`collective_route=aggregate`). Unset: one per node, fitted to the stripe count where the servers lock stripes (`stripe_count`), and at most the `cb_nodes` hint when the application gives one (as a FAPL hint or `hint.cb_nodes=`). Set: that many (at most the ranks and the `cb_nodes` hint), spread over the nodes in turn (the lowest rank of each node first, then the next). `stats=summary` prints the aggregators chosen"}, &Config::aggregators, 1, 1u << 20),
        bytes_key("window_cache", {.values = "bytes, K/M/G suffix", .fallback = "16M", .on_local = "16M", .on_shared = "16M",
             .summary = "Bytes an aggregator keeps of its last collective transfers to answer rereads of the same bytes; `0` turns it off.",
             .meaning = "the aggregating route (`collective_route=aggregate`, the default on shared storage): the most bytes an aggregator keeps of the windows of its last collective transfers, to answer a collective read of the same bytes without reading the file (the library reads a compound dataset's records back before it writes each field, and again for each field it reads). Any rank's write, resize, sync or flush drops every aggregator's copy at the next collective transfer, a write transfer replaces it; once the application has the file's MPI handle (`H5Fget_vfd_handle`) the file keeps no copies (from its next collective call on), and bytes written through it are seen after `H5Fflush`. `0`: off; also off with `host_copies=off`. `stats=summary` counts the windows it answered"}, &Config::window_cache, false),
        named_key("write_behind", {.values = "auto | on | off", .fallback = "auto", .on_local = "auto: off", .on_shared = "auto: on",
             .summary = "A collective rewrite of the bytes just moved stays in the aggregators' memory and is written once: next step, flush or close.",
             .meaning = "the aggregating route: a collective write of exactly the bytes the file's last collective transfer moved (the library reads a compound dataset's records back and writes them whole again for every field it writes) stays in the aggregators' memory (up to `window_cache` bytes) and is written once, at the next collective transfer of other bytes or with another rank's write in between, at `H5Fflush`, truncate or `H5Fclose`; reads of those bytes meanwhile are answered from memory. A rank's independent call on its own kept bytes first writes them itself (it sees its own writes), and what any rank writes independently meanwhile is left out of the write-out (never overwritten by the older bytes); other ranks' bytes are visible after `H5Fflush` or `H5Fclose`, as MPI promises. A failed write-out fails that step, flush or close on every rank. Not in MPI atomic mode (set after a kept write, it has the write go out at the next collective call), nor once the application has the file's MPI handle (`H5Fget_vfd_handle`: the calling rank's kept bytes go out at once, every rank's at the next collective call or `H5Fflush`), nor where writes need `MPI_File_sync` after every collective write. `auto`: on shared storage (`storage`); `on`: wherever the aggregating route is taken; `off`: every write at its own call. `stats=summary` counts the windows kept and the bytes whose writes were saved"}, &Config::write_behind, kWriteBehind),
        bytes_key("sieve_gap", {.values = "bytes, K/M/G suffix", .fallback = "", .on_local = "4K", .on_shared = "64K",
             .summary = "Bytes that cost about one MPI-IO call: smaller holes are read across, or read back and rewritten, instead of another call.",
             .meaning = "the cost model of a rank's own transfers: bytes that cost about as much to move as one MPI-IO call. A read reads across a hole of up to this size instead of making another call; a write inside the rank's own extent reads back and rewrites a hole when twice the hole plus the run after it is at most this size; short blocks are sieved only when their holes average at most this size. Default: the storage class's (`storage`): `4K` on local storage, `64K` on shared storage"}, &Config::sieve_gap, false),
        named_key("view_writes", {.values = "auto | on | off", .fallback = "auto", .on_local = "auto: on for tmpfs and ramfs, off on disks", .on_shared = "auto: off",
             .summary = "Independent writes of many small runs go as one call through a second handle's file view, then a sync of that handle.",
             .meaning = "independent writes of many small byte runs that no other rank's bytes may be bridged for (8 runs or more) go as one `MPI_File_write_at` through a file view of the rank's own handle (a second open of the file on that rank, at most once per file open) instead of a call per run, then `MPI_File_sync` on that handle, MPI's rule for its bytes to be seen through the file's shared handle (not in MPI atomic mode, nor where writes need `MPI_File_sync` to be visible); `auto`: on memory file systems (tmpfs, ramfs), where the sync costs nothing, and there under Open MPI's ROMIO only for runs of one length at one spacing; off on disks (the sync flushes the device) and on shared storage (it costs a round trip, and the layer still writes each run by itself); `on`: for any runs under every layer and storage; `off`: a call per run"}, &Config::view_writes, kViewWrites),
        named_key("host_copies", {.values = "on | off", .fallback = "on", .on_local = "on", .on_shared = "on",
             .summary = "`off`: every byte moves through MPI calls on the caller's buffer (device memory with a CUDA-aware MPI-IO layer).",
             .meaning = "whether the driver may copy the caller's bytes with the CPU. `on`: a rank's own transfers of many small byte runs go through the driver's staging buffer (sieving, bridging holes, gathering runs for a view write) where that saves MPI calls; a transfer that is one file range on one block of memory is handed to MPI straight from the caller's buffer either way. `off`: every byte moves through MPI calls on the caller's buffer, for buffers in device memory with a CUDA-aware MPI-IO layer: such transfers make an MPI call per run (MPI's datatypes describe the caller's memory), elements a point selection names twice are copied by MPI; reads past the end of the file are still zero-filled by the CPU, as the built-in driver does"}, &Config::host_copies, kHostCopies),
        named_key("chunk_opt", {.values = "default | linked | multi", .fallback = "", .on_local = "the application's", .on_shared = "the application's",
             .summary = "Overrides the application's `H5Pset_dxpl_mpio_chunk_opt`: the library's choice, all chunks at once (linked), or chunk by chunk (multi).",
             .meaning = "overrides `H5Pset_dxpl_mpio_chunk_opt`"}, &Config::chunk_opt, kChunkOpt),
        number_key("chunk_opt_num", {.values = "chunks per rank", .fallback = "", .on_local = "the application's", .on_shared = "the application's",
             .summary = "Overrides `H5Pset_dxpl_mpio_chunk_opt_num`: chunks per rank above which the library links all chunks into one transfer.",
             .meaning = "overrides `H5Pset_dxpl_mpio_chunk_opt_num`"}, &Config::chunk_opt_num, 0, 1u << 30),
        number_key("chunk_opt_ratio", {.values = "percent 0-100", .fallback = "", .on_local = "the application's", .on_shared = "the application's",
             .summary = "Overrides `H5Pset_dxpl_mpio_chunk_opt_ratio`: the percentage of ranks per chunk above which a chunk goes collectively.",
             .meaning = "overrides `H5Pset_dxpl_mpio_chunk_opt_ratio`"}, &Config::chunk_opt_ratio, 0, 100),
        {{"hint.<name>", "string", {.values = "string", .fallback = "", .on_local = "no hints", .on_shared = "no hints",
             .summary = "An MPI-IO hint passed to `MPI_File_open`, e.g. `hint.romio_cb_write=enable`; the MPI-IO layer decides which hints it honours.",
             .meaning = "MPI-IO hint passed to `MPI_File_open`, e.g. `hint.romio_cb_write=enable`"}}, nullptr, nullptr},
    };
    return table;
}
// clang-format on

void apply_hint(Config &config, const std::string &key, const std::string &value) {
    const std::string hint = key.substr(5);
    if (hint.empty() || value.empty())
        throw Error(ErrorKind::Config, "config key '" + key + "' needs a hint name and a value");
    if (hint.size() > MPI_MAX_INFO_KEY || value.size() > MPI_MAX_INFO_VAL)
        throw Error(ErrorKind::Config, "MPI-IO hint '" + hint + "' or its value is too long");
    config.hints.emplace_back(hint, value);
}

} // namespace

std::string bytes_text(std::uint64_t n) {
    if (n != 0 && n % (std::uint64_t{1} << 20) == 0)
        return std::to_string(n >> 20) + "M";
    if (n != 0 && n % 1024 == 0)
        return std::to_string(n >> 10) + "K";
    return std::to_string(n);
}

std::string config_keys_help() {
    std::string out;
    for (const auto &k : key_table())
        out += std::string(k.key) + " = " + k.doc.values + ": " + k.doc.meaning + "\n";
    return out;
}

std::vector<KeyEntry> config_key_entries() {
    const auto &table = key_table();
    return {table.begin(), table.end()}; // (each KeySpec without its parser and printer)
}

std::string config_default_text() {
    std::string out;
    for (const auto &k : key_table())
        if (*k.doc.fallback != '\0')
            out += std::string(k.key) + "=" + k.doc.fallback + ";";
    return out;
}

Config parse_config(const std::string &text) {
    Config config;
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(';', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string entry = trim(text.substr(start, end - start));
        start = end + 1;
        if (entry.empty())
            continue;
        const auto eq = entry.find('=');
        if (eq == std::string::npos)
            throw Error(ErrorKind::Config, "config entry '" + entry + "' is not of the form key=value");
        const std::string key = trim(entry.substr(0, eq));
        const std::string value = trim(entry.substr(eq + 1));
        if (key.rfind("hint.", 0) == 0) {
            apply_hint(config, key, value);
            continue;
        }
        const KeySpec *spec = nullptr;
        for (const auto &k : key_table())
            if (k.apply != nullptr && key == k.key)
                spec = &k;
        for (const auto &[retired, why] : kRetiredKeys)
            if (key == retired)
                throw Error(ErrorKind::Config, "config key '" + key + "' " + why);
        if (spec == nullptr) {
            std::string names;
            for (const auto &k : key_table())
                names += (names.empty() ? "" : ", ") + std::string(k.key);
            throw Error(ErrorKind::Config, "unknown config key '" + key + "' (known keys: " + names + ")");
        }
        spec->apply(config, key, value);
    }
    return config;
}

std::string Config::canonical() const {
    std::string out;
    for (const auto &k : key_table())
        if (k.show != nullptr)
            out += std::string(k.key) + "=" + k.show(*this) + ";";
    for (const auto &[k, v] : hints)
        out += "hint." + k + "=" + v + ";";
    return out;
}

std::uint64_t fnv1a(const std::string &text) {
    std::uint64_t h = 14695981039346656037ull; // FNV-1a 64-bit offset basis
    for (unsigned char c : text) {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string route_name(CollectiveRoute route) { return name_of(route, kRoute); }

} // namespace mpiio
