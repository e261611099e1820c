#include "workdir.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace bench {

namespace {

bool mkdirs(const std::string &path) {
    std::string cur;
    for (size_t i = 0; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/') {
            if (!cur.empty() && mkdir(cur.c_str(), 0755) != 0 && errno != EEXIST)
                return false;
        }
        if (i < path.size())
            cur += path[i];
    }
    return true;
}

std::string bcast_string(std::string s) {
    int n = static_cast<int>(s.size());
    BENCH_MPI(MPI_Bcast(&n, 1, MPI_INT, 0, MPI_COMM_WORLD));
    s.resize(static_cast<size_t>(n));
    BENCH_MPI(MPI_Bcast(s.data(), n, MPI_CHAR, 0, MPI_COMM_WORLD));
    return s;
}

} // namespace

std::string create_work_dir(const std::string &dir, const std::string &out) {
    std::string work;
    if (rank() == 0) {
        work = dir + "/h5bench_vfd." + std::to_string(getpid());
        for (const std::string &d : {work, out})
            if (!mkdirs(d)) {
                std::fprintf(stderr, "h5bench_vfd: cannot create %s: %s\n", d.c_str(), std::strerror(errno));
                work.clear();
                break;
            }
    }
    return bcast_string(work);
}

void remove_file(const std::string &path) {
    if (rank() == 0)
        std::remove(path.c_str());
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

std::string set_aside(const std::string &path) {
    const std::string kept = path + ".first-round";
    if (rank() == 0 && std::rename(path.c_str(), kept.c_str()) != 0)
        fatal("cannot rename " + path + ": " + std::strerror(errno));
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return kept;
}

std::string case_file(const std::string &work, const std::string &case_id, Driver d) {
    std::string name = case_id;
    std::replace(name.begin(), name.end(), '/', '.');
    return work + "/" + name + "." + driver_name(d) + (d == Driver::Raw ? ".raw" : ".h5");
}

} // namespace bench
