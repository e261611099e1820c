// The plugin's MPI_File_write_at calls, recorded through PMPI while a test asks: include in one
// file of a program that links with ENABLE_EXPORTS (the dlopen'ed plugin then binds to this
// definition instead of the MPI library's).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace mpiio_test {

struct WriteCall {
    MPI_Offset offset;
    std::uint64_t bytes;
    std::uint64_t memory_page_offset; // where the call's memory starts within a 4 KiB page
};

// Local. Records every MPI_File_write_at of this rank while it lives.
class WriteRecorder {
public:
    WriteRecorder() {
        calls().clear();
        recording() = true;
    }
    ~WriteRecorder() { recording() = false; }
    WriteRecorder(const WriteRecorder &) = delete;
    WriteRecorder &operator=(const WriteRecorder &) = delete;

    static std::vector<WriteCall> &calls() {
        static std::vector<WriteCall> c;
        return c;
    }
    static bool &recording() {
        static bool on = false;
        return on;
    }
};

} // namespace mpiio_test

extern "C" int MPI_File_write_at(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype type, MPI_Status *st) {
    if (mpiio_test::WriteRecorder::recording()) {
        int size = 0;
        PMPI_Type_size(type, &size);
        mpiio_test::WriteRecorder::calls().push_back(
            {offset, static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(size),
             static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(buf) % 4096)});
    }
    return PMPI_File_write_at(fh, offset, buf, count, type, st);
}
