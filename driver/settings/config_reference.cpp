#include "settings/config_reference.hpp"

#include "settings/config.hpp"

#include <array>
#include <string_view>
#include <vector>

namespace mpiio {
namespace {

// The keys the README shows: seeing what the driver did, the storage class, the route, the one
// shortcut that changes what other ranks read before a flush, device buffers, and MPI-IO hints.
constexpr std::array<std::string_view, 6> kReadmeKeys{"stats",        "storage",     "collective_route",
                                                      "write_behind", "host_copies", "hint.<name>"};

// "a | b" -> {"a", "b"}: the names of an enumerated key; empty for a description ("bytes, ...").
std::vector<std::string> choice_names(const std::string &values) {
    std::vector<std::string> names;
    if (values.find(" | ") == std::string::npos)
        return names;
    for (size_t start = 0;;) {
        const size_t bar = values.find(" | ", start);
        names.push_back(values.substr(start, bar - start));
        if (bar == std::string::npos)
            return names;
        start = bar + 3;
    }
}

// "a | b" -> "`a` \| `b`"; other value texts unchanged.
std::string markdown_values(const std::string &values) {
    const std::vector<std::string> names = choice_names(values);
    if (names.empty())
        return values;
    std::string out;
    for (const std::string &name : names)
        out += (out.empty() ? "`" : " \\| `") + name + "`";
    return out;
}

// A default as a table shows it: one word is a value (`4M`), more words are prose.
std::string markdown_default(const std::string &text) {
    if (text.find(' ') == std::string::npos && text.find('`') == std::string::npos)
        return "`" + text + "`";
    return text;
}

// JSON string contents: quotes and backslashes escaped, Markdown backticks dropped.
std::string json_text(const std::string &text) {
    std::string out = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\')
            out += '\\';
        if (c != '`')
            out += c;
    }
    return out + "\"";
}

// "a | b" -> ["a", "b"]; a description stays one string.
std::string json_values(const std::string &values) {
    const std::vector<std::string> names = choice_names(values);
    if (names.empty())
        return json_text(values);
    std::string out;
    for (const std::string &name : names)
        out += (out.empty() ? "[" : ", ") + json_text(name);
    return out + "]";
}

// The key table's meanings continue "key = values: ..."; as a paragraph they start a sentence.
std::string sentence_case(std::string text) {
    if (!text.empty() && text[0] >= 'a' && text[0] <= 'z')
        text[0] = static_cast<char>(text[0] - 'a' + 'A');
    return text;
}

std::string table_row(const KeyEntry &k, bool per_storage) {
    std::string row = "| `" + std::string(k.key) + "` | " + markdown_values(k.doc.values) + " | ";
    if (per_storage)
        row += markdown_default(k.doc.on_local) + " | " + markdown_default(k.doc.on_shared) + " | ";
    return row + k.doc.summary + " |\n";
}

constexpr const char *kPageIntro =
    "# Configuration\n"
    "\n"
    "<!-- Generated from the key table in driver/settings/config.cpp by\n"
    "     `build/driver/mpiio_config_doc --configuration > docs/configuration.md`;\n"
    "     unit.config fails when this file differs from it. Edit the key table, not this file. -->\n"
    "\n"
    "The driver reads one configuration string: `key=value` entries separated by `;`. Give it in\n"
    "`HDF5_DRIVER_CONFIG` (with `HDF5_DRIVER=mpiio`) or as the third argument of\n"
    "`H5Pset_driver_by_name(fapl, \"mpiio\", \"key=value;...\")`. Every rank passes the same string.\n"
    "An unknown key or a bad value fails the open on every rank, with an error that names it.\n"
    "\n"
    "Several defaults follow the storage class (`storage`). Local storage is tmpfs, ramfs and local\n"
    "disk file systems, where an MPI-IO call costs microseconds. Shared storage is network, parallel\n"
    "and FUSE file systems (NFS, Lustre, GPFS, CephFS, BeeGFS, GlusterFS), where a call costs a round\n"
    "trip to a server. `stats=summary` prints the class and the values in effect.\n"
    "\n";

} // namespace

std::string configuration_page() {
    const std::vector<KeyEntry> keys = config_key_entries();
    std::string out = kPageIntro;
    out += "| key | values | default, local storage | default, shared storage | what it does |\n"
           "|---|---|---|---|---|\n";
    for (const KeyEntry &k : keys)
        out += table_row(k, true);
    out += "\n## Every key in full\n";
    for (const KeyEntry &k : keys) {
        out +=
            "\n### `" + std::string(k.key) + "`\n\nValues: " + markdown_values(k.doc.values) + ". Default: ";
        out += *k.doc.fallback != '\0' ? "`" + std::string(k.doc.fallback) + "`" : std::string("see below");
        out += " (local storage: " + markdown_default(k.doc.on_local) +
               "; shared storage: " + markdown_default(k.doc.on_shared) + ").\n\n";
        out += sentence_case(k.doc.meaning) + ".\n";
    }
    return out;
}

std::string readme_key_table() {
    const std::vector<KeyEntry> keys = config_key_entries();
    std::string out = "| key | values | what it does |\n|---|---|---|\n";
    for (std::string_view name : kReadmeKeys)
        for (const KeyEntry &k : keys)
            if (name == k.key)
                out += table_row(k, false);
    return out;
}

std::string plugin_json_keys() {
    const std::vector<KeyEntry> keys = config_key_entries();
    std::string out = "\"config_keys\": {\n";
    for (size_t i = 0; i < keys.size(); ++i) {
        const KeyEntry &k = keys[i];
        out += "    " + json_text(k.key) + ": {\n";
        out += "      \"type\": " + json_text(k.type) + ",\n";
        out += "      \"values\": " + json_values(k.doc.values) + ",\n";
        out += "      \"default\": " + (*k.doc.fallback ? json_text(k.doc.fallback) : std::string("null")) +
               ",\n";
        out += "      \"on_local_storage\": " + json_text(k.doc.on_local) + ",\n";
        out += "      \"on_shared_storage\": " + json_text(k.doc.on_shared) + ",\n";
        out += "      \"summary\": " + json_text(k.doc.summary) + "\n";
        out += std::string("    }") + (i + 1 < keys.size() ? "," : "") + "\n";
    }
    return out + "  }";
}

} // namespace mpiio
