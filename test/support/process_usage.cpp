#include "process_usage.hpp"

#include <dirent.h>
#include <malloc.h>

#include <cstdio>
#include <cstring>

namespace mpiio_test {

long open_fd_count() {
    DIR *d = opendir("/proc/self/fd");
    if (d == nullptr)
        return -1;
    long n = 0;
    while (const dirent *e = readdir(d))
        if (e->d_name[0] != '.')
            ++n;
    closedir(d);
    return n - 1; // the directory stream's own descriptor
}

std::int64_t resident_bytes() {
    std::FILE *f = std::fopen("/proc/self/status", "r");
    if (f == nullptr)
        return -1;
    char line[256];
    long long kib = -1;
    while (std::fgets(line, sizeof line, f) != nullptr)
        if (std::strncmp(line, "VmRSS:", 6) == 0)
            std::sscanf(line + 6, "%lld", &kib);
    std::fclose(f);
    return kib < 0 ? -1 : kib * 1024;
}

std::int64_t heap_in_use_bytes() {
    const struct mallinfo2 m = mallinfo2();
    return static_cast<std::int64_t>(m.uordblks + m.hblkhd);
}

} // namespace mpiio_test
