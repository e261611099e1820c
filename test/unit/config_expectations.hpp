// The documented meaning of the driver's configuration string (README "Configuration" table and
// driver/settings/config.hpp), written down independently of driver/settings/config.cpp so the randomized
// test (test_config_fuzz.cpp) can predict, for any string, whether parse_config must accept it and with which
// settings, or reject it naming which key.
//
// This is the one place to update when the key table changes (a new key: one line in kKeys and,
// if it is a new kind of value, one case in apply_value; a new Config member: expected_equal).
#pragma once

#include "settings/config.hpp"

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace config_expectations {

using mpiio::Config;

// How a key's value is written.
enum class ValueKind {
    Choice,   // one of `choices`, exact and case-sensitive
    Bytes,    // decimal digits, optionally followed (blanks allowed) by K/k/KiB, M/m/MiB, G/g/GiB
    Unsigned, // decimal digits, no suffix, at most `max`
};

struct KeySpec {
    const char *key;
    ValueKind kind;
    std::vector<const char *> choices; // Choice
    std::uint64_t min = 0, max = 0;    // Bytes (after the suffix) and Unsigned
};

// Every key of the README table except hint.<name> (handled below).
inline const std::vector<KeySpec> &keys() {
    static const std::vector<KeySpec> k = {
        {"comm", ValueKind::Choice, {"world", "self"}},
        {"sync", ValueKind::Choice, {"auto", "flush", "never"}},
        {"stats", ValueKind::Choice, {"off", "summary"}},
        {"staging_buffer", ValueKind::Bytes, {}, 1, SIZE_MAX},
        {"sieve_gap", ValueKind::Bytes, {}, 0, SIZE_MAX},
        {"collective_route", ValueKind::Choice, {"auto", "collective", "independent"}},
        {"read_overlap_limit", ValueKind::Unsigned, {}, 1, 65536},
        {"view_writes", ValueKind::Choice, {"auto", "on", "off"}},
        {"host_copies", ValueKind::Choice, {"on", "off"}},
        {"write_behind", ValueKind::Choice, {"auto", "on", "off"}},
        {"storage", ValueKind::Choice, {"auto", "local", "shared"}},
        {"chunk_opt", ValueKind::Choice, {"default", "linked", "multi"}},
        {"chunk_opt_num", ValueKind::Unsigned, {}, 0, 1u << 30},
        {"chunk_opt_ratio", ValueKind::Unsigned, {}, 0, 100},
    };
    return k;
}

// MPI-IO hints: `hint.<name>=<value>`, both non-empty, within MPI's limits, kept in order.
inline constexpr const char *kHintPrefix = "hint.";
inline constexpr std::size_t kMaxHintName = MPI_MAX_INFO_KEY;
inline constexpr std::size_t kMaxHintValue = MPI_MAX_INFO_VAL;

// Blanks the parser ignores around entries, keys and values.
inline constexpr const char *kBlanks = " \t\r\n";

// Leniencies the parser could have beyond the documentation (a value that still means the number
// written). It has none: numbers are decimal digits only, so both are false; the randomized test
// checks exactly that.
inline constexpr bool kNumbersMayStartWithPlus = false;     // "+5" is refused
inline constexpr bool kNumbersMayStartWithVtabOrFF = false; // "\v5" is refused

// Stores a parsed value into `config` (called only with values already judged valid).
inline void store(Config &config, const std::string &key, const std::string &choice, std::uint64_t number) {
    using CO = Config::ChunkOpt;
    if (key == "comm")
        config.comm = choice == "self" ? mpiio::CommChoice::Self : mpiio::CommChoice::World;
    else if (key == "sync")
        config.sync = choice == "flush"   ? mpiio::SyncPolicy::Flush
                      : choice == "never" ? mpiio::SyncPolicy::Never
                                          : mpiio::SyncPolicy::Auto;
    else if (key == "stats")
        config.stats = choice == "summary" ? mpiio::StatsMode::Summary : mpiio::StatsMode::Off;
    else if (key == "staging_buffer")
        config.staging_buffer = static_cast<std::size_t>(number);
    else if (key == "sieve_gap")
        config.sieve_gap = static_cast<std::size_t>(number);
    else if (key == "collective_route")
        config.collective_route = choice == "collective"    ? mpiio::CollectiveRoute::Collective
                                  : choice == "independent" ? mpiio::CollectiveRoute::Independent
                                                            : mpiio::CollectiveRoute::Auto;
    else if (key == "read_overlap_limit")
        config.read_overlap_limit = static_cast<unsigned>(number);
    else if (key == "host_copies")
        config.host_copies = choice == "off" ? mpiio::HostCopies::Off : mpiio::HostCopies::On;
    else if (key == "write_behind")
        config.write_behind = choice == "on"    ? mpiio::WriteBehindChoice::On
                              : choice == "off" ? mpiio::WriteBehindChoice::Off
                                                : mpiio::WriteBehindChoice::Auto;
    else if (key == "storage")
        config.storage = choice == "local"    ? mpiio::StorageChoice::Local
                         : choice == "shared" ? mpiio::StorageChoice::Shared
                                              : mpiio::StorageChoice::Auto;
    else if (key == "view_writes")
        config.view_writes = choice == "on"    ? mpiio::ViewWrites::On
                             : choice == "off" ? mpiio::ViewWrites::Off
                                               : mpiio::ViewWrites::Auto;
    else if (key == "chunk_opt")
        config.chunk_opt = choice == "linked" ? CO::Linked : choice == "multi" ? CO::Multi : CO::Default;
    else if (key == "chunk_opt_num")
        config.chunk_opt_num = static_cast<unsigned>(number);
    else if (key == "chunk_opt_ratio")
        config.chunk_opt_ratio = static_cast<unsigned>(number);
}

// Empty string when two configurations have the same settings, else the first difference.
inline std::string difference(const Config &got, const Config &want) {
    auto opt = [](const auto &o) {
        return o ? std::to_string(static_cast<long long>(*o)) : std::string("-");
    };
    if (got.comm != want.comm)
        return "comm";
    if (got.sync != want.sync)
        return "sync";
    if (got.stats != want.stats)
        return "stats";
    if (got.staging_buffer != want.staging_buffer)
        return "staging_buffer " + std::to_string(got.staging_buffer) +
               " != " + std::to_string(want.staging_buffer);
    if (got.sieve_gap != want.sieve_gap)
        return "sieve_gap " + opt(got.sieve_gap) + " != " + opt(want.sieve_gap);
    if (got.collective_route != want.collective_route)
        return "collective_route";
    if (got.read_overlap_limit != want.read_overlap_limit)
        return "read_overlap_limit " + opt(got.read_overlap_limit) + " != " + opt(want.read_overlap_limit);
    if (got.view_writes != want.view_writes)
        return "view_writes";
    if (got.storage != want.storage)
        return "storage";
    if (got.host_copies != want.host_copies)
        return "host_copies";
    if (got.write_behind != want.write_behind)
        return "write_behind";
    if (got.chunk_opt != want.chunk_opt)
        return "chunk_opt " + opt(got.chunk_opt) + " != " + opt(want.chunk_opt);
    if (got.chunk_opt_num != want.chunk_opt_num)
        return "chunk_opt_num " + opt(got.chunk_opt_num) + " != " + opt(want.chunk_opt_num);
    if (got.chunk_opt_ratio != want.chunk_opt_ratio)
        return "chunk_opt_ratio " + opt(got.chunk_opt_ratio) + " != " + opt(want.chunk_opt_ratio);
    if (got.hints != want.hints)
        return "hints (" + std::to_string(got.hints.size()) + " vs " + std::to_string(want.hints.size()) +
               ")";
    return {};
}

} // namespace config_expectations
