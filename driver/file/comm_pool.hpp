// The communicators of closed files, kept for the next file opened over the same ranks.
//
// Every open needs a communicator of its own that outlives the FAPL (the library runs its own
// collectives on it through ctl), and MPI_Comm_dup, which the built-in driver calls at every open,
// is a collective call: a context id agreed among the ranks (two to three allreduces in Open
// MPI, about 10,000 instructions), and at close MPI_Comm_free undoes it. A program that opens and
// closes its files over the same ranks again and again needs only one: the pool keeps, for each
// group of ranks, the communicator of the last file closed, and hands it to the next open over a
// congruent communicator (MPI_Comm_compare, local) instead of duplicating.
//
// Why every rank decides alike (a rank that reuses while another duplicates would hang): a
// communicator of group G enters the pool only when a file over G closes and leaves it only when
// a file over G opens, both collective over G, and every communicator taken returns on every path
// once the driver's close callback runs (FileComm's destructor, errors included). So the ranks of
// G always hold the same number of G-communicators (zero or one), and decide the same at the next
// open over G. Two preconditions HDF5's collective H5Fopen/H5Fclose give: every rank of G opens
// and closes G's files in the same order (so the one kept is the same file's on every rank), and
// the driver's close runs on every rank of a file or on none. Every communicator handed out
// returns errors (MPI_ERRORS_RETURN, as the built-in driver's duplicate), whichever FAPL it was
// first made for; one of a FAPL communicator with a topology is never kept (the MPI-IO layer may
// read the topology).
#pragma once

#include <mpi.h>

#include <utility>

namespace mpiio {

class FileComm;
FileComm file_comm_for(MPI_Comm parent);

// A file's communicator, returned to the pool when destroyed (instead of freed).
class FileComm {
public:
    FileComm() = default;
    FileComm(const FileComm &) = delete;
    FileComm &operator=(const FileComm &) = delete;
    FileComm(FileComm &&o) noexcept
        : comm_(std::exchange(o.comm_, MPI_COMM_NULL)), keep_(std::exchange(o.keep_, false)) {}
    FileComm &operator=(FileComm &&o) noexcept {
        if (this != &o) {
            release();
            comm_ = std::exchange(o.comm_, MPI_COMM_NULL);
            keep_ = std::exchange(o.keep_, false);
        }
        return *this;
    }
    ~FileComm() { release(); }

    MPI_Comm get() const { return comm_; }

private:
    friend FileComm file_comm_for(MPI_Comm parent);
    FileComm(MPI_Comm comm, bool keep) : comm_(comm), keep_(keep) {}
    void release() noexcept;
    MPI_Comm comm_ = MPI_COMM_NULL;
    bool keep_ = false; // may enter the pool (no topology)
};

// Collective over `parent` when no communicator congruent to it is kept (MPI_Comm_dup), local
// otherwise. `parent` must be an intracommunicator. Throws Error(Mpi) when the duplicate fails.
FileComm file_comm_for(MPI_Comm parent);

// Local. Frees every kept communicator (the driver's terminate callback; nothing when MPI is no
// longer usable).
void free_kept_file_comms() noexcept;

// Local. How many communicators the pool keeps now (tests).
int kept_file_comms();

} // namespace mpiio
