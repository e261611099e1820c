#include "random_selection.hpp"

#include <algorithm>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

namespace seltest {

const char *kind_name(Kind k) {
    switch (k) {
    case Kind::All:
        return "all";
    case Kind::None:
        return "none";
    case Kind::Regular:
        return "regular";
    case Kind::Irregular:
        return "irregular";
    case Kind::Points:
        return "points";
    case Kind::PointsSorted:
        return "points-sorted";
    }
    return "?";
}

const char *mem_kind_name(MemKind k) {
    switch (k) {
    case MemKind::Block:
        return "block";
    case MemKind::Same:
        return "same";
    case MemKind::All:
        return "all";
    case MemKind::Regular:
        return "regular";
    case MemKind::Irregular:
        return "irregular";
    case MemKind::Points:
        return "points";
    }
    return "?";
}

namespace {

void check(herr_t rc, const char *what) {
    if (rc < 0)
        throw std::runtime_error(std::string(what) + " failed");
}

Hid make_space(const std::vector<hsize_t> &dims) {
    Hid s(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr));
    if (!s.valid())
        throw std::runtime_error("H5Screate_simple failed");
    return s;
}

// A random regular hyperslab inside `dims`: each dimension picks start, block, stride >= block
// and the largest count that fits, sometimes full or gap-free.
void random_hyperslab(Gen &g, const std::vector<hsize_t> &dims, std::vector<hsize_t> &start,
                      std::vector<hsize_t> &stride, std::vector<hsize_t> &count,
                      std::vector<hsize_t> &block) {
    const std::size_t r = dims.size();
    start.assign(r, 0);
    stride.assign(r, 1);
    count.assign(r, 1);
    block.assign(r, 1);
    for (std::size_t d = 0; d < r; ++d) {
        const hsize_t D = dims[d];
        if (g.coin(0.25)) { // the whole dimension
            block[d] = D;
            continue;
        }
        start[d] = g.u(0, D - 1);
        block[d] = g.u(1, std::max<hsize_t>(1, (D - start[d]) / (g.coin(0.5) ? 1 : 3)));
        stride[d] = g.coin(0.2) ? block[d] : block[d] + g.u(0, 3);
        const hsize_t max_count = 1 + (D - start[d] - block[d]) / stride[d];
        count[d] = g.u(1, max_count);
    }
}

void maybe_offset(Gen &g, hid_t space, int rank) {
    std::vector<hsize_t> lo(rank), hi(rank), dims(rank);
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    if (H5Sget_select_npoints(space) <= 0 || H5Sget_select_bounds(space, lo.data(), hi.data()) < 0)
        return;
    std::vector<hssize_t> off(rank);
    for (int d = 0; d < rank; ++d) {
        const std::int64_t down = static_cast<std::int64_t>(lo[d]);
        const std::int64_t up = static_cast<std::int64_t>(dims[d] - 1 - hi[d]);
        off[d] = static_cast<hssize_t>(g.u(0, static_cast<std::uint64_t>(down + up))) - down;
    }
    check(H5Soffset_simple(space, off.data()), "H5Soffset_simple");
}

std::vector<hsize_t> random_dims(Gen &g, int rank) {
    static const std::uint64_t cap[9] = {1, 1500, 45, 12, 7, 5, 4, 3, 3};
    std::vector<hsize_t> dims(rank);
    for (int d = 0; d < rank; ++d)
        dims[d] = g.u(1, cap[rank]);
    return dims;
}

} // namespace

void select_random_points(Gen &g, hid_t space, std::uint64_t n, bool sorted) {
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(rank);
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    const std::uint64_t total = static_cast<std::uint64_t>(H5Sget_simple_extent_npoints(space));
    std::vector<std::uint64_t> lin;
    if (total <= 4 * n) {
        lin.resize(total);
        std::iota(lin.begin(), lin.end(), 0);
        std::shuffle(lin.begin(), lin.end(), g.rng());
        lin.resize(n);
    } else {
        std::set<std::uint64_t> seen;
        while (lin.size() < n) {
            const std::uint64_t x = g.u(0, total - 1);
            if (seen.insert(x).second)
                lin.push_back(x);
        }
    }
    if (sorted)
        std::sort(lin.begin(), lin.end());
    std::vector<hsize_t> coords(n * rank);
    for (std::uint64_t i = 0; i < n; ++i) {
        std::uint64_t x = lin[i];
        for (int d = rank - 1; d >= 0; --d) {
            coords[i * rank + d] = x % dims[d];
            x /= dims[d];
        }
    }
    check(H5Sselect_elements(space, H5S_SELECT_SET, n, coords.data()), "H5Sselect_elements");
}

Hid random_selection(Gen &g, Kind kind, int rank, bool allow_offset) {
    const std::vector<hsize_t> dims = random_dims(g, rank);
    Hid space = make_space(dims);
    std::vector<hsize_t> start, stride, count, block;
    switch (kind) {
    case Kind::All:
        check(H5Sselect_all(space), "H5Sselect_all");
        break;
    case Kind::None:
        check(H5Sselect_none(space), "H5Sselect_none");
        break;
    case Kind::Regular:
        random_hyperslab(g, dims, start, stride, count, block);
        check(H5Sselect_hyperslab(space, H5S_SELECT_SET, start.data(), stride.data(), count.data(),
                                  block.data()),
              "H5Sselect_hyperslab");
        break;
    case Kind::Irregular: {
        const int parts = static_cast<int>(g.u(2, 4));
        for (int p = 0; p < parts; ++p) {
            random_hyperslab(g, dims, start, stride, count, block);
            H5S_seloper_t op = H5S_SELECT_OR;
            if (p == 0)
                op = H5S_SELECT_SET;
            else if (g.coin(0.15))
                op = H5S_SELECT_XOR;
            else if (g.coin(0.1))
                op = H5S_SELECT_NOTB;
            check(H5Sselect_hyperslab(space, op, start.data(), stride.data(), count.data(), block.data()),
                  "H5Sselect_hyperslab");
        }
        break;
    }
    case Kind::Points:
    case Kind::PointsSorted: {
        const std::uint64_t total = static_cast<std::uint64_t>(H5Sget_simple_extent_npoints(space));
        select_random_points(g, space, g.u(1, std::min<std::uint64_t>(total, 300)),
                             kind == Kind::PointsSorted);
        break;
    }
    }
    if (allow_offset && kind != Kind::All && kind != Kind::None && g.coin(0.2))
        maybe_offset(g, space, rank);
    return space;
}

Hid random_mem_selection(Gen &g, MemKind kind, std::uint64_t n) {
    switch (kind) {
    case MemKind::Block:
        return Hid(H5S_BLOCK);
    case MemKind::Same:
        return Hid(H5S_ALL);
    case MemKind::All: {
        // n as a 1-D or 2-D (a x n/a) extent.
        std::uint64_t a = 1;
        for (int tries = 0; tries < 4; ++tries) {
            const std::uint64_t c = g.u(1, std::max<std::uint64_t>(1, std::min<std::uint64_t>(n, 16)));
            if (n % c == 0)
                a = c;
        }
        Hid s = a > 1 ? make_space({a, n / a}) : make_space({n});
        check(H5Sselect_all(s), "H5Sselect_all");
        return s;
    }
    case MemKind::Regular: {
        // n = c * b blocks of b, 1-D with stride, or 2-D rows of a column band.
        std::uint64_t b = 1;
        for (int tries = 0; tries < 4; ++tries) {
            const std::uint64_t c = g.u(1, std::max<std::uint64_t>(1, std::min<std::uint64_t>(n, 32)));
            if (n % c == 0)
                b = c;
        }
        const std::uint64_t c = n / b;
        if (g.coin(0.5)) {
            const hsize_t st = g.u(0, 3), stride = b + g.u(0, 3);
            Hid s = make_space({st + (c - 1) * stride + b + g.u(0, 3)});
            hsize_t start[1] = {st}, strd[1] = {stride}, cnt[1] = {c}, blk[1] = {b};
            check(H5Sselect_hyperslab(s, H5S_SELECT_SET, start, strd, cnt, blk), "H5Sselect_hyperslab");
            return s;
        }
        const hsize_t r0 = g.u(0, 2), c0 = g.u(0, 2), rs = g.u(1, 2);
        Hid s = make_space({r0 + (c - 1) * rs + 1 + g.u(0, 2), c0 + b + g.u(0, 3)});
        hsize_t start[2] = {r0, c0}, strd[2] = {rs, 1}, cnt[2] = {c, 1}, blk[2] = {1, b};
        check(H5Sselect_hyperslab(s, H5S_SELECT_SET, start, strd, cnt, blk), "H5Sselect_hyperslab");
        return s;
    }
    case MemKind::Irregular: {
        // n split into k runs laid out with gaps, 1-D, OR-ed together.
        const std::uint64_t k = g.u(1, std::min<std::uint64_t>(n, 6));
        std::vector<std::uint64_t> cuts = {0, n};
        while (cuts.size() < k + 1) {
            const std::uint64_t x = g.u(1, n - 1);
            if (std::find(cuts.begin(), cuts.end(), x) == cuts.end())
                cuts.push_back(x);
        }
        std::sort(cuts.begin(), cuts.end());
        std::vector<std::pair<hsize_t, hsize_t>> runs;
        hsize_t pos = g.u(0, 3);
        for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
            runs.emplace_back(pos, cuts[i + 1] - cuts[i]);
            pos += cuts[i + 1] - cuts[i] + g.u(1, 4);
        }
        Hid s = make_space({pos + g.u(0, 3)});
        std::shuffle(runs.begin(), runs.end(), g.rng()); // OR order must not matter
        for (std::size_t i = 0; i < runs.size(); ++i) {
            hsize_t start[1] = {runs[i].first}, cnt[1] = {1}, blk[1] = {runs[i].second};
            check(H5Sselect_hyperslab(s, i == 0 ? H5S_SELECT_SET : H5S_SELECT_OR, start, nullptr, cnt, blk),
                  "H5Sselect_hyperslab");
        }
        return s;
    }
    case MemKind::Points: {
        const int rank = static_cast<int>(g.u(1, 3));
        std::vector<hsize_t> dims(rank, 1);
        // Total at least n: grow random dimensions.
        std::uint64_t total = 1;
        while (total < n + g.u(0, n)) {
            const int d = static_cast<int>(g.u(0, rank - 1));
            total = total / dims[d] * (dims[d] + 1);
            dims[d] += 1;
        }
        Hid s = make_space(dims);
        select_random_points(g, s, n, g.coin(0.3));
        return s;
    }
    }
    return Hid();
}

std::string describe_space(hid_t space) {
    if (space == H5S_BLOCK)
        return "H5S_BLOCK";
    if (space == H5S_ALL)
        return "H5S_ALL";
    std::ostringstream s;
    const int rank = H5Sget_simple_extent_ndims(space);
    std::vector<hsize_t> dims(rank > 0 ? rank : 1);
    H5Sget_simple_extent_dims(space, dims.data(), nullptr);
    s << "dims[";
    for (int d = 0; d < rank; ++d)
        s << (d ? "," : "") << dims[d];
    s << "] sel=" << H5Sget_select_type(space) << " n=" << H5Sget_select_npoints(space) << " regular="
      << (H5Sget_select_type(space) == H5S_SEL_HYPERSLABS ? H5Sis_regular_hyperslab(space) : -1);
    return s.str();
}

} // namespace seltest
