#include "common.hpp"

#include <h5fd_mpiio.h>

#include <cstdio>
#include <cstdlib>

namespace bench {
namespace {
std::string g_context, g_repro;
}

const char *driver_name(Driver d) {
    switch (d) {
    case Driver::Mpio:
        return "mpio";
    case Driver::Mpiio:
        return "mpiio";
    case Driver::Raw:
        return "raw";
    case Driver::Mpio2:
        return "mpio2";
    }
    return "?";
}

hid_t driver_fapl(Driver d, const std::string &config) {
    const hid_t fapl = BENCH_H5(H5Pcreate(H5P_FILE_ACCESS));
    if (is_builtin(d))
        BENCH_H5(H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL));
    else
        BENCH_H5(H5Pset_fapl_mpiio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL,
                                   config.empty() ? nullptr : config.c_str()));
    return fapl;
}

std::string Mode::name() const {
    if (coll_data && coll_md)
        return "coll";
    if (!coll_data && !coll_md)
        return "ind";
    return coll_data ? "cd" : "cm";
}

bool parse_mode(const std::string &s, Mode &out) {
    if (s == "coll")
        out = {true, true};
    else if (s == "ind")
        out = {false, false};
    else if (s == "cd")
        out = {true, false};
    else if (s == "cm")
        out = {false, true};
    else
        return false;
    return true;
}

int rank() {
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int nranks() {
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

void set_context(const std::string &ctx, const std::string &repro) {
    g_context = ctx;
    g_repro = repro;
}
const std::string &context() { return g_context; }

void fatal(const std::string &what) {
    std::fprintf(stderr, "\n[rank %d] FATAL during %s: %s\n", rank(), g_context.c_str(), what.c_str());
    if (!g_repro.empty())
        std::fprintf(stderr, "[rank %d] reproduce: %s\n", rank(), g_repro.c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 3);
    std::abort();
}

void mpi_fatal(int rc, const char *call, const char *file, int line) {
    char msg[MPI_MAX_ERROR_STRING] = {0};
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fatal(std::string("MPI call failed: ") + call + " (" + file + ":" + std::to_string(line) + "): " + msg);
}

} // namespace bench
