#!/usr/bin/env bash
# Runs a command with HDF5_PLUGIN_PATH set to the directory of an mpiio plugin built against the
# other MPI family (plugin.foreign_mpi tests). Exits 77 (ctest: skipped) with the reason when that
# plugin has not been built; scripts/test.sh always builds it first.
#   run_with_foreign_plugin.sh <foreign plugin dir> <other family> <command> [args...]
set -euo pipefail
dir=$1 other=$2
shift 2
if [ ! -f "$dir/libh5fd_mpiio.so" ]; then
  echo "SKIPPED: no mpiio plugin built against $other in '$dir';" \
       "build it with: bash scripts/build.sh --mpi $other --target h5fd_mpiio"
  exit 77
fi
export HDF5_PLUGIN_PATH=$dir
exec "$@"
