// Which MPI-IO layer opens files in this process, as far as MPI_File_open's failure behaviour and
// its handling of hints go.
//
// When MPI_File_open fails on some ranks only (a missing file or a permission on one host), ROMIO
// (Open MPI's romio321/romio341 and MPICH's) ends its open with an MPI_Allreduce of the error codes
// and fails on every rank; Open MPI's OMPIO lets rank 0 open first and broadcasts its result, but
// the other ranks fail on their own and everyone then waits in collectives that never match: a hang
// (mca_fs_ufs_file_open, Open MPI 4.1; docs/architecture.md). So only under OMPIO do the ranks check
// that they can open the file, and agree on it, before MPI_File_open.
#pragma once

#include <mpi.h>

namespace mpiio {

// Local; read once per process: the MPI library's version string, and under Open MPI the io
// component list `mpirun --mca io` hands the processes (OMPI_MCA_io). True when files may be opened
// by OMPIO; also when it cannot tell (then the check is made: it is never wrong, only an extra
// system call).
bool open_needs_agreement_first();

// Local. True when `fh` was opened by the ROMIO component of Open MPI 5 or later, which drops the
// hints given to MPI_File_open (MPI_File_get_info reports its defaults; measured with Open MPI
// 5.0.7's romio341) and takes them only from MPI_File_set_info after the open. Every rank of a
// file opens it with the same component, so every rank gets the same answer.
bool open_dropped_hints(MPI_File fh);

// Local. Whether one write through a file view of many short irregular runs (an hindexed type)
// costs less than a write call per run on `fh` (with write sieving off, as a view write needs it,
// both make a system call per run under ROMIO; OMPIO gathers a view's runs into few). Measured
// per H5Dwrite of an irregular selection (callgrind, docs/measurements.md,
// "D23 view writes under each MPI-IO layer (view_writes=auto)"): OMPIO and MPICH's
// ROMIO take the view for fewer instructions than the calls, Open MPI's ROMIO (romio321,
// romio341) for 1.5x more: it duplicates and flattens the view's type through the MPI API at every
// MPI_File_set_view, cheap for an hvector of regular runs, not for an hindexed one. False under
// Open MPI's ROMIO: when its io components exclude OMPIO, or in Open MPI 5 or later when the
// handle lists ROMIO's hints; true otherwise (also when it cannot tell).
bool irregular_view_writes_pay_off(MPI_File fh);

} // namespace mpiio
