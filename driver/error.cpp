#include "error.hpp"

#include <hdf5.h>

#include <array>

namespace mpiio {
namespace {

struct ErrorClass {
    hid_t cls = H5I_INVALID_HID;
    hid_t major = H5I_INVALID_HID;
    std::array<hid_t, 6> minors{H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID,
                                H5I_INVALID_HID, H5I_INVALID_HID, H5I_INVALID_HID};
};
ErrorClass g_class;

constexpr std::array<const char *, 6> kMinorText = {
    "invalid driver configuration", "MPI call failed",     "failed on another rank",
    "I/O transfer failed",          "unsupported request", "internal error",
};

// Registers the class lazily: at plugin load the library may still be initialising.
bool ensure_registered() {
    if (g_class.cls >= 0)
        return true;
    hid_t cls = H5Eregister_class("mpiio-vfd", "mpiio", "0.1.0");
    if (cls < 0)
        return false;
    hid_t major = H5Ecreate_msg(cls, H5E_MAJOR, "MPI-IO virtual file driver (mpiio)");
    ErrorClass created;
    created.cls = cls;
    created.major = major;
    for (size_t i = 0; i < kMinorText.size(); ++i)
        created.minors[i] = H5Ecreate_msg(cls, H5E_MINOR, kMinorText[i]);
    g_class = created;
    return major >= 0;
}

} // namespace

std::string mpi_error_string(int code) {
    char text[MPI_MAX_ERROR_STRING + 1] = {};
    int len = 0;
    if (MPI_Error_string(code, text, &len) != MPI_SUCCESS)
        return "MPI error code " + std::to_string(code);
    int error_class = code;
    MPI_Error_class(code, &error_class);
    char class_text[MPI_MAX_ERROR_STRING + 1] = {};
    int class_len = 0;
    if (error_class != code && MPI_Error_string(error_class, class_text, &class_len) == MPI_SUCCESS)
        return std::string(text, static_cast<size_t>(len)) + " (" +
               std::string(class_text, static_cast<size_t>(class_len)) + ")";
    return std::string(text, static_cast<size_t>(len));
}

void push_error(const char *function, ErrorKind kind, const std::string &message) noexcept {
    try {
        if (!ensure_registered())
            return;
        const hid_t minor = g_class.minors[static_cast<size_t>(kind)];
        H5Epush2(H5E_DEFAULT, "mpiio-vfd", function, 0, g_class.cls, g_class.major, minor, "%s",
                 message.c_str());
    } catch (...) {
        // nothing sensible left to do: the caller still returns failure to HDF5
    }
}

void release_error_class() noexcept {
    if (g_class.cls < 0)
        return;
    H5Eunregister_class(g_class.cls); // also closes the messages of the class
    g_class = ErrorClass{};
}

} // namespace mpiio
