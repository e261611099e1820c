// Items 3 and 4 of hdf5_internals.hpp: DXPL properties read and hooked by their names.
#include "hdf5/hdf5_internals.hpp"

#include <H5FDmpi.h>

#include <cstring>

namespace mpiio::hdf5_internals {
namespace {

// H5Dprivate.h:73-75. HDF5 has setters but no getters for these.
constexpr char kChunkOptHardProp[] = "mpio_chunk_opt_hard";
constexpr char kChunkOptNumProp[] = "mpio_chunk_opt_num";
constexpr char kChunkOptRatioProp[] = "mpio_chunk_opt_ratio";

// Reads one DXPL property; `fallback` for the default list (which holds the defaults). Every
// DXPL has these properties (its class registers them), so no H5Pexist first: each public call
// costs an ID lookup, and this runs on every collective selection operation.
template <class T> T dxpl_value(hid_t dxpl_id, const char *name, T fallback) {
    if (dxpl_id < 0 || dxpl_id == H5P_DATASET_XFER_DEFAULT)
        return fallback;
    T value{};
    return H5Pget(dxpl_id, name, &value) < 0 ? fallback : value;
}

constexpr char kChunkOptProp[] = "actual_chunk_opt_mode"; // H5D_MPIO_ACTUAL_CHUNK_OPT_MODE_NAME
constexpr char kIoModeProp[] = "actual_io_mode";          // H5D_MPIO_ACTUAL_IO_MODE_NAME
constexpr char kHookedMarker[] = "mpiio_vfd_report_hook";

// The decision waiting for the library's end-of-call copy (API contexts are per thread).
struct Pending {
    hid_t dxpl = H5I_INVALID_HID;
    bool chunk_opt = false; // still to substitute
    bool io_mode = false;
    H5D_mpio_actual_io_mode_t io_mode_value = H5D_MPIO_NO_COLLECTIVE;
};
thread_local Pending g_pending;

// The list-local properties' set callback: runs whenever anyone sets them on this DXPL.
herr_t substitute_on_set(hid_t plist_id, const char *name, size_t size, void *value) {
    if (g_pending.dxpl != plist_id || value == nullptr)
        return 0;
    if (g_pending.chunk_opt && std::strcmp(name, kChunkOptProp) == 0 &&
        size == sizeof(H5D_mpio_actual_chunk_opt_mode_t)) {
        *static_cast<H5D_mpio_actual_chunk_opt_mode_t *>(value) = H5D_MPIO_MULTI_CHUNK;
        g_pending.chunk_opt = false;
    } else if (g_pending.io_mode && std::strcmp(name, kIoModeProp) == 0 &&
               size == sizeof(H5D_mpio_actual_io_mode_t)) {
        *static_cast<H5D_mpio_actual_io_mode_t *>(value) = g_pending.io_mode_value;
        g_pending.io_mode = false;
    }
    if (!g_pending.chunk_opt && !g_pending.io_mode)
        g_pending = Pending{};
    return 0;
}

// Replaces one property of the class with a list-local copy that carries the set callback.
template <class T> bool hook_property(hid_t dxpl_id, const char *name) {
    T current{};
    if (H5Pget(dxpl_id, name, &current) < 0 || H5Premove(dxpl_id, name) < 0)
        return false;
    return H5Pinsert2(dxpl_id, name, sizeof(T), &current, substitute_on_set, nullptr, nullptr, nullptr,
                      nullptr, nullptr) >= 0;
}

bool ensure_hooked(hid_t dxpl_id) {
    const htri_t hooked = H5Pexist(dxpl_id, kHookedMarker);
    if (hooked > 0)
        return true;
    if (hooked < 0 || H5Pexist(dxpl_id, kChunkOptProp) <= 0 || H5Pexist(dxpl_id, kIoModeProp) <= 0)
        return false;
    if (!hook_property<H5D_mpio_actual_chunk_opt_mode_t>(dxpl_id, kChunkOptProp) ||
        !hook_property<H5D_mpio_actual_io_mode_t>(dxpl_id, kIoModeProp))
        return false;
    int marker = 1;
    return H5Pinsert2(dxpl_id, kHookedMarker, sizeof(marker), &marker, nullptr, nullptr, nullptr, nullptr,
                      nullptr, nullptr) >= 0;
}

} // namespace

H5FD_mpio_chunk_opt_t dxpl_chunk_mode(hid_t dxpl_id) {
    return dxpl_value(dxpl_id, kChunkOptHardProp, H5FD_MPIO_CHUNK_DEFAULT);
}

unsigned dxpl_chunk_threshold(hid_t dxpl_id) { return dxpl_value(dxpl_id, kChunkOptNumProp, 0u); }

unsigned dxpl_chunk_ratio(hid_t dxpl_id) { return dxpl_value(dxpl_id, kChunkOptRatioProp, 60u); }

void clear_pending_report() { g_pending = Pending{}; }

void report_multi_chunk(hid_t dxpl_id, H5D_mpio_actual_io_mode_t io_mode) {
    // The library reports nothing for its default DXPL, and neither do we.
    if (dxpl_id < 0 || dxpl_id == H5P_DATASET_XFER_DEFAULT)
        return;
    if (!ensure_hooked(dxpl_id))
        return; // reporting is best effort; the statistics still count the decision
    g_pending = Pending{dxpl_id, true, io_mode != H5D_MPIO_NO_COLLECTIVE, io_mode};
}

} // namespace mpiio::hdf5_internals
