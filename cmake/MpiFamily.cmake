# Which MPI family the build uses, and how tests launch programs with it. Included by
# FindParallelHDF5.cmake once MPI is found (the family steers the HDF5 search).
#
# Two families have different ABIs (handles are pointers in Open MPI, integers in MPICH) and
# different launchers:
#   openmpi  Open MPI: mpirun/mpiexec (ORTE), MPI-IO layers OMPIO and ROMIO (--mca io <c>)
#   mpich    MPICH and its derivatives (Intel MPI, MVAPICH, Cray MPICH): hydra mpiexec, ROMIO only
#
# Defines:
#   MPIIO_MPI_FAMILY          openmpi | mpich
#   MPIIO_MPIEXEC_PREFLAGS    launcher flags every test uses (4 ranks on 2 cores, no binding)
#   MPIIO_IO_VARIANTS         the MPI-IO layers tests run under, read from the MPI itself: Open MPI's
#                             io components as `ompi_info` lists them (4.1: ompio;romio321, 5.0:
#                             ompio;romio341, 6.0 as Debian builds it: ompio), MPICH: romio
#   MPIIO_OMPI_ROMIO          Open MPI's ROMIO component (romio321, romio341...), empty without one
#   mpiio_mpiexec(<out> <np> <io>)           launcher command prefix as a list
#   mpiio_mpiexec_env(<out> <name> <value>)  launcher flags that set a variable in every rank
# and fails the configuration early when mpiexec belongs to another family than mpi.h.
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

# The families' shared-library names, to tell which one a binary is linked against (FindParallelHDF5
# passes over an HDF5 of the other family: the plugin passes MPI handles to it and back).
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

# Open MPI's io components, from the ompi_info next to the launcher (or on PATH): the names differ
# between releases and builds (ROMIO is romio321 in 4.1, romio341 in 5.0, absent from Debian's 6.0),
# so they are read, never assumed. OMPIO first: it is Open MPI's default.
function(_mpiio_ompi_io_components out)
  get_filename_component(_bindir "${MPIEXEC_EXECUTABLE}" DIRECTORY)
  find_program(MPIIO_OMPI_INFO NAMES ompi_info ompi_info.openmpi HINTS ${_bindir})
  if(NOT MPIIO_OMPI_INFO)
    message(FATAL_ERROR "ompi_info not found (looked next to ${MPIEXEC_EXECUTABLE} and on PATH): "
                        "it names Open MPI's MPI-IO components, which the tests run under")
  endif()
  execute_process(COMMAND ${MPIIO_OMPI_INFO} --parsable OUTPUT_VARIABLE _info
                  RESULT_VARIABLE _rc TIMEOUT 60 ERROR_QUIET)
  string(REGEX MATCHALL "mca:io:[A-Za-z0-9_]+:version:" _lines "${_info}")
  set(_names "")
  foreach(_line IN LISTS _lines)
    string(REGEX REPLACE "mca:io:([A-Za-z0-9_]+):version:" "\\1" _name "${_line}")
    list(APPEND _names ${_name})
  endforeach()
  list(REMOVE_DUPLICATES _names)
  if(NOT _rc EQUAL 0 OR NOT _names)
    message(FATAL_ERROR "${MPIIO_OMPI_INFO} --parsable (exit ${_rc}) lists no io component")
  endif()
  list(SORT _names) # ompio before romio<N>
  set(${out} ${_names} PARENT_SCOPE)
endfunction()

if(MPIIO_MPI_FAMILY STREQUAL "openmpi")
  # 4 ranks on 2 cores: allow oversubscription and do not bind ranks to cores.
  set(MPIIO_MPIEXEC_PREFLAGS --oversubscribe --bind-to none)
  _mpiio_ompi_io_components(MPIIO_IO_VARIANTS)
  set(MPIIO_OMPI_ROMIO ${MPIIO_IO_VARIANTS})
  list(FILTER MPIIO_OMPI_ROMIO INCLUDE REGEX "^romio")
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
