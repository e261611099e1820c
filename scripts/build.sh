#!/usr/bin/env bash
# Sets up dependencies and builds the project for one stack (an MPI family plus a parallel HDF5).
#
#   scripts/build.sh [--stack S] [--mpi openmpi|mpich] [--hdf5 1.14.5|1.14.6] [--target T]
#
# Stacks (scripts/stack.sh list):
#   bookworm-openmpi, bookworm-mpich   this Debian 12 host: scripts/setup.sh builds stock HDF5
#                                      (--hdf5) for the family; the default is bookworm-openmpi
#                                      with 1.14.5. --mpi F alone means bookworm-F.
#   trixie-openmpi, trixie-mpich,      a Debian root filesystem (scripts/stack.sh setup creates
#   sid-openmpi, sid-mpich             or refreshes it) with the distribution's parallel HDF5;
#                                      the build runs inside it (scripts/stack.sh run).
# Build directory: build for Open MPI + HDF5 1.14.5 on the host (BUILD_DIR overrides it),
# build-<mpi>-<hdf5> for the host's other configurations (e.g. build-mpich-1.14.5), build-<stack>
# for a root stack (e.g. build-trixie-openmpi). Prints nothing on stdout but the build directory on
# its last line.
# Options (environment equivalents in parentheses):
#   --stack S    a stack name, as above                             (MPIIO_STACK)
#   --mpi F      MPI family on the host, openmpi (default) or mpich (MPIIO_MPI)
#   --hdf5 V     HDF5 release on the host, 1.14.5 (default) or 1.14.6 (HDF5_VERSION)
#   --target T   build only this CMake target (default: everything)
# MPIIO_BUILD_BENCH=OFF in the environment leaves the benchmark out (CMake MPIIO_VFD_BUILD_BENCH).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR_ENV=${BUILD_DIR:-}
STACK=${MPIIO_STACK:-}
MPI_FAMILY=${MPIIO_MPI:-}
HDF5_VERSION=${HDF5_VERSION:-1.14.5}
TARGET=() HDF5_GIVEN=0
while (($#)); do
  case $1 in
    --stack) STACK=${2:?--stack needs a value}; shift 2 ;;
    --mpi) MPI_FAMILY=${2:?--mpi needs a value}; shift 2 ;;
    --hdf5) HDF5_VERSION=${2:?--hdf5 needs a value}; HDF5_GIVEN=1; shift 2 ;;
    --target) TARGET=(--target "${2:?--target needs a value}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "[build] unknown option '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[ -n "$STACK" ] || STACK=bookworm-${MPI_FAMILY:-openmpi}
read -r SUITE STACK_FAMILY <<<"$(scripts/stack.sh info "$STACK")"
if [ -n "$MPI_FAMILY" ] && [ "$MPI_FAMILY" != "$STACK_FAMILY" ]; then
  echo "[build] --mpi $MPI_FAMILY contradicts --stack $STACK" >&2; exit 2
fi
MPI_FAMILY=$STACK_FAMILY
if [ "$SUITE" != bookworm ] && [ "$HDF5_GIVEN" = 1 ]; then
  echo "[build] --hdf5 picks the host's stock build; $STACK has its distribution's HDF5" >&2; exit 2
fi

# build_dir_for <family>: the build directory of this suite's (and HDF5 release's) stack of
# that family.
build_dir_for() {
  if [ "$SUITE" != bookworm ]; then
    echo "build-$SUITE-$1"
  elif [ "$1" = openmpi ] && [ "$HDF5_VERSION" = 1.14.5 ]; then
    echo build
  else
    echo "build-$1-$HDF5_VERSION"
  fi
}

# cmake_build <build dir> [cmake args...]: configure with the family's compiler wrappers and
# launcher named explicitly (with both families installed, the unsuffixed mpicc/mpiexec are
# whichever the alternatives system prefers), then build. The plugin.foreign_mpi tests load the
# other family's plugin from its build directory (scripts/test.sh builds it).
cmake_build() {
  local dir=$1 mpi_args=() other
  shift
  if command -v "mpicc.$MPI_FAMILY" >/dev/null; then
    mpi_args=(-DMPI_C_COMPILER="$(command -v "mpicc.$MPI_FAMILY")"
              -DMPI_CXX_COMPILER="$(command -v "mpicxx.$MPI_FAMILY")"
              -DMPIEXEC_EXECUTABLE="$(command -v "mpiexec.$MPI_FAMILY")")
  fi
  other=$(build_dir_for "$([ "$MPI_FAMILY" = openmpi ] && echo mpich || echo openmpi)")
  cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo "${mpi_args[@]}" \
    -DMPIIO_VFD_BUILD_BENCH="${MPIIO_BUILD_BENCH:-ON}" -DMPIIO_TEST_FOREIGN_PLUGIN_DIR="$PWD/$other/plugins" "$@" >&2
  cmake --build "$dir" -j "$(nproc)" "${TARGET[@]}" >&2
}

if [ "$SUITE" = bookworm ]; then
  BUILD_DIR=$(build_dir_for "$MPI_FAMILY")
  [ "$BUILD_DIR" != build ] || BUILD_DIR=${BUILD_DIR_ENV:-build}
  hdf5_root=$(scripts/setup.sh --mpi "$MPI_FAMILY" --hdf5 "$HDF5_VERSION" | tail -n 1)
  echo "[build] HDF5 $hdf5_root ($MPI_FAMILY) -> $BUILD_DIR" >&2
  cmake_build "$BUILD_DIR" -DHDF5_ROOT="$hdf5_root"
elif [ "${MPIIO_VFD_STACK_SUITE:-}" != "$SUITE" ]; then
  # On the host: make sure the root exists and is current, then build inside it.
  scripts/setup.sh --stack "$STACK" >/dev/null
  args=(--stack "$STACK")
  ((${#TARGET[@]})) && args+=("${TARGET[@]}")
  exec scripts/stack.sh run "$STACK" bash scripts/build.sh "${args[@]}"
else
  # Inside the root: the distribution's HDF5, found as a user's CMake would (FindParallelHDF5).
  BUILD_DIR=$(build_dir_for "$MPI_FAMILY")
  echo "[build] $STACK: the distribution's parallel HDF5 ($MPI_FAMILY) -> $BUILD_DIR" >&2
  cmake_build "$BUILD_DIR"
fi
echo "$BUILD_DIR"
