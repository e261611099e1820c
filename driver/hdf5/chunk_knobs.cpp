#include "hdf5/chunk_knobs.hpp"

#include "hdf5/hdf5_internals.hpp"

namespace mpiio {

chunkio::Knobs chunk_knobs(hid_t dxpl_id, const Config &config) {
    chunkio::Knobs knobs;
    if (config.chunk_opt) {
        knobs.mode = *config.chunk_opt == Config::ChunkOpt::Linked  ? chunkio::Mode::Linked
                     : *config.chunk_opt == Config::ChunkOpt::Multi ? chunkio::Mode::Multi
                                                                    : chunkio::Mode::Default;
    } else {
        const H5FD_mpio_chunk_opt_t mode = hdf5_internals::dxpl_chunk_mode(dxpl_id);
        knobs.mode = mode == H5FD_MPIO_CHUNK_ONE_IO     ? chunkio::Mode::Linked
                     : mode == H5FD_MPIO_CHUNK_MULTI_IO ? chunkio::Mode::Multi
                                                        : chunkio::Mode::Default;
    }
    // Only what the decision will look at is read (decision.hpp): linked-chunk needs nothing
    // more, the default mode its threshold, and the ratio matters only if multi-chunk is possible.
    if (knobs.mode == chunkio::Mode::Linked)
        return knobs;
    if (knobs.mode == chunkio::Mode::Default) {
        knobs.linked_threshold =
            config.chunk_opt_num ? *config.chunk_opt_num : hdf5_internals::dxpl_chunk_threshold(dxpl_id);
        if (knobs.linked_threshold == 0)
            return knobs;
    }
    knobs.collective_ratio =
        config.chunk_opt_ratio ? *config.chunk_opt_ratio : hdf5_internals::dxpl_chunk_ratio(dxpl_id);
    return knobs;
}

} // namespace mpiio
