// What the run happens in: MPI library and MPI-IO layer, HDF5, machine load; plus the checks and
// command lines that depend on it.
#pragma once

#include "options.hpp"
#include "results.hpp"

#include <string>

namespace bench {

// Local. /proc/loadavg's 1, 5 and 15 minute averages ("" when unavailable).
std::string loadavg();

// Local. MPI library, MPI-IO layer, HDF5 version, plugin path, host, start time and load.
void collect_environment(RunInfo &info);
// Local. collect_environment plus the options that shape the run.
RunInfo collect_run_info(const Options &opt);
// "Open MPI v4.1.4" or "MPICH 4.0.2": the first part of MPI_Get_library_version's string.
std::string short_library_name(const std::string &library);
// "Open MPI OMPIO", "Open MPI ROMIO" or "MPICH ROMIO".
std::string layer_title(const RunInfo &info);

// Collective. Aborts with a clear message when the mpiio driver cannot be selected (plugin not
// found on HDF5_PLUGIN_PATH).
void check_plugin_loads(const std::string &config);

// A command line that reruns one case, at `timesteps` time steps, with the given drivers (printed
// with failures).
std::string repro_command(const Options &opt, const std::string &case_id, const std::string &drivers,
                          int timesteps);

} // namespace bench
