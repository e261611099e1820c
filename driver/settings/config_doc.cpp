// Prints the configuration documentation generated from the key table (config.cpp):
//   mpiio_config_doc --configuration   docs/configuration.md, whole
//   mpiio_config_doc --readme          the README's table of the keys most users touch
//   mpiio_config_doc --json            the "config_keys" object of h5plugin.json
// unit.config fails when a committed file differs from this output.
#include "settings/config_reference.hpp"

#include <cstdio>
#include <cstring>
#include <string>

int main(int argc, char **argv) {
    const char *option = argc == 2 ? argv[1] : "";
    std::string text;
    if (std::strcmp(option, "--configuration") == 0)
        text = mpiio::configuration_page();
    else if (std::strcmp(option, "--readme") == 0)
        text = mpiio::readme_key_table();
    else if (std::strcmp(option, "--json") == 0)
        text = mpiio::plugin_json_keys() + "\n";
    else {
        std::fprintf(stderr, "usage: %s --configuration | --readme | --json\n", argv[0]);
        return 2;
    }
    std::fputs(text.c_str(), stdout);
    return 0;
}
