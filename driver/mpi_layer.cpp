// See mpi_layer.hpp.
#include "mpi_layer.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>

namespace mpiio {
namespace {

// Local. The value of an Open MPI MCA parameter through MPI_T (MPI_T_init_thread must be active):
// a string, or an int printed as a string; empty when it does not exist.
std::string mca_parameter(const char *name) {
    int index = 0;
    if (MPI_T_cvar_get_index(name, &index) != MPI_SUCCESS)
        return {};
    char cvar_name[256];
    char description[8];
    int name_length = sizeof cvar_name, description_length = sizeof description, verbosity = 0, bind = 0,
        scope = 0;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    MPI_T_enum enumtype{};
    if (MPI_T_cvar_get_info(index, cvar_name, &name_length, &verbosity, &type, &enumtype, description,
                            &description_length, &bind, &scope) != MPI_SUCCESS)
        return {};
    MPI_T_cvar_handle handle{};
    int count = 0;
    if (MPI_T_cvar_handle_alloc(index, nullptr, &handle, &count) != MPI_SUCCESS)
        return {};
    std::string value;
    if (type == MPI_CHAR && count > 0) {
        std::string buffer(static_cast<std::size_t>(count) + 1, '\0');
        if (MPI_T_cvar_read(handle, buffer.data()) == MPI_SUCCESS)
            value = buffer.c_str();
    } else if (type == MPI_INT) {
        int v = 0;
        if (MPI_T_cvar_read(handle, &v) == MPI_SUCCESS)
            value = std::to_string(v);
    }
    MPI_T_cvar_handle_free(&handle);
    return value;
}

int priority(const char *name, int fallback) {
    const std::string v = mca_parameter(name);
    return v.empty() ? fallback : std::atoi(v.c_str());
}

// What this process's MPI says about its MPI-IO layer, read once.
struct LayerFacts {
    bool open_mpi = false;
    int open_mpi_major = 0;
    bool ompio_possible = true; // OMPIO may open files (also when it cannot tell)
    bool romio_possible = true; // an Open MPI ROMIO component may open files
};

// Local. Open MPI's io component choice: the `io` parameter (a list, or ^list to exclude), else
// the highest priority.
void read_open_mpi_io_choice(LayerFacts &facts) {
    int provided = 0;
    if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
        return;
    const std::string io = mca_parameter("io");
    if (!io.empty()) {
        const bool excluding = io[0] == '^';
        const bool names_ompio = io.find("ompio") != std::string::npos;
        const bool names_romio = io.find("romio") != std::string::npos;
        facts.ompio_possible = excluding ? !names_ompio : names_ompio;
        facts.romio_possible = excluding ? !names_romio : names_romio;
    } else {
        const int ompio = priority("io_ompio_priority", 30);
        const int romio =
            std::max(priority("io_romio321_priority", -1), priority("io_romio341_priority", -1));
        facts.ompio_possible = romio < 0 || ompio >= romio;
        facts.romio_possible = romio >= 0 && romio >= ompio;
    }
    MPI_T_finalize();
}

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
        read_open_mpi_io_choice(facts);
    });
    return facts;
}

} // namespace

bool open_needs_agreement_first() { return layer_facts().ompio_possible; }

bool open_may_drop_hints() {
    const LayerFacts &facts = layer_facts();
    return facts.open_mpi && facts.open_mpi_major >= 5 && facts.romio_possible;
}

} // namespace mpiio
