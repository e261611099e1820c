#!/usr/bin/env bash
# usage: check_installed_plugin.sh <build dir> <external_app.c> <project version>
# Launches with $MPIIO_TEST_MPIEXEC $MPIIO_TEST_MPIEXEC_FLAGS; compiles with HDF5's wrapper
# $MPIIO_TEST_H5PCC (a stock prefix's bin/h5pcc, Debian's h5pcc.<family>), else with
# $MPIIO_TEST_MPICC against $MPIIO_TEST_HDF5_INCLUDE and $MPIIO_TEST_HDF5_LIBRARY; reads with
# $MPIIO_TEST_H5DIFF and $MPIIO_TEST_H5DUMP (all set by ctest for the build's HDF5 and MPI).
set -euo pipefail
build=$1 app_src=$2 version=$3
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
[ -f "$prefix/share/doc/mpiio-vfd/LICENSE" ] || { echo "FAIL: LICENSE not installed"; exit 1; }
# Both packages carry the release a user quotes.
pc_version=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --modversion mpiio-vfd)
[ "$pc_version" = "$version" ] || { echo "FAIL: pkg-config says version '$pc_version', not $version"; exit 1; }

# The CMake package must be usable from a relocated prefix.
mv "$prefix" "$work/moved"
prefix=$work/moved
mkdir -p "$work/consumer"
cat > "$work/consumer/CMakeLists.txt" <<CMK
cmake_minimum_required(VERSION 3.22)
project(consumer C)
find_package(mpiio-vfd $version EXACT REQUIRED)
file(WRITE \${CMAKE_BINARY_DIR}/plugin_dir.txt "\${MPIIO_VFD_PLUGIN_DIR}")
file(WRITE \${CMAKE_BINARY_DIR}/version.txt "\${mpiio-vfd_VERSION}")
CMK
cmake -S "$work/consumer" -B "$work/consumer/build" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
plugin_dir=$(cat "$work/consumer/build/plugin_dir.txt")
[ -f "$plugin_dir/libh5fd_mpiio.so" ] || { echo "FAIL: relocated CMake package points at $plugin_dir"; exit 1; }
cmake_version=$(cat "$work/consumer/build/version.txt")
[ "$cmake_version" = "$version" ] || { echo "FAIL: the CMake package says version '$cmake_version'"; exit 1; }

# Build the external application with HDF5's own compiler wrapper, nothing from this project.
libdir=$(dirname "${MPIIO_TEST_HDF5_LIBRARY:?}")
if [ -n "${MPIIO_TEST_H5PCC:-}" ]; then
  "$MPIIO_TEST_H5PCC" -Wl,-rpath,"$libdir" -o "$work/external_app" "$app_src" >/dev/null
else
  "${MPIIO_TEST_MPICC:-mpicc}" -o "$work/external_app" "$app_src" -I"${MPIIO_TEST_HDF5_INCLUDE:?}" \
    "$MPIIO_TEST_HDF5_LIBRARY" -Wl,-rpath,"$libdir"
fi

run() { # driver file
  HDF5_PLUGIN_PATH=$plugin_dir HDF5_DRIVER=$1 \
    "${mpiexec[@]}" -n 4 "$work/external_app" "$2"
}
run mpio "$work/builtin.h5"
run mpiio "$work/plugin.h5"
"${MPIIO_TEST_H5DIFF:?}" "$work/builtin.h5" "$work/plugin.h5"
dump=$("${MPIIO_TEST_H5DUMP:?}" -d /chunked_collective -s 0,0 -c 1,2 "$work/plugin.h5")
grep -q '(0,0): 3000000, 3000001' <<<"$dump" || { echo "FAIL: h5dump shows"; echo "$dump"; exit 1; }
echo "installed plugin: external app on 4 ranks matches the built-in driver; h5dump reads the file"
