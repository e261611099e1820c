#!/usr/bin/env bash
# Sets up dependencies (scripts/setup.sh) and builds the project into ${BUILD_DIR:-build}.
# Prints nothing on stdout but the build directory on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
hdf5_root=$(scripts/setup.sh | tail -n 1)
echo "[build] HDF5 $hdf5_root -> $BUILD_DIR" >&2
cmake -S . -B "$BUILD_DIR" -G Ninja -DHDF5_ROOT="$hdf5_root" -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
cmake --build "$BUILD_DIR" -j "$(nproc)" >&2
echo "$BUILD_DIR"
