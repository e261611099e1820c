// Prints the configuration documentation generated from the key table (config.cpp):
//   mpiio_config_doc --markdown   the README's configuration table
//   mpiio_config_doc --json       the "config_keys" members of h5plugin.json
#include "settings/config.hpp"

#include <cstdio>
#include <cstring>

int main(int argc, char **argv) {
    if (argc == 2 && std::strcmp(argv[1], "--markdown") == 0) {
        std::fputs(mpiio::config_markdown_table().c_str(), stdout);
        return 0;
    }
    if (argc == 2 && std::strcmp(argv[1], "--json") == 0) {
        std::fputs(mpiio::config_json_keys().c_str(), stdout);
        return 0;
    }
    std::fprintf(stderr, "usage: %s --markdown | --json\n", argv[0]);
    return 2;
}
