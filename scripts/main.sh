#!/usr/bin/env bash
# The main command: set up, build, and run the driver benchmark.
#
#   scripts/main.sh [options]
#
# 1. scripts/setup.sh (Debian packages + cached stock parallel HDF5; its last stdout line is the
#    HDF5 prefix),
# 2. configures build/ (-DHDF5_ROOT=<prefix>) and builds the plugin, the benchmark and the
#    redirect shim,
# 3. runs bench/h5bench_vfd (h5bench-style kernels through the built-in mpio driver, the mpiio
#    plugin and raw MPI-IO, alternating in one launch) on 4 ranks on /dev/shm, and prints the
#    table,
# 4. runs HDF5's h5perf through mpio and, via the redirect shim, through the plugin
#    (bench/h5perf.sh), when the shim was built,
# 5. keeps every output in build/bench-results/<time>/ and, for the default matrix, copies the
#    results (table.md, results.csv/json, runs.csv, chart.svg, h5perf.md/csv) to docs/bench/,
#    which the README embeds.
#
# Options (benchmark shape; any of them except --dir/--label turns publishing off unless
# --publish is given):
#   --patterns LIST   PATTERN or PATTERN/MODE list, 'default' or 'all' (h5bench_vfd --list)
#   --modes LIST      coll,ind,cd,cm for patterns given without /MODE
#   --ranks N         MPI ranks (default 4; oversubscribed, --bind-to none)
#   --io C            Open MPI MPI-IO component: ompio | romio321 (default: Open MPI's default, ompio)
#   --dir DIR         where the data files go (default /dev/shm)
#   --reps N          counted repetitions per driver (default 5)
#   --warmup N        discarded warm-up repetitions (default 1)
#   --size S          small (default) | large | tiny
#   --timesteps N     time steps per file (default 3)
#   --drivers LIST    subset of mpio,mpiio,raw
#   --label TEXT      note recorded with the results (e.g. "machine busy")
#   --no-h5perf       skip the h5perf comparison
#   --h5perf-only     only the h5perf comparison
#   --publish         copy the results to docs/bench/ even for a non-default run
#   --no-publish      never touch docs/bench/
#   --no-setup        skip scripts/setup.sh (needs HDF5_ROOT)
#   --timeout S       kill a hung benchmark after S seconds (default 1800)
# Exit status: non-zero when a build step fails, when the benchmark or h5perf reports a failure
# (wrong data read back, files that differ, an HDF5/MPI error) or on a timeout.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"

RANKS=4 IO="" DIR=/dev/shm H5PERF=1 H5PERF_ONLY=0 PUBLISH=auto SETUP=1 TIMEOUT=1800 SIZE=small LABEL=""
BENCH_ARGS=()
shaped=0
while (($#)); do
  case "$1" in
    --patterns|--modes|--reps|--warmup|--timesteps|--drivers)
      [ $# -ge 2 ] || { echo "main.sh: $1 needs a value" >&2; exit 2; }
      BENCH_ARGS+=("$1" "$2"); shaped=1; shift 2 ;;
    --size) SIZE=$2; BENCH_ARGS+=(--size "$2"); shaped=1; shift 2 ;;
    --ranks) RANKS=$2; shaped=1; shift 2 ;;
    --io) IO=$2; shaped=1; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --label) LABEL=$2; shift 2 ;;
    --no-h5perf) H5PERF=0; shift ;;
    --h5perf-only) H5PERF_ONLY=1; shift ;;
    --publish) PUBLISH=yes; shift ;;
    --no-publish) PUBLISH=no; shift ;;
    --no-setup) SETUP=0; shift ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "main.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
case "$IO" in ""|ompio|romio321|romio341) ;; *) echo "main.sh: --io must be ompio or romio321" >&2; exit 2 ;; esac
if [ "$PUBLISH" = auto ]; then
  if ((shaped)); then PUBLISH=no; else PUBLISH=yes; fi
fi
log() { echo "[main] $*" >&2; }

# ---- 1. setup ----------------------------------------------------------------------------------
if ((SETUP)); then
  log "scripts/setup.sh"
  PREFIX=$(scripts/setup.sh | tail -n 1)
else
  PREFIX=${HDF5_ROOT:?--no-setup needs HDF5_ROOT}
fi
log "HDF5 prefix: $PREFIX"

# ---- 2. build ----------------------------------------------------------------------------------
BUILD="$ROOT/build"
if [ -f "$BUILD/CMakeCache.txt" ]; then
  cmake -S "$ROOT" -B "$BUILD" -DHDF5_ROOT="$PREFIX" >/dev/null
else
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DHDF5_ROOT="$PREFIX" >/dev/null
fi
targets=(h5fd_mpiio h5bench_vfd)
# (no "cmake ... | grep -q": with pipefail, grep's early exit would fail the pipeline)
all_targets=$(cmake --build "$BUILD" --target help 2>/dev/null || true)
if [[ "$all_targets" == *h5mpiio_redirect* ]]; then
  targets+=(h5mpiio_redirect)
fi
log "building ${targets[*]}"
cmake --build "$BUILD" --target "${targets[@]}" -- -j"$(nproc)" >&2

PLUGIN_DIR="$BUILD/plugins"
BENCH="$BUILD/bench/h5bench_vfd"
SHIM="$BUILD/tools/libh5mpiio_redirect.so"
STAMP=$(date +%Y%m%d-%H%M%S)
OUT="$BUILD/bench-results/$STAMP"
mkdir -p "$OUT"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1
MPIRUN=(mpirun -n "$RANKS" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
[ -n "$IO" ] && MPIRUN+=(--mca io "$IO")
[ -n "$LABEL" ] && BENCH_ARGS+=(--label "$LABEL")

status=0
# ---- 3. the benchmark --------------------------------------------------------------------------
if ((!H5PERF_ONLY)); then
  log "$(df -h "$DIR" | tail -1 | awk '{print "'"$DIR"': " $4 " free"}')"
  log "running: ${MPIRUN[*]} $BENCH --dir $DIR --out $OUT ${BENCH_ARGS[*]}"
  set +e
  timeout --signal=TERM --kill-after=30 "$TIMEOUT" \
    "${MPIRUN[@]}" -x HDF5_PLUGIN_PATH="$PLUGIN_DIR" \
    "$BENCH" --dir "$DIR" --out "$OUT" "${BENCH_ARGS[@]}" 2> >(tee "$OUT/progress.log" >&2) | tee "$OUT/stdout.log"
  rc=${PIPESTATUS[0]}
  set -e
  # A killed or aborted run leaves its data files behind: remove them.
  work=$(sed -n 's/.*, files in \(.*h5bench_vfd\.[0-9]*\)$/\1/p' "$OUT/progress.log" | head -n 1)
  [ -n "$work" ] && [ -d "$work" ] && rm -rf "$work"
  if ((rc == 124)); then
    log "h5bench_vfd TIMED OUT after $TIMEOUT s (hung?) -- see $OUT/progress.log"; status=1
  elif ((rc != 0)); then
    log "h5bench_vfd FAILED (exit $rc) -- see the CHECKS section above and $OUT/progress.log"; status=1
  fi
fi

# ---- 4. h5perf through both drivers ------------------------------------------------------------
if ((H5PERF)); then
  if [ -f "$SHIM" ] && [ -x "$PREFIX/bin/h5perf" ]; then
    log "h5perf: built-in mpio vs the plugin through $SHIM"
    h5args=(--h5perf "$PREFIX/bin/h5perf" --shim "$SHIM" --plugin-dir "$PLUGIN_DIR" --ranks "$RANKS"
            --dir "$DIR" --out "$OUT/h5perf" --size "$([ "$SIZE" = large ] && echo large || echo small)")
    [ -n "$IO" ] && h5args+=(--io "$IO")
    if ! bench/h5perf.sh "${h5args[@]}"; then
      log "h5perf comparison FAILED -- see $OUT/h5perf/"; status=1
    fi
  else
    log "h5perf comparison skipped: needs $SHIM (tools/) and $PREFIX/bin/h5perf"
  fi
fi

# ---- 5. publish --------------------------------------------------------------------------------
if [ "$PUBLISH" = yes ]; then
  if ((status == 0)); then
    DOCS="$ROOT/docs/bench"
    mkdir -p "$DOCS"
    if ((!H5PERF_ONLY)); then
      cp "$OUT"/{table.md,table.txt,results.csv,results.json,runs.csv,chart.svg} "$DOCS/"
    fi
    if [ -f "$OUT/h5perf/h5perf.md" ]; then
      cp "$OUT/h5perf/h5perf.md" "$OUT/h5perf/h5perf.csv" "$DOCS/"
    fi
    log "published to docs/bench/ (table.md, chart.svg, results.csv/json, runs.csv, h5perf.md/csv)"
  else
    log "not publishing to docs/bench/: the run failed"
  fi
fi
log "all outputs in $OUT"
exit $status
