#include "server_ops.hpp"

#include "common.hpp"

#include <mpi.h>

#include <cstdio>
#include <cstdlib>

namespace bench {

void ServerOps::add(const std::string &fop, uint64_t n) {
    by_fop[fop] += n;
    if (fop == "READ")
        reads += n;
    else if (fop == "WRITE")
        writes += n;
    else if (fop == "LK" || fop == "INODELK" || fop == "FINODELK" || fop == "ENTRYLK" || fop == "FENTRYLK")
        locks += n;
    else
        metadata += n;
}

namespace {

[[noreturn]] void ctl_failed(const std::string &command) {
    std::fprintf(stderr, "h5bench_vfd: --server-ops: '%s' failed\n", command.c_str());
    MPI_Abort(MPI_COMM_WORLD, 2);
    std::abort();
}

} // namespace

// Collective.
void ServerOpsCounter::start() const {
    if (!enabled())
        return;
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank() == 0) {
        const std::string command = ctl_ + " profile-start";
        if (std::system(command.c_str()) != 0)
            ctl_failed(command);
    }
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
}

// Collective. The barrier first: every rank's operations of the phase have reached the servers
// (the phase ended with a close, which waits for them) before rank 0 reads the counters.
ServerOps ServerOpsCounter::stop() const {
    ServerOps ops;
    if (!enabled())
        return ops;
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    if (rank() == 0) {
        const std::string command = ctl_ + " profile-counts";
        FILE *p = popen(command.c_str(), "r");
        if (p == nullptr)
            ctl_failed(command);
        char fop[64];
        unsigned long long n = 0;
        while (std::fscanf(p, "%63s %llu", fop, &n) == 2)
            ops.add(fop, n);
        if (pclose(p) != 0)
            ctl_failed(command);
        ops.counted = true;
    }
    BENCH_MPI(MPI_Barrier(MPI_COMM_WORLD));
    return ops;
}

} // namespace bench
