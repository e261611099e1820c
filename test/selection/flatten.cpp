#include "flatten.hpp"

#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

namespace seltest {

void push_run(std::vector<ByteRun> &runs, std::int64_t disp, std::int64_t len) {
    if (len == 0)
        return;
    if (!runs.empty() && runs.back().disp + runs.back().len == disp)
        runs.back().len += len;
    else
        runs.push_back({disp, len});
}

namespace {

struct Decoded {
    int combiner = 0;
    std::vector<int> ints;
    std::vector<MPI_Aint> addrs;
    std::vector<MPI_Datatype> types;
    MPI_Aint lb = 0, extent = 0;
    std::int64_t size = 0;
};

struct Stop {};

class Flattener {
public:
    Flattener(std::vector<ByteRun> &out, std::size_t limit) : out_(out), limit_(limit) {}
    ~Flattener() {
        for (auto &[t, d] : cache_)
            for (MPI_Datatype &inner : d.types) {
                int ni, na, nd, comb;
                MPI_Type_get_envelope(inner, &ni, &na, &nd, &comb);
                if (comb != MPI_COMBINER_NAMED)
                    MPI_Type_free(&inner);
            }
    }

    // Streams the runs of `t` at `base` into the output, using the memoized relative flattening
    // when it exists and walking the constructor tree copy by copy when it is too large.
    void emit(MPI_Datatype t, std::int64_t base) {
        if (const std::vector<ByteRun> *r = rel(t)) {
            for (const ByteRun &x : *r)
                add(base + x.disp, x.len);
            return;
        }
        for_each_copy(t, [&](MPI_Datatype inner, std::int64_t disp, std::int64_t n, std::int64_t stride) {
            for (std::int64_t j = 0; j < n; ++j)
                emit(inner, base + disp + j * stride);
            return true;
        });
    }

    std::int64_t extent(MPI_Datatype t) { return decode(t).extent; }

private:
    // Calls f(inner type, displacement, copies, stride) for each group of copies `t` is made of,
    // until f returns false.
    template <typename F> void for_each_copy(MPI_Datatype t, F &&f) {
        const Decoded &d = decode(t);
        switch (d.combiner) {
        case MPI_COMBINER_DUP:
        case MPI_COMBINER_RESIZED:
            (void)f(d.types[0], 0, 1, 0);
            break;
        case MPI_COMBINER_CONTIGUOUS:
            (void)f(d.types[0], 0, d.ints[0], extent(d.types[0]));
            break;
        case MPI_COMBINER_VECTOR:
        case MPI_COMBINER_HVECTOR: {
            const std::int64_t ext = extent(d.types[0]);
            const std::int64_t stride =
                d.combiner == MPI_COMBINER_VECTOR ? std::int64_t{d.ints[2]} * ext : std::int64_t{d.addrs[0]};
            for (int i = 0; i < d.ints[0]; ++i)
                if (!f(d.types[0], i * stride, d.ints[1], ext))
                    return;
            break;
        }
        case MPI_COMBINER_INDEXED:
        case MPI_COMBINER_HINDEXED: {
            const int n = d.ints[0];
            const std::int64_t ext = extent(d.types[0]);
            for (int i = 0; i < n; ++i) {
                const std::int64_t disp = d.combiner == MPI_COMBINER_INDEXED
                                              ? std::int64_t{d.ints[1 + n + i]} * ext
                                              : std::int64_t{d.addrs[i]};
                if (!f(d.types[0], disp, d.ints[1 + i], ext))
                    return;
            }
            break;
        }
        case MPI_COMBINER_INDEXED_BLOCK:
        case MPI_COMBINER_HINDEXED_BLOCK: {
            const int n = d.ints[0], bl = d.ints[1];
            const std::int64_t ext = extent(d.types[0]);
            for (int i = 0; i < n; ++i) {
                const std::int64_t disp = d.combiner == MPI_COMBINER_INDEXED_BLOCK
                                              ? std::int64_t{d.ints[2 + i]} * ext
                                              : std::int64_t{d.addrs[i]};
                if (!f(d.types[0], disp, bl, ext))
                    return;
            }
            break;
        }
        case MPI_COMBINER_STRUCT: {
            const int n = d.ints[0];
            for (int i = 0; i < n; ++i)
                if (!f(d.types[i], d.addrs[i], d.ints[1 + i], extent(d.types[i])))
                    return;
            break;
        }
        default:
            throw std::runtime_error("flatten: unsupported combiner " + std::to_string(d.combiner));
        }
    }

    // Relative runs of `t` (memoized), or null when they exceed the limit. Copies of a single
    // contiguous run placed end to end collapse arithmetically, so huge contiguous types stay cheap.
    const std::vector<ByteRun> *rel(MPI_Datatype t) {
        auto it = rel_.find(t);
        if (it != rel_.end())
            return it->second ? &*it->second : nullptr;
        std::optional<std::vector<ByteRun>> result;
        const Decoded &d = decode(t);
        if (d.combiner == MPI_COMBINER_NAMED) {
            result.emplace();
            push_run(*result, 0, d.size);
        } else {
            std::vector<ByteRun> runs;
            bool ok = true;
            for_each_copy(t, [&](MPI_Datatype inner, std::int64_t disp, std::int64_t n, std::int64_t stride) {
                const std::vector<ByteRun> *r = rel(inner);
                if (!r) {
                    ok = false;
                    return false;
                }
                if (r->size() == 1 && (*r)[0].len == stride) {
                    push_run(runs, disp + (*r)[0].disp, n * stride);
                } else {
                    for (std::int64_t j = 0; j < n && ok; ++j) {
                        for (const ByteRun &x : *r)
                            push_run(runs, disp + j * stride + x.disp, x.len);
                        ok = runs.size() <= limit_;
                    }
                }
                ok = ok && runs.size() <= limit_;
                return ok;
            });
            if (ok)
                result = std::move(runs);
        }
        auto &slot = rel_[t];
        slot = std::move(result);
        return slot ? &*slot : nullptr;
    }

    const Decoded &decode(MPI_Datatype t) {
        auto it = cache_.find(t);
        if (it != cache_.end())
            return it->second;
        Decoded d;
        int ni = 0, na = 0, nd = 0;
        MPI_Type_get_envelope(t, &ni, &na, &nd, &d.combiner);
        if (d.combiner != MPI_COMBINER_NAMED) {
            d.ints.resize(ni);
            d.addrs.resize(na);
            d.types.resize(nd);
            MPI_Type_get_contents(t, ni, na, nd, d.ints.data(), d.addrs.data(), d.types.data());
        }
        MPI_Type_get_extent(t, &d.lb, &d.extent);
        MPI_Count size = 0;
        MPI_Type_size_x(t, &size);
        d.size = size;
        return cache_.emplace(t, std::move(d)).first->second;
    }

    void add(std::int64_t disp, std::int64_t len) {
        if (len == 0)
            return;
        if (!out_.empty() && out_.back().disp + out_.back().len == disp) {
            out_.back().len += len;
            return;
        }
        if (out_.size() >= limit_)
            throw Stop{};
        out_.push_back({disp, len});
    }

    std::vector<ByteRun> &out_;
    std::size_t limit_;
    std::map<MPI_Datatype, Decoded> cache_;
    std::map<MPI_Datatype, std::optional<std::vector<ByteRun>>> rel_;
};

} // namespace

bool flatten(MPI_Datatype type, std::int64_t count, std::int64_t base, std::vector<ByteRun> &out,
             std::size_t limit) {
    Flattener f(out, limit);
    try {
        const std::int64_t ext = f.extent(type);
        for (std::int64_t i = 0; i < count; ++i)
            f.emit(type, base + i * ext);
    } catch (const Stop &) {
        return false;
    }
    return true;
}

std::vector<ByteRun> packed_runs(MPI_Datatype type, int count, std::int64_t span) {
    int size = 0;
    MPI_Type_size(type, &size);
    const std::int64_t bytes = std::int64_t{size} * count;
    std::vector<std::uint32_t> pos(static_cast<std::size_t>(bytes), 0);
    std::vector<unsigned char> src(static_cast<std::size_t>(span)), packed(static_cast<std::size_t>(bytes));
    // Pass k: every source byte holds bits 8k..8k+7 of its own position.
    for (int k = 0; k < 4 && (k == 0 || (span >> (8 * k)) > 0); ++k) {
        for (std::int64_t p = 0; p < span; ++p)
            src[static_cast<std::size_t>(p)] = static_cast<unsigned char>(p >> (8 * k));
        int position = 0;
        MPI_Pack(src.data(), count, type, packed.data(), static_cast<int>(bytes), &position, MPI_COMM_SELF);
        for (std::int64_t i = 0; i < bytes; ++i)
            pos[static_cast<std::size_t>(i)] |= std::uint32_t{packed[static_cast<std::size_t>(i)]} << (8 * k);
    }
    std::vector<ByteRun> runs;
    for (std::uint32_t p : pos)
        push_run(runs, p, 1);
    return runs;
}

std::string describe(const std::vector<ByteRun> &runs, std::size_t max) {
    std::ostringstream s;
    s << runs.size() << " runs:";
    for (std::size_t i = 0; i < runs.size() && i < max; ++i)
        s << " (" << runs[i].disp << "," << runs[i].len << ")";
    if (runs.size() > max)
        s << " ...";
    return s.str();
}

} // namespace seltest
