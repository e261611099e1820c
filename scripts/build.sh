#!/usr/bin/env bash
# Sets up dependencies (scripts/setup.sh) and builds the project for one MPI family and HDF5 version.
#
#   scripts/build.sh [--mpi openmpi|mpich] [--hdf5 1.14.5|1.14.6] [--target T]
#
# Build directory: build for Open MPI + HDF5 1.14.5 (BUILD_DIR overrides it),
# build-<mpi>-<hdf5> otherwise (e.g. build-mpich-1.14.5). Prints nothing on stdout but the build
# directory on its last line.
# Options (environment equivalents in parentheses):
#   --mpi F      MPI family, openmpi (default) or mpich           (MPIIO_MPI)
#   --hdf5 V     HDF5 release, 1.14.5 (default) or 1.14.6         (HDF5_VERSION)
#   --target T   build only this CMake target (default: everything)
set -euo pipefail
cd "$(dirname "$0")/.."
MPI_FAMILY=${MPIIO_MPI:-openmpi}
HDF5_VERSION=${HDF5_VERSION:-1.14.5}
TARGET=()
while (($#)); do
  case $1 in
    --mpi) MPI_FAMILY=${2:?--mpi needs a value}; shift 2 ;;
    --hdf5) HDF5_VERSION=${2:?--hdf5 needs a value}; shift 2 ;;
    --target) TARGET=(--target "${2:?--target needs a value}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "[build] unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done

if [ "$MPI_FAMILY" = openmpi ] && [ "$HDF5_VERSION" = 1.14.5 ]; then
  BUILD_DIR=${BUILD_DIR:-build}
else
  BUILD_DIR=build-$MPI_FAMILY-$HDF5_VERSION
fi
hdf5_root=$(scripts/setup.sh --mpi "$MPI_FAMILY" --hdf5 "$HDF5_VERSION" | tail -n 1)

# Name the family's compiler wrappers and launcher explicitly: with both families installed, the
# unsuffixed mpicc/mpiexec are whichever the alternatives system prefers.
mpi_args=()
if command -v "mpicc.$MPI_FAMILY" >/dev/null; then
  mpi_args=(-DMPI_C_COMPILER="$(command -v "mpicc.$MPI_FAMILY")"
            -DMPI_CXX_COMPILER="$(command -v "mpicxx.$MPI_FAMILY")"
            -DMPIEXEC_EXECUTABLE="$(command -v "mpiexec.$MPI_FAMILY")")
fi
echo "[build] HDF5 $hdf5_root ($MPI_FAMILY) -> $BUILD_DIR" >&2
cmake -S . -B "$BUILD_DIR" -G Ninja -DHDF5_ROOT="$hdf5_root" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${mpi_args[@]}" >&2
cmake --build "$BUILD_DIR" -j "$(nproc)" "${TARGET[@]}" >&2
echo "$BUILD_DIR"
