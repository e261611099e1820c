#include "refusal.hpp"

#include "common.hpp"

#include <cstdio>

namespace bench {

namespace {

// H5Ewalk2 callback: the innermost entry whose minor error is H5E_UNSUPPORTED (the walk goes from
// the API call down to where the error was detected).
herr_t find_unsupported(unsigned, const H5E_error2_t *e, void *data) {
    if (e->min_num == H5E_UNSUPPORTED)
        *static_cast<std::string *>(data) =
            std::string(e->func_name ? e->func_name : "?") + ": " + (e->desc ? e->desc : "not supported");
    return 0;
}

} // namespace

std::string refusal_of(herr_t rc, const char *call) {
    if (rc >= 0)
        return "";
    std::string why;
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, find_unsupported, &why);
    if (why.empty()) {
        H5Eprint2(H5E_DEFAULT, stderr);
        fatal(std::string("HDF5 call failed: ") + call);
    }
    return why;
}

std::string agree_refusal(const std::string &mine) {
    int first = mine.empty() ? nranks() : rank(), lowest = 0;
    BENCH_MPI(MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD));
    if (lowest == nranks())
        return "";
    std::string text = mine;
    int n = static_cast<int>(text.size());
    BENCH_MPI(MPI_Bcast(&n, 1, MPI_INT, lowest, MPI_COMM_WORLD));
    text.resize(static_cast<size_t>(n));
    BENCH_MPI(MPI_Bcast(text.data(), n, MPI_CHAR, lowest, MPI_COMM_WORLD));
    return text;
}

} // namespace bench
