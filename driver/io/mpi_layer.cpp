// See mpi_layer.hpp.
#include "io/mpi_layer.hpp"

#include "common/mpi_handle.hpp"
#include "io/mpi_io.hpp"

#include <mpi.h>

#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace mpiio {
namespace {

// What this process's MPI says about its MPI-IO layer, read once. Not through MPI_T: Open MPI's
// MPI_T_init_thread opens every MCA component to list their parameters, 0.2 s per process (0.4 s
// on an oversubscribed node) added to the first H5Fopen.
struct LayerFacts {
    bool open_mpi = false;
    int open_mpi_major = 0;
    bool ompio_possible = true; // OMPIO may open files (also when it cannot tell)
};

const LayerFacts &layer_facts() {
    static std::once_flag once;
    static LayerFacts facts;
    std::call_once(once, [] {
        char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
        int length = 0;
        if (MPI_Get_library_version(version, &length) != MPI_SUCCESS)
            return;
        const char *open_mpi = std::strstr(version, "Open MPI v");
        if (open_mpi == nullptr) { // MPICH and its derivatives: ROMIO
            facts.ompio_possible = false;
            return;
        }
        facts.open_mpi = true;
        facts.open_mpi_major = std::atoi(open_mpi + std::strlen("Open MPI v"));
        // The io component list as mpirun --mca io (or the environment) gives it: a list, or
        // ^list to exclude. Without it, or set in a parameter file only, OMPIO counts as possible.
        if (const char *io = std::getenv("OMPI_MCA_io"); io != nullptr && *io != '\0') {
            const bool excluding = io[0] == '^';
            const bool names_ompio = std::strstr(io, "ompio") != nullptr;
            facts.ompio_possible = excluding ? !names_ompio : names_ompio;
        }
    });
    return facts;
}

} // namespace

bool open_needs_agreement_first() { return layer_facts().ompio_possible; }

namespace {

// Local. Whether `fh` lists ROMIO's defaults (romio_cb_read among them); OMPIO lists no romio_
// hint, and neither does Open MPI 4.1's romio321.
bool lists_romio_hints(MPI_File fh) {
    const std::optional<Info> in_effect = mpi_file_hints(fh);
    if (!in_effect)
        return false;
    int length = 0, present = 0;
    MPI_Info_get_valuelen(in_effect->get(), "romio_cb_read", &length, &present);
    return present != 0;
}

} // namespace

bool open_dropped_hints(MPI_File fh) {
    const LayerFacts &facts = layer_facts();
    return facts.open_mpi && facts.open_mpi_major >= 5 && lists_romio_hints(fh);
}

bool irregular_view_writes_pay_off(MPI_File fh) {
    const LayerFacts &facts = layer_facts();
    if (!facts.open_mpi)
        return true; // MPICH's ROMIO
    if (!facts.ompio_possible)
        return false;
    return !(facts.open_mpi_major >= 5 && lists_romio_hints(fh));
}

} // namespace mpiio
