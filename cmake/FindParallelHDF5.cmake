# Locates MPI and a *parallel* HDF5 >= 1.14 (1.14.x and 2.x) and exposes them as the imported target
# mpiio_vfd::hdf5. Search order, the first parallel HDF5 >= 1.14 of the MPI family found wins:
#   1. HDF5's own CMake package (HDF5_ROOT / CMAKE_PREFIX_PATH; the stock build installs it, and
#      Debian's 2.x packages ship one per flavour under <libdir>/hdf5/<family>/cmake);
#   2. pkg-config's module for the family (hdf5-<family>, hdf5_<family>: Debian's flavours);
#   3. CMake's FindHDF5 module through the compiler wrapper (h5pcc.<family>, else h5pcc);
#   4. pkg-config's generic module (hdf5).
# A candidate that is serial, older than 1.14 or linked against the other MPI family is passed
# over, and configuration fails listing every candidate and why, because the plugin cannot work
# with any of them.
#
# Defines MPIIO_VFD_HDF5_VERSION (_MAJOR, _MINOR), MPIIO_VFD_HDF5_INCLUDE_DIRS (and _DIR, the one
# with H5public.h), MPIIO_VFD_HDF5_LIBRARY, MPIIO_VFD_HDF5_PREFIX (the install prefix of a stock
# layout <prefix>/include; empty for a distribution layout such as /usr/include/hdf5/openmpi) and
# the tools the tests run: MPIIO_VFD_H5DUMP, _H5LS, _H5DIFF, _H5CLEAR, _H5PCC (from the prefix's
# bin/, else PATH) with MPIIO_VFD_TOOLS_PARALLEL (ON when h5dump uses this libhdf5; Debian's tools
# use its serial libhdf5).
find_package(MPI REQUIRED COMPONENTS C)
# The MPI family (Open MPI or MPICH) and how tests launch it.
include(${CMAKE_CURRENT_LIST_DIR}/MpiFamily.cmake)

set(_mpiio_hdf5_rejected "")

# _mpiio_hdf5_headers(<incdirs>): reads H5pubconf.h / H5public.h; sets _hdf5_problem (empty when
# it is a parallel HDF5 >= 1.14), _hdf5_version, _hdf5_major, _hdf5_minor, _hdf5_public.
macro(_mpiio_hdf5_headers incdirs)
  set(_hdf5_problem "")
  set(_hdf5_public "")
  set(_hdf5_conf "")
  foreach(_d IN ITEMS ${incdirs})
    if(NOT _hdf5_public AND EXISTS "${_d}/H5public.h" AND EXISTS "${_d}/H5pubconf.h")
      set(_hdf5_public "${_d}/H5public.h")
      set(_hdf5_conf "${_d}/H5pubconf.h")
    endif()
  endforeach()
  if(NOT _hdf5_public)
    set(_hdf5_problem "no H5public.h/H5pubconf.h in '${incdirs}'")
  else()
    file(STRINGS ${_hdf5_public} _maj REGEX "^#define H5_VERS_MAJOR")
    file(STRINGS ${_hdf5_public} _min REGEX "^#define H5_VERS_MINOR")
    file(STRINGS ${_hdf5_public} _rel REGEX "^#define H5_VERS_RELEASE")
    string(REGEX REPLACE ".*[ \t]([0-9]+).*" "\\1" _hdf5_major "${_maj}")
    string(REGEX REPLACE ".*[ \t]([0-9]+).*" "\\1" _hdf5_minor "${_min}")
    string(REGEX REPLACE ".*[ \t]([0-9]+).*" "\\1" _rel "${_rel}")
    set(_hdf5_version "${_hdf5_major}.${_hdf5_minor}.${_rel}")
    file(STRINGS ${_hdf5_conf} _par REGEX "^#define H5_HAVE_PARALLEL 1")
    if(NOT _par)
      set(_hdf5_problem "HDF5 ${_hdf5_version} is a serial build (H5_HAVE_PARALLEL unset)")
    elseif(_hdf5_version VERSION_LESS 1.14)
      set(_hdf5_problem "HDF5 ${_hdf5_version} is older than 1.14 (no VFD plugins)")
    endif()
  endif()
endmacro()

# _mpiio_hdf5_consider(<how> <incdirs> <library> <link items...>): accepts the candidate when it
# is a parallel HDF5 >= 1.14 of this build's MPI family, else records why not.
macro(_mpiio_hdf5_consider how incdirs library)
  _mpiio_hdf5_headers("${incdirs}")
  if(NOT _hdf5_problem)
    _mpiio_family_of_binary(_fam "${library}")
    if(NOT _fam STREQUAL "unknown" AND NOT _fam STREQUAL MPIIO_MPI_FAMILY)
      set(_hdf5_problem "${library} is linked against ${_fam}, this build uses ${MPIIO_MPI_FAMILY}")
    endif()
  endif()
  if(_hdf5_problem)
    string(APPEND _mpiio_hdf5_rejected "\n  ${how}: ${_hdf5_problem}")
  else()
    add_library(mpiio_vfd::hdf5 INTERFACE IMPORTED)
    target_include_directories(mpiio_vfd::hdf5 INTERFACE ${incdirs})
    target_link_libraries(mpiio_vfd::hdf5 INTERFACE ${ARGN} MPI::MPI_C)
    set(_hdf5_how "${how}")
    set(MPIIO_VFD_HDF5_INCLUDE_DIRS ${incdirs})
    set(MPIIO_VFD_HDF5_LIBRARY ${library})
  endif()
endmacro()

set(_hdf5_how "")
# 1. HDF5's CMake package. The stock build exports hdf5::hdf5-shared; Debian's 2.x packages export
#    hdf5-shared without a namespace. No version in the request: HDF5's version file calls 2.x
#    incompatible with a request for 1.14, and the headers are checked below anyway.
find_package(HDF5 CONFIG QUIET NAMES hdf5 PATHS ${HDF5_ROOT} $ENV{HDF5_ROOT}
             PATH_SUFFIXES cmake share/cmake lib/cmake/hdf5)
foreach(_t IN ITEMS hdf5::hdf5-shared hdf5-shared)
  if(NOT _hdf5_how AND HDF5_FOUND AND TARGET ${_t})
    get_target_property(_inc ${_t} INTERFACE_INCLUDE_DIRECTORIES)
    list(FILTER _inc EXCLUDE REGEX "^\\$<") # generator expressions (Debian's "$<$<BOOL:OFF>:>")
    get_target_property(_cfgs ${_t} IMPORTED_CONFIGURATIONS)
    list(GET _cfgs 0 _cfg)
    get_target_property(_loc ${_t} IMPORTED_LOCATION_${_cfg})
    _mpiio_hdf5_consider("CMake package in ${HDF5_DIR}" "${_inc}" "${_loc}" ${_t})
  endif()
endforeach()

# 2. pkg-config, the family's module (a distribution with one HDF5 per MPI flavour names it so;
#    Debian both ways). Before FindHDF5: CMake's FindHDF5 cannot make its target from a wrapper
#    that links -lhdf5_<family> (Debian's 2.x h5pcc.mpich).
find_package(PkgConfig QUIET)
# _mpiio_hdf5_pkg_config(<module>...): considers each module pkg-config knows, until one is taken.
macro(_mpiio_hdf5_pkg_config)
  foreach(_m IN ITEMS ${ARGN})
    if(NOT _hdf5_how AND PKG_CONFIG_FOUND)
      pkg_check_modules(PC_HDF5_${_m} QUIET IMPORTED_TARGET ${_m})
      if(PC_HDF5_${_m}_FOUND)
        find_library(_lib_${_m} NAMES hdf5_${MPIIO_MPI_FAMILY} hdf5 HINTS ${PC_HDF5_${_m}_LIBRARY_DIRS}
                     NO_DEFAULT_PATH)
        _mpiio_hdf5_consider("pkg-config module ${_m}" "${PC_HDF5_${_m}_INCLUDE_DIRS}" "${_lib_${_m}}"
                             PkgConfig::PC_HDF5_${_m})
      endif()
    endif()
  endforeach()
endmacro()
_mpiio_hdf5_pkg_config(hdf5-${MPIIO_MPI_FAMILY} hdf5_${MPIIO_MPI_FAMILY})

# 3. CMake's FindHDF5 through the compiler wrapper (h5pcc), without a second look for the package.
if(NOT _hdf5_how)
  set(HDF5_PREFER_PARALLEL ON)
  set(HDF5_NO_FIND_PACKAGE_CONFIG_FILE ON)
  if(NOT HDF5_C_COMPILER_EXECUTABLE)
    find_program(MPIIO_VFD_H5PCC_FAMILY h5pcc.${MPIIO_MPI_FAMILY})
    if(MPIIO_VFD_H5PCC_FAMILY)
      set(HDF5_C_COMPILER_EXECUTABLE ${MPIIO_VFD_H5PCC_FAMILY})
    endif()
  endif()
  unset(HDF5_FOUND)
  find_package(HDF5 MODULE QUIET COMPONENTS C)
  if(HDF5_FOUND)
    set(_lib "")
    foreach(_l IN LISTS HDF5_C_LIBRARIES)
      get_filename_component(_n "${_l}" NAME)
      if(NOT _lib AND _n MATCHES "^libhdf5(_${MPIIO_MPI_FAMILY})?\\.")
        set(_lib ${_l})
      endif()
    endforeach()
    _mpiio_hdf5_consider("FindHDF5 (${HDF5_C_COMPILER_EXECUTABLE})" "${HDF5_C_INCLUDE_DIRS}" "${_lib}"
                         ${HDF5_C_LIBRARIES})
  endif()
endif()

# 4. pkg-config's generic module.
_mpiio_hdf5_pkg_config(hdf5)

if(NOT _hdf5_how)
  message(FATAL_ERROR
    "mpiio-vfd needs a PARALLEL HDF5 >= 1.14 built with ${MPIIO_MPI_FAMILY}. Candidates found:"
    "${_mpiio_hdf5_rejected}\n"
    "Run scripts/setup.sh (builds the stock release into a cache) and pass "
    "-DHDF5_ROOT=<prefix> (or set the HDF5_ROOT environment variable), or install the "
    "distribution's parallel HDF5 (Debian: libhdf5-${MPIIO_MPI_FAMILY}-dev).")
endif()
set(MPIIO_VFD_HDF5_VERSION ${_hdf5_version})
set(MPIIO_VFD_HDF5_MAJOR ${_hdf5_major})
set(MPIIO_VFD_HDF5_MINOR ${_hdf5_minor})

# The releases the plugin loads into are listed in h5plugin.json (and checked against the driver's
# list by unit.hdf5_internals); another release builds, but the plugin refuses to load into it.
# (This file is also included by test/conformance/testpar, a project of its own: the JSON is found
# next to this file's folder.)
file(READ ${CMAKE_CURRENT_LIST_DIR}/../h5plugin.json _json)
string(JSON _n LENGTH "${_json}" hdf5_versions)
set(MPIIO_VFD_TESTED_HDF5 "")
math(EXPR _last "${_n} - 1")
foreach(_i RANGE ${_last})
  string(JSON _v GET "${_json}" hdf5_versions ${_i})
  list(APPEND MPIIO_VFD_TESTED_HDF5 ${_v})
endforeach()
if(NOT MPIIO_VFD_HDF5_VERSION IN_LIST MPIIO_VFD_TESTED_HDF5)
  message(WARNING "HDF5 ${MPIIO_VFD_HDF5_VERSION} is not a release mpiio is tested with "
                  "(${MPIIO_VFD_TESTED_HDF5}): the plugin builds, but refuses to load into it")
endif()

# HDF5 2.2+ built with HDF5_REQUIRE_SIGNED_PLUGINS loads only plugins signed with h5sign by a key
# in its keystore (docs/stacks.md): the plugin built here is unsigned.
file(STRINGS ${_hdf5_conf} _signed REGEX "^#define H5_REQUIRE_DIGITAL_SIGNATURE 1")
if(_signed)
  message(WARNING "HDF5 ${MPIIO_VFD_HDF5_VERSION} loads only signed plugins (H5_REQUIRE_DIGITAL_SIGNATURE): "
                  "sign ${PROJECT_BINARY_DIR}/plugins/libh5fd_mpiio.so with h5sign and put the public "
                  "key in the keystore (HDF5_PLUGIN_KEYSTORE), or HDF5 refuses the plugin")
endif()

# Install prefix: only a stock layout (<prefix>/include/H5public.h) has one.
get_filename_component(_incdir "${_hdf5_public}" DIRECTORY)
set(MPIIO_VFD_HDF5_INCLUDE_DIR ${_incdir})
get_filename_component(_incname "${_incdir}" NAME)
set(MPIIO_VFD_HDF5_PREFIX "")
if(_incname STREQUAL "include")
  get_filename_component(MPIIO_VFD_HDF5_PREFIX "${_incdir}" DIRECTORY)
endif()

# Tools: the prefix's own first; a distribution installs them on PATH (Debian: /usr/bin, linked
# against its serial libhdf5, and h5pcc.<family> per flavour).
set(_tool_hints "")
if(MPIIO_VFD_HDF5_PREFIX)
  set(_tool_hints HINTS ${MPIIO_VFD_HDF5_PREFIX}/bin)
endif()
find_program(MPIIO_VFD_H5DUMP h5dump ${_tool_hints})
find_program(MPIIO_VFD_H5LS h5ls ${_tool_hints})
find_program(MPIIO_VFD_H5DIFF h5diff ${_tool_hints})
find_program(MPIIO_VFD_H5CLEAR h5clear ${_tool_hints})
find_program(MPIIO_VFD_H5PCC NAMES h5pcc h5pcc.${MPIIO_MPI_FAMILY} ${_tool_hints} NO_DEFAULT_PATH)
if(NOT MPIIO_VFD_H5PCC)
  find_program(MPIIO_VFD_H5PCC NAMES h5pcc.${MPIIO_MPI_FAMILY} h5pcc)
endif()
# Does h5dump run on this libhdf5 (then HDF5_DRIVER=mpiio works in it) or on another (serial) one?
set(MPIIO_VFD_TOOLS_PARALLEL OFF)
if(MPIIO_VFD_H5DUMP)
  execute_process(COMMAND ldd ${MPIIO_VFD_H5DUMP} OUTPUT_VARIABLE _deps ERROR_QUIET)
  # (libhdf5.so, or a flavour's libhdf5_serial/_openmpi/_mpich.so; not libhdf5_tools or _hl)
  string(REGEX MATCH "libhdf5(_serial|_openmpi|_mpich)?\\.so[^ \t\n]* => ([^ \t\n]+)" _m "${_deps}")
  if(CMAKE_MATCH_2)
    file(REAL_PATH "${CMAKE_MATCH_2}" _tool_lib)
    file(REAL_PATH "${MPIIO_VFD_HDF5_LIBRARY}" _build_lib)
    if(_tool_lib STREQUAL _build_lib)
      set(MPIIO_VFD_TOOLS_PARALLEL ON)
    endif()
  endif()
endif()
message(STATUS "Parallel HDF5 ${MPIIO_VFD_HDF5_VERSION} via ${_hdf5_how} (${MPIIO_VFD_HDF5_LIBRARY}); "
               "tools: ${MPIIO_VFD_H5DUMP} (on this libhdf5: ${MPIIO_VFD_TOOLS_PARALLEL})")
