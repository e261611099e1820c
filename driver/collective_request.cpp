#include "collective_request.hpp"

#include <algorithm>
#include <climits>

namespace mpiio {
namespace {
constexpr size_t kMaxBlock = size_t{1} << 30; // MPI block lengths are int: split larger runs
}

CollectiveRequest request_from_runs(const std::vector<Run> &runs) {
    CollectiveRequest t;
    if (runs.empty())
        return t;
    t.view_disp = static_cast<MPI_Offset>(runs.front().addr);
    t.end = runs.back().addr + runs.back().size;
    if (runs.size() == 1 && runs.front().size <= static_cast<size_t>(INT_MAX)) {
        t.mem_base = runs.front().buf;
        t.mem_count = static_cast<int>(runs.front().size);
        t.bytes = runs.front().size;
        return t;
    }
    std::vector<int> lengths;
    std::vector<MPI_Aint> file_disps, mem_disps;
    lengths.reserve(runs.size());
    file_disps.reserve(runs.size());
    mem_disps.reserve(runs.size());
    for (const Run &r : runs) {
        for (size_t done = 0; done < r.size; done += kMaxBlock) {
            const size_t n = std::min(kMaxBlock, r.size - done);
            MPI_Aint mem_addr = 0;
            check_mpi(MPI_Get_address(r.buf + done, &mem_addr), "MPI_Get_address");
            lengths.push_back(static_cast<int>(n));
            file_disps.push_back(static_cast<MPI_Aint>(r.addr + done - runs.front().addr));
            mem_disps.push_back(mem_addr);
        }
        t.bytes += r.size;
    }
    const int n = static_cast<int>(lengths.size());
    Datatype file_type, mem_type;
    check_mpi(MPI_Type_create_hindexed(n, lengths.data(), file_disps.data(), MPI_BYTE, file_type.out()),
              "MPI_Type_create_hindexed (file)");
    check_mpi(MPI_Type_commit(file_type.ptr()), "MPI_Type_commit");
    check_mpi(MPI_Type_create_hindexed(n, lengths.data(), mem_disps.data(), MPI_BYTE, mem_type.out()),
              "MPI_Type_create_hindexed (memory)");
    check_mpi(MPI_Type_commit(mem_type.ptr()), "MPI_Type_commit");
    t.file_type = std::make_shared<const Datatype>(std::move(file_type));
    t.mem_type = std::make_shared<const Datatype>(std::move(mem_type));
    t.file = t.file_type->get();
    t.file_contiguous = runs.size() == 1;
    t.mem = t.mem_type->get();
    t.mem_base = MPI_BOTTOM;
    t.mem_count = 1;
    return t;
}

} // namespace mpiio
