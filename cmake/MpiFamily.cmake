# Which MPI family the build uses, and how tests launch programs with it. Included at the end of
# FindParallelHDF5.cmake (MPI and HDF5 are found by then).
#
# Two families have different ABIs (handles are pointers in Open MPI, integers in MPICH) and
# different launchers:
#   openmpi  Open MPI: mpirun/mpiexec (ORTE), MPI-IO layers OMPIO and ROMIO (--mca io <c>)
#   mpich    MPICH and its derivatives (Intel MPI, MVAPICH, Cray MPICH): hydra mpiexec, ROMIO only
#
# Defines:
#   MPIIO_MPI_FAMILY          openmpi | mpich
#   MPIIO_MPIEXEC_PREFLAGS    launcher flags every test uses (4 ranks on 2 cores, no binding)
#   MPIIO_IO_VARIANTS         the MPI-IO layers tests run under (Open MPI: ompio;romio321, MPICH: romio)
#   mpiio_mpiexec(<out> <np> <io>)           launcher command prefix as a list
#   mpiio_mpiexec_env(<out> <name> <value>)  launcher flags that set a variable in every rank
# and fails the configuration early when mpiexec or libhdf5 belong to another family than mpi.h.
include_guard(GLOBAL)
include(CheckSymbolExists)

# Re-checked on every configure: a build directory may be pointed at another MPI.
unset(MPIIO_MPI_H_IS_OPEN_MPI CACHE)
unset(MPIIO_MPI_H_IS_MPICH CACHE)
set(CMAKE_REQUIRED_INCLUDES ${MPI_C_INCLUDE_DIRS})
set(CMAKE_REQUIRED_QUIET ON)
check_symbol_exists(OPEN_MPI mpi.h MPIIO_MPI_H_IS_OPEN_MPI)
check_symbol_exists(MPICH_VERSION mpi.h MPIIO_MPI_H_IS_MPICH)
unset(CMAKE_REQUIRED_INCLUDES)
unset(CMAKE_REQUIRED_QUIET)
if(MPIIO_MPI_H_IS_OPEN_MPI)
  set(MPIIO_MPI_FAMILY openmpi)
elseif(MPIIO_MPI_H_IS_MPICH)
  set(MPIIO_MPI_FAMILY mpich)
else()
  message(FATAL_ERROR "mpi.h in '${MPI_C_INCLUDE_DIRS}' is neither Open MPI nor MPICH-family "
                      "(no OPEN_MPI or MPICH_VERSION macro): mpiio-vfd supports these two families")
endif()

# The families' shared-library names, to tell which one a binary is linked against.
function(_mpiio_family_of_binary out file)
  set(${out} unknown PARENT_SCOPE)
  find_program(_mpiio_ldd ldd)
  if(NOT _mpiio_ldd OR NOT EXISTS "${file}")
    return()
  endif()
  execute_process(COMMAND ${_mpiio_ldd} ${file} OUTPUT_VARIABLE _deps ERROR_QUIET)
  if(_deps MATCHES "libmpi\\.so\\.4[0-9]")
    set(${out} openmpi PARENT_SCOPE)
  elseif(_deps MATCHES "libmpich\\.so|libmpi\\.so\\.12|libmpi_cray")
    set(${out} mpich PARENT_SCOPE)
  endif()
endfunction()

# libhdf5 must use the same family: the plugin passes MPI handles to it and back.
if(MPIIO_VFD_HDF5_LIBRARY)
  _mpiio_family_of_binary(_hdf5_family "${MPIIO_VFD_HDF5_LIBRARY}")
  if(NOT _hdf5_family STREQUAL "unknown" AND NOT _hdf5_family STREQUAL MPIIO_MPI_FAMILY)
    message(FATAL_ERROR
      "HDF5 (${MPIIO_VFD_HDF5_LIBRARY}) is linked against ${_hdf5_family}, but the MPI found is "
      "${MPIIO_MPI_FAMILY} (${MPI_C_INCLUDE_DIRS}). Point CMake at the MPI HDF5 was built with "
      "(-DMPI_HOME=<prefix>, or -DMPI_C_COMPILER=<its mpicc> -DMPI_CXX_COMPILER=<its mpicxx> "
      "-DMPIEXEC_EXECUTABLE=<its mpiexec>).")
  endif()
endif()

# mpiexec must start the family the programs are linked against: the other family's launcher
# starts N singletons instead of one N-rank job.
if(MPIEXEC_EXECUTABLE)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version OUTPUT_VARIABLE _out ERROR_VARIABLE _err
                  TIMEOUT 20 RESULT_VARIABLE _rc)
  set(_launcher_family unknown)
  if("${_out}${_err}" MATCHES "Open MPI|OpenRTE")
    set(_launcher_family openmpi)
  elseif("${_out}${_err}" MATCHES "HYDRA|Hydra|Intel\\(R\\) MPI")
    set(_launcher_family mpich)
  endif()
  if(NOT _launcher_family STREQUAL "unknown" AND NOT _launcher_family STREQUAL MPIIO_MPI_FAMILY)
    message(FATAL_ERROR
      "MPIEXEC_EXECUTABLE=${MPIEXEC_EXECUTABLE} is the ${_launcher_family} launcher, but mpi.h is "
      "${MPIIO_MPI_FAMILY}'s: pass -DMPIEXEC_EXECUTABLE=<the ${MPIIO_MPI_FAMILY} mpiexec>"
      " (Debian: /usr/bin/mpiexec.${MPIIO_MPI_FAMILY})")
  endif()
endif()

if(MPIIO_MPI_FAMILY STREQUAL "openmpi")
  # 4 ranks on 2 cores: allow oversubscription and do not bind ranks to cores.
  set(MPIIO_MPIEXEC_PREFLAGS --oversubscribe --bind-to none)
  set(MPIIO_IO_VARIANTS ompio romio321)
else()
  # Hydra oversubscribes and leaves ranks unbound by default; ROMIO is MPICH's only MPI-IO layer.
  set(MPIIO_MPIEXEC_PREFLAGS "")
  set(MPIIO_IO_VARIANTS romio)
endif()
message(STATUS "MPI family ${MPIIO_MPI_FAMILY}; tests launch with ${MPIEXEC_EXECUTABLE}; "
               "MPI-IO layers: ${MPIIO_IO_VARIANTS}")

# mpiio_mpiexec(<out> <np> <io>): "<mpiexec> -n <np> <preflags> [--mca io <io>]" as a list. <io> is
# one of MPIIO_IO_VARIANTS (Open MPI selects the component; MPICH has only ROMIO).
function(mpiio_mpiexec out np io)
  set(cmd ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np} ${MPIIO_MPIEXEC_PREFLAGS})
  if(MPIIO_MPI_FAMILY STREQUAL "openmpi" AND io)
    list(APPEND cmd --mca io ${io})
  endif()
  set(${out} ${cmd} PARENT_SCOPE)
endfunction()

# mpiio_mpiexec_env(<out> <name> <value>): launcher flags that set <name>=<value> in every rank
# (Open MPI: -x name=value; hydra: -genv name value).
function(mpiio_mpiexec_env out name value)
  if(MPIIO_MPI_FAMILY STREQUAL "openmpi")
    set(${out} -x ${name}=${value} PARENT_SCOPE)
  else()
    set(${out} -genv ${name} ${value} PARENT_SCOPE)
  endif()
endfunction()
