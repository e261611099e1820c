#!/usr/bin/env bash
# The README's test command and what CI runs: installs what is missing, builds, and runs the tests.
#
#   scripts/test.sh                                  the whole CI matrix (below)
#   scripts/test.sh [--mpi openmpi|mpich] [--hdf5 1.14.5|1.14.6] [ctest args...]
#                                                    one configuration (default Open MPI + 1.14.5),
#                                                    e.g. `scripts/test.sh --mpi mpich -L mpi`
#
# One configuration = scripts/build.sh for that (MPI family, HDF5 version), plus the mpiio plugin of
# the other MPI family (the plugin.foreign_mpi tests load it), then ctest: unit, plugin, mpi (1-4
# ranks under every MPI-IO layer), errors, chunkio, selection_io, install, shim, multihost (ranks on
# two simulated hosts; skipped, saying why, where network namespaces are not allowed) and HDF5's
# testpar conformance comparison.
#
# The CI matrix is a list of stages (STAGES below; add one with a line). Every stage runs even when
# an earlier one failed; the script prints each stage's wall time and result at the end and fails
# if any stage failed:
#   openmpi-1.14.5   every test, Open MPI 4.1 (OMPIO and ROMIO)
#   mpich-1.14.5     every test, MPICH 4.0 (ROMIO)
#   openmpi-1.14.6   HDF5 1.14.6 with Open MPI: every suite, MPI suites on 2 and 4 ranks
#   mpich-1.14.6     HDF5 1.14.6 with MPICH: data-path, error and chunk suites on 2 ranks
#   forced-routes    Open MPI + 1.14.5 MPI, chunk and selection I/O suites with collective_route
#                    forced to collective, then to independent
#   sanitize         scripts/sanitize.sh (AddressSanitizer/UBSan build), when that script exists
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# run_config <mpi> <hdf5> [ctest args...]: build one configuration and run ctest in it.
run_config() {
  local mpi=$1 hdf5=$2 other build
  shift 2
  other=$([ "$mpi" = openmpi ] && echo mpich || echo openmpi)
  # (explicit "|| return": stages run inside "if", where set -e does not apply)
  build=$(scripts/build.sh --mpi "$mpi" --hdf5 "$hdf5" | tail -n 1) && [ -n "$build" ] || return 1
  # The foreign-MPI tests load the other family's plugin into this build's HDF5.
  scripts/build.sh --mpi "$other" --hdf5 "$hdf5" --target h5fd_mpiio >/dev/null || return 1
  echo "[test] ctest in $build ($mpi, HDF5 $hdf5) $*" >&2
  # MPI suites oversubscribe 2 cores with 4 ranks; they run one at a time (RUN_SERIAL).
  ctest --test-dir "$build" --output-on-failure --timeout 1800 "$@"
}

# One configuration: everything after the options goes to ctest.
if (($#)); then
  mpi=${MPIIO_MPI:-openmpi} hdf5=${HDF5_VERSION:-1.14.5}
  while (($#)); do
    case $1 in
      --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
      --hdf5) hdf5=${2:?--hdf5 needs a value}; shift 2 ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      *) break ;;
    esac
  done
  run_config "$mpi" "$hdf5" "$@"
  exit
fi

# ---- the CI matrix -------------------------------------------------------------------------
# Each stage is "<name>|<function>"; add a stage with a function and a line.
ci_openmpi_1145() { run_config openmpi 1.14.5; }
# (hydra-ucx: the two-host tests under MPICH, kept out of CI: test/multihost/CMakeLists.txt says why)
ci_mpich_1145() { run_config mpich 1.14.5 -LE hydra-ucx; }
# HDF5 1.14.6 with Open MPI (CI time budget, see the README): every suite, the MPI suites at 2 and 4
# ranks only.
ci_openmpi_1146() { run_config openmpi 1.14.6 -E '[.]np[13][.]'; }
# MPICH + 1.14.6 (CI time: oversubscribed MPICH ranks busy-poll, so its 3- and 4-rank runs take
# minutes): the data-path, error and chunk suites on 2 ranks, one per core; no conformance.
ci_mpich_1146() { run_config mpich 1.14.6 -L '^(unit|plugin|mpi|errors|chunkio|selection_io)$' -E '[.]np[134][.]'; }
# The route of collective transfers forced both ways (ARCHITECTURE.md D12): every MPI-launched
# suite but the error tests (mpi, chunkio, selection_io...), 1-4 ranks under OMPIO and ROMIO, with
# every file's configuration ending in collective_route=collective, then =independent
# (MPIIO_TEST_CONFIG, test/support). Tests that check the route auto takes skip that check when
# the environment forces one.
ci_forced_routes() {
  local policy failed=0
  for policy in collective independent; do # both run, whatever the first gives
    MPIIO_TEST_CONFIG="collective_route=$policy" run_config openmpi 1.14.5 -L '^mpi$' -LE errors || failed=1
  done
  return $failed
}
ci_sanitize() { bash scripts/sanitize.sh; }

STAGES=(
  "openmpi-1.14.5|ci_openmpi_1145"
  "mpich-1.14.5|ci_mpich_1145"
  "openmpi-1.14.6|ci_openmpi_1146"
  "mpich-1.14.6|ci_mpich_1146"
  "forced-routes|ci_forced_routes"
)
[ -f scripts/sanitize.sh ] && STAGES+=("sanitize|ci_sanitize")

summary=() failed=0 t_all=$SECONDS
for stage in "${STAGES[@]}"; do
  name=${stage%%|*} fn=${stage#*|}
  echo "[test] ==== stage $name" >&2
  t0=$SECONDS
  if ("$fn"); then result=passed; else result=FAILED; failed=1; fi
  summary+=("$(printf '%-16s %-7s %6d s' "$name" "$result" $((SECONDS - t0)))")
done
echo "[test] ==== stages (wall time):" >&2
printf '[test]   %s\n' "${summary[@]}" >&2
echo "[test]   total $((SECONDS - t_all)) s" >&2
exit $failed
