// Deterministic particle values: the value of field f of the particle with global index g at
// time step t. Every driver writes exactly these bytes, so files are comparable and every read
// can be checked without keeping the written buffers around.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace bench {

// Fields in h5bench's dataset write order (x, y, z, id_1, id_2, px, py, pz). Ids >= 8 are used
// by the metadata-heavy case (one id per dataset).
enum Field : int { kX = 0, kY, kZ, kId1, kId2, kPx, kPy, kPz, kNumFields };
inline const char *const kFieldNames[kNumFields] = {"x", "y", "z", "id_1", "id_2", "px", "py", "pz"};

// h5bench's interleaved record (struct particle): x, y, z, px, py, pz, id_1, id_2.
struct Particle {
    float x, y, z, px, py, pz;
    int id_1;
    float id_2;
};
static_assert(sizeof(Particle) == 32, "particle records are 32 bytes");
// Byte offset of a field inside Particle (0 for the metadata case's per-dataset ids).
inline size_t particle_offset(int field) {
    static const size_t offsets[kNumFields] = {
        offsetof(Particle, x),    offsetof(Particle, y),  offsetof(Particle, z),  offsetof(Particle, id_1),
        offsetof(Particle, id_2), offsetof(Particle, px), offsetof(Particle, py), offsetof(Particle, pz)};
    return field >= 0 && field < kNumFields ? offsets[field] : 0;
}

inline uint64_t mix64(uint64_t v) {
    v ^= v >> 33;
    v *= 0xff51afd7ed558ccdULL;
    v ^= v >> 33;
    v *= 0xc4ceb9fe1a85ec53ULL;
    v ^= v >> 33;
    return v;
}

// 4 bytes of the value (float or int bit pattern). Like h5bench: x, y, px, py look random in
// [0, 64); z and pz grow with the index; id_1 = index; id_2 = 2 * index.
inline uint32_t value_bits(int field, uint64_t g, int t) {
    uint32_t bits = 0;
    if (field == kId1) {
        const int32_t v = static_cast<int32_t>(g + static_cast<uint64_t>(t));
        std::memcpy(&bits, &v, 4);
        return bits;
    }
    float f = 0.0f;
    switch (field) {
    case kZ:
        f = static_cast<float>(g % 16777216) * 0.25f + static_cast<float>(t);
        break;
    case kPz:
        f = static_cast<float>(g % 8388608) * 0.5f - static_cast<float>(t);
        break;
    case kId2:
        f = static_cast<float>(2 * (g % 8388608)) + static_cast<float>(t);
        break;
    default: {
        const uint64_t h = mix64(g * 0x9E3779B97F4A7C15ULL + static_cast<uint64_t>(field) * 1000003ULL +
                                 static_cast<uint64_t>(t) * 7919ULL);
        f = static_cast<float>(h >> 40) * (64.0f / 16777216.0f);
    }
    }
    std::memcpy(&bits, &f, 4);
    return bits;
}

inline void put_value(void *dst, int field, uint64_t g, int t) {
    const uint32_t b = value_bits(field, g, t);
    std::memcpy(dst, &b, 4);
}

// Attribute values of the metadata-heavy case: 4 ints per attribute.
inline int32_t attr_value(int t, int dset, int attr, int i) {
    return static_cast<int32_t>(mix64(static_cast<uint64_t>(t) * 1000000007ULL + dset * 10007ULL +
                                      attr * 101ULL + static_cast<uint64_t>(i)) &
                                0x7fffffff);
}

} // namespace bench
