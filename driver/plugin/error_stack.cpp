#include "plugin/error_stack.hpp"

#include <hdf5.h>

#include <array>

namespace mpiio {
namespace {

constexpr size_t kKinds = 0
#define MPIIO_COUNT_KIND(name, text) +1
    MPIIO_ERROR_KINDS(MPIIO_COUNT_KIND)
#undef MPIIO_COUNT_KIND
    ;

struct ErrorClass {
    hid_t cls = H5I_INVALID_HID;
    hid_t major = H5I_INVALID_HID;
    std::array<hid_t, kKinds> minors{};
};
ErrorClass g_class;

// Registers the class lazily: at plugin load the library may still be initialising.
bool ensure_registered() {
    if (g_class.cls >= 0)
        return true;
    const hid_t cls = H5Eregister_class("mpiio-vfd", "mpiio", MPIIO_VFD_VERSION);
    if (cls < 0)
        return false;
    ErrorClass created;
    created.cls = cls;
    created.major = H5Ecreate_msg(cls, H5E_MAJOR, "MPI-IO virtual file driver (mpiio)");
    for (size_t i = 0; i < kKinds; ++i)
        created.minors[i] = H5Ecreate_msg(cls, H5E_MINOR, error_kind_text(static_cast<ErrorKind>(i)));
    g_class = created;
    return created.major >= 0;
}

} // namespace

void push_error(const char *function, const Error &error) noexcept {
    try {
        if (!ensure_registered())
            return;
        const hid_t minor = g_class.minors[static_cast<size_t>(error.kind())];
        H5Epush2(H5E_DEFAULT, error.where().file_name(), function, error.where().line(), g_class.cls,
                 g_class.major, minor, "%s", error.what());
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
