// A transfer a driver refuses, told apart from a failure: HDF5's subfiling driver refuses
// collective transfers that come with MPI derived datatypes ("collective I/O is currently
// unsupported"), which HDF5 passes when it does not use selection I/O (chunked reads through the
// chunk cache). Such a case is reported as not supported for that driver, and the run goes on; any
// other error stays fatal.
#pragma once

#include <hdf5.h>

#include <string>

namespace bench {

// Local. `rc` is the result of an HDF5 call made with automatic error printing off (H5E_BEGIN_TRY):
// "" when it succeeded; "<function>: <message>" of the refusal when it failed because something is
// not supported (H5E_UNSUPPORTED on HDF5's error stack); any other failure prints the stack and is
// fatal like BENCH_H5, with `call` naming the call.
std::string refusal_of(herr_t rc, const char *call);

// Collective. The refusal of the lowest rank that has one, on every rank ("" when no rank refused):
// a rank without data in a refused transfer may have succeeded.
std::string agree_refusal(const std::string &mine);

} // namespace bench
