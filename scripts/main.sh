#!/usr/bin/env bash
# The main command: set up, build, and benchmark the mpiio plugin against HDF5's built-in mpio
# driver under every MPI-IO layer available, and publish one table per layer.
#
#   bash scripts/main.sh [options]
#
# Per MPI-IO layer -- Open MPI OMPIO, Open MPI ROMIO (--mca io <its ROMIO component, as ompi_info
# names it: romio321 in Open MPI 4.1>) and, when the project can build against it, MPICH's ROMIO --
# it runs, on /dev/shm with 4 ranks (under MPICH one per
# core, see --mpich-ranks):
#   1. bench/h5bench_vfd: the h5bench-style matrix through mpio, mpiio, raw MPI-IO and mpio again
#      (the A/A control), alternating in one launch (1 warm-up + 5 counted repetitions per case,
#      verified reads and files; time steps per case raised by --min-phase), and each row's parity
#      test against the A/A control (a flagged case is measured again with 10 repetitions); with
#      --subfiling HDF5's subfiling driver too (column mpiio/subfiling);
#   2. bench/h5bench_vfd_overhead: microseconds per tiny H5Dwrite/H5Dread call (8 bytes per
#      rank), collective and independent, and per H5Fopen + H5Fclose pair;
#   3. bench/h5perf.sh: HDF5's h5perf through mpio and, via the redirect shim, through mpiio.
# The overhead and h5perf also run the built-in driver twice (the A/A control) and give each row the
# matrix's parity verdict.
# Every output stays in build/bench-results/<time>/<layer>/: a run changes nothing else in the
# checkout (`git status` stays clean) unless --publish is given. With --publish, each layer that
# passes all checks is copied to docs/bench/<layer>/ (with --subfiling to docs/bench/subfiling/<layer>/,
# apart from the main tables; only the parts this run measured: a
# --no-matrix or --h5perf-only run keeps the layer's published matrix), and the index in
# docs/bench/README.md and the summaries (scripts/bench_summary.sh) are refreshed. The README embeds
# no table: its figures are checked against these by unit.doc_figures, which fails when a new
# publication leaves one of them in no table.
#
# Builds: Open MPI into build/ (scripts/setup.sh, then only the benchmark's targets); MPICH with
# `scripts/build.sh --mpi mpich` (its last stdout line is the build directory, e.g.
# build-mpich-1.14.5). Without MPICH support in scripts/build.sh an existing build-mpich-1.14.5/
# is used; otherwise the MPICH layer is skipped with a message (an error with --mpi mpich).
#
# With --stack S (scripts/stack.sh list) the benchmarks run on that stack: a Debian root stack
# (trixie-openmpi, sid-mpich, ...) is set up and entered (scripts/stack.sh), built there with
# scripts/build.sh --stack S, and its family's layers run (Open MPI: OMPIO and, when ompi_info lists
# one, ROMIO; MPICH: ROMIO); outputs go to build-S/bench-results/, a publishing run to
# docs/bench/S/<layer>/. h5perf needs a parallel h5perf in the HDF5 prefix (Debian ships none).
#
# Expected time on a quiet 2-core machine: 55-75 minutes with the three layers, 20-45 per root
# stack (docs/bench/README.md), plus the first build (a few minutes, more when HDF5 is not cached
# yet).
#
# Options:
#   --layers LIST     subset of ompio,romio,mpich (default: all three; mpich when available)
#   --mpi M           openmpi (= --layers ompio,romio) | mpich (= --layers mpich)
#   --io C            one Open MPI component: ompio | romio<N> (= --layers ompio | romio)
#   --stack S         a stack (scripts/stack.sh list); default: this host's Open MPI and MPICH
#   --targets         the performance targets (docs/measurements.md, "Performance targets at
#                     h5bench's large size (scripts/main.sh --targets)"): cc1d/coll and cs1d/coll
#                     at --size large (1 Mi particles per rank), 3 time steps, mpio and mpiio
#                     only, h5perf contig-coll and chunked-coll, and the overhead; OMPIO unless
#                     --layers/--io/--mpi says else. cs1d/coll dominates: minutes per phase.
#   --patterns LIST   PATTERN or PATTERN/MODE list, 'default' or 'all' (h5bench_vfd --list)
#   --modes LIST      coll,ind,cd,cm for patterns given without /MODE
#   --size S          tiny | small | medium (default) | large (1 Mi particles per rank)
#   --reps N          counted repetitions per driver (default 5)
#   --warmup N        discarded warm-up repetitions (default 1)
#   --confirm-reps N  repetitions of the rerun of a row the parity test flags (default 2 x --reps;
#                     0: no reruns, the first verdict stands)
#   --timesteps N     time steps per file (default 3)
#   --min-phase S     per case, more time steps until the built-in driver's shorter phase lasts
#                     about S seconds (default 0.2; at most 8x the steps and 512 MiB per phase; 0:
#                     every case at --timesteps). ROMIO moves the medium size in 0.01-0.05 s per
#                     phase: too short to compare drivers stably.
#   --drivers LIST    subset of mpio,mpiio,raw,mpio2,subfiling,fpp (mpio2: the built-in driver
#                     again, A/A; subfiling: HDF5's subfiling driver; fpp: the ceiling, the same
#                     bytes as one file per process with POSIX calls, column mpiio/fpp)
#   --subfiling       add HDF5's subfiling driver to h5bench_vfd's drivers (to --drivers' list when
#                     given): its default configuration, as h5bench selects it, verified through
#                     itself; column mpiio/subfiling. MPI then runs with MPI_THREAD_MULTIPLE for
#                     every driver of the matrix. Not in the default run: here subfiling takes up
#                     to 1,500x the plugin's time under Open MPI (cs1d), 15,000x under MPICH, so a
#                     matrix with it takes hours at the default size (docs/bench/README.md); the
#                     default --timeout becomes 14400. Needs a stock HDF5 built with the driver
#                     (scripts/setup.sh builds it so).
#   --ranks N         MPI ranks (default 4; Open MPI: oversubscribed, --bind-to none)
#   --mpich-ranks N   ranks under MPICH (default: the number of cores, at most --ranks). MPICH's
#                     ch4 progress engine busy-polls without yielding: oversubscribed ranks spend
#                     their time slices spinning and every collective costs several scheduler
#                     slices (10-30x Open MPI's time with mpi_yield_when_idle, measured here).
#   --dir DIR         where the data files go (default /dev/shm; with --storage dfs the testbed's
#                     shared path)
#   --storage S       tmpfs (default) | dfs: the run goes inside scripts/dfs.sh (GlusterFS, 3 servers,
#                     2 client mounts; installed and torn down by it) and only the matrix runs
#                     (--no-overhead --no-h5perf), with the servers' operations counted per driver
#                     and phase (h5bench_vfd --server-ops: server-ops.md) and, unless given,
#                     --min-phase 1 (a call costs a network round trip there: each phase long
#                     enough that open and close, 0.1-0.3 s there, do not dominate). Ranks go to
#                     both clients (odd ranks on client 2) unless --clients 1. Published to
#                     docs/bench/dfs-<N>client(s)/<layer>/ with a summary.md of their own, or at
#                     another --size than the default to docs/bench/dfs-<N>client(s)-<size>/.
#                     cephfs: the same inside scripts/cephfs.sh (CephFS, two OSDs, an MDS, 2
#                     ceph-fuse mounts), published to docs/bench/cephfs-<N>client(s)/<layer>/.
#   --clients N       with --storage dfs or cephfs: 2 (default) or 1 client mounts for the ranks
#   --nodes N         with --storage dfs or cephfs: the ranks on N simulated hosts that MPI sees as
#                     N nodes (scripts/multihost.sh: own host name, network, IPC and /dev/shm, TCP
#                     between them, Open MPI's rsh agent), each host through its own client of the
#                     file system, --ranks / N ranks each; so the plugin has an aggregator per node.
#                     2 (the testbeds' two clients; 1: the default, one MPI node). Open MPI's layers
#                     only (MPICH 4.0's UCX is unreliable across the simulated hosts:
#                     test/multihost/CMakeLists.txt). Published to docs/bench/<storage>-<N>nodes/.
#                     The drivers (unless --drivers) add fpp: the file-per-process ceiling.
#   --plugin-config S the mpiio driver's configuration string for this run (h5bench_vfd
#                     --plugin-config; e.g. "collective_route=independent"): how a key would change
#                     a table, by hand. Not with --publish: the tables show the defaults.
#   --label TEXT      note recorded with the results (e.g. "machine busy")
#   --no-matrix       skip h5bench_vfd
#   --no-overhead     skip the per-operation overhead
#   --overhead-ops N  calls per overhead loop (default auto: about 0.5 s per loop, 500-5000)
#   --no-h5perf       skip h5perf
#   --h5perf-only     only h5perf (= --no-matrix --no-overhead)
#   --h5perf-configs LIST  h5perf configurations (bench/h5perf.sh --configs; default all)
#   --h5perf-launches N    launch triplets per h5perf configuration (default 5)
#   --publish         publish a passing run to docs/bench/ (tables, index, summaries)
#   --no-publish      accepted for compatibility: not publishing is the default
#   --no-setup        skip scripts/setup.sh for Open MPI (needs HDF5_ROOT)
#   --timeout S       kill a hung benchmark launch after S seconds (default 3600; 14400 with
#                     --subfiling)
# Exit status: non-zero when a build step fails, when a benchmark reports a failure (wrong data
# read back, files that differ, an HDF5/MPI error), on a timeout, or when --mpi mpich / --layers
# mpich was asked for and MPICH is not available.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

ARGS=("$@") STACK="" STACK_SUITE=bookworm STACK_LAYERS=""
LAYERS="" RANKS=4 DIR=/dev/shm SIZE=medium MIN_PHASE=0.2 min_phase_given=0 LABEL="" PUBLISH=no SETUP=1 TIMEOUT=3600
SUBFILING=0 STORAGE=tmpfs CLIENTS=2 NODES=1 dir_given=0 overhead_given=0 h5perf_given=0
MPICH_RANKS="" MATRIX=1 OVERHEAD=1 H5PERF=1 OVERHEAD_OPS=auto H5PERF_CONFIGS="" H5PERF_LAUNCHES=5 TARGETS=0
BENCH_ARGS=() PLUGIN_CONFIG=""
shaped=0 size_given=0 timeout_given=0
need() { [ $# -ge 2 ] || { echo "main.sh: $1 needs a value" >&2; exit 2; }; }
while (($#)); do
  case "$1" in
    --patterns|--modes|--reps|--warmup|--timesteps|--drivers|--confirm-reps)
      need "$@"; BENCH_ARGS+=("$1" "$2"); shaped=1; shift 2 ;;
    --size) need "$@"; SIZE=$2; size_given=1; shaped=1; shift 2 ;;
    --min-phase) need "$@"; MIN_PHASE=$2; min_phase_given=1; shaped=1; shift 2 ;;
    --layers) need "$@"; LAYERS=$2; shaped=1; shift 2 ;;
    --mpi)
      need "$@"
      case "$2" in openmpi) LAYERS=ompio,romio ;; mpich) LAYERS=mpich ;;
        *) echo "main.sh: --mpi must be openmpi or mpich" >&2; exit 2 ;; esac
      shaped=1; shift 2 ;;
    --io)
      need "$@"
      case "$2" in ompio) LAYERS=ompio ;; romio|romio[0-9]*) LAYERS=romio ;;
        *) echo "main.sh: --io must be ompio or romio<N> (ompi_info's name)" >&2; exit 2 ;; esac
      shaped=1; shift 2 ;;
    --targets) TARGETS=1; shaped=1; shift ;;
    --subfiling) SUBFILING=1; shift ;;
    --stack) need "$@"; STACK=$2; shift 2 ;;
    --ranks) need "$@"; RANKS=$2; shaped=1; shift 2 ;;
    --mpich-ranks) need "$@"; MPICH_RANKS=$2; shaped=1; shift 2 ;;
    --dir) need "$@"; DIR=$2; dir_given=1; shift 2 ;;
    --storage)
      need "$@"
      case "$2" in tmpfs|dfs|cephfs) STORAGE=$2 ;; *) echo "main.sh: --storage must be tmpfs, dfs or cephfs" >&2; exit 2 ;; esac
      shift 2 ;;
    --clients)
      need "$@"
      case "$2" in 1|2) CLIENTS=$2 ;; *) echo "main.sh: --clients must be 1 or 2" >&2; exit 2 ;; esac
      shaped=1; shift 2 ;;
    --nodes)
      need "$@"
      case "$2" in 1|2) NODES=$2 ;; *) echo "main.sh: --nodes must be 1 or 2 (the testbeds have two clients)" >&2; exit 2 ;; esac
      shaped=1; shift 2 ;;
    --label) need "$@"; LABEL=$2; shift 2 ;;
    --plugin-config) need "$@"; BENCH_ARGS+=(--plugin-config "$2"); PLUGIN_CONFIG=$2; shift 2 ;;
    --no-matrix) MATRIX=0; shaped=1; shift ;;
    --no-overhead) OVERHEAD=0; overhead_given=1; shaped=1; shift ;;
    --overhead-ops) need "$@"; OVERHEAD_OPS=$2; shaped=1; shift 2 ;;
    --no-h5perf) H5PERF=0; h5perf_given=1; shaped=1; shift ;;
    --h5perf-only) MATRIX=0; OVERHEAD=0; shaped=1; shift ;;
    --h5perf-configs) need "$@"; H5PERF_CONFIGS=$2; shaped=1; shift 2 ;;
    --h5perf-launches) need "$@"; H5PERF_LAUNCHES=$2; shaped=1; shift 2 ;;
    --publish) PUBLISH=yes; shift ;;
    --no-publish) PUBLISH=no; shift ;;
    --no-setup) SETUP=0; shift ;;
    --timeout) need "$@"; TIMEOUT=$2; timeout_given=1; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "main.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
if ((TARGETS)); then
  # The targets: h5bench CONTIG/CONTIG and CONTIG/STRIDED, collective, write and read.
  # Raw MPI-IO is left out: cs1d/coll at this size takes minutes per phase and driver.
  BENCH_ARGS+=(--patterns cc1d/coll,cs1d/coll --drivers mpio,mpiio)
  ((size_given)) || SIZE=large
  ((min_phase_given)) || MIN_PHASE=0 # the large size is long enough
  [ -n "$LAYERS" ] || LAYERS=ompio
  [ -n "$H5PERF_CONFIGS" ] || H5PERF_CONFIGS=contig-coll,chunked-coll
fi
if ((NODES > 1)); then
  [ "$STORAGE" != tmpfs ] || { echo "main.sh: --nodes needs --storage dfs or cephfs" >&2; exit 2; }
  ((CLIENTS == 2)) || { echo "main.sh: --nodes and --clients 1 exclude each other (each node has its own client)" >&2; exit 2; }
  ((RANKS % NODES == 0)) || { echo "main.sh: --ranks must be a multiple of --nodes" >&2; exit 2; }
  [[ ",$LAYERS," != *,mpich,* ]] || { echo "main.sh: --nodes runs Open MPI's layers only (MPICH 4.0's UCX is unreliable across the simulated hosts)" >&2; exit 2; }
  [ -n "$LAYERS" ] || LAYERS=ompio,romio
  # The ceiling a shared file is measured against at cluster shape: the same bytes, a file per rank.
  [[ " ${BENCH_ARGS[*]} " == *" --drivers "* ]] || BENCH_ARGS+=(--drivers mpio,mpiio,raw,mpio2,fpp)
fi
# A testbed's storage (dfs: GlusterFS, cephfs: CephFS): its script sets it up around this one.
on_testbed() { [ "$STORAGE" != tmpfs ]; }
if on_testbed; then
  ((dir_given)) && { echo "main.sh: --dir and --storage $STORAGE exclude each other" >&2; exit 2; }
  [ -z "$STACK" ] || { echo "main.sh: --storage $STORAGE runs on this host's stacks only" >&2; exit 2; }
  if [ -z "${MPIIO_DFS_CTL:-}" ]; then # not inside the testbed yet: set it up around this script
    testbed=$([ "$STORAGE" = dfs ] && echo dfs || echo cephfs)
    exec bash "scripts/$testbed.sh" --timeout 86400 -- bash "${BASH_SOURCE[0]}" "${ARGS[@]}"
  fi
  DIR=$MPIIO_DFS_DIR
  # (scripts/multihost.sh maps a directory below the testbed's path to the second client on host b)
  ((NODES == 1)) || DIR=$MPIIO_DFS_DIR/bench
  BENCH_ARGS+=(--server-ops "$MPIIO_DFS_CTL")
  ((min_phase_given)) || MIN_PHASE=1
  ((overhead_given)) || OVERHEAD=0
  ((h5perf_given)) || H5PERF=0
  placement="ranks on $CLIENTS client$( ((CLIENTS == 1)) || echo s)"
  ((NODES == 1)) || placement="$NODES nodes of $((RANKS / NODES)) ranks, each node through its own client"
  if [ "$STORAGE" = dfs ]; then
    [ -n "$LABEL" ] || LABEL="GlusterFS testbed (disperse 2+1 over 3 servers, client caches off), $placement"
  else
    [ -n "$LABEL" ] || LABEL="CephFS testbed (2 OSDs, 2 replicas, 1 MDS, ceph-fuse page cache off), $placement"
  fi
fi
if ((SUBFILING)); then
  ((timeout_given)) || TIMEOUT=14400 # a launch with subfiling is long, not hung
  # subfiling joins the last --drivers list given (h5bench_vfd takes the last), or the default one.
  drivers_at=-1
  for i in "${!BENCH_ARGS[@]}"; do [ "${BENCH_ARGS[$i]}" = --drivers ] && drivers_at=$((i + 1)); done
  if ((drivers_at < 0)); then
    BENCH_ARGS+=(--drivers mpio,mpiio,raw,mpio2,subfiling)
  elif [[ ",${BENCH_ARGS[$drivers_at]}," != *,subfiling,* ]]; then
    BENCH_ARGS[drivers_at]+=,subfiling
  fi
fi
if [ -n "$STACK" ]; then
  read -r STACK_SUITE STACK_FAMILY <<<"$(scripts/stack.sh info "$STACK")"
  if [ "$STACK_SUITE" != bookworm ] && [ "${MPIIO_VFD_STACK_SUITE:-}" != "$STACK_SUITE" ]; then
    scripts/setup.sh --stack "$STACK" >/dev/null
    exec scripts/stack.sh run "$STACK" bash scripts/main.sh "${ARGS[@]}"
  fi
  STACK_LAYERS=$([ "$STACK_FAMILY" = mpich ] && echo mpich || echo ompio,romio)
fi
BENCH_ARGS+=(--size "$SIZE" --min-phase "$MIN_PHASE")
[ -z "$PLUGIN_CONFIG" ] || LABEL="${LABEL:+$LABEL; }mpiio configuration: $PLUGIN_CONFIG"
[ -n "$LABEL" ] && BENCH_ARGS+=(--label "$LABEL")
explicit_layers=0
if [ -n "$LAYERS" ]; then explicit_layers=1; else LAYERS=${STACK_LAYERS:-ompio,romio,mpich}; fi
IFS=, read -r -a layer_list <<<"$LAYERS"
for l in "${layer_list[@]}"; do
  case "$l" in ompio|romio|mpich) ;; *) echo "main.sh: unknown layer $l (ompio, romio, mpich)" >&2; exit 2 ;; esac
done
if [ "$PUBLISH" = yes ] && [ -n "$PLUGIN_CONFIG" ]; then
  echo "main.sh: --plugin-config and --publish exclude each other (the tables show the defaults)" >&2
  exit 2
fi
if [ "$PUBLISH" = yes ] && ((shaped)); then
  echo "[main] note: --publish with options that shape the benchmark: docs/bench/ will show this run" >&2
fi
CORES=$(getconf _NPROCESSORS_ONLN)
[ -n "$MPICH_RANKS" ] || MPICH_RANKS=$((CORES < RANKS ? CORES : RANKS))
log() { echo "[main] $*" >&2; }
has_layer() { [[ ",$LAYERS," == *",$1,"* ]]; }

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
STAMP=$(date +%Y%m%d-%H%M%S)
OUT="$ROOT/build/bench-results/$STAMP" PUBLISH_DIR="$ROOT/docs/bench"
if [ "$STACK_SUITE" != bookworm ]; then
  OUT="$ROOT/build-$STACK/bench-results/$STAMP" PUBLISH_DIR="$ROOT/docs/bench/$STACK"
fi
# A run with subfiling publishes apart (docs/bench[/S]/subfiling/<layer>/, its own summary.md):
# subfiling takes hours at the main tables' size, so such runs are shaped smaller and must not
# replace them.
((SUBFILING)) && PUBLISH_DIR="$PUBLISH_DIR/subfiling"
# Runs on the distributed file system publish apart too (docs/bench/dfs-<N>client(s)/<layer>/):
# other storage; a size other than the default apart again (the tables compare at one size).
if on_testbed; then
  shape="${CLIENTS}client$( ((CLIENTS == 1)) || echo s)"
  ((NODES == 1)) || shape="${NODES}nodes"
  PUBLISH_DIR="$PUBLISH_DIR/$STORAGE-$shape"
  [ "$SIZE" = medium ] || PUBLISH_DIR="$PUBLISH_DIR-$SIZE"
fi
mkdir -p "$OUT"
T0=$SECONDS
log "load average at start: $(cut -d' ' -f1-3 /proc/loadavg) ($CORES cores); outputs in $OUT"

# ---- builds ------------------------------------------------------------------------------------
# build_openmpi: sets OMPI_BUILD and OMPI_PREFIX (the stock HDF5 built with Open MPI).
build_openmpi() {
  if [ "$STACK_SUITE" != bookworm ]; then
    OMPI_BUILD="$ROOT/$(scripts/build.sh --stack "$STACK" | tail -n 1)" OMPI_PREFIX=""
    return
  fi
  if ((SETUP)); then
    log "scripts/setup.sh"
    OMPI_PREFIX=$(scripts/setup.sh | tail -n 1)
  else
    OMPI_PREFIX=${HDF5_ROOT:?--no-setup needs HDF5_ROOT}
  fi
  OMPI_BUILD="$ROOT/build"
  log "Open MPI build: HDF5 $OMPI_PREFIX -> $OMPI_BUILD"
  if [ -f "$OMPI_BUILD/CMakeCache.txt" ]; then
    cmake -S "$ROOT" -B "$OMPI_BUILD" -DHDF5_ROOT="$OMPI_PREFIX" >/dev/null
  else
    cmake -S "$ROOT" -B "$OMPI_BUILD" -G Ninja -DHDF5_ROOT="$OMPI_PREFIX" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  fi
  local targets=(h5fd_mpiio h5bench_vfd h5bench_vfd_overhead h5bench_vfd_parity) all
  ((NODES == 1)) || targets+=(multihost_probe) # (scripts/multihost.sh checks the nodes with it)
  # (no "cmake ... | grep -q": with pipefail, grep's early exit would fail the pipeline)
  all=$(cmake --build "$OMPI_BUILD" --target help 2>/dev/null || true)
  [[ "$all" == *h5mpiio_redirect* ]] && targets+=(h5mpiio_redirect)
  log "building ${targets[*]}"
  cmake --build "$OMPI_BUILD" --target "${targets[@]}" -- -j"$(nproc)" >&2
}

# build_mpich: sets MPICH_BUILD and MPICH_PREFIX; returns 1 (with a message) when MPICH is not
# available to this checkout.
build_mpich() {
  MPICH_BUILD=""
  if [ "$STACK_SUITE" != bookworm ]; then
    MPICH_BUILD="$ROOT/$(scripts/build.sh --stack "$STACK" | tail -n 1)" MPICH_PREFIX=""
    return
  fi
  if grep -q -- '--mpi' scripts/build.sh; then
    log "scripts/build.sh --mpi mpich"
    local dir
    if ! dir=$(scripts/build.sh --mpi mpich | tail -n 1); then
      log "MPICH build FAILED (scripts/build.sh --mpi mpich)"; return 1
    fi
    [[ "$dir" == /* ]] || dir="$ROOT/$dir"
    MPICH_BUILD=$dir
  elif [ -f "$ROOT/build-mpich-1.14.5/CMakeCache.txt" ]; then
    log "scripts/build.sh has no --mpi option yet; using the existing $ROOT/build-mpich-1.14.5"
    MPICH_BUILD="$ROOT/build-mpich-1.14.5"
    local targets=(h5fd_mpiio h5bench_vfd h5bench_vfd_overhead h5bench_vfd_parity) all
    all=$(cmake --build "$MPICH_BUILD" --target help 2>/dev/null || true)
    [[ "$all" == *h5mpiio_redirect* ]] && targets+=(h5mpiio_redirect)
    cmake --build "$MPICH_BUILD" --target "${targets[@]}" >&2 || return 1
  else
    log "MPICH layer skipped: scripts/build.sh has no --mpi option (MPICH support not merged yet) and there is no build-mpich-1.14.5/"
    return 1
  fi
  command -v mpirun.mpich >/dev/null || { log "MPICH layer skipped: no mpirun.mpich"; return 1; }
  # The HDF5 the MPICH build uses: h5dump's directory is <prefix>/bin.
  local h5dump
  h5dump=$(sed -n 's/^MPIIO_VFD_H5DUMP:[A-Z]*=//p' "$MPICH_BUILD/CMakeCache.txt")
  if [ -n "$h5dump" ]; then
    MPICH_PREFIX=$(dirname "$(dirname "$h5dump")")
  else
    MPICH_PREFIX=$(sed -n 's/^HDF5_ROOT:[A-Z]*=//p' "$MPICH_BUILD/CMakeCache.txt")
  fi
  log "MPICH build: $MPICH_BUILD (HDF5 ${MPICH_PREFIX:-unknown})"
}

# ---- launchers ---------------------------------------------------------------------------------
# launcher <layer> <VAR=value>...: fills LAUNCH with the mpirun command line passing those
# variables to every rank.
launcher() {
  local layer=$1; shift
  if ((NODES > 1)); then # each simulated host its own node and client (scripts/multihost.sh)
    LAUNCH=(bash "$ROOT/scripts/multihost.sh" --hosts "$NODES" --per-host "$((RANKS / NODES))"
            --io "$(io_component "$layer")" --shared "$DIR" --timeout "$TIMEOUT"
            --probe "$OMPI_BUILD/test/multihost/multihost_probe")
    for kv in "$@"; do LAUNCH+=(--env "$kv"); done
    LAUNCH+=(--)
    return 0
  fi
  on_testbed && set -- "$@" MPIIO_DFS_CLIENTS="$CLIENTS"
  if [ "$layer" = mpich ]; then
    LAUNCH=(mpirun.mpich -n "$MPICH_RANKS")
    for kv in "$@"; do LAUNCH+=(-genv "${kv%%=*}" "${kv#*=}"); done
    # On the testbed every rank starts through its agent, which puts odd ranks on client 2.
    on_testbed && LAUNCH+=("$MPIIO_DFS_AGENT")
  else
    LAUNCH=(mpirun -n "$RANKS" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1
            --mca io "$(io_component "$layer")")
    on_testbed && LAUNCH+=(--mca orte_fork_agent "$MPIIO_DFS_AGENT")
    for kv in "$@"; do LAUNCH+=(-x "$kv"); done
  fi
  return 0
}

# io_component <ompio|romio>: the Open MPI io component, as the Open MPI build found it
# (ompi_info's name, in its CMake cache: romio321 in Open MPI 4.1, romio341 in 5.0).
io_component() {
  [ "$1" = romio ] || { echo ompio; return; }
  sed -n 's/^MPIIO_TEST_IO_COMPONENTS:[A-Z]*=//p' "$OMPI_BUILD/CMakeCache.txt" | tr ';' '\n' | grep '^romio' | head -n 1
}

# remove_work_dir <progress log>: a killed or aborted launch leaves its data files behind.
remove_work_dir() {
  local work
  work=$(sed -n 's/.*, files in \(.*h5bench_vfd\.[0-9]*\)$/\1/p' "$1" | head -n 1)
  if [ -n "$work" ] && [ -d "$work" ]; then rm -rf "$work"; fi
}

# timed_launch <name> <outdir> <command...>: runs with the timeout, stdout/stderr kept in
# <outdir>/<name>.{out,log}; returns 0 or 1 with a message.
timed_launch() {
  local name=$1 dir=$2 rc; shift 2
  set +e
  timeout --foreground --signal=TERM --kill-after=30 "$TIMEOUT" "$@" 2> >(tee "$dir/$name.log" >&2) | tee "$dir/$name.out"
  rc=${PIPESTATUS[0]}
  set -e
  sleep 0.2 # let tee finish the log
  remove_work_dir "$dir/$name.log"
  if ((rc == 124)); then
    log "$name TIMED OUT after $TIMEOUT s (hung?) -- see $dir/$name.log"; return 1
  elif ((rc != 0)); then
    log "$name FAILED (exit $rc) -- see $dir/$name.log"; return 1
  fi
}

# ---- one layer ---------------------------------------------------------------------------------
# run_layer <layer> <build dir> <hdf5 prefix>: every selected benchmark; returns 1 on a failure.
run_layer() {
  local layer=$1 build=$2 prefix=$3 failed=0
  local dir="$OUT/$layer"
  mkdir -p "$dir"
  log "==== $layer: $(cut -d' ' -f1-3 /proc/loadavg) load, $((SECONDS - T0)) s since start ===="
  launcher "$layer" HDF5_PLUGIN_PATH="$build/plugins"
  if ((MATRIX)); then
    log "$layer: ${LAUNCH[*]} h5bench_vfd --dir $DIR --out $dir ${BENCH_ARGS[*]}"
    timed_launch h5bench_vfd "$dir" "${LAUNCH[@]}" "$build/bench/h5bench_vfd" --dir "$DIR" --out "$dir" \
      "${BENCH_ARGS[@]}" || failed=1
  fi
  if ((OVERHEAD)); then
    mkdir -p "$dir/overhead"
    log "$layer: per-operation overhead ($OVERHEAD_OPS calls per loop)"
    timed_launch h5bench_vfd_overhead "$dir/overhead" "${LAUNCH[@]}" "$build/bench/h5bench_vfd_overhead" \
      --ops "$OVERHEAD_OPS" --dir "$DIR" --out "$dir/overhead" ${LABEL:+--label "$LABEL"} || failed=1
  fi
  if ((H5PERF)); then
    local shim="$build/tools/libh5mpiio_redirect.so"
    if [ -f "$shim" ] && [ -x "$prefix/bin/h5perf" ]; then
      local args=(--h5perf "$prefix/bin/h5perf" --shim "$shim" --plugin-dir "$build/plugins"
                  --parity "$build/bench/h5bench_vfd_parity"
                  --ranks "$([ "$layer" = mpich ] && echo "$MPICH_RANKS" || echo "$RANKS")"
                  --dir "$DIR" --out "$dir/h5perf" --launches "$H5PERF_LAUNCHES"
                  --size "$SIZE")
      if [ "$layer" = mpich ]; then args+=(--mpi mpich); else args+=(--mpi openmpi --io "$(io_component "$layer")"); fi
      [ -n "$H5PERF_CONFIGS" ] && args+=(--configs "$H5PERF_CONFIGS")
      log "$layer: h5perf, built-in mpio vs the plugin through $shim"
      timeout --foreground --signal=TERM --kill-after=30 "$TIMEOUT" bench/h5perf.sh "${args[@]}" || { log "$layer: h5perf FAILED -- see $dir/h5perf/"; failed=1; }
    else
      log "$layer: h5perf skipped: needs $shim (tools/) and $prefix/bin/h5perf"
    fi
  fi
  return $failed
}

# ---- publish -----------------------------------------------------------------------------------
# embed_marked <file> <dir>: replaces the text between "<!-- bench:X -->" and "<!-- /bench:X -->"
# in <file> with <dir>/X, for every X that exists there; reports the X that have no marker.
embed_marked() {
  local file=$1 dir=$2 tmp key
  if [ ! -f "$file" ]; then log "${file#"$ROOT"/} not found: nothing embedded"; return 0; fi
  tmp=$(mktemp)
  awk -v docs="$dir" '
    match($0, /^<!-- bench:[^ ]+ -->$/) {
      key = substr($0, 12, length($0) - 15); file = docs "/" key
      print
      if ((getline probe < file) > 0) {
        print probe; while ((getline line < file) > 0) print line; close(file)
        skipping = key; next
      }
      next
    }
    skipping != "" && $0 == "<!-- /bench:" skipping " -->" { skipping = ""; print; next }
    skipping == "" { print }
  ' "$file" >"$tmp"
  cat "$tmp" >"$file"
  rm -f "$tmp"
  for key in "${@:3}"; do
    grep -qxF "<!-- bench:$key -->" "$file" || log "${file#"$ROOT"/}: no <!-- bench:$key --> marker, not embedded"
  done
}

# published_dirs: every published layer's directory under docs/bench/, relative to it
# (ompio, romio, mpich for this host's stacks; <stack>/<layer> for the Debian root stacks).
published_dirs() {
  (cd "$ROOT/docs/bench" && find . -name results.json -printf '%h\n' | sed 's|^\./||' | sort)
}

# publish_index: the table of published layers in docs/bench/README.md (between
# <!-- bench:index.md --> and <!-- /bench:index.md -->): when each was measured, its files.
publish_index() {
  local tmp l json started load files f
  tmp=$(mktemp -d)
  {
    echo "| stack / layer | measured | load average at start | files |"
    echo "|---|---|---|---|"
    for l in $(published_dirs); do
      json="$ROOT/docs/bench/$l/results.json"
      started=$(sed -n 's/.*"started": "\([^"]*\)".*/\1/p' "$json" | head -n 1)
      load=$(sed -n 's/.*"loadavg_start": "\([^"]*\)".*/\1/p' "$json" | head -n 1)
      files=""
      for f in table.md chart.svg results.csv runs.csv results.json overhead.md h5perf.md; do
        [ -f "$ROOT/docs/bench/$l/$f" ] && files+="${files:+, }[$f]($l/$f)"
      done
      echo "| \`$l/\` | ${started:-?} | ${load:-?} | $files |"
    done
  } >"$tmp/index.md"
  embed_marked "$ROOT/docs/bench/README.md" "$tmp" index.md
  rm -rf "$tmp"
}

# replace_part <from> <to> <main file> <other files>...: when <from>/<main file> exists (this run
# measured that part), every listed file in <to> is replaced by <from>'s copy, or removed when
# <from> has none, so that no file of an older run of the part stays; otherwise <to> keeps them.
replace_part() {
  local from=$1 to=$2 f
  shift 2
  [ -f "$from/$1" ] || return 0
  for f; do
    rm -f "$to/$f"
    if [ -f "$from/$f" ]; then cp "$from/$f" "$to/"; fi
  done
}

# publish_layer <layer>: the layer's published files of each part this run measured (matrix,
# overhead, h5perf); a part it did not measure (--h5perf-only, --no-overhead, a stack without
# h5perf, ...) keeps its published files.
publish_layer() {
  local src="$OUT/$1" dst="$PUBLISH_DIR/$1"
  mkdir -p "$dst"
  replace_part "$src" "$dst" results.csv table.md table.txt results.json runs.csv chart.svg server-ops.md server-ops.csv
  replace_part "$src/overhead" "$dst" overhead.csv overhead.md overhead-parity.csv
  replace_part "$src/h5perf" "$dst" h5perf.csv h5perf.md h5perf-parity.csv
  log "published $1 to ${dst#"$ROOT"/}/"
}

# ---- run ---------------------------------------------------------------------------------------
status=0
ran=()
if has_layer ompio || has_layer romio; then
  build_openmpi
fi
for layer in "${layer_list[@]}"; do
  if [ "$layer" = mpich ]; then
    if ! build_mpich; then
      if ((explicit_layers)); then status=1; fi
      continue
    fi
    build=$MPICH_BUILD prefix=$MPICH_PREFIX
  else
    build=$OMPI_BUILD prefix=$OMPI_PREFIX
    if [ -z "$(io_component "$layer")" ]; then # an Open MPI without ROMIO (Debian's 6.0)
      log "$layer layer skipped: this Open MPI has no ROMIO io component (ompi_info)"
      if ((explicit_layers)); then status=1; fi
      continue
    fi
  fi
  if run_layer "$layer" "$build" "$prefix"; then
    ran+=("$layer")
    [ "$PUBLISH" = yes ] && publish_layer "$layer"
  else
    status=1
    log "$layer FAILED: not published"
  fi
done
if [ "$PUBLISH" = yes ] && ((${#ran[@]})); then
  publish_index
  bash scripts/bench_summary.sh "$ROOT/docs/bench" >"$ROOT/docs/bench/summary.md"
  [ "$PUBLISH_DIR" = "$ROOT/docs/bench" ] || bash scripts/bench_summary.sh "$PUBLISH_DIR" >"$PUBLISH_DIR/summary.md"
  log "docs/bench/README.md index and summaries refreshed (ctest -R unit.doc_figures checks the docs' figures)"
elif ((${#ran[@]})); then
  log "not published (--publish publishes a passing run to docs/bench/)"
fi
log "load average at end: $(cut -d' ' -f1-3 /proc/loadavg); total $((SECONDS - T0)) s"
for layer in "${ran[@]}"; do
  log "$layer: $OUT/$layer/{table.md,table.txt,overhead/overhead.md,h5perf/h5perf.md}"
done
log "all outputs in $OUT"
exit $status
