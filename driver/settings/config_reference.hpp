// The configuration's reference documentation, generated from the key table (config.cpp) so it
// cannot drift: docs/configuration.md, the README's table of the keys most users touch, and the
// "config_keys" object of h5plugin.json. build/driver/mpiio_config_doc prints each; unit.config
// fails when a committed file differs from what these return.
#pragma once

#include <string>

namespace mpiio {

// docs/configuration.md, whole: how to pass the string, a table of every key (values, default on
// local and on shared storage, one line), then every key's full explanation.
std::string configuration_page();

// The README's table of the keys most users touch (header included).
std::string readme_key_table();

// The "config_keys" object of h5plugin.json, braces included, indented to sit at its top level:
// per key its type, values, default, the default on each storage class and the summary.
std::string plugin_json_keys();

} // namespace mpiio
