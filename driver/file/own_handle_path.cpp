// See own_handle_path.hpp.
#include "file/own_handle_path.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <utility>

namespace mpiio {

OwnHandlePath::OwnHandlePath(const std::string &name) {
    const auto colon = name.find(':');
    if (colon != std::string::npos && colon > 1 && name.find('/') > colon) { // an MPI-IO prefix
        path_ = name;
        return;
    }
    const auto slash = name.find_last_of('/');
    const std::string directory =
        slash == std::string::npos ? "." : (slash == 0 ? "/" : name.substr(0, slash));
    const std::string base = slash == std::string::npos ? name : name.substr(slash + 1);
    directory_ = ::open(directory.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (directory_ >= 0 && !base.empty())
        path_ = "/proc/self/fd/" + std::to_string(directory_) + "/" + base;
}

OwnHandlePath::OwnHandlePath(OwnHandlePath &&other) noexcept
    : path_(std::move(other.path_)), directory_(std::exchange(other.directory_, -1)) {}

OwnHandlePath &OwnHandlePath::operator=(OwnHandlePath &&other) noexcept {
    if (this != &other) {
        if (directory_ >= 0)
            ::close(directory_);
        path_ = std::move(other.path_);
        directory_ = std::exchange(other.directory_, -1);
    }
    return *this;
}

OwnHandlePath::~OwnHandlePath() {
    if (directory_ >= 0)
        ::close(directory_);
}

} // namespace mpiio
