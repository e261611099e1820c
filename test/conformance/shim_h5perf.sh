#!/usr/bin/env bash
# shim_h5perf.sh <h5perf> <libh5mpiio_redirect.so> <io layer>
# Runs HDF5's unmodified h5perf (phdf5 API, independent then collective) on 4 ranks with the shim,
# and checks that the mpiio plugin served its files (the plugin's stats=summary report appears),
# then once without redirection, where it must not. Launches with $MPIIO_TEST_MPIEXEC and
# $MPIIO_TEST_MPIEXEC_FLAGS for $MPIIO_TEST_MPI_FAMILY (set by ctest); <io layer> is an Open MPI io
# component, or "romio" under MPICH.
set -u
h5perf=$1 shim=$2 io=$3
read -ra mpiexec <<<"${MPIIO_TEST_MPIEXEC:?} ${MPIIO_TEST_MPIEXEC_FLAGS:-}"
setenv() { # <name> <value>: launcher flags that set a variable in every rank
  if [ "${MPIIO_TEST_MPI_FAMILY:-openmpi}" = openmpi ]; then echo "-x $1=$2"; else echo "-genv $1 $2"; fi
}
[ "${MPIIO_TEST_MPI_FAMILY:-openmpi}" = openmpi ] && mpiexec+=(--mca io "$io")
work=$(mktemp -d "${TMPDIR:-/tmp}/shim_h5perf.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
run() { # <label> <redirect 0|1> [h5perf options...]
  local label=$1 redirect=$2
  shift 2
  echo "== h5perf $label: $*"
  # shellcheck disable=SC2046 # setenv's words are separate launcher arguments
  "${mpiexec[@]}" -n 4 $(setenv LD_PRELOAD "$shim") $(setenv MPIIO_REDIRECT "$redirect") \
    $(setenv MPIIO_REDIRECT_CONFIG stats=summary) "$h5perf" -A phdf5 -i 1 -p 4 -P 4 -e 4M -B 256K -x 256K -X 256K "$@" >"$label.out" 2>"$label.err"
  local rc=$?
  cat "$label.out" "$label.err"
  return $rc
}
fail=0
run independent 1 || { echo "FAIL: h5perf (independent) exited non-zero with the shim"; fail=1; }
grep -q "^mpiio stats:" independent.err || { echo "FAIL: the plugin did not serve h5perf (independent)"; fail=1; }
run collective 1 -C || { echo "FAIL: h5perf -C exited non-zero with the shim"; fail=1; }
grep -q "^mpiio stats:" collective.err || { echo "FAIL: the plugin did not serve h5perf -C"; fail=1; }
awk '$1 == "collective_ops" && $2 > 0 { found = 1 } END { exit !found }' collective.err ||
  { echo "FAIL: h5perf -C did no collective transfer on the plugin"; fail=1; }
run builtin 0 || { echo "FAIL: h5perf exited non-zero with MPIIO_REDIRECT=0"; fail=1; }
if grep -q "mpiio stats:" builtin.err; then
  echo "FAIL: MPIIO_REDIRECT=0 still used the plugin"; fail=1
fi
[ $fail = 0 ] && echo "PASS: h5perf ran on the mpiio plugin through the shim ($io)"
exit $fail
