// The name the rank's own handle (view writes, io/mpi_io.hpp) opens its file by: the very file the
// shared handle opened, whatever happens to the working directory or the mounts after the open.
// MPI_File_open resolved the name at that moment; a later chdir, a rename of a directory on the way
// or a mount over it (a job wrapper's or a container's bind mount) can make the same name, or the
// same absolute path string, another file, or the same file through another client of a network
// file system, whose writes the first client need not see at all. So the file's directory is held
// open from the open on (O_PATH: no data access, no request to a file server) and the own handle
// opens the file's name inside it, through /proc/self/fd. Names with an MPI-IO prefix ("ufs:",
// "lustre:", ...) are the layer's to resolve and stay as given.
#pragma once

#include <string>

namespace mpiio {

class OwnHandlePath {
public:
    OwnHandlePath() = default;
    // Local. Holds `name`'s directory open (right after the shared handle's MPI_File_open, with the
    // working directory it used). Without /proc or when the directory cannot be opened, the path
    // is empty: the own handle is then never opened (the driver writes run by run, the built-in
    // driver's way).
    explicit OwnHandlePath(const std::string &name);
    OwnHandlePath(OwnHandlePath &&other) noexcept;
    OwnHandlePath &operator=(OwnHandlePath &&other) noexcept;
    OwnHandlePath(const OwnHandlePath &) = delete;
    OwnHandlePath &operator=(const OwnHandlePath &) = delete;
    ~OwnHandlePath(); // closes the directory

    // The name to hand MPI_File_open for the rank's own handle; empty: none.
    const std::string &path() const { return path_; }

private:
    std::string path_;
    int directory_ = -1;
};

} // namespace mpiio
