#include "chunk_knobs.hpp"

#include <H5FDmpi.h>

namespace mpiio {
namespace {

// Reads one DXPL property if the list has it (quietly: a missing property is not an error).
template <class T> bool dxpl_value(hid_t dxpl_id, const char *name, T &out) {
    if (dxpl_id < 0 || H5Pexist(dxpl_id, name) <= 0)
        return false;
    T value{};
    if (H5Pget(dxpl_id, name, &value) < 0)
        return false;
    out = value;
    return true;
}

} // namespace

chunkio::Knobs chunk_knobs(hid_t dxpl_id, const Config &config) {
    chunkio::Knobs knobs;
    H5FD_mpio_chunk_opt_t hard = H5FD_MPIO_CHUNK_DEFAULT;
    if (dxpl_value(dxpl_id, "mpio_chunk_opt_hard", hard))
        knobs.mode = hard == H5FD_MPIO_CHUNK_ONE_IO     ? chunkio::Mode::Linked
                     : hard == H5FD_MPIO_CHUNK_MULTI_IO ? chunkio::Mode::Multi
                                                        : chunkio::Mode::Default;
    dxpl_value(dxpl_id, "mpio_chunk_opt_num", knobs.linked_threshold);
    dxpl_value(dxpl_id, "mpio_chunk_opt_ratio", knobs.collective_ratio);
    if (config.chunk_opt)
        knobs.mode = *config.chunk_opt == Config::ChunkOpt::Linked  ? chunkio::Mode::Linked
                     : *config.chunk_opt == Config::ChunkOpt::Multi ? chunkio::Mode::Multi
                                                                    : chunkio::Mode::Default;
    if (config.chunk_opt_num)
        knobs.linked_threshold = *config.chunk_opt_num;
    if (config.chunk_opt_ratio)
        knobs.collective_ratio = *config.chunk_opt_ratio;
    return knobs;
}

} // namespace mpiio
