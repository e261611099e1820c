#include "io/mpi_runtime.hpp"

#include "common/error.hpp"

#include <mpi.h>

namespace mpiio {
namespace {
bool g_we_initialized = false;
}

void ensure_mpi_initialized() {
    int initialized = 0, finalized = 0;
    MPI_Initialized(&initialized);
    MPI_Finalized(&finalized);
    if (finalized)
        throw Error(ErrorKind::Mpi, "MPI has already been finalized; the mpiio driver needs MPI");
    if (initialized)
        return;
    int provided = 0;
    check_mpi(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided),
              "MPI_Init_thread (the program did not initialize MPI)");
    g_we_initialized = true;
}

void finalize_mpi_if_ours() noexcept {
    if (!g_we_initialized)
        return;
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized)
        MPI_Finalize();
    g_we_initialized = false;
}

} // namespace mpiio
