// Randomized test of the configuration parser (mpiio::parse_config): at least 100,000 generated
// and mutated configuration strings. Each must either parse to the documented settings
// (config_expectations.hpp, predicted here by an independent reading of the documentation) or be
// rejected with a Config error whose message names the offending key (or entry); nothing may
// crash or throw anything else. Runs under the sanitizers too (scripts/sanitize.sh).
//
// Environment: MPIIO_CONFIG_FUZZ_ITERATIONS (default 100000), MPIIO_CONFIG_FUZZ_SEED (default
// fixed; the seed is printed so a failure can be replayed).
#include "common/error.hpp"
#include "config_expectations.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

namespace ce = config_expectations;
using mpiio::Config;

// ---- the oracle: what the documentation says a string means --------------------------------

struct Verdict {
    enum Outcome { Accept, Reject } outcome = Accept;
    Config config;         // Accept: the settings
    std::string must_name; // Reject: text the error message must contain (key, hint or entry)
    std::string why;       // for failure messages
};

std::string trim(const std::string &s) {
    const auto b = s.find_first_not_of(ce::kBlanks);
    if (b == std::string::npos)
        return {};
    return s.substr(b, s.find_last_not_of(ce::kBlanks) - b + 1);
}

bool is_c_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

// The number at the start of `v` as the documentation defines it (decimal digits), with the
// tolerated leniencies; sets `end` past it. nullopt if there are no digits or it overflows 64 bits.
std::optional<std::uint64_t> leading_number(const std::string &v, std::size_t &end) {
    std::size_t i = 0;
    if (ce::kNumbersMayStartWithVtabOrFF)
        while (i < v.size() && is_c_space(v[i]))
            ++i;
    if (ce::kNumbersMayStartWithPlus && i < v.size() && v[i] == '+')
        ++i;
    const std::size_t digits = i;
    unsigned __int128 n = 0;
    bool overflow = false;
    for (; i < v.size() && v[i] >= '0' && v[i] <= '9'; ++i) {
        n = n * 10 + static_cast<unsigned>(v[i] - '0');
        overflow = overflow || n > UINT64_MAX;
    }
    if (i == digits || overflow)
        return std::nullopt;
    end = i;
    return static_cast<std::uint64_t>(n);
}

// A Bytes value: number, then optionally blanks and a binary suffix.
std::optional<std::uint64_t> bytes_value(const std::string &v) {
    std::size_t end = 0;
    const auto n = leading_number(v, end);
    if (!n)
        return std::nullopt;
    const std::string suffix = trim(v.substr(end));
    unsigned shift = 0;
    if (suffix == "K" || suffix == "k" || suffix == "KiB")
        shift = 10;
    else if (suffix == "M" || suffix == "m" || suffix == "MiB")
        shift = 20;
    else if (suffix == "G" || suffix == "g" || suffix == "GiB")
        shift = 30;
    else if (!suffix.empty())
        return std::nullopt;
    if (*n > (UINT64_MAX >> shift))
        return std::nullopt;
    return *n << shift;
}

std::optional<std::uint64_t> unsigned_value(const std::string &v) {
    std::size_t end = 0;
    const auto n = leading_number(v, end);
    if (!n || end != v.size())
        return std::nullopt;
    return n;
}

Verdict predict(const std::string &text) {
    Verdict out;
    auto reject = [&](std::string name, std::string why) {
        out.outcome = Verdict::Reject;
        out.must_name = std::move(name);
        out.why = std::move(why);
        return out;
    };
    std::size_t start = 0;
    while (start <= text.size()) {
        std::size_t end = text.find(';', start);
        if (end == std::string::npos)
            end = text.size();
        const std::string entry = trim(text.substr(start, end - start));
        start = end + 1;
        if (entry.empty())
            continue;
        const auto eq = entry.find('=');
        if (eq == std::string::npos)
            return reject(entry, "entry without '='");
        const std::string key = trim(entry.substr(0, eq));
        const std::string value = trim(entry.substr(eq + 1));
        if (key.rfind(ce::kHintPrefix, 0) == 0) {
            const std::string name = key.substr(std::string(ce::kHintPrefix).size());
            if (name.empty() || value.empty())
                return reject(key, "hint without name or value");
            if (name.size() > ce::kMaxHintName || value.size() > ce::kMaxHintValue)
                return reject(name, "hint name or value too long");
            out.config.hints.emplace_back(name, value);
            continue;
        }
        const ce::KeySpec *spec = nullptr;
        for (const auto &k : ce::keys())
            if (key == k.key)
                spec = &k;
        if (spec == nullptr)
            return reject(key, "unknown key");
        switch (spec->kind) {
        case ce::ValueKind::Choice: {
            bool found = false;
            for (const char *c : spec->choices)
                found = found || value == c;
            if (!found)
                return reject(key, "not one of the choices");
            ce::store(out.config, key, value, 0);
            break;
        }
        case ce::ValueKind::Bytes:
        case ce::ValueKind::Unsigned: {
            const auto n = spec->kind == ce::ValueKind::Bytes ? bytes_value(value) : unsigned_value(value);
            if (!n || *n < spec->min || *n > spec->max)
                return reject(key, "not a valid number");
            ce::store(out.config, key, {}, *n);
            break;
        }
        }
    }
    return out;
}

// ---- the generator ---------------------------------------------------------------------------

class Generator {
public:
    explicit Generator(std::uint64_t seed) : rng_(seed) {}

    std::string next() {
        std::string text;
        const int entries = pick(0, 6);
        for (int i = 0; i < entries; ++i) {
            if (i > 0 || chance(10))
                text += chance(10) ? ";;" : ";";
            text += entry();
        }
        if (chance(15))
            text += ";";
        if (chance(40)) {
            const int edits = pick(1, 4);
            for (int i = 0; i < edits; ++i)
                mutate(text);
        }
        return text;
    }

private:
    std::mt19937_64 rng_;

    int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
    bool chance(int percent) { return pick(0, 99) < percent; }
    template <class T> const T &one_of(const std::vector<T> &v) { return v[pick(0, int(v.size()) - 1)]; }

    std::string blanks() {
        static const std::vector<std::string> b = {"", "", "", " ", "  ", "\t", " \t ", "\r\n", "\n"};
        return one_of(b);
    }

    std::string number() {
        switch (pick(0, 7)) {
        case 0:
            return std::to_string(pick(0, 9));
        case 1:
            return std::to_string(pick(0, 200));
        case 2:
            return std::to_string(std::uniform_int_distribution<std::uint64_t>()(rng_));
        case 3:
            return std::to_string(1ull << pick(0, 63));
        case 4:
            return std::to_string((1ull << pick(0, 63)) + std::uint64_t(pick(-1, 1)));
        case 5:
            return "18446744073709551615";
        case 6:
            return "18446744073709551616" + std::string(pick(0, 3), '9');
        default:
            return std::string(pick(1, 3), '0') + std::to_string(pick(0, 1 << 30));
        }
    }

    std::string value_for(const ce::KeySpec &spec) {
        switch (spec.kind) {
        case ce::ValueKind::Choice:
            if (chance(80))
                return one_of(spec.choices);
            {
                static const std::vector<std::string> wrong = {"",     "Self",       "WORLD", "yes",
                                                               "1",    "self world", "auto ", "multi,linked",
                                                               "off;", "summary=1"};
                return one_of(wrong);
            }
        case ce::ValueKind::Bytes: {
            static const std::vector<std::string> suffixes = {"",  "",  "K",   "k", "KiB", "M", "m", "MiB",
                                                              "G", "g", "GiB", "T", "kb",  "B", "Ki"};
            static const std::vector<std::string> signs = {"", "", "", "", "", "", "-", "+", "\v", "\f-"};
            return one_of(signs) + number() + (chance(20) ? " " : "") + one_of(suffixes);
        }
        case ce::ValueKind::Unsigned: {
            static const std::vector<std::string> around = {"0",          "1",          "99",    "100",
                                                            "101",        "65536",      "65537", "1073741824",
                                                            "1073741825", "4294967296", "-1",    "2.5"};
            return chance(50) ? one_of(around) : (chance(5) ? "+" : "") + number();
        }
        }
        return {};
    }

    std::string hint() {
        std::string name = chance(5) ? "" : std::string(pick(1, 12), char('a' + pick(0, 25)));
        if (chance(5))
            name = std::string(ce::kMaxHintName + std::size_t(pick(-1, 1)), 'n');
        std::string value = chance(5) ? "" : std::to_string(pick(0, 1 << 24));
        if (chance(5))
            value = std::string(ce::kMaxHintValue + std::size_t(pick(-1, 1)), 'v');
        if (chance(5))
            value += "=x";
        return std::string(ce::kHintPrefix) + name + blanks() + "=" + blanks() + value;
    }

    std::string key_typo(std::string key) {
        const std::size_t at = std::size_t(pick(0, int(key.size()) - 1));
        switch (pick(0, 3)) {
        case 0:
            key.erase(at, 1);
            break;
        case 1:
            key.insert(at, 1, char('a' + pick(0, 25)));
            break;
        case 2:
            key[at] = char(std::toupper(static_cast<unsigned char>(key[at])));
            break;
        default:
            key += "s";
            break;
        }
        return key;
    }

    std::string entry() {
        const auto &spec = one_of(ce::keys());
        switch (pick(0, 12)) {
        case 0:
            return hint();
        case 1:
            return blanks() + key_typo(spec.key) + blanks() + "=" + blanks() + value_for(spec);
        case 2:
            return blanks() + spec.key + blanks(); // no '='
        case 3:
            return blanks() + "=" + value_for(spec);
        default:
            return blanks() + spec.key + blanks() + "=" + blanks() + value_for(spec) + blanks();
        }
    }

    char random_char() {
        static const std::string special = ";;==  \t\r\n\v\f+-.,KMGkmgi0123456789_";
        if (chance(60))
            return special[std::size_t(pick(0, int(special.size()) - 1))];
        if (chance(90))
            return char(pick(0x20, 0x7e));
        return char(pick(0x80, 0xff)); // never NUL: the string comes from a C string
    }

    void mutate(std::string &t) {
        const int at = t.empty() ? 0 : pick(0, int(t.size()) - 1);
        switch (pick(0, 5)) {
        case 0:
            if (!t.empty())
                t[std::size_t(at)] = random_char();
            break;
        case 1:
            t.insert(std::size_t(at), 1, random_char());
            break;
        case 2:
            if (!t.empty())
                t.erase(std::size_t(at), std::size_t(pick(1, 4)));
            break;
        case 3: // repeat a piece (duplicate keys, doubled separators)
            if (!t.empty())
                t.insert(std::size_t(at), t.substr(std::size_t(pick(0, at)), std::size_t(pick(1, 12))));
            break;
        case 4:
            t.resize(std::size_t(at));
            break;
        default:
            t.insert(std::size_t(at), entry() + ";");
            break;
        }
    }
};

std::string printable(const std::string &s) {
    std::string out;
    for (unsigned char c : s) {
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out += char(c);
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
        }
    }
    return out;
}

std::uint64_t env_number(const char *name, std::uint64_t fallback) {
    const char *v = std::getenv(name);
    return v != nullptr && *v != '\0' ? std::strtoull(v, nullptr, 10) : fallback;
}

// Checks one string; returns an empty string or what went wrong.
std::string check(const std::string &text, const Verdict &want) {
    try {
        const Config got = mpiio::parse_config(text);
        if (want.outcome == Verdict::Reject)
            return "accepted, but the documentation rejects it (" + want.why + ", key '" + want.must_name +
                   "')";
        const std::string diff = ce::difference(got, want.config);
        return diff.empty() ? std::string() : "accepted with other settings than documented: " + diff;
    } catch (const mpiio::Error &e) {
        if (want.outcome == Verdict::Accept)
            return std::string("rejected, but the documentation accepts it: ") + e.what();
        if (e.kind() != mpiio::ErrorKind::Config)
            return std::string("rejected with a non-config error: ") + e.what();
        if (std::string(e.what()).find(want.must_name) == std::string::npos)
            return "error does not name '" + printable(want.must_name) + "': " + printable(e.what());
        return {};
    } catch (const std::exception &e) {
        return std::string("threw something else than mpiio::Error: ") + e.what();
    }
}

TEST(ConfigFuzz, EveryStringParsesAsDocumentedOrIsRejectedNamingTheKey) {
    const std::uint64_t iterations = env_number("MPIIO_CONFIG_FUZZ_ITERATIONS", 100000);
    const std::uint64_t seed = env_number("MPIIO_CONFIG_FUZZ_SEED", 20261123);
    std::printf("config fuzz: %llu strings, seed %llu\n", (unsigned long long)iterations,
                (unsigned long long)seed);
    Generator gen(seed);
    std::uint64_t accepted = 0, rejected = 0, failures = 0;
    for (std::uint64_t i = 0; i < iterations; ++i) {
        const std::string text = gen.next();
        const Verdict want = predict(text);
        (want.outcome == Verdict::Accept ? accepted : rejected)++;
        const std::string problem = check(text, want);
        if (!problem.empty() && ++failures <= 20)
            ADD_FAILURE() << "input #" << i << " '" << printable(text) << "': " << problem;
    }
    std::printf("config fuzz: %llu accepted, %llu rejected, %llu failures\n", (unsigned long long)accepted,
                (unsigned long long)rejected, (unsigned long long)failures);
    EXPECT_EQ(failures, 0u);
    // The generator must exercise both sides, or the test proves little.
    EXPECT_GT(accepted, iterations / 10);
    EXPECT_GT(rejected, iterations / 10);
}

// The oracle itself, on hand-picked strings, so a wrong oracle cannot make the fuzz pass.
TEST(ConfigFuzz, OracleAgreesWithTheReadmeExamples) {
    EXPECT_EQ(predict("").outcome, Verdict::Accept);
    EXPECT_EQ(predict("sync=flush;hint.cb_buffer_size=16777216").outcome, Verdict::Accept);
    EXPECT_EQ(predict(" staging_buffer = 4 M ").config.staging_buffer, std::size_t{4} << 20);
    EXPECT_EQ(predict("staging_buffer=0").outcome, Verdict::Reject);
    EXPECT_EQ(predict("sieve_gap=0").config.sieve_gap, 0u);
    EXPECT_EQ(predict("chunk_opt_ratio=101").must_name, "chunk_opt_ratio");
    EXPECT_EQ(predict("comm=self;bogus=1").must_name, "bogus");
    EXPECT_EQ(predict("comm").must_name, "comm");
    EXPECT_EQ(predict("hint.=1").outcome, Verdict::Reject);
    EXPECT_EQ(predict("hint.x=a=b").config.hints.at(0).second, "a=b");
}

// Once a bug (found by the fuzz test): std::stoull skips a leading \v or \f and then accepts '-',
// so "sieve_gap=\v-1" became 18446744073709551615 bytes.
TEST(ConfigNumbers, SignsAndVerticalBlanksBeforeNumbersAreRejected) {
    EXPECT_THROW(mpiio::parse_config("sieve_gap=\v5"), mpiio::Error);
    EXPECT_THROW(mpiio::parse_config("sieve_gap=+5"), mpiio::Error);
    EXPECT_THROW(mpiio::parse_config("sieve_gap=\v-1"), mpiio::Error);
    EXPECT_THROW(mpiio::parse_config("staging_buffer=\f-4096"), mpiio::Error);
    EXPECT_THROW(mpiio::parse_config("chunk_opt_ratio=\v-0"), mpiio::Error);
}

} // namespace
