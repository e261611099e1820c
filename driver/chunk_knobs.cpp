#include "chunk_knobs.hpp"

#include "hdf5_internals.hpp"

namespace mpiio {

chunkio::Knobs chunk_knobs(hid_t dxpl_id, const Config &config) {
    const hdf5_internals::DxplChunkKnobs dxpl = hdf5_internals::dxpl_chunk_knobs(dxpl_id);
    chunkio::Knobs knobs;
    knobs.mode = dxpl.mode == H5FD_MPIO_CHUNK_ONE_IO     ? chunkio::Mode::Linked
                 : dxpl.mode == H5FD_MPIO_CHUNK_MULTI_IO ? chunkio::Mode::Multi
                                                         : chunkio::Mode::Default;
    knobs.linked_threshold = dxpl.linked_threshold;
    knobs.collective_ratio = dxpl.collective_ratio;
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
