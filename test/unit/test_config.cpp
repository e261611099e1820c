// Table tests of the driver's configuration parser (driver/settings/config.hpp): defaults, every key and
// value, blanks and empty entries, MPI-IO hints, and the error messages for unknown keys, bad
// values and malformed entries. parse_config makes no MPI or HDF5 calls.
#include "common/error.hpp"
#include "settings/config.hpp"
#include "settings/config_reference.hpp"

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdlib>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

using mpiio::CommChoice;
using mpiio::Config;
using mpiio::ErrorKind;
using mpiio::StatsMode;
using mpiio::SyncPolicy;

// ---- accepted strings ------------------------------------------------------------------------

// An accepted string and the settings it must produce: the defaults changed by `edit`.
struct Accepted {
    const char *text;
    std::function<void(Config &)> edit;
};

void PrintTo(const Accepted &a, std::ostream *os) { *os << "'" << a.text << "'"; }

Accepted A(
    const char *text, std::function<void(Config &)> edit = [](Config &) {}) {
    return {text, std::move(edit)};
}

void expect_same_settings(const Config &got, const Config &want) {
    EXPECT_EQ(got.comm, want.comm);
    EXPECT_EQ(got.sync, want.sync);
    EXPECT_EQ(got.stats, want.stats);
    EXPECT_EQ(got.staging_buffer, want.staging_buffer);
    EXPECT_EQ(got.sieve_gap, want.sieve_gap);
    EXPECT_EQ(got.chunk_opt, want.chunk_opt);
    EXPECT_EQ(got.chunk_opt_num, want.chunk_opt_num);
    EXPECT_EQ(got.chunk_opt_ratio, want.chunk_opt_ratio);
    EXPECT_EQ(got.hints, want.hints);
}

class ConfigAccepts : public testing::TestWithParam<Accepted> {};

TEST_P(ConfigAccepts, ParsesToExpectedSettings) {
    const Accepted &param = GetParam();
    Config want;
    param.edit(want);
    Config got;
    ASSERT_NO_THROW(got = mpiio::parse_config(param.text)) << "text: '" << param.text << "'";
    expect_same_settings(got, want);
}

TEST(ConfigDefaults, AreTheDocumentedOnes) {
    const Config c;
    EXPECT_EQ(c.comm, CommChoice::World);
    EXPECT_EQ(c.sync, SyncPolicy::Auto);
    EXPECT_EQ(c.stats, StatsMode::Off);
    EXPECT_EQ(c.staging_buffer, std::size_t{4} << 20); // 4M
    EXPECT_FALSE(c.sieve_gap.has_value());             // the storage class decides
    EXPECT_FALSE(c.read_overlap_limit.has_value());
    EXPECT_EQ(c.storage, mpiio::StorageChoice::Auto);
    EXPECT_FALSE(c.chunk_opt.has_value()); // the DXPL decides
    EXPECT_FALSE(c.chunk_opt_num.has_value());
    EXPECT_FALSE(c.chunk_opt_ratio.has_value());
    EXPECT_TRUE(c.hints.empty());
}

INSTANTIATE_TEST_SUITE_P(Defaults, ConfigAccepts,
                         testing::Values(A(""), A(" "), A(";"), A(";;;"), A(" ; \t; "), A("\n")));

using CO = Config::ChunkOpt;

INSTANTIATE_TEST_SUITE_P(
    EveryKeyAndValue, ConfigAccepts,
    testing::Values(
        A("comm=world"), A("comm=self", [](Config &c) { c.comm = CommChoice::Self; }), A("sync=auto"),
        A("sync=flush", [](Config &c) { c.sync = SyncPolicy::Flush; }),
        A("sync=never", [](Config &c) { c.sync = SyncPolicy::Never; }), A("stats=off"),
        A("stats=summary", [](Config &c) { c.stats = StatsMode::Summary; }),
        A("staging_buffer=65536", [](Config &c) { c.staging_buffer = 65536; }),
        A("staging_buffer=1", [](Config &c) { c.staging_buffer = 1; }),
        A("staging_buffer=64K", [](Config &c) { c.staging_buffer = 64 << 10; }),
        A("staging_buffer=64k", [](Config &c) { c.staging_buffer = 64 << 10; }),
        A("staging_buffer=64KiB", [](Config &c) { c.staging_buffer = 64 << 10; }),
        A("staging_buffer=16M", [](Config &c) { c.staging_buffer = 16 << 20; }),
        A("staging_buffer=16m", [](Config &c) { c.staging_buffer = 16 << 20; }),
        A("staging_buffer=16MiB", [](Config &c) { c.staging_buffer = 16 << 20; }),
        A("staging_buffer=1G", [](Config &c) { c.staging_buffer = std::size_t{1} << 30; }),
        A("staging_buffer=2g", [](Config &c) { c.staging_buffer = std::size_t{2} << 30; }),
        A("staging_buffer=1GiB", [](Config &c) { c.staging_buffer = std::size_t{1} << 30; }),
        A("sieve_gap=0", [](Config &c) { c.sieve_gap = 0; }),
        A("sieve_gap=512", [](Config &c) { c.sieve_gap = 512; }),
        A("sieve_gap=1M", [](Config &c) { c.sieve_gap = 1 << 20; }),
        A("chunk_opt=default", [](Config &c) { c.chunk_opt = CO::Default; }),
        A("chunk_opt=linked", [](Config &c) { c.chunk_opt = CO::Linked; }),
        A("chunk_opt=multi", [](Config &c) { c.chunk_opt = CO::Multi; }),
        A("chunk_opt_num=0", [](Config &c) { c.chunk_opt_num = 0u; }),
        A("chunk_opt_num=7", [](Config &c) { c.chunk_opt_num = 7u; }),
        A("chunk_opt_ratio=0", [](Config &c) { c.chunk_opt_ratio = 0u; }),
        A("chunk_opt_ratio=60", [](Config &c) { c.chunk_opt_ratio = 60u; }),
        A("chunk_opt_ratio=100", [](Config &c) { c.chunk_opt_ratio = 100u; }),
        A("comm=self;sync=never;stats=summary",
          [](Config &c) {
              c.comm = CommChoice::Self;
              c.sync = SyncPolicy::Never;
              c.stats = StatsMode::Summary;
          }),
        A("chunk_opt=multi;chunk_opt_ratio=30;stats=summary;comm=self;sync=flush;staging_buffer=1M",
          [](Config &c) {
              c.chunk_opt = CO::Multi;
              c.chunk_opt_ratio = 30u;
              c.stats = StatsMode::Summary;
              c.comm = CommChoice::Self;
              c.sync = SyncPolicy::Flush;
              c.staging_buffer = 1 << 20;
          })));

INSTANTIATE_TEST_SUITE_P(BlanksAndEmptyEntries, ConfigAccepts,
                         testing::Values(A(" comm = self ", [](Config &c) { c.comm = CommChoice::Self; }),
                                         A("\tsync\t=\tnever\t",
                                           [](Config &c) { c.sync = SyncPolicy::Never; }),
                                         A("comm=self;", [](Config &c) { c.comm = CommChoice::Self; }),
                                         A(";comm=self", [](Config &c) { c.comm = CommChoice::Self; }),
                                         A("comm=self;;sync=flush",
                                           [](Config &c) {
                                               c.comm = CommChoice::Self;
                                               c.sync = SyncPolicy::Flush;
                                           }),
                                         A("  comm=self ;  ; stats = summary ;  ",
                                           [](Config &c) {
                                               c.comm = CommChoice::Self;
                                               c.stats = StatsMode::Summary;
                                           }),
                                         A("comm=self\r\n;sync=flush\n",
                                           [](Config &c) {
                                               c.comm = CommChoice::Self;
                                               c.sync = SyncPolicy::Flush;
                                           }),
                                         A(" staging_buffer = 8M ; sieve_gap = 0 ", [](Config &c) {
                                             c.staging_buffer = 8 << 20;
                                             c.sieve_gap = 0;
                                         })));

INSTANTIATE_TEST_SUITE_P(
    Hints, ConfigAccepts,
    testing::Values(A("hint.cb_buffer_size=16777216",
                      [](Config &c) {
                          c.hints = {{"cb_buffer_size", "16777216"}};
                      }),
                    A(" hint.romio_cb_write = enable ",
                      [](Config &c) {
                          c.hints = {{"romio_cb_write", "enable"}};
                      }),
                    // order of appearance is kept (MPI_File_open gets them in that order)
                    A("hint.b=2;comm=self;hint.a=1",
                      [](Config &c) {
                          c.comm = CommChoice::Self;
                          c.hints = {{"b", "2"}, {"a", "1"}};
                      }),
                    // only the first '=' separates key and value
                    A("hint.x=a=b",
                      [](Config &c) {
                          c.hints = {{"x", "a=b"}};
                      }),
                    A("hint.striping_factor=4;hint.striping_unit=1048576;sync=never", [](Config &c) {
                        c.sync = SyncPolicy::Never;
                        c.hints = {{"striping_factor", "4"}, {"striping_unit", "1048576"}};
                    })));

// ---- rejected strings ------------------------------------------------------------------------

struct Rejected {
    const char *text;
    std::vector<std::string> must_mention; // substrings of the error message
};

void PrintTo(const Rejected &r, std::ostream *os) { *os << "'" << r.text << "'"; }

class ConfigRejects : public testing::TestWithParam<Rejected> {};

TEST_P(ConfigRejects, ThrowsConfigErrorNamingTheProblem) {
    const Rejected &want = GetParam();
    try {
        const Config c = mpiio::parse_config(want.text);
        FAIL() << "'" << want.text << "' was accepted (canonical: " << c.canonical() << ")";
    } catch (const mpiio::Error &e) {
        EXPECT_EQ(e.kind(), ErrorKind::Config) << e.what();
        for (const auto &word : want.must_mention) {
            EXPECT_NE(std::string(e.what()).find(word), std::string::npos)
                << "message '" << e.what() << "' does not mention '" << word << "'";
        }
    } catch (const std::exception &e) {
        FAIL() << "'" << want.text << "' threw something else than mpiio::Error: " << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(UnknownKeys, ConfigRejects,
                         testing::Values(Rejected{"bogus=1", {"bogus"}},
                                         Rejected{"comm=self;bogus=1", {"bogus"}},
                                         Rejected{"  colour = blue ", {"colour"}},
                                         Rejected{"hint=cb_nodes", {"hint"}}, Rejected{"=1", {}},
                                         Rejected{"syncs=never", {"syncs"}}));

// Keys earlier releases took: the error says the key was removed and why.
INSTANTIATE_TEST_SUITE_P(RetiredKeys, ConfigRejects,
                         testing::Values(Rejected{"read_bounce=off", {"read_bounce", "removed"}},
                                         Rejected{"read_bounce=auto", {"read_bounce", "host_copies"}}));

INSTANTIATE_TEST_SUITE_P(
    BadValues, ConfigRejects,
    testing::Values(Rejected{"sync=sometimes", {"sync", "sometimes"}},
                    Rejected{"comm=universe", {"comm", "universe"}},
                    Rejected{"stats=verbose", {"stats", "verbose"}},
                    Rejected{"stats=summary;sync=maybe", {"sync", "maybe"}}, Rejected{"comm=", {"comm"}},
                    Rejected{"sync = ", {"sync"}}, Rejected{"comm=self world", {"comm", "self world"}},
                    Rejected{"staging_buffer=0", {"staging_buffer"}},
                    Rejected{"staging_buffer=-1", {"staging_buffer", "-1"}},
                    Rejected{"staging_buffer=lots", {"staging_buffer", "lots"}},
                    Rejected{"staging_buffer=4T", {"staging_buffer", "4T"}},
                    Rejected{"staging_buffer=4 X", {"staging_buffer", "4 X"}},
                    Rejected{"staging_buffer=99999999999999999999", {"staging_buffer"}},
                    Rejected{"staging_buffer=17179869184G", {"staging_buffer"}},
                    Rejected{"sieve_gap=-4K", {"sieve_gap", "-4K"}},
                    Rejected{"sieve_gap=K", {"sieve_gap", "K"}}, Rejected{"sieve_gap=", {"sieve_gap"}},
                    Rejected{"chunk_opt=one", {"chunk_opt", "one"}}, Rejected{"chunk_opt=", {"chunk_opt"}},
                    Rejected{"host_copies=auto", {"host_copies", "auto"}},
                    Rejected{"chunk_opt_num=-1", {"chunk_opt_num", "-1"}},
                    Rejected{"chunk_opt_num=2.5", {"chunk_opt_num", "2.5"}},
                    Rejected{"chunk_opt_num=4K", {"chunk_opt_num", "4K"}},
                    Rejected{"chunk_opt_ratio=101", {"chunk_opt_ratio", "101"}},
                    Rejected{"chunk_opt_ratio=many", {"chunk_opt_ratio", "many"}}));

INSTANTIATE_TEST_SUITE_P(MissingEquals, ConfigRejects,
                         testing::Values(Rejected{"comm", {"comm"}}, Rejected{"comm self", {"comm self"}},
                                         Rejected{"sync=never;stats", {"stats"}},
                                         Rejected{"hint.cb_nodes", {"hint.cb_nodes"}}));

INSTANTIATE_TEST_SUITE_P(BadHints, ConfigRejects,
                         testing::Values(Rejected{"hint.=4", {"hint."}},
                                         Rejected{"hint.cb_nodes=", {"hint.cb_nodes"}},
                                         Rejected{"hint.cb_nodes = ", {"hint.cb_nodes"}}));

TEST(ConfigHints, RejectsHintNamesAndValuesLongerThanMpiAllows) {
    const std::string long_key(MPI_MAX_INFO_KEY + 1, 'k');
    const std::string long_value(MPI_MAX_INFO_VAL + 1, 'v');
    EXPECT_THROW(mpiio::parse_config("hint." + long_key + "=1"), mpiio::Error);
    EXPECT_THROW(mpiio::parse_config("hint.cb_nodes=" + long_value), mpiio::Error);
    const std::string max_key(MPI_MAX_INFO_KEY, 'k');
    EXPECT_NO_THROW(mpiio::parse_config("hint." + max_key + "=1"));
}

// ---- canonical text (what ranks compare) ------------------------------------------------------

TEST(ConfigCanonical, EqualSettingsGiveEqualText) {
    const std::string defaults = mpiio::parse_config("").canonical();
    EXPECT_EQ(defaults, mpiio::parse_config("comm=world;sync=auto;stats=off").canonical());
    EXPECT_EQ(defaults, mpiio::parse_config(" ; ").canonical());
    EXPECT_EQ(defaults, mpiio::parse_config("staging_buffer=4M;storage=auto").canonical());
    // A value the storage class would give is still a choice of the configuration's own.
    EXPECT_NE(defaults, mpiio::parse_config("sieve_gap=4K").canonical());
    EXPECT_EQ(mpiio::parse_config("staging_buffer=65536").canonical(),
              mpiio::parse_config("staging_buffer=64K").canonical());
    EXPECT_EQ(mpiio::parse_config("comm=self;hint.a=1").canonical(),
              mpiio::parse_config("  hint.a = 1 ; comm = self ;").canonical());
}

TEST(ConfigCanonical, DifferentSettingsGiveDifferentText) {
    const std::vector<std::string> texts = {"",
                                            "comm=self",
                                            "sync=flush",
                                            "sync=never",
                                            "stats=summary",
                                            "staging_buffer=1M",
                                            "sieve_gap=0",
                                            "chunk_opt=default",
                                            "chunk_opt=linked",
                                            "chunk_opt=multi",
                                            "chunk_opt_num=0",
                                            "chunk_opt_num=3",
                                            "chunk_opt_ratio=0",
                                            "chunk_opt_ratio=50",
                                            "hint.a=1",
                                            "hint.a=2",
                                            "hint.b=1",
                                            "hint.a=1;hint.b=1",
                                            "hint.b=1;hint.a=1"};
    // one failure per text that collides with an earlier one
    for (size_t j = 1; j < texts.size(); ++j) {
        const std::string b = mpiio::parse_config(texts[j]).canonical();
        for (size_t i = 0; i < j; ++i) {
            const std::string a = mpiio::parse_config(texts[i]).canonical();
            if (a == b || mpiio::fnv1a(a) == mpiio::fnv1a(b)) {
                ADD_FAILURE() << "'" << texts[i] << "' and '" << texts[j]
                              << "' have the same canonical text '" << a
                              << "' (or hash): ranks passing them would not be told apart";
                break;
            }
        }
    }
}

TEST(ConfigCanonical, Fnv1aMatchesReferenceVectors) {
    // FNV-1a 64-bit reference values.
    EXPECT_EQ(mpiio::fnv1a(""), 0xcbf29ce484222325ull);
    EXPECT_EQ(mpiio::fnv1a("a"), 0xaf63dc4c8601ec8cull);
    EXPECT_EQ(mpiio::fnv1a("foobar"), 0x85944171f73967e8ull);
}

// ---- documentation --------------------------------------------------------------------------

// docs/configuration.md, the README's key table and h5plugin.json's config_keys are generated from
// the key table; these tests fail when a file drifts from it. To update them, run
// `build/driver/mpiio_config_doc --configuration > docs/configuration.md`, and paste the output of
// `--readme` (README.md) and `--json` (h5plugin.json).
std::string read_file(const char *env) {
    const char *path = std::getenv(env);
    if (path == nullptr)
        return {};
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

TEST(ConfigDocumentation, ConfigurationPageIsTheKeyTable) {
    const std::string page = read_file("MPIIO_TEST_CONFIGURATION_DOC");
    if (page.empty())
        GTEST_SKIP() << "MPIIO_TEST_CONFIGURATION_DOC not set (run through ctest)";
    const std::string generated = mpiio::configuration_page();
    if (page == generated)
        return;
    // name the first line that differs rather than print both pages
    std::istringstream a(page), b(generated);
    std::string la, lb;
    int line = 0;
    while (true) {
        const bool more_a = static_cast<bool>(std::getline(a, la)),
                   more_b = static_cast<bool>(std::getline(b, lb));
        ++line;
        if (la != lb || more_a != more_b)
            break;
    }
    ADD_FAILURE() << "docs/configuration.md differs from the driver's key table at line " << line
                  << ":\n  file:      " << la << "\n  generated: " << lb
                  << "\nregenerate it with mpiio_config_doc --configuration > docs/configuration.md";
}

TEST(ConfigDocumentation, ReadmeTableIsTheKeyTable) {
    const std::string readme = read_file("MPIIO_TEST_README");
    if (readme.empty())
        GTEST_SKIP() << "MPIIO_TEST_README not set (run through ctest)";
    EXPECT_NE(readme.find(mpiio::readme_key_table()), std::string::npos)
        << "README.md's key table differs from the driver's key table; replace it with the output of "
           "mpiio_config_doc --readme:\n"
        << mpiio::readme_key_table();
}

TEST(ConfigDocumentation, PluginJsonIsTheKeyTable) {
    const std::string json = read_file("MPIIO_TEST_PLUGIN_JSON");
    if (json.empty())
        GTEST_SKIP() << "MPIIO_TEST_PLUGIN_JSON not set (run through ctest)";
    EXPECT_NE(json.find("  " + mpiio::plugin_json_keys() + "\n}"), std::string::npos)
        << "h5plugin.json's config_keys differ from the driver's key table; replace them with the output of "
           "mpiio_config_doc --json:\n"
        << mpiio::plugin_json_keys();
}

// Every key has the short forms the tables show: a summary of at most 30 words (a table cell stays
// readable) and a default for each storage class.
TEST(ConfigDocumentation, EveryKeyHasASummaryAndDefaultsPerStorage) {
    for (const mpiio::KeyEntry &k : mpiio::config_key_entries()) {
        std::istringstream words(k.doc.summary);
        size_t count = 0;
        for (std::string w; words >> w;)
            ++count;
        EXPECT_GT(count, 0u) << k.key;
        EXPECT_LE(count, 30u) << k.key << "'s summary is " << count << " words";
        EXPECT_NE(*k.doc.on_local, '\0') << k.key;
        EXPECT_NE(*k.doc.on_shared, '\0') << k.key;
    }
}

// The documented defaults are the defaults: parsing them changes nothing.
TEST(ConfigDocumentation, DocumentedDefaultsAreTheDefaults) {
    EXPECT_EQ(mpiio::parse_config(mpiio::config_default_text()).canonical(), mpiio::Config{}.canonical());
    EXPECT_EQ(mpiio::parse_config("").canonical(), mpiio::Config{}.canonical());
}

} // namespace
