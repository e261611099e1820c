// Item 6 of hdf5_internals.hpp: a selection's facts read from HDF5's dataspace object in one step.
//
// Each public H5S query is an API entry (context push, error-stack reset: about 250 instructions
// with HDF5 1.14.5), and a tiny independent H5Dwrite asks five of them per dataspace, where the
// built-in driver reads the same facts from the H5S_t it holds (docs/measurements.md,
// "D5 selection facts read in one step (hdf5_internals item 6)"). The
// library exports (H5_DLL) the internal functions behind those queries; this module calls them
// directly on the H5S_t that H5I_object_verify returns for the library's own dataspace ids.
#include "hdf5/hdf5_internals.hpp"

#include "selection/space_info.hpp"

#include <dlfcn.h>

namespace mpiio::hdf5_internals {
namespace {

// Declared in the uninstalled H5Iprivate.h:91 and H5Sprivate.h:214-258 (HDF5 1.14.5; the same in
// 1.14.6). H5S_t is opaque here: only pointers pass through.
struct H5S_t;
using ObjectVerify = void *(*)(hid_t, H5I_type_t);
using SelectType = H5S_sel_type (*)(const H5S_t *);
using SelectNpoints = hsize_t (*)(const H5S_t *);
using ExtentDims = int (*)(const H5S_t *, hsize_t *, hsize_t *);
using SelectBounds = herr_t (*)(const H5S_t *, hsize_t *, hsize_t *);
using SelectIsRegular = htri_t (*)(H5S_t *);

struct DataspaceFunctions {
    ObjectVerify object_verify = nullptr;     // H5Iint.c:707
    SelectType select_type = nullptr;         // H5Sselect.c:1554 (H5Sget_select_type's body)
    SelectNpoints select_npoints = nullptr;   // H5Sselect.c:399 (H5Sget_select_npoints')
    ExtentDims extent_dims = nullptr;         // H5S.c:952 (H5Sget_simple_extent_dims')
    SelectBounds select_bounds = nullptr;     // H5Sselect.c:635 (H5Sget_select_bounds')
    SelectIsRegular select_regular = nullptr; // H5Sselect.c:866 (H5Sis_regular_hyperslab's test)
};

DataspaceFunctions g_fns;

template <class Fn> bool resolve_symbol(void *lib, const char *name, Fn &out) {
    out = reinterpret_cast<Fn>(dlsym(lib, name));
    return out != nullptr;
}

} // namespace

bool read_dataspace(hid_t space_id, selection::SpaceInfo &out) {
    if (g_fns.object_verify == nullptr)
        return false;
    auto *space = static_cast<H5S_t *>(g_fns.object_verify(space_id, H5I_DATASPACE));
    if (space == nullptr)
        return false;
    out.kind = g_fns.select_type(space);
    if (out.kind < H5S_SEL_NONE || out.kind >= H5S_SEL_N)
        return false;
    out.npoints = static_cast<std::uint64_t>(g_fns.select_npoints(space));
    out.rank = g_fns.extent_dims(space, out.dims.data(), nullptr);
    if (out.rank < 0 || out.rank > H5S_MAX_RANK)
        return false;
    if (out.npoints == 0 || out.rank == 0)
        return true;
    if (out.kind == H5S_SEL_ALL) { // the whole extent: what H5S_get_select_bounds answers
        for (int d = 0; d < out.rank; ++d) {
            out.low[d] = 0;
            out.high[d] = out.dims[d] - 1;
        }
        return true;
    }
    if (g_fns.select_bounds(space, out.low.data(), out.high.data()) < 0)
        return false;
    if (out.kind == H5S_SEL_HYPERSLABS) {
        const htri_t regular = g_fns.select_regular(space);
        if (regular < 0)
            return false;
        out.regular = regular > 0;
    }
    return true;
}

bool install_dataspace_reader(void *libhdf5) {
    DataspaceFunctions fns;
    const bool all = resolve_symbol(libhdf5, "H5I_object_verify", fns.object_verify) &&
                     resolve_symbol(libhdf5, "H5S_get_select_type", fns.select_type) &&
                     resolve_symbol(libhdf5, "H5S_get_select_npoints", fns.select_npoints) &&
                     resolve_symbol(libhdf5, "H5S_get_simple_extent_dims", fns.extent_dims) &&
                     resolve_symbol(libhdf5, "H5S_get_select_bounds", fns.select_bounds) &&
                     resolve_symbol(libhdf5, "H5S_select_is_regular", fns.select_regular);
    if (!all) // the public API keeps answering: slower, never wrong
        return false;
    g_fns = fns;
    selection::set_space_info_source(read_dataspace);
    return true;
}

bool dataspace_reader_installed() { return g_fns.object_verify != nullptr; }

} // namespace mpiio::hdf5_internals
