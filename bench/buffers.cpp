#include "buffers.hpp"

#include <cstdio>
#include <cstring>

namespace bench {

namespace {
Buffers shaped(const CaseSpec &c, unsigned char fill) {
    Buffers b;
    b.arrays.resize(static_cast<size_t>(c.timesteps));
    for (auto &step : b.arrays) {
        step.resize(c.arrays.size());
        for (size_t a = 0; a < c.arrays.size(); ++a)
            step[a].assign(c.arrays[a].count * c.arrays[a].elem_bytes, fill);
    }
    return b;
}
} // namespace

Buffers make_write_buffers(const CaseSpec &c) {
    Buffers b = shaped(c, 0);
    for (int t = 0; t < c.timesteps; ++t)
        for (const Access &a : c.accesses) {
            unsigned char *base = b.ptr(t, a.array);
            const size_t stride = mem_stride(c, a), off = mem_member_offset(a);
            for (const ElemRun &r : a.runs)
                for (uint64_t k = 0; k < r.n; ++k) {
                    unsigned char *elem = base + (r.m + k) * stride;
                    if (a.mem == MemKind::Record) {
                        for (int f = 0; f < kNumFields; ++f)
                            put_value(elem + particle_offset(f), f, r.g + k, t);
                    } else {
                        put_value(elem + off, a.field, r.g + k, t);
                    }
                }
        }
    return b;
}

Buffers make_read_buffers(const CaseSpec &c) { return shaped(c, 0xA5); }

void poison(Buffers &b) {
    for (auto &step : b.arrays)
        for (auto &arr : step)
            std::memset(arr.data(), 0xA5, arr.size());
}

Mismatch compare_buffers(const CaseSpec &c, const Buffers &expected, const Buffers &got) {
    Mismatch mm;
    for (size_t t = 0; t < expected.arrays.size(); ++t)
        for (size_t a = 0; a < expected.arrays[t].size(); ++a) {
            const auto &e = expected.arrays[t][a];
            const auto &g = got.arrays[t][a];
            if (e.size() == g.size() && std::memcmp(e.data(), g.data(), e.size()) == 0)
                continue;
            for (size_t i = 0; i < e.size(); ++i) {
                if (i < g.size() && e[i] == g[i])
                    continue;
                if (mm.count++ == 0) {
                    const size_t eb = c.arrays[a].elem_bytes;
                    char msg[256];
                    std::snprintf(msg, sizeof msg,
                                  "time step %zu, memory array %zu, element %zu (byte %zu of the element): "
                                  "expected 0x%02x, read 0x%02x",
                                  t, a, i / eb, i % eb, e[i], i < g.size() ? g[i] : 0);
                    mm.first = msg;
                }
            }
        }
    return mm;
}

} // namespace bench
