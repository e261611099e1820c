// Where the data files go: a directory per launch under --dir, one file per case and driver.
#pragma once

#include "common.hpp"

#include <string>

namespace bench {

// Collective. Creates <dir>/h5bench_vfd.<pid of rank 0> and the output directory (rank 0) and
// returns the work directory on every rank; "" (on every rank) when either cannot be created.
std::string create_work_dir(const std::string &dir, const std::string &out);

// Collective. Rank 0 removes the file; everybody waits so no rank reuses the name too early.
void remove_file(const std::string &path);
// Collective. Renames the file at `path` (rank 0) out of the way of the next rounds' files, which
// reuse its name; returns the new path.
std::string set_aside(const std::string &path);

// Local. <work>/<case id with '/' -> '.'>.<driver>.h5 (.raw for raw MPI-IO).
std::string case_file(const std::string &work, const std::string &case_id, Driver d);

} // namespace bench
