#!/usr/bin/env bash
# One multihost ctest (test/multihost/CMakeLists.txt): runs a program on 2 + 2 ranks on two
# simulated hosts through scripts/multihost.sh, with the shared test directory
# ${MPIIO_TEST_DIR:-/dev/shm}/mpiio-tests/<test name> (removed afterwards when the test passes).
#   run_multihost_test.sh <test name> <mpi family> <mpiexec> <io layer> <probe> <timeout>
#                         [--fail-host b] -- <program> [args...]
# "@SHARED@" in the arguments becomes the shared directory. Only the variables the tests need
# reach the ranks (as on a real cluster, through the launcher). Exit 77: the machine does not allow
# namespaces (ctest: skipped, with the reason printed).
set -euo pipefail
name=$1 mpi=$2 mpiexec=$3 io=$4 probe=$5 timeout=$6
shift 6
extra=()
while (($#)) && [ "$1" != -- ]; do extra+=("$1"); shift; done
shift
root=$(cd "$(dirname "$0")/../.." && pwd)
# On the distributed file system (scripts/dfs.sh) the hosts pick the clients (multihost.sh: host b
# the second): the one-host rank wrapper of the dfs stage stays out of the launcher.
unset OMPI_MCA_orte_fork_agent
base=${MPIIO_TEST_DIR:-/dev/shm}
shared=$base/mpiio-tests/$name
args=()
for a in "$@"; do args+=("${a//@SHARED@/$shared}"); done
rm -rf "$shared"
# What shapes a test's configuration and sizes must be the same on every host: the variables a
# stage sets for that (test/support: shared_storage(), MPIIO_TEST_CONFIG) go through the launcher
# too. (Host a alone kept them before: its rank took the shared-storage sizes and the others not, and
# the plugin refused the open, its configuration differing between the ranks.)
stage_env=()
for v in MPIIO_TEST_SHARED_STORAGE MPIIO_TEST_CONFIG; do
  [ -z "${!v:-}" ] || stage_env+=(--env "$v=${!v}")
done
rc=0
bash "$root/scripts/multihost.sh" --mpi "$mpi" --mpiexec "$mpiexec" --io "$([ "$mpi" = openmpi ] && echo "$io")" \
  --per-host 2 --timeout "$timeout" --shared "$shared" --probe "$probe" "${extra[@]}" \
  --env HDF5_PLUGIN_PATH="${HDF5_PLUGIN_PATH:?}" --env MPIIO_TEST_DIR="$base" --env MPIIO_TEST_NAME="$name" \
  --env MPIIO_TEST_IO="$io" "${stage_env[@]}" -- "${args[@]}" || rc=$?
((rc != 0)) || rm -rf "$shared"
exit $rc
