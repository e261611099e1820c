// HDF5's subfiling driver as a peer of the built-in driver and the plugin: selecting it,
// the thread level it needs, and the files a subfiled HDF5 file is made of. Everything that knows
// about subfiling lives here, so a build against an HDF5 without it only loses this driver.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <string>
#include <vector>

namespace bench {

// Whether the HDF5 this was built against has the subfiling driver (H5_HAVE_SUBFILING_VFD).
bool subfiling_built();

// Local. Selects the subfiling driver on `fapl` with HDF5's default configuration,
// H5Pset_fapl_subfiling(fapl, NULL), as h5bench does (SUBFILING=YES): one I/O concentrator per
// node, 32 MiB stripes, as many subfiles as concentrators, the concentrator's worker threads
// writing through sec2; the H5FD_SUBFILING_* and H5FD_IOC_* environment variables change it.
// Returns < 0 when HDF5 refuses (or has no subfiling driver).
herr_t set_fapl_subfiling(hid_t fapl);

// "" when a process initialised with thread level `provided` can use the subfiling driver, else why
// not: its I/O concentrators are threads calling MPI, so HDF5 refuses anything below
// MPI_THREAD_MULTIPLE (and the driver itself when it was not built).
std::string subfiling_unusable(int provided);

// The configuration the driver will use, in one line ("1 I/O concentrator per node, stripe 32 MiB,
// ..."), and the H5FD_SUBFILING_* / H5FD_IOC_* variables set in the environment; "" without the driver.
std::string subfiling_config_text();

// Local. The files of the subfiled HDF5 file `stub`: the stub itself, its subfiles
// (<name>.subfile_<inode>_<i>_of_<n>) and its configuration file (<name>.subfile_<inode>.config),
// looked for in the stub's directory and in the directories H5FD_SUBFILING_SUBFILE_PREFIX and
// H5FD_SUBFILING_CONFIG_FILE_PREFIX name. Empty when the stub does not exist.
struct SubfiledFile {
    std::string path;
    uint64_t bytes = 0;
};
std::vector<SubfiledFile> subfiled_files(const std::string &stub);

// "stub 2.0 KiB + 1 subfile 12.3 MiB + config 153 B" for the files of one subfiled file.
std::string describe_subfiled(const std::vector<SubfiledFile> &files);

} // namespace bench
