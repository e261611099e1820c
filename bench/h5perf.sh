#!/usr/bin/env bash
# HDF5's own h5perf (PHDF5 and MPIIO APIs) through the built-in mpio driver and, with the
# LD_PRELOAD redirect shim (tools/libh5mpiio_redirect.so: H5Pset_fapl_mpio selects the mpiio
# plugin), through the plugin. Same h5perf binary, same arguments. Per configuration, --launches
# launch pairs alternate (mpio then mpiio, then mpiio then mpio, ...), each launch with
# --iterations h5perf iterations; the summary takes, per driver, the median over launches of
# h5perf's average throughput, and mpiio/mpio as the median of the per-pair ratios with their
# range. h5perf's "MPIO" API rows are its own raw MPI-IO baseline, measured in the same launches.
# The headline is the two issue-10 targets: contiguous and chunked collective write.
#
#   bench/h5perf.sh --h5perf <hdf5>/bin/h5perf --shim build/tools/libh5mpiio_redirect.so \
#                   --plugin-dir build/plugins [--mpi openmpi|mpich] [--ranks 4]
#                   [--io ompio|romio321] [--dir /dev/shm] [--out DIR] [--launches 5]
#                   [--iterations 3] [--size small|medium|large] [--configs a,b,...]
#
#   --mpi       openmpi (default: mpirun --oversubscribe --bind-to none [--mca io C]) or mpich
#               (mpirun.mpich; --io does not apply)
#   --configs   subset of contig-coll,chunked-coll,contig-ind,interleaved-coll,interleaved-ind
#               (default all)
#   --size      small: 8 MiB per process per dataset; medium (default): 32 MiB; large: 64 MiB.
#               At 8 MiB a phase lasts 5-30 ms here and single launches spread 0.4-1.5x.
#
# Writes <out>/h5perf.csv (every number h5perf printed, per launch), <out>/h5perf.md (summary)
# and <out>/h5perf-<config>-<driver>-<launch>.log. Before measuring a configuration it runs it
# once through the plugin with h5perf's data verification (-D v) and the plugin's statistics on.
# Exits non-zero if a run fails, if that verification fails, or if the plugin is not actually
# used under the shim.
set -euo pipefail

H5PERF="" SHIM="" PLUGIN_DIR="" MPI=openmpi RANKS=4 IO="" DIR=/dev/shm OUT=h5perf-results ITER=3 LAUNCHES=5
SIZE=medium CONFIGS=""
while (($#)); do
  case "$1" in
    --h5perf) H5PERF=$2; shift 2 ;;
    --shim) SHIM=$2; shift 2 ;;
    --plugin-dir) PLUGIN_DIR=$2; shift 2 ;;
    --mpi) MPI=$2; shift 2 ;;
    --ranks) RANKS=$2; shift 2 ;;
    --io) IO=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --iterations) ITER=$2; shift 2 ;;
    --launches) LAUNCHES=$2; shift 2 ;;
    --size) SIZE=$2; shift 2 ;;
    --configs) CONFIGS=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d'; exit 0 ;;
    *) echo "h5perf.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for v in H5PERF SHIM PLUGIN_DIR; do
  [ -n "${!v}" ] || { echo "h5perf.sh: --$(echo $v | tr 'A-Z_' 'a-z-') is required" >&2; exit 2; }
done
[ -x "$H5PERF" ] || { echo "h5perf.sh: $H5PERF is not executable" >&2; exit 2; }
[ -f "$SHIM" ] || { echo "h5perf.sh: shim $SHIM not found" >&2; exit 2; }
[ -f "$PLUGIN_DIR/libh5fd_mpiio.so" ] || { echo "h5perf.sh: no libh5fd_mpiio.so in $PLUGIN_DIR" >&2; exit 2; }
case "$MPI" in openmpi|mpich) ;; *) echo "h5perf.sh: --mpi must be openmpi or mpich" >&2; exit 2 ;; esac
SHIM=$(readlink -f "$SHIM"); PLUGIN_DIR=$(readlink -f "$PLUGIN_DIR")
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}

# Per-process bytes per dataset.
case "$SIZE" in
  small|tiny) E=8M ;;
  medium) E=32M ;;
  large) E=64M ;;
  *) echo "h5perf.sh: --size must be small, medium or large" >&2; exit 2 ;;
esac
# name | h5perf arguments (besides -A -i -p -P). The first two are the issue-10 targets.
ALL_CONFIGS=(
  "contig-coll|-C -e $E -x 1M -X 1M -B 1M"
  "chunked-coll|-c -C -e $E -x 1M -X 1M -B 256K"
  "contig-ind|-e $E -x 1M -X 1M -B 1M"
  "interleaved-coll|-C -I -e $E -x 256K -X 256K -B 4K"
  "interleaved-ind|-I -e $E -x 256K -X 256K -B 4K"
)
selected=()
for c in "${ALL_CONFIGS[@]}"; do
  name=${c%%|*}
  if [ -z "$CONFIGS" ] || [[ ",$CONFIGS," == *",$name,"* ]]; then selected+=("$c"); fi
done
((${#selected[@]})) || { echo "h5perf.sh: no config selected" >&2; exit 2; }

if [ "$MPI" = mpich ]; then
  LAYER="MPICH ROMIO" IOLABEL="ROMIO (MPICH)"
  MPIRUN=(mpirun.mpich -n "$RANKS")
  setenv() { printf -- '-genv\n%s\n%s\n' "$1" "$2"; } # hydra: -genv NAME VALUE
else
  case "$IO" in romio*) LAYER="Open MPI ROMIO" ;; *) LAYER="Open MPI OMPIO" ;; esac
  IOLABEL=${IO:-default (ompio)}
  MPIRUN=(mpirun -n "$RANKS" --oversubscribe --bind-to none --mca mpi_yield_when_idle 1)
  [ -n "$IO" ] && MPIRUN+=(--mca io "$IO")
  setenv() { printf -- '-x\n%s=%s\n' "$1" "$2"; }
fi
WORK="$DIR/h5perf.$$"
mkdir -p "$WORK"
trap 'rm -rf "$WORK"' EXIT
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# run <driver> <log> <h5perf args...>
run() {
  local driver=$1 log=$2; shift 2
  local env=()
  mapfile -t -O 0 env < <(setenv HDF5_PARAPREFIX "$WORK")
  if [ "$driver" = mpiio ]; then
    mapfile -t -O "${#env[@]}" env < <(setenv LD_PRELOAD "$SHIM"; setenv MPIIO_REDIRECT 1
      setenv HDF5_PLUGIN_PATH "$PLUGIN_DIR"; setenv MPIIO_REDIRECT_CONFIG "${MPIIO_REDIRECT_CONFIG_OVERRIDE:-}")
  else
    mapfile -t -O "${#env[@]}" env < <(setenv MPIIO_REDIRECT 0)
  fi
  if ! "${MPIRUN[@]}" "${env[@]}" "$H5PERF" -p "$RANKS" -P "$RANKS" "$@" >"$log" 2>&1; then
    echo "h5perf.sh: FAILED ($driver): ${MPIRUN[*]} ... $H5PERF -p $RANKS -P $RANKS $* (log: $log)" >&2
    tail -20 "$log" >&2
    return 1
  fi
  # h5perf reports rejected parameters and I/O errors but still exits 0 with 0.00 MB/s rates.
  if grep -q "Throughput: *0\.00 " "$log" || ! grep -q "Throughput" "$log"; then
    echo "h5perf.sh: FAILED ($driver): h5perf did not measure (0.00 MB/s or no results; log: $log)" >&2
    grep -v "Throughput\|^rank 0:" "$log" | head -5 >&2
    return 1
  fi
}

# h5perf output -> CSV rows: config,driver,launch,api,operation,max,avg,min (MB/s as h5perf prints)
parse() { # config driver launch log
  awk -v cfg="$1" -v drv="$2" -v launch="$3" '
    /IO API = MPIO/ {api="MPIO"}
    /IO API = PHDF5/ {api="PHDF5"}
    /IO API = POSIX/ {api="POSIX"}
    /^ *(Write|Read|Write Open-Close|Read Open-Close) \(/ {op=$0; sub(/^ */,"",op); sub(/ \(.*/,"",op)}
    /Maximum Throughput/ {mx=$3}
    /Average Throughput/ {av=$3}
    /Minimum Throughput/ {mn=$3; printf "%s,%s,%s,%s,%s,%s,%s,%s\n", cfg, drv, launch, api, op, mx, av, mn}
  ' "$4"
}

fail=0
CSV="$OUT/h5perf.csv"
echo "config,driver,launch,api,operation,max_MBps,avg_MBps,min_MBps" >"$CSV"
for c in "${selected[@]}"; do
  name=${c%%|*}; read -r -a args <<<"${c#*|}"
  # Correctness + "is the plugin really used" probe: one verified iteration with driver statistics.
  vlog="$OUT/h5perf-$name-mpiio-verify.log"
  echo "[h5perf] $name: verification run through the shim (h5perf -D v, plugin stats on)" >&2
  if MPIIO_REDIRECT_CONFIG_OVERRIDE="stats=summary" run mpiio "$vlog" -A phdf5 -i 1 -D v "${args[@]}"; then
    if ! grep -q "mpiio stats:" "$vlog"; then
      echo "h5perf.sh: FAILED: the mpiio plugin was not used under the shim (no 'mpiio stats:' in $vlog)" >&2
      fail=1
    fi
    if grep -qiE "error|mismatch|fail" "$vlog"; then
      echo "h5perf.sh: FAILED: h5perf reported errors through the plugin (see $vlog)" >&2
      grep -iE "error|mismatch|fail" "$vlog" | head -5 >&2
      fail=1
    fi
  else
    fail=1
  fi
  # Measured launch pairs: mpio, mpiio, then mpiio, mpio, ... (ABBA).
  echo "[h5perf] $name: $LAUNCHES launches per driver (h5perf -A phdf5,mpiio -i $ITER ${args[*]})" >&2
  for ((l = 1; l <= LAUNCHES; l++)); do
    if ((l % 2)); then order=(mpio mpiio); else order=(mpiio mpio); fi
    for d in "${order[@]}"; do
      log="$OUT/h5perf-$name-$d-$l.log"
      if run "$d" "$log" -A phdf5,mpiio -i "$ITER" "${args[@]}"; then
        parse "$name" "$d" "$l" "$log" >>"$CSV"
      else
        fail=1
      fi
    done
  done
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# Summary. Per (config, operation): median [min-max] over launches of each driver's PHDF5
# average throughput; mpiio/mpio = median (min-max) of the per-launch-pair ratios; h5perf's own
# MPI-IO API over the launches of both drivers. (mawk has no asort: insertion sort.)
MD="$OUT/h5perf.md"
awk -F, -v layer="$LAYER" -v ranks="$RANKS" -v io="$IOLABEL" -v launches="$LAUNCHES" -v iter="$ITER" \
    -v dir="$DIR" -v load0="$LOAD_START" -v load1="$LOAD_END" -v per_process="$E" \
    -v version="$("$H5PERF" -h 2>&1 | awk '/Version/{print $3; exit}')" '
  function sorted(key, v,    n, i, j, t) {
    n = cnt[key]
    for (i = 1; i <= n; i++) v[i] = val[key, i]
    for (i = 2; i <= n; i++) { t = v[i]; for (j = i - 1; j >= 1 && v[j] > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
    return n
  }
  function median(key,    v, n) {
    n = sorted(key, v)
    if (n == 0) return 0
    return (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
  }
  function lo(key,    v, n) { n = sorted(key, v); return n ? v[1] : 0 }
  function hi(key,    v, n) { n = sorted(key, v); return n ? v[n] : 0 }
  function add(key, x) { cnt[key]++; val[key, cnt[key]] = x }
  function spread(key, fmt) {
    return cnt[key] ? sprintf(fmt " (" fmt "-" fmt ")", median(key), lo(key), hi(key)) : "-"
  }
  NR > 1 {
    row = $1 SUBSEP $5
    if (!(row in seen)) { seen[row] = 1; order[++rows] = row }
    if ($4 == "PHDF5") { add(row SUBSEP $2, $7); bw[row, $2, $3] = $7 }
    if ($4 == "MPIO") add(row SUBSEP "MPIO", $7)
  }
  END {
    # Per launch pair l: mpiio / mpio of the same l.
    for (k = 1; k <= rows; k++)
      for (l = 1; l <= launches; l++)
        if ((order[k], "mpio", l) in bw && (order[k], "mpiio", l) in bw && bw[order[k], "mpio", l] > 0)
          add(order[k] SUBSEP "ratio", bw[order[k], "mpiio", l] / bw[order[k], "mpio", l])
    printf "**%s**, h5perf (HDF5 %s), %d ranks, io %s, files in %s, %siB per process per dataset (-e %s): %d launch pairs alternating between the drivers (mpio first, then mpiio first, ...), h5perf -i %d in each. ", layer, version, ranks, io, dir, per_process, per_process, launches, iter
    printf "Throughput: median (min-max) over launches of h5perf\x27s average, MB/s as h5perf prints it. **mpiio/mpio**: median (min-max) of the per-pair ratios (> 1: the plugin is faster). \"mpiio\" = the same h5perf binary with LD_PRELOAD=libh5mpiio_redirect.so MPIIO_REDIRECT=1; h5perf MPIO = h5perf\x27s raw MPI-IO API in the same launches. Load average %s at start, %s at end.\n\n", load0, load1
    t1 = "contig-coll" SUBSEP "Write"; t2 = "chunked-coll" SUBSEP "Write"
    if ((t1 in seen) || (t2 in seen)) {
      printf "Targets (issue 10, >= 1.00): contiguous collective write **%s**; chunked collective write **%s**.\n\n",
             spread(t1 SUBSEP "ratio", "%.2f"), spread(t2 SUBSEP "ratio", "%.2f")
    }
    print "| config | operation | PHDF5 mpio | PHDF5 mpiio | **mpiio/mpio** | h5perf MPIO | mpiio/MPIO |"
    print "|---|---|--:|--:|--:|--:|--:|"
    for (k = 1; k <= rows; k++) {
      row = order[k]; split(row, p, SUBSEP)
      b = median(row SUBSEP "mpiio"); m = median(row SUBSEP "MPIO")
      printf "| %s | %s | %s | %s | **%s** | %.1f | %s |\n", p[1], p[2], spread(row SUBSEP "mpio", "%.0f"),
             spread(row SUBSEP "mpiio", "%.0f"), spread(row SUBSEP "ratio", "%.2f"), m,
             (m > 0 ? sprintf("%.2f", b / m) : "-")
    }
  }' "$CSV" >"$MD"
cat "$MD"
if ((fail)); then
  echo "h5perf.sh: at least one h5perf run FAILED (see above)" >&2
  exit 1
fi
