#!/usr/bin/env bash
# usage: h5py_example.sh <h5py_example.py> <README.md> <libh5mpiio_redirect.so> <launcher...>
# The README's h5py example, as a Python user runs it: with the distribution's h5py and mpi4py,
# the plugin chosen by HDF5_DRIVER (h5py's default driver) and by the shim (driver="mpio"), each
# file compared with the one the built-in driver writes for driver="mpio" without the shim.
# Exit 77 (skipped) where no h5py for this build's HDF5 and MPI is installed; on the
# trixie-openmpi stack, whose root installs Debian's python3-h5py-mpi, that is a failure.
set -euo pipefail
example=$1 readme=$2 shim=$3
shift 3
launch=("$@")
fail() { echo "FAIL: $*"; exit 1; }
skip() {
  [ "${MPIIO_VFD_STACK:-}" != trixie-openmpi ] || fail "$* (the trixie-openmpi root must have it)"
  echo "SKIP: $*"; exit 77
}

# The README shows exactly the program CI runs.
example_text=$(<"$example") readme_text=$(<"$readme")
[[ $readme_text == *"$example_text"* ]] || fail "README.md does not show $example as it is"

[ "${MPIIO_TEST_MPI_FAMILY:-}" = openmpi ] || skip "Debian's python3-h5py-mpi is built for Open MPI"
command -v python3 >/dev/null || skip "no python3"
h5py_hdf5=$(python3 -c 'import h5py, mpi4py; print(h5py.version.hdf5_version)' 2>/dev/null) \
  || skip "no h5py with mpi4py"
[ "$h5py_hdf5" = "${MPIIO_TEST_HDF5_VERSION:?}" ] \
  || skip "h5py runs HDF5 $h5py_hdf5, the plugin is built for $MPIIO_TEST_HDF5_VERSION"

dir=${MPIIO_TEST_DIR:-/dev/shm/mpiio-tests}/python.h5py_example
rm -rf "$dir" && mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
export HDF5_PLUGIN_PATH=${MPIIO_TEST_PLUGIN_DIR:?} HDF5_USE_FILE_LOCKING=FALSE
"${launch[@]}" python3 -c 'import h5py; assert h5py.get_config().mpi, "h5py is not the MPI build"' \
  || skip "h5py is not the MPI build under mpirun"

"${launch[@]}" python3 "$example" "$dir/builtin.h5" mpio
HDF5_DRIVER=mpiio HDF5_DRIVER_CONFIG=stats=summary "${launch[@]}" python3 "$example" "$dir/env.h5" \
  2>"$dir/env.err" || { cat "$dir/env.err"; fail "HDF5_DRIVER=mpiio run failed"; }
grep -q "^mpiio stats: $dir/env.h5" "$dir/env.err" || { cat "$dir/env.err"; fail "HDF5_DRIVER=mpiio did not reach the plugin"; }
LD_PRELOAD=$shim MPIIO_REDIRECT=1 MPIIO_REDIRECT_VERBOSE=1 "${launch[@]}" python3 "$example" "$dir/shim.h5" mpio \
  2>"$dir/shim.err" || { cat "$dir/shim.err"; fail "the shim run failed"; }
grep -q 'H5Pset_fapl_mpio selects the mpiio plugin' "$dir/shim.err" || { cat "$dir/shim.err"; fail "the shim did not redirect driver=mpio"; }

for f in env shim; do
  "${MPIIO_TEST_H5DIFF:?}" "$dir/builtin.h5" "$dir/$f.h5" || fail "$f.h5 differs from the built-in driver's file"
done
echo "h5py example: HDF5_DRIVER=mpiio and the shim under driver=mpio write the built-in driver's file"
