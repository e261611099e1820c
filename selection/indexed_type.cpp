#include "indexed_type.hpp"

#include "common/error.hpp"
#include "mpi_build.hpp"
#include "type_cache.hpp"

#include <algorithm>

namespace mpiio::selection {

namespace {
constexpr std::uint64_t kRunsTag = 0x52554e53ULL; // "RUNS"
}

TypeSpec build_from_runs(Runs &&runs, TypeCache *cache) {
    const std::size_t n = runs.size();
    if (n == 0)
        return TypeSpec{};
    if (n == 1)
        return contiguous_spec(runs.disp[0], runs.len[0]);
    const MPI_Aint lowest = *std::min_element(runs.disp.begin(), runs.disp.end());
    MPI_Aint end = 0;
    MPI_Count bytes = 0;
    bool monotonic = true;
    ShapeHasher hasher(kRunsTag);
    hasher.add(n);
    MPI_Aint prev_end = 0; // end of the previous run, relative to `lowest`
    for (std::size_t i = 0; i < n; ++i) {
        runs.disp[i] -= lowest;
        if (i > 0 && prev_end > runs.disp[i])
            monotonic = false;
        prev_end = runs.disp[i] + static_cast<MPI_Aint>(runs.len[i]);
        end = std::max(end, prev_end);
        bytes += runs.len[i];
        if (cache) {
            hasher.add_signed(runs.disp[i]);
            hasher.add_signed(runs.len[i]);
        }
    }
    auto build = [&] {
        TypeSpec spec =
            derived_spec(runs_type(runs.disp, runs.len), {bytes, end, n, TypeShape::Indexed, monotonic});
        spec.layout = std::make_shared<const RunLayout>(RunLayout{0, {}, std::move(runs)});
        return spec;
    };
    return cached_type(cache, hasher.key(), lowest, build);
}

} // namespace mpiio::selection
