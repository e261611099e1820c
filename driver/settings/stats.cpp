#include "settings/stats.hpp"

#include "common/error.hpp"

#include <cstdio>
#include <type_traits>
#include <vector>

namespace mpiio {
namespace {

// The fields of one type, in table order, as pointers into a Stats.
template <class T> std::vector<T *> fields_of(Stats &s) {
    std::vector<T *> out;
#define MPIIO_COLLECT_FIELD(type, name, description)                                                         \
    if constexpr (std::is_same_v<type, T>)                                                                   \
        out.push_back(&s.name);
    H5FD_MPIIO_STATS_FIELDS(MPIIO_COLLECT_FIELD)
#undef MPIIO_COLLECT_FIELD
    return out;
}

} // namespace

void print_stats_summary(MPI_Comm comm, int rank, const std::string &file_name, const StatsHeader &header,
                         const Stats &mine) {
    // Counters are summed over ranks, times take the maximum (the slowest rank).
    Stats local = mine, total{};
    std::vector<uint64_t> counts, sums;
    for (uint64_t *f : fields_of<uint64_t>(local))
        counts.push_back(*f);
    sums.resize(counts.size());
    std::vector<double> times, maxima;
    for (double *f : fields_of<double>(local))
        times.push_back(*f);
    maxima.resize(times.size());
    check_mpi(MPI_Reduce(counts.data(), sums.data(), static_cast<int>(counts.size()), MPI_UINT64_T, MPI_SUM,
                         0, comm),
              "MPI_Reduce (statistics)");
    check_mpi(
        MPI_Reduce(times.data(), maxima.data(), static_cast<int>(times.size()), MPI_DOUBLE, MPI_MAX, 0, comm),
        "MPI_Reduce (statistics)");
    if (rank != 0)
        return;
    auto sum_fields = fields_of<uint64_t>(total);
    for (size_t i = 0; i < sum_fields.size(); ++i)
        *sum_fields[i] = sums[i];
    auto time_fields = fields_of<double>(total);
    for (size_t i = 0; i < time_fields.size(); ++i)
        *time_fields[i] = maxima[i];
    int size = 1;
    MPI_Comm_size(comm, &size);
    std::fprintf(stderr,
                 "mpiio stats: %s (mpiio-vfd %s, %d ranks; counts summed over ranks, times: slowest rank)\n",
                 file_name.c_str(), MPIIO_VFD_VERSION, size);
    std::fprintf(stderr, "  storage: %s\n", header.storage.c_str());
    std::fprintf(stderr, "  layout: %s\n", header.layout.c_str());
    std::fprintf(stderr, "  aggregators: %s\n", header.aggregators.c_str());
#define MPIIO_PRINT_FIELD(type, name, description)                                                           \
    if constexpr (std::is_same_v<type, double>)                                                              \
        std::fprintf(stderr, "  %-22s %14.6f  %s\n", #name, static_cast<double>(total.name), description);   \
    else                                                                                                     \
        std::fprintf(stderr, "  %-22s %14llu  %s\n", #name, static_cast<unsigned long long>(total.name),     \
                     description);
    H5FD_MPIIO_STATS_FIELDS(MPIIO_PRINT_FIELD)
#undef MPIIO_PRINT_FIELD
}

} // namespace mpiio
