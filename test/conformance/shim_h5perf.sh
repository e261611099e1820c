#!/usr/bin/env bash
# shim_h5perf.sh <h5perf> <libh5mpiio_redirect.so> <mpiexec> <io component>
# Runs HDF5's unmodified h5perf (phdf5 API, independent then collective) on 4 ranks with the shim,
# and checks that the mpiio plugin served its files (the plugin's stats=summary report appears),
# then once without redirection, where it must not.
set -u
h5perf=$1 shim=$2 mpiexec=$3 io=$4
work=$(mktemp -d "${TMPDIR:-/tmp}/shim_h5perf.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
run() { # <label> <redirect 0|1> [h5perf options...]
  local label=$1 redirect=$2
  shift 2
  echo "== h5perf $label: $*"
  "$mpiexec" -n 4 --oversubscribe --bind-to none --mca io "$io" \
    -x LD_PRELOAD="$shim" -x MPIIO_REDIRECT="$redirect" -x MPIIO_REDIRECT_CONFIG=stats=summary \
    "$h5perf" -A phdf5 -i 1 -p 4 -P 4 -e 4M -B 256K -x 256K -X 256K "$@" >"$label.out" 2>"$label.err"
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
