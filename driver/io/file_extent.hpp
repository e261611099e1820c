// What the driver knows of the file's size beside the MPI handle: the library's end of allocation
// and the size every rank knows the file has. The collective engine extends the file to the EOA
// before an MPI collective write (collective_engine.cpp); truncate and close reconcile the two
// (file/file_size.cpp).
#pragma once

#include <H5FDdevelop.h>

#include <optional>

namespace mpiio {

struct FileExtent {
    haddr_t eoa = 0;      // set by the library; local
    haddr_t last_eoa = 0; // eoa at the last truncate: truncate is a no-op while unchanged
    // A truncate the library asked for while closing the file, left to close_file (the size the
    // file must have), so that its exchange also carries the close's agreement.
    std::optional<haddr_t> truncate_at_close;
    // The file size every rank knows the file has at least (set at open, truncate and the extension
    // before an MPI collective write: only collective steps change it, so it is identical on all
    // ranks).
    haddr_t known_size = 0;
    // The library's truncate read rank 0's size (before resizing) since the last flush, so the
    // flush that follows it need not read it again to learn what other writers left (file_size.cpp).
    bool size_seen = false;
};

} // namespace mpiio
