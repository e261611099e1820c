#!/usr/bin/env bash
# usage: check_installed_plugin.sh <build dir> <hdf5 prefix> <external_app.c>
# Launches with $MPIIO_TEST_MPIEXEC $MPIIO_TEST_MPIEXEC_FLAGS and compiles with $MPIIO_TEST_MPICC
# when HDF5 has no h5pcc (all set by ctest for the build's MPI family).
set -euo pipefail
build=$1 hdf5=$2 app_src=$3
read -ra mpiexec <<<"${MPIIO_TEST_MPIEXEC:-mpiexec} ${MPIIO_TEST_MPIEXEC_FLAGS:-}"
work=$(mktemp -d /dev/shm/mpiio-install-check.XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" >/dev/null
plugin_dir=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --variable=plugindir mpiio-vfd)
[ -f "$plugin_dir/libh5fd_mpiio.so" ] || { echo "FAIL: pkg-config plugindir $plugin_dir has no plugin"; exit 1; }
[ -f "$plugin_dir/h5plugin.json" ] || { echo "FAIL: h5plugin.json not installed"; exit 1; }
[ -f "$prefix/include/h5fd_mpiio.h" ] || { echo "FAIL: public header not installed"; exit 1; }
[ -f "$prefix/lib/cmake/mpiio-vfd/mpiio-vfd-config.cmake" ] || { echo "FAIL: CMake package not installed"; exit 1; }

# The CMake package must be usable from a relocated prefix.
mv "$prefix" "$work/moved"
prefix=$work/moved
mkdir -p "$work/consumer"
cat > "$work/consumer/CMakeLists.txt" <<CMK
cmake_minimum_required(VERSION 3.22)
project(consumer C)
find_package(mpiio-vfd REQUIRED)
file(WRITE \${CMAKE_BINARY_DIR}/plugin_dir.txt "\${MPIIO_VFD_PLUGIN_DIR}")
CMK
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
plugin_dir=$(cat "$work/consumer/build/plugin_dir.txt")
[ -f "$plugin_dir/libh5fd_mpiio.so" ] || { echo "FAIL: relocated CMake package points at $plugin_dir"; exit 1; }

# Build the external application with HDF5's own compiler wrapper, nothing from this project.
"$hdf5/bin/h5pcc" -Wl,-rpath,"$hdf5/lib" -o "$work/external_app" "$app_src" >/dev/null 2>&1 || \
  "${MPIIO_TEST_MPICC:-mpicc}" -o "$work/external_app" "$app_src" -I"$hdf5/include" -L"$hdf5/lib" -Wl,-rpath,"$hdf5/lib" -lhdf5

run() { # driver file
  HDF5_PLUGIN_PATH=$plugin_dir HDF5_DRIVER=$1 \
    "${mpiexec[@]}" -n 4 "$work/external_app" "$2"
}
run mpio "$work/builtin.h5"
run mpiio "$work/plugin.h5"
"$hdf5/bin/h5diff" "$work/builtin.h5" "$work/plugin.h5"
dump=$("$hdf5/bin/h5dump" -d /chunked_collective -s 0,0 -c 1,2 "$work/plugin.h5")
grep -q '(0,0): 3000000, 3000001' <<<"$dump" || { echo "FAIL: h5dump shows"; echo "$dump"; exit 1; }
echo "installed plugin: external app on 4 ranks matches the built-in driver; h5dump reads the file"
