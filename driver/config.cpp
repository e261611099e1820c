#include "config.hpp"

#include "error.hpp"

#include <array>
#include <functional>

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

// Looks `value` up in a list of (name, enum) choices; throws naming the key and the choices.
template <class Enum, size_t N>
Enum choose(const std::string &key, const std::string &value,
            const std::array<std::pair<const char *, Enum>, N> &choices) {
    std::string allowed;
    for (const auto &[name, e] : choices) {
        if (value == name)
            return e;
        allowed += allowed.empty() ? name : std::string(" | ") + name;
    }
    throw Error(ErrorKind::Config,
                "config key '" + key + "' has invalid value '" + value + "' (allowed: " + allowed + ")");
}

constexpr std::array<std::pair<const char *, CommChoice>, 2> kComm{
    {{"world", CommChoice::World}, {"self", CommChoice::Self}}};
constexpr std::array<std::pair<const char *, SyncPolicy>, 3> kSync{
    {{"auto", SyncPolicy::Auto}, {"flush", SyncPolicy::Flush}, {"never", SyncPolicy::Never}}};
constexpr std::array<std::pair<const char *, StatsMode>, 2> kStats{
    {{"off", StatsMode::Off}, {"summary", StatsMode::Summary}}};

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
    if (pos == 0 || value.empty() || value[0] == '-' || n > (~0ull >> shift))
        throw Error(ErrorKind::Config, "config key '" + key + "' has invalid value '" + value +
                                           "' (expected a byte count such as 65536, 64K or 4M)");
    return static_cast<std::size_t>(n << shift);
}

unsigned parse_unsigned(const std::string &key, const std::string &value, unsigned max) {
    size_t pos = 0;
    unsigned long n = 0;
    try {
        n = std::stoul(value, &pos);
    } catch (const std::exception &) {
        pos = 0;
    }
    if (pos == 0 || pos != value.size() || value[0] == '-' || n > max)
        throw Error(ErrorKind::Config, "config key '" + key + "' has invalid value '" + value +
                                           "' (expected a whole number from 0 to " + std::to_string(max) +
                                           ")");
    return static_cast<unsigned>(n);
}

constexpr std::array<std::pair<const char *, Config::ChunkOpt>, 3> kChunkOpt{
    {{"default", Config::ChunkOpt::Default},
     {"linked", Config::ChunkOpt::Linked},
     {"multi", Config::ChunkOpt::Multi}}};

struct KeySpec {
    const char *key;
    const char *values;
    const char *meaning;
    std::function<void(Config &, const std::string &key, const std::string &value)> apply;
};

const std::vector<KeySpec> &key_table() {
    static const std::vector<KeySpec> table = {
        {"comm", "world | self",
         "communicator when the FAPL has none (HDF5_DRIVER, H5Pset_driver_by_name without "
         "H5Pset_mpi_params); default world",
         [](Config &c, const std::string &k, const std::string &v) { c.comm = choose(k, v, kComm); }},
        {"sync", "auto | flush | never",
         "when to call MPI_File_sync: auto (as the built-in driver), flush (on H5Fflush only), "
         "never; default auto",
         [](Config &c, const std::string &k, const std::string &v) { c.sync = choose(k, v, kSync); }},
        {"stats", "off | summary",
         "per-file I/O statistics, printed by rank 0 to stderr at file close; default off",
         [](Config &c, const std::string &k, const std::string &v) { c.stats = choose(k, v, kStats); }},
        {"staging_buffer", "<bytes>",
         "largest buffer used to combine independent requests into one MPI call; default 4M",
         [](Config &c, const std::string &k, const std::string &v) {
             c.staging_buffer = parse_bytes(k, v);
             if (c.staging_buffer == 0)
                 throw Error(ErrorKind::Config, "config key 'staging_buffer' must be positive");
         }},
        {"sieve_gap", "<bytes>",
         "independent reads (and single-rank writes) merge requests separated by at most this many "
         "bytes; 0 merges only adjacent requests; default 4K",
         [](Config &c, const std::string &k, const std::string &v) { c.sieve_gap = parse_bytes(k, v); }},
        {"chunk_opt", "default | linked | multi",
         "collective chunk I/O: one operation over all chunks (linked), one per chunk (multi), or decided "
         "by chunk_opt_num (default); overrides H5Pset_dxpl_mpio_chunk_opt",
         [](Config &c, const std::string &k, const std::string &v) {
             c.chunk_opt = choose(k, v, kChunkOpt);
         }},
        {"chunk_opt_num", "<chunks>",
         "linked-chunk I/O when the average number of chunks per rank is at least this (0: always); "
         "overrides H5Pset_dxpl_mpio_chunk_opt_num",
         [](Config &c, const std::string &k, const std::string &v) {
             c.chunk_opt_num = parse_unsigned(k, v, 1u << 30);
         }},
        {"chunk_opt_ratio", "<percent>",
         "in multi-chunk I/O a chunk is collective when more than this percentage of ranks touch it "
         "(0: every chunk); overrides H5Pset_dxpl_mpio_chunk_opt_ratio",
         [](Config &c, const std::string &k, const std::string &v) {
             c.chunk_opt_ratio = parse_unsigned(k, v, 100);
         }},
        {"hint.<name>", "<value>",
         "an MPI-IO hint passed to MPI_File_open, e.g. hint.cb_buffer_size=16777216", nullptr},
    };
    return table;
}

} // namespace

std::string config_keys_help() {
    std::string out;
    for (const auto &k : key_table())
        out += std::string(k.key) + " = " + k.values + ": " + k.meaning + "\n";
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
            const std::string hint = key.substr(5);
            if (hint.empty() || value.empty())
                throw Error(ErrorKind::Config, "config key '" + key + "' needs a hint name and a value");
            if (hint.size() > MPI_MAX_INFO_KEY || value.size() > MPI_MAX_INFO_VAL)
                throw Error(ErrorKind::Config, "MPI-IO hint '" + hint + "' or its value is too long");
            config.hints.emplace_back(hint, value);
            continue;
        }
        bool known = false;
        for (const auto &spec : key_table()) {
            if (spec.apply != nullptr && key == spec.key) {
                spec.apply(config, key, value);
                known = true;
                break;
            }
        }
        if (!known) {
            std::string names;
            for (const auto &spec : key_table())
                names += (names.empty() ? "" : ", ") + std::string(spec.key);
            throw Error(ErrorKind::Config, "unknown config key '" + key + "' (known keys: " + names + ")");
        }
    }
    return config;
}

std::string Config::canonical() const {
    // Every setting, so that ranks configured differently in any way are caught at open.
    auto optional_text = [](const auto &v) { return v ? std::to_string(static_cast<long long>(*v)) : "-"; };
    std::string out =
        "comm=" + std::to_string(static_cast<int>(comm)) + ";sync=" + std::to_string(static_cast<int>(sync)) +
        ";stats=" + std::to_string(static_cast<int>(stats)) +
        ";staging_buffer=" + std::to_string(staging_buffer) + ";sieve_gap=" + std::to_string(sieve_gap) +
        ";chunk_opt=" + optional_text(chunk_opt) + ";chunk_opt_num=" + optional_text(chunk_opt_num) +
        ";chunk_opt_ratio=" + optional_text(chunk_opt_ratio);
    for (const auto &[k, v] : hints)
        out += ";hint." + k + "=" + v;
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

} // namespace mpiio
