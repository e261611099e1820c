# Locates MPI and a *parallel* HDF5 >= 1.14 and exposes them as the imported target
# mpiio_vfd::hdf5. Search order: HDF5's own CMake package (HDF5_ROOT / CMAKE_PREFIX_PATH),
# then CMake's FindHDF5 module, then pkg-config. Configuration fails with a clear message when
# only a serial or an older HDF5 is found, because the plugin cannot work with either.
find_package(MPI REQUIRED COMPONENTS C)

set(_hdf5_how "")
# 1. HDF5's CMake package (what the stock CMake build installs).
find_package(HDF5 1.14 CONFIG QUIET NAMES hdf5 COMPONENTS C shared
             PATHS ${HDF5_ROOT} $ENV{HDF5_ROOT} PATH_SUFFIXES cmake share/cmake lib/cmake/hdf5)
if(HDF5_FOUND AND TARGET hdf5::hdf5-shared)
  get_target_property(_inc hdf5::hdf5-shared INTERFACE_INCLUDE_DIRECTORIES)
  add_library(mpiio_vfd::hdf5 INTERFACE IMPORTED)
  target_link_libraries(mpiio_vfd::hdf5 INTERFACE hdf5::hdf5-shared MPI::MPI_C)
  set(_hdf5_how "CMake package in ${HDF5_DIR}")
  set(MPIIO_VFD_HDF5_INCLUDE_DIRS ${_inc})
  get_target_property(_loc hdf5::hdf5-shared IMPORTED_LOCATION_RELEASE)
  if(NOT _loc)
    get_target_property(_cfgs hdf5::hdf5-shared IMPORTED_CONFIGURATIONS)
    list(GET _cfgs 0 _cfg)
    get_target_property(_loc hdf5::hdf5-shared IMPORTED_LOCATION_${_cfg})
  endif()
  set(MPIIO_VFD_HDF5_LIBRARY ${_loc})
endif()

# 2. CMake's FindHDF5 (h5pcc wrappers, autotools installs).
if(NOT _hdf5_how)
  set(HDF5_PREFER_PARALLEL ON)
  find_package(HDF5 MODULE QUIET COMPONENTS C)
  if(HDF5_FOUND AND HDF5_IS_PARALLEL)
    add_library(mpiio_vfd::hdf5 INTERFACE IMPORTED)
    target_include_directories(mpiio_vfd::hdf5 INTERFACE ${HDF5_C_INCLUDE_DIRS})
    target_link_libraries(mpiio_vfd::hdf5 INTERFACE ${HDF5_C_LIBRARIES} MPI::MPI_C)
    set(_hdf5_how "FindHDF5 (${HDF5_C_LIBRARIES})")
    set(MPIIO_VFD_HDF5_INCLUDE_DIRS ${HDF5_C_INCLUDE_DIRS})
    list(GET HDF5_C_LIBRARIES 0 MPIIO_VFD_HDF5_LIBRARY)
  endif()
endif()

# 3. pkg-config (Debian's hdf5-openmpi.pc and similar).
if(NOT _hdf5_how)
  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_search_module(PC_HDF5 QUIET IMPORTED_TARGET hdf5-openmpi hdf5-mpich hdf5)
    if(PC_HDF5_FOUND AND PC_HDF5_VERSION VERSION_GREATER_EQUAL 1.14)
      add_library(mpiio_vfd::hdf5 INTERFACE IMPORTED)
      target_link_libraries(mpiio_vfd::hdf5 INTERFACE PkgConfig::PC_HDF5 MPI::MPI_C)
      set(_hdf5_how "pkg-config module ${PC_HDF5_MODULE_NAME}")
      set(MPIIO_VFD_HDF5_INCLUDE_DIRS ${PC_HDF5_INCLUDE_DIRS})
      find_library(MPIIO_VFD_HDF5_LIBRARY NAMES hdf5 HINTS ${PC_HDF5_LIBRARY_DIRS} NO_DEFAULT_PATH)
    endif()
  endif()
endif()

if(NOT _hdf5_how)
  message(FATAL_ERROR
    "mpiio-vfd needs a PARALLEL HDF5 >= 1.14 (none found).\n"
    "Run scripts/setup.sh (builds the stock release into a cache) and pass "
    "-DHDF5_ROOT=<prefix> (or set the HDF5_ROOT environment variable).")
endif()

# Check the headers really are parallel 1.14: a serial or 1.10 install would build but never load.
find_file(_h5pubconf H5pubconf.h PATHS ${MPIIO_VFD_HDF5_INCLUDE_DIRS} NO_DEFAULT_PATH)
find_file(_h5public H5public.h PATHS ${MPIIO_VFD_HDF5_INCLUDE_DIRS} NO_DEFAULT_PATH)
if(NOT _h5pubconf OR NOT _h5public)
  message(FATAL_ERROR "HDF5 headers not found in '${MPIIO_VFD_HDF5_INCLUDE_DIRS}' (found via ${_hdf5_how})")
endif()
file(STRINGS ${_h5pubconf} _par REGEX "^#define H5_HAVE_PARALLEL 1")
if(NOT _par)
  message(FATAL_ERROR "The HDF5 found via ${_hdf5_how} is not a parallel build (H5_HAVE_PARALLEL unset). "
                      "Point HDF5_ROOT at a parallel HDF5 >= 1.14 or run scripts/setup.sh.")
endif()
file(STRINGS ${_h5public} _maj REGEX "^#define H5_VERS_MAJOR")
file(STRINGS ${_h5public} _min REGEX "^#define H5_VERS_MINOR")
file(STRINGS ${_h5public} _rel REGEX "^#define H5_VERS_RELEASE")
string(REGEX REPLACE ".*[ \t]([0-9]+).*" "\\1" _maj "${_maj}")
string(REGEX REPLACE ".*[ \t]([0-9]+).*" "\\1" _min "${_min}")
string(REGEX REPLACE ".*[ \t]([0-9]+).*" "\\1" _rel "${_rel}")
set(MPIIO_VFD_HDF5_VERSION "${_maj}.${_min}.${_rel}")
if(MPIIO_VFD_HDF5_VERSION VERSION_LESS 1.14 OR MPIIO_VFD_HDF5_VERSION VERSION_GREATER_EQUAL 1.15)
  message(FATAL_ERROR "mpiio-vfd supports HDF5 1.14.x; found ${MPIIO_VFD_HDF5_VERSION} via ${_hdf5_how}")
endif()
set(MPIIO_VFD_HDF5_MAJOR ${_maj})
set(MPIIO_VFD_HDF5_MINOR ${_min})
get_filename_component(MPIIO_VFD_HDF5_PREFIX "${_h5public}" DIRECTORY)
get_filename_component(MPIIO_VFD_HDF5_PREFIX "${MPIIO_VFD_HDF5_PREFIX}" DIRECTORY)
find_program(MPIIO_VFD_H5DUMP h5dump HINTS ${MPIIO_VFD_HDF5_PREFIX}/bin NO_DEFAULT_PATH)
find_program(MPIIO_VFD_H5LS h5ls HINTS ${MPIIO_VFD_HDF5_PREFIX}/bin NO_DEFAULT_PATH)
message(STATUS "Parallel HDF5 ${MPIIO_VFD_HDF5_VERSION} via ${_hdf5_how}")

# The MPI family (Open MPI or MPICH) and how tests launch it; checks HDF5 uses the same family.
include(${CMAKE_CURRENT_LIST_DIR}/MpiFamily.cmake)
