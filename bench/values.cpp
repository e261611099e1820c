#include "values.hpp"

namespace bench {

const char *const kFieldNames[kNumFields] = {"x", "y", "z", "id_1", "id_2", "px", "py", "pz"};

size_t particle_offset(int field) {
    switch (field) {
    case kX:
        return offsetof(Particle, x);
    case kY:
        return offsetof(Particle, y);
    case kZ:
        return offsetof(Particle, z);
    case kId1:
        return offsetof(Particle, id_1);
    case kId2:
        return offsetof(Particle, id_2);
    case kPx:
        return offsetof(Particle, px);
    case kPy:
        return offsetof(Particle, py);
    case kPz:
        return offsetof(Particle, pz);
    default:
        return 0;
    }
}

} // namespace bench
