#!/usr/bin/env bash
# The README's test command and what CI runs: installs what is missing, builds, and runs the tests.
#
#   scripts/test.sh                                  the whole CI matrix (below)
#   scripts/test.sh --stage NAME                     one stage of the matrix (names below)
#   scripts/test.sh [--stack S | --mpi openmpi|mpich] [--hdf5 1.14.5|1.14.6] [--on-dfs] [ctest args...]
#                                                    one configuration (default Open MPI + 1.14.5 on
#                                                    this host), e.g. `scripts/test.sh --mpi mpich
#                                                    -L mpi` or `scripts/test.sh --stack sid-openmpi
#                                                    -L unit`
#
# One configuration = scripts/build.sh for that stack (scripts/stack.sh list: bookworm-openmpi and
# bookworm-mpich on this host with --hdf5, or a Debian root stack such as trixie-openmpi, which
# runs inside its root), plus the mpiio plugin of the other MPI family (the plugin.foreign_mpi tests
# load it), then ctest: unit, plugin, mpi (1-4 ranks under every MPI-IO layer the MPI has), errors,
# chunkio, selection_io, install, shim, multihost (ranks on two simulated hosts; skipped, saying
# why, where network namespaces are not allowed) and HDF5's testpar conformance comparison.
#
# The CI matrix is a list of stages (STAGES below; add one with a line). Every stage runs even when
# an earlier one failed; the script prints each stage's wall time and result at the end and fails
# if any stage failed. The whole matrix has to finish within 75 minutes on a 2-core machine from a
# clean cache (four stock HDF5 builds and two root filesystems included), so each stage runs what
# only it can show (the comment above each stage function says why):
#   openmpi-1.14.5   every test, Open MPI 4.1 (OMPIO and ROMIO), stock HDF5 1.14.5
#   mpich-1.14.5     every test, MPICH 4.0 (ROMIO), the MPI suites on 1-2 ranks
#   openmpi-1.14.6   stock HDF5 1.14.6 with Open MPI: data-path suites and conformance, 2 and 4 ranks
#   forced-routes    Open MPI + 1.14.5 MPI suites with collective_route forced each way, 4 ranks
#   trixie-openmpi   Debian 13: Open MPI 5.0 (OMPIO, romio341), HDF5 1.14.5; data-path suites, 1, 2, 4 ranks
#   trixie-mpich     Debian 13: MPICH 4.2, HDF5 1.14.5; data-path suites, 1-4 ranks
#   sid-openmpi      Debian unstable: Open MPI 6.0 (OMPIO), HDF5 2.2.0; data-path suites, 1-4 ranks
#   sid-mpich        Debian unstable: MPICH 5.0, HDF5 2.2.0; data-path suites, 1-4 ranks
#   dfs              Open MPI 4.1 + 1.14.5 MPI suites on a distributed file system, ranks on two
#                    of its clients (scripts/dfs.sh), 2 and 4 ranks, OMPIO (and ROMIO: its own suite and
#                    the crash test, 4 ranks), and HDF5's testpar programs there (a quick set,
#                    4 ranks, both layers)
#   cephfs           Open MPI 4.1 + 1.14.5 on CephFS (scripts/cephfs.sh: MDS-coherent clients, files
#                    with a striping layout), ranks on its two clients: the dfs suite on 2 and 4
#                    ranks and the crash test's shared-storage run (OMPIO and ROMIO), the
#                    layout-following mpi suites on 2 ranks (OMPIO), t_select_io_dset (4 ranks, OMPIO)
#   sanitize         scripts/sanitize.sh (AddressSanitizer/UBSan build), when that script exists
# (data-path suites: unit, plugin, mpi, errors, chunkio, selection_io.)
set -euo pipefail
cd "$(dirname "$0")/.."
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# run_config <stack> <hdf5> [ctest args...]: build one configuration and run ctest in it (<hdf5>
# picks the host stacks' stock build; a root stack has its distribution's). A root stack's run
# happens inside its root, entered from here.
run_config() {
  local stack=$1 hdf5=$2 suite family other build hdf5_args=()
  shift 2
  # (explicit "|| return": stages run inside "if", where set -e does not apply)
  read -r suite family <<<"$(scripts/stack.sh info "$stack")" && [ -n "$family" ] || return 1
  if [ "$suite" != bookworm ] && [ "${MPIIO_VFD_STACK_SUITE:-}" != "$suite" ]; then
    scripts/setup.sh --stack "$stack" >/dev/null || return 1
    scripts/stack.sh run "$stack" bash scripts/test.sh --stack "$stack" "$@"
    return
  fi
  [ "$suite" != bookworm ] || hdf5_args=(--hdf5 "$hdf5")
  other=$([ "$family" = openmpi ] && echo mpich || echo openmpi)
  build=$(scripts/build.sh --stack "$stack" "${hdf5_args[@]}" | tail -n 1) && [ -n "$build" ] || return 1
  # The foreign-MPI tests load the other family's plugin into this build's HDF5 (FOREIGN_PLUGIN=no:
  # a stage that leaves those tests out skips that build, and the other family's stock HDF5).
  if [ "${FOREIGN_PLUGIN:-yes}" = yes ]; then
    scripts/build.sh --stack "$suite-$other" "${hdf5_args[@]}" --target h5fd_mpiio >/dev/null || return 1
  fi
  echo "[test] ctest in $build ($stack${hdf5_args[*]:+, HDF5 $hdf5}) $*" >&2
  # MPI suites oversubscribe 2 cores with 4 ranks; they run one at a time (RUN_SERIAL).
  ctest --test-dir "$build" --output-on-failure --timeout 1800 "$@"
}

# --on-dfs (inside scripts/dfs.sh): the MPI suites' files on the distributed file system, the ranks
# of unchanged ctest command lines on both of its clients (Open MPI's fork agent: the testbed's rank
# wrapper), and MPIIO_TEST_SHARED_STORAGE=1 (test/support: shared_storage()). A call there costs a
# round trip (hundreds of microseconds against one or two on tmpfs), and two clients writing one
# file take its lock in turn, so the cases made of many tiny calls or many files took minutes each
# at their tmpfs sizes (2 ranks, OMPIO, 2026-11-27: one of dataset_io's LargeInterleaved 250 s,
# view_writes more than 450 s, the random selections 74 and 157 s, a route policy's table of cases
# 15-50 s, the multi-chunk mode 35 s, caller_buffer 93 s); with that variable they run smaller
# (fewer elements, rounds and files, every route and pattern kept; each file says how). Measured in
# ci_dfs's line (2026-12-01, load 12-13): 255 s for all of them together, and the route table's
# SelectionIoOff rows and the other chunk modes, which ran there before, 73 s less than at their
# tmpfs sizes; the whole line 864 s.
on_dfs() {
  [ -n "${MPIIO_DFS_DIR:-}" ] && [ -n "${MPIIO_DFS_AGENT:-}" ] ||
    { echo "[test] --on-dfs runs inside scripts/dfs.sh (MPIIO_DFS_DIR is not set)" >&2; exit 2; }
  export MPIIO_TEST_DIR=$MPIIO_DFS_DIR OMPI_MCA_orte_fork_agent=$MPIIO_DFS_AGENT MPIIO_TEST_SHARED_STORAGE=1
}

# --stage NAME: one stage of the CI matrix alone (its name as the summary prints it).
if [ "${1:-}" = --stage ]; then
  STAGE_ONLY=${2:?--stage needs a stage name}
  shift 2
  (($# == 0)) || { echo "[test] --stage takes no other arguments" >&2; exit 2; }
fi

# One configuration: everything after the options goes to ctest.
if (($#)); then
  stack=${MPIIO_STACK:-} mpi=${MPIIO_MPI:-openmpi} hdf5=${HDF5_VERSION:-1.14.5}
  while (($#)); do
    case $1 in
      --stack) stack=${2:?--stack needs a value}; shift 2 ;;
      --mpi) mpi=${2:?--mpi needs a value}; shift 2 ;;
      --hdf5) hdf5=${2:?--hdf5 needs a value}; shift 2 ;;
      --on-dfs) on_dfs; shift ;;
      -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
      *) break ;;
    esac
  done
  run_config "${stack:-bookworm-$mpi}" "$hdf5" "$@"
  exit
fi

# ---- the CI matrix -------------------------------------------------------------------------
# Each stage is "<name>|<function>"; add a stage with a function and a line.
# The data-path suites every stack runs: what a new MPI or HDF5 changes under the plugin (and its
# instructions per chunk, against the stack's own baseline).
DATA_SUITES='^(unit|plugin|mpi|errors|chunkio|selection_io|instructions)$'
# The reference stage: every suite, Open MPI 4.1 (OMPIO and ROMIO), stock HDF5 1.14.5.
ci_openmpi_1145() { run_config bookworm-openmpi 1.14.5 -LE scale_by_hand; }
# MPICH 4.0: every suite (hydra-ucx, the two-host tests under MPICH, stays out of CI:
# test/multihost/CMakeLists.txt says why), the MPI-launched suites on 1 and 2 ranks. MPICH 4.0's
# oversubscribed ranks spin out their time slices (it has no MPIR_CVAR_ENABLE_HEAVY_YIELD): its 3-
# and 4-rank runs took most of this stage's 810 s; MPICH on 3-4 ranks is covered by trixie-mpich
# and sid-mpich, whose MPICH yields.
ci_mpich_1145() { run_config bookworm-mpich 1.14.5 -LE 'hydra-ucx|scale_by_hand' -E '[.]np[34]([.]|$)'; }
# HDF5 1.14.6 with Open MPI: what the release can change, the data-path suites and HDF5's own
# testpar comparison (its own 4 ranks), the MPI suites on 2 ranks: 4 ranks run on 1.14.5 and on
# every root stack, and what the release changes does not depend on the rank count. Packaging,
# tools, crash, soak and two-host tests exercise the same code on 1.14.5, and so do the
# foreign-MPI tests (which MPI a plugin was built against does not depend on the HDF5 release;
# leaving them out spares the MPICH 1.14.6 builds). 1.14.6 with MPICH is not a stage of its own:
# MPICH runs on 1.14.5 here and on HDF5 1.14.5 and 2.2 in the root stacks, 1.14.6 under both of
# Open MPI's layers here, and the 75 minutes from a clean cache did not leave room for a stock
# HDF5 build and a project build for that one pairing (docs/stacks.md).
# Its testpar comparison runs under OMPIO only (the reference stage and MPICH's run it under ROMIO):
# what a release changes is how the library calls the driver, the same under either layer. It is
# also where t_filters_parallel runs under OMPIO: the reference stage runs it under ROMIO only (its
# longest program; scripts/conformance.sh, CI_IO_ONLY). t_pmulti_dset stays out of it (it hangs
# under OMPIO with the built-in driver: CI_HANGS_UNDER; 610 s of this stage until 2026-12-04).
ci_openmpi_1146() {
  MPIIO_BUILD_BENCH=OFF MPIIO_CONFORMANCE_IO=ompio FOREIGN_PLUGIN=no run_config bookworm-openmpi 1.14.6 \
    -L '^(unit|plugin|mpi|errors|chunkio|selection_io|conformance)$' -E '[.]np[134][.]|^plugin[.]foreign_mpi[.]'
}
# The route of collective transfers forced each way (docs/decisions.md D12, D20): every MPI-launched
# suite but the error tests (mpi, chunkio, selection_io...), 4 ranks (1 rank has no other rank's
# extent to route around; 2 and 3 add nothing 4 does not to a forced route, and `auto` takes each
# route on 2 ranks elsewhere: both local routes in the reference stage, the aggregating one in the
# dfs stage) under OMPIO and ROMIO, with every file's configuration ending in
# collective_route=collective, then =independent, then =aggregate with write_behind=on
# (MPIIO_TEST_CONFIG, test/support; on tmpfs `auto` never aggregates, and keeps no write behind).
# Tests that check the route auto takes skip that check when the environment forces one.
ci_forced_routes() {
  local policy failed=0
  for policy in collective independent 'aggregate;write_behind=on'; do # all run, whatever the first gives
    MPIIO_TEST_CONFIG="collective_route=$policy" run_config bookworm-openmpi 1.14.5 -L '^mpi$' -LE errors \
      -E '[.]np[123][.]' || failed=1
  done
  return $failed
}
ci_sanitize() { bash scripts/sanitize.sh; }
# Shared storage (docs/testing.md, "Shared storage"): a real distributed file system on this machine
# (scripts/dfs.sh: GlusterFS, three servers and two clients in network namespaces), the MPI
# data-path suites with their files on it and their ranks on both clients (odd ranks on the second),
# every case of them (those of many tiny calls at smaller sizes: on_dfs above), compared with the
# built-in driver's files, and the dfs suite (visibility across clients, server,
# client and space faults), the opens count (2 ranks), three of the two-host tests (scripts/multihost.sh: host b through the
# second client: layouts, host_failure, file_domains), dataset_io and file_domains on three hosts (OMPIO, 53 s on
# 2026-12-04: three MPI nodes, hosts a and c through the first client) and the crash test's shared-storage run (4 ranks killed after H5Fflush while the
# plugin keeps a rewrite behind until that flush: crash.kill_after_flush.dfs, about a minute);
# Open MPI 4.1, OMPIO and ROMIO, 2 and 4 ranks. The data-path suites run under OMPIO
# only: the plugin's own aggregating route (which `auto` takes on shared storage only, under every
# layer) moves the bytes with the same independent calls under ROMIO, which forced-routes runs on
# tmpfs; the dfs suite (visibility across the clients on every route, faults), the opens count and
# the crash run under both layers. A machine without FUSE or network namespaces fails the stage, saying why. The
# build is the reference stage's.
# Then HDF5's own testpar comparison there (scripts/conformance.sh --on-dfs: working directories on
# the volume, odd ranks on the second client), 4 ranks, OMPIO and ROMIO: the programs that exercise
# the driver's callbacks directly and quickly (t_vfd: every callback and selection I/O; t_mpi, t_pread,
# t_pflush1/2, t_pshutdown/t_prestart, t_init_term), measured 2026-12-01 at load 2.5-14 in 7-10
# minutes, t_vfd most of it (45-150 s per run); t_select_io_dset (12-15 s per run on 2026-12-02)
# since the full set found there what no tmpfs run did: pieces of several ranks overlapping on the
# aggregating route (chunks every rank writes whole). The long ones (testphdf5 296-874 s per run,
# t_filters_parallel 428-882 s, t_shapesame 58-306 s, t_pmulti_dset) run there by the documented
# command (docs/testing.md, "Shared storage"); both stages run them on tmpfs.
DFS_CONFORMANCE='t_vfd t_select_io_dset t_mpi t_pread t_pflush1 t_pflush2 t_pshutdown t_prestart t_init_term'
ci_dfs() {
  local failed=0
  bash scripts/dfs.sh --check || return 1
  scripts/build.sh --stack bookworm-openmpi --hdf5 1.14.5 >/dev/null || return 1
  bash scripts/dfs.sh --timeout 1500 -- bash scripts/test.sh --on-dfs \
    -L '^(mpi|errors|chunkio|selection_io|dfs|multihost|opens|crash)$' \
    -R '^dfs[.].*[.]np[24][.]|^multihost[.](layouts|host_failure|file_domains)[.]|^multihost3[.](dataset_io|file_domains)[.]np3[.]ompio$|^opens[.]np2[.]|[.]np2[.]ompio$|^crash[.]kill_after_flush[.]dfs$' ||
    failed=1
  bash scripts/dfs.sh --timeout 1200 -- bash scripts/conformance.sh --on-dfs --build-dir build --timeout 400 \
    --programs "$DFS_CONFORMANCE" || failed=1
  return $failed
}
# The second distributed file system (docs/testing.md, "Shared storage", "CephFS"): CephFS
# (scripts/cephfs.sh: a monitor, two OSDs keeping two replicas, an MDS, two ceph-fuse clients in
# network namespaces), what GlusterFS cannot show: clients kept coherent by the MDS's capabilities
# (no client cache settings; the visibility tests read across clients there with every cache the
# file system has on), files with a striping layout the plugin reads at open and its aggregation
# follows (ceph.file.layout: 4 MiB stripe units by default), an OSD killed under a replicated
# write, a client's session evicted, a quota-full file system. One testbed for all of it (set up
# once: about 10-25 s). Inside the 8 minutes a stage may take here (the matrix's 75 from a clean
# cache), it runs: the dfs suite (visibility on every route, faults; dfs.layout: the plugin's
# windows and aggregators from the file's layout) on 2 and 4 ranks under OMPIO and ROMIO, and the
# crash test's shared-storage run (4 ranks, both layers: the rewrite the aggregators keep until
# H5Fflush, in windows of the file's stripe units), the file domains on two simulated hosts (each
# through its own client: two nodes to MPI, an aggregator each; multihost.file_domains); on 2 ranks under OMPIO (one rank per client)
# the data paths (dataset_io), the mpi suites whose behaviour follows the file's layout or the
# aggregating route (routes, file_domains, write_behind, other_writers, stats, window_cache), the
# file's life and properties there (file_lifecycle, file_properties: open, truncate, end of file,
# hints through the MDS) and selection_io; HDF5's t_select_io_dset (aggregated selections; what
# found overlapping pieces on GlusterFS) on 4 ranks, OMPIO, built-in driver against plugin.
# Measured 2026-12-02, another developer's builds and tests beside: with t_vfd too (and view_writes;
# without crash, dataset_io, file_lifecycle, file_properties) the stage took 393 s (load 13 -> 6),
# 455 s (4 -> 9) and 500 s (6 -> 7), t_vfd 180-260 s of it (the built-in driver's run 113-182 s):
# over the 8 minutes, so t_vfd left; as it is now 300 s (load 5.6 -> 8.6: set-up 12 s, ctest 250 s,
# t_select_io_dset 29 s). Left to the dfs stage,
# where they run on GlusterFS with the same agent and variables (and to the commands in
# docs/testing.md for CephFS): t_vfd and the other quick testpar programs, ROMIO under testpar, the
# other data-path suites (metadata 30 s here, chunkio 28 s, view_writes 25 s), the opens count and
# the two-host tests.
CEPHFS_TESTS='^dfs[.].*[.]np[24][.]|^multihost[.]file_domains[.]np4[.]ompio$|^crash[.]kill_after_flush[.]dfs$|^mpi[.](dataset_io|routes|file_domains|write_behind|other_writers|stats|window_cache|file_lifecycle|file_properties)[.]np2[.]ompio$|^selection_io[.]np2[.]ompio$'
CEPHFS_CONFORMANCE='t_select_io_dset'
ci_cephfs() {
  bash scripts/cephfs.sh --check || return 1
  scripts/build.sh --stack bookworm-openmpi --hdf5 1.14.5 >/dev/null || return 1
  FOREIGN_PLUGIN=no bash scripts/cephfs.sh --timeout 900 -- bash -c '
    failed=0
    bash scripts/test.sh --on-dfs -L "^(mpi|selection_io|dfs|multihost)$" -R "$1" || failed=1
    bash scripts/conformance.sh --on-dfs --build-dir build --timeout 300 --io ompio --programs "$2" || failed=1
    exit $failed' ci_cephfs "$CEPHFS_TESTS" "$CEPHFS_CONFORMANCE"
}
# The distribution-built stacks (docs/stacks.md), each in its Debian root: the data-path suites
# under every MPI-IO layer the MPI has, the MPI-launched ones on 2-4 ranks (1 rank, the file
# without another rank, runs in the reference stage and under MPICH 4.0). The first stage of a
# suite creates its root. They build without the benchmark (MPIIO_BUILD_BENCH=OFF: no data-path
# suite runs it; a root stage's time is mostly its build).
ROOT_STAGE_SKIP='^(mpi[.][a-z_]+|chunkio[.][a-z_]+|selection_io)[.]np1[.]'
# Debian 13, Open MPI 5.0 (OMPIO, romio341) and HDF5 1.14.5; 2 and 4 ranks (3 ranks, the uneven
# split, run in the reference stage and both MPICH root stacks).
ci_trixie_openmpi() { MPIIO_BUILD_BENCH=OFF run_config trixie-openmpi "" -L "$DATA_SUITES" -E "$ROOT_STAGE_SKIP|[.]np3[.]"; }
# Debian 13, MPICH 4.2 (its ROMIO) and HDF5 1.14.5.
ci_trixie_mpich() { MPIIO_BUILD_BENCH=OFF run_config trixie-mpich "" -L "$DATA_SUITES" -E "$ROOT_STAGE_SKIP"; }
# Debian unstable, Open MPI 6.0 (OMPIO: Debian's build has no ROMIO component) and HDF5 2.2.0;
# 2 and 4 ranks.
ci_sid_openmpi() { MPIIO_BUILD_BENCH=OFF run_config sid-openmpi "" -L "$DATA_SUITES" -E "$ROOT_STAGE_SKIP|[.]np3[.]"; }
# Debian unstable, MPICH 5.0 (its ROMIO: HDF5 2.2 under ROMIO) and HDF5 2.2.0.
ci_sid_mpich() { MPIIO_BUILD_BENCH=OFF run_config sid-mpich "" -L "$DATA_SUITES" -E "$ROOT_STAGE_SKIP"; }

STAGES=(
  "openmpi-1.14.5|ci_openmpi_1145"
  "mpich-1.14.5|ci_mpich_1145"
  "openmpi-1.14.6|ci_openmpi_1146"
  "forced-routes|ci_forced_routes"
  "trixie-openmpi|ci_trixie_openmpi"
  "trixie-mpich|ci_trixie_mpich"
  "sid-openmpi|ci_sid_openmpi"
  "sid-mpich|ci_sid_mpich"
)
STAGES+=("dfs|ci_dfs")
STAGES+=("cephfs|ci_cephfs")
[ -f scripts/sanitize.sh ] && STAGES+=("sanitize|ci_sanitize")

summary=() failed=0 t_all=$SECONDS
for stage in "${STAGES[@]}"; do
  name=${stage%%|*} fn=${stage#*|}
  [ -z "${STAGE_ONLY:-}" ] || [ "$name" = "$STAGE_ONLY" ] || continue
  STAGE_ONLY_FOUND=1
  echo "[test] ==== stage $name" >&2
  t0=$SECONDS
  if ("$fn"); then result=passed; else result=FAILED; failed=1; fi
  summary+=("$(printf '%-16s %-7s %6d s' "$name" "$result" $((SECONDS - t0)))")
done
if [ -n "${STAGE_ONLY:-}" ] && [ -z "${STAGE_ONLY_FOUND:-}" ]; then
  echo "[test] no stage named '$STAGE_ONLY' (see the list at the top of $0)" >&2
  exit 2
fi
echo "[test] ==== stages (wall time):" >&2
printf '[test]   %s\n' "${summary[@]}" >&2
echo "[test]   total $((SECONDS - t_all)) s" >&2
exit $failed
