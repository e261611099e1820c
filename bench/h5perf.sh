#!/usr/bin/env bash
# HDF5's own h5perf (PHDF5 and MPIIO APIs) through the built-in mpio driver and, with the
# LD_PRELOAD redirect shim (tools/libh5mpiio_redirect.so: H5Pset_fapl_mpio selects the mpiio
# plugin), through the plugin. Same h5perf binary, same arguments. Per configuration, --launches
# launch triplets run mpio, mpiio and mpio2 (the built-in driver again: the A/A control) in a
# rotating order (mpio mpiio mpio2, then mpiio mpio2 mpio, then mpio2 mpio mpiio, ...), each launch
# with --iterations h5perf iterations. Per triplet the ratios mpiio/mpio and mpio2/mpio of h5perf's
# average throughput; the summary gives their medians and ranges and each row's parity verdict:
# the matrix's exact two-sided Mann-Whitney test of the mpiio/mpio ratios against the mpio2/mpio
# ones (bench/h5bench_vfd_parity, alpha 0.05). A configuration with a flagged row is measured
# again with --confirm-launches triplets, and the rerun's ratios and verdict are the ones reported
# for the flagged rows, marked (rerun). h5perf's "MPIO" API rows are its own raw MPI-IO baseline,
# measured in the same launches. The headline is the two targets: contiguous and chunked
# collective write, at least as fast as the built-in driver.
#
#   bench/h5perf.sh --h5perf <hdf5>/bin/h5perf --shim build/tools/libh5mpiio_redirect.so \
#                   --plugin-dir build/plugins [--parity build/bench/h5bench_vfd_parity]
#                   [--mpi openmpi|mpich] [--ranks 4] [--io ompio|romio321] [--dir /dev/shm]
#                   [--out DIR] [--launches 5] [--confirm-launches 10] [--iterations 3]
#                   [--size small|medium|large] [--configs a,b,...]
#
#   --mpi       openmpi (default: mpirun --oversubscribe --bind-to none [--mca io C]) or mpich
#               (mpirun.mpich; --io does not apply)
#   --parity    the parity tool (default: <plugin-dir>/../bench/h5bench_vfd_parity)
#   --confirm-launches  triplets of the rerun of a configuration with a flagged row (default 2 x
#               --launches; 0: no reruns, the first verdict stands)
#   --configs   subset of contig-coll,chunked-coll,contig-ind,contig-ind-4k,contig-ind-4m,
#               interleaved-coll,interleaved-ind (default all)
#   --size      small: 8 MiB per process per dataset; medium (default): 32 MiB; large: 64 MiB.
#               At 8 MiB a phase lasts 5-30 ms here and single launches spread 0.4-1.5x.
#
# Writes <out>/h5perf.csv (every number h5perf printed, per launch; `measurement` 1 = first,
# 2 = rerun), <out>/h5perf-parity.csv (per configuration and operation: the reported ratios, the
# A/A control, p and verdict), <out>/h5perf.md (summary) and <out>/h5perf-<config>-<driver>-<launch>.log.
# Before measuring a configuration it runs it once through the plugin with h5perf's data
# verification (-D v) and the plugin's statistics on. Exits non-zero if a run fails, if that
# verification fails, or if the plugin is not actually used under the shim.
set -euo pipefail

H5PERF="" SHIM="" PLUGIN_DIR="" PARITY="" MPI=openmpi RANKS=4 IO="" DIR=/dev/shm OUT=h5perf-results ITER=3
LAUNCHES=5 CONFIRM="" SIZE=medium CONFIGS=""
while (($#)); do
  case "$1" in
    --h5perf) H5PERF=$2; shift 2 ;;
    --shim) SHIM=$2; shift 2 ;;
    --plugin-dir) PLUGIN_DIR=$2; shift 2 ;;
    --parity) PARITY=$2; shift 2 ;;
    --confirm-launches) CONFIRM=$2; shift 2 ;;
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
PARITY=${PARITY:-$PLUGIN_DIR/../bench/h5bench_vfd_parity}
[ -x "$PARITY" ] || { echo "h5perf.sh: parity tool $PARITY not found (--parity; target h5bench_vfd_parity)" >&2; exit 2; }
[[ "$LAUNCHES" =~ ^[1-9][0-9]*$ && "$CONFIRM" =~ ^[0-9]*$ ]] ||
  { echo "h5perf.sh: --launches must be positive and --confirm-launches a count" >&2; exit 2; }
CONFIRM=${CONFIRM:-$((2 * LAUNCHES))}
mkdir -p "$OUT"
export OMPI_ALLOW_RUN_AS_ROOT=${OMPI_ALLOW_RUN_AS_ROOT:-1} OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=${OMPI_ALLOW_RUN_AS_ROOT_CONFIRM:-1}

# Per-process bytes per dataset.
case "$SIZE" in
  small|tiny) E=8M ;;
  medium) E=32M ;;
  large) E=64M ;;
  *) echo "h5perf.sh: --size must be small, medium or large" >&2; exit 2 ;;
esac
# name | h5perf arguments (besides -A -i -p -P). The first two are the targets (above).
# contig-ind-4k, contig-ind and contig-ind-4m: each process's contiguous region written and read
# independently in transfers of 4 KiB, 1 MiB and 4 MiB (applications that write one block per rank
# in fixed-size records); both drivers make one MPI call per transfer there.
ALL_CONFIGS=(
  "contig-coll|-C -e $E -x 1M -X 1M -B 1M"
  "chunked-coll|-c -C -e $E -x 1M -X 1M -B 256K"
  "contig-ind|-e $E -x 1M -X 1M -B 1M"
  "contig-ind-4k|-e $E -x 4K -X 4K -B 4K"
  "contig-ind-4m|-e $E -x 4M -X 4M -B 4M"
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
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg) STARTED=$(date -u '+%Y-%m-%d %H:%M:%S UTC')

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

# h5perf output -> CSV rows: config,driver,launch,api,operation,max,avg,min,measurement (MB/s as
# h5perf prints them)
parse() { # config driver launch measurement log
  awk -v cfg="$1" -v drv="$2" -v launch="$3" -v m="$4" '
    /IO API = MPIO/ {api="MPIO"}
    /IO API = PHDF5/ {api="PHDF5"}
    /IO API = POSIX/ {api="POSIX"}
    /^ *(Write|Read|Write Open-Close|Read Open-Close) \(/ {op=$0; sub(/^ */,"",op); sub(/ \(.*/,"",op)}
    /Maximum Throughput/ {mx=$3}
    /Average Throughput/ {av=$3}
    /Minimum Throughput/ {mn=$3; printf "%s,%s,%s,%s,%s,%s,%s,%s,%s\n", cfg, drv, launch, api, op, mx, av, mn, m}
  ' "$5"
}

# measure <config> <first launch> <triplets> <measurement> <h5perf args...>: launch triplets in the
# rotating order (so that each driver runs first, second and third alike), rows to the CSV.
ORDERS=("mpio mpiio mpio2" "mpiio mpio2 mpio" "mpio2 mpio mpiio")
measure() {
  local name=$1 first=$2 count=$3 m=$4 l d log
  shift 4
  for ((l = first; l < first + count; l++)); do
    for d in ${ORDERS[$(((l - 1) % 3))]}; do
      log="$OUT/h5perf-$name-$d-$l.log"
      if run "$d" "$log" -A phdf5,mpiio -i "$ITER" "$@"; then
        parse "$name" "$d" "$l" "$m" "$log" >>"$CSV"
      else
        fail=1
      fi
    done
  done
}

# ratios <measurement> <config>: per PHDF5 Write and Read row of that measurement, the parity tool's
# input line "config|operation<TAB>mpiio/mpio,...<TAB>mpio2/mpio,...", one ratio per triplet.
ratios() {
  awk -F, -v m="$1" -v only="$2" '
    NR > 1 && $4 == "PHDF5" && ($5 == "Write" || $5 == "Read") && $9 == m && $1 == only {
      k = $1 "|" $5
      if (!(k in seen)) { seen[k] = 1; keys[++n] = k }
      if (!((k, $3) in lseen)) { lseen[k, $3] = 1; ls[k, ++nl[k]] = $3 }
      t[k, $2, $3] = $7
    }
    END {
      for (i = 1; i <= n; i++) {
        k = keys[i]; x = ""; y = ""
        for (j = 1; j <= nl[k]; j++) {
          l = ls[k, j]
          if (t[k, "mpio", l] > 0 && t[k, "mpiio", l] > 0 && t[k, "mpio2", l] > 0) {
            x = x (x == "" ? "" : ",") t[k, "mpiio", l] / t[k, "mpio", l]
            y = y (y == "" ? "" : ",") t[k, "mpio2", l] / t[k, "mpio", l]
          }
        }
        if (x != "") printf "%s\t%s\t%s\n", k, x, y
      }
    }' "$CSV"
}

# verdicts <measurement> <config>: "key<TAB>x<TAB>y<TAB>key<TAB>p<TAB>verdict" per row.
verdicts() {
  local r out
  r=$(ratios "$1" "$2")
  [ -n "$r" ] || return 0
  out=$(printf '%s\n' "$r" | "$PARITY") || return 1
  paste <(printf '%s\n' "$r") <(printf '%s\n' "$out")
}

fail=0
CSV="$OUT/h5perf.csv"
PARITY_CSV="$OUT/h5perf-parity.csv"
echo "config,driver,launch,api,operation,max_MBps,avg_MBps,min_MBps,measurement" >"$CSV"
echo "config,operation,ratio_median,ratio_min,ratio_max,aa_median,aa_min,aa_max,p,verdict,measurement,first_p,first_verdict" >"$PARITY_CSV"
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
  echo "[h5perf] $name: $LAUNCHES launch triplets (h5perf -A phdf5,mpiio -i $ITER ${args[*]})" >&2
  measure "$name" 1 "$LAUNCHES" 1 "${args[@]}"
  first=$(verdicts 1 "$name") || { echo "h5perf.sh: FAILED: parity test of $name" >&2; fail=1; first=""; }
  again=""
  if ((CONFIRM)) && awk -F'\t' 'NF >= 6 && $6 != "~" { f = 1 } END { exit !f }' <<<"$first"; then
    echo "[h5perf] $name: a row differs from its A/A control; $CONFIRM more triplets decide" >&2
    measure "$name" $((LAUNCHES + 1)) "$CONFIRM" 2 "${args[@]}"
    again=$(verdicts 2 "$name") || { echo "h5perf.sh: FAILED: parity test of $name (rerun)" >&2; fail=1; again=""; }
  fi
  # A flagged row reports its rerun (ratios and verdict); the others their first measurement.
  awk -F'\t' -v again="$again" '
    function spread(list,    v, n, i, j, t) {
      n = split(list, v, ",")
      for (i = 2; i <= n; i++) { t = v[i] + 0; for (j = i - 1; j >= 1 && v[j] + 0 > t; j--) v[j + 1] = v[j]; v[j + 1] = t }
      return sprintf("%.6f,%.6f,%.6f", (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2, v[1], v[n])
    }
    BEGIN { n = split(again, lines, "\n"); for (i = 1; i <= n; i++) { split(lines[i], f, "\t"); rerun[f[1]] = lines[i] } }
    NF >= 6 {
      x = $2; y = $3; p = $5; v = $6; m = 1
      if ($6 != "~" && ($1 in rerun)) { split(rerun[$1], f, "\t"); x = f[2]; y = f[3]; p = f[5]; v = f[6]; m = 2 }
      split($1, key, "|")
      printf "%s,%s,%s,%s,%s,%s,%d,%s,%s\n", key[1], key[2], spread(x), spread(y), p, v, m, $5, $6
    }' <<<"$first" >>"$PARITY_CSV"
done
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)

# Summary. Per (config, operation): median [min-max] over the first measurement's launches of each
# driver's PHDF5 average throughput; mpiio/mpio and the A/A control's mpio2/mpio with the parity
# verdict from h5perf-parity.csv (rows it has: PHDF5 Write and Read), else the median (min-max) of
# the per-triplet ratios; h5perf's own MPI-IO API over every launch. (mawk has no asort: insertion
# sort.)
MD="$OUT/h5perf.md"
awk -F, -v layer="$LAYER" -v ranks="$RANKS" -v io="$IOLABEL" -v launches="$LAUNCHES" -v iter="$ITER" \
    -v confirm="$CONFIRM" -v dir="$DIR" -v started="$STARTED" -v load0="$LOAD_START" -v load1="$LOAD_END" -v per_process="$E" \
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
  FNR == 1 { file++; next }
  file == 1 {
    row = $1 SUBSEP $2
    ratio[row] = sprintf("%.2f (%.2f-%.2f)", $3, $4, $5); aa[row] = sprintf("%.2f (%.2f-%.2f)", $6, $7, $8)
    verdict[row] = $10 (($11 == 2) ? " (rerun)" : ""); p[row] = $9
    tally[$10]++; if ($11 == 2) reruns++
    next
  }
  {
    row = $1 SUBSEP $5
    if (!(row in seen)) { seen[row] = 1; order[++rows] = row }
    if ($4 == "PHDF5" && $9 == 1) { add(row SUBSEP $2, $7); bw[row, $2, $3] = $7 }
    if ($4 == "MPIO") add(row SUBSEP "MPIO", $7)
  }
  END {
    # Per triplet l of the first measurement: mpiio / mpio of the same l (rows without a verdict).
    for (k = 1; k <= rows; k++)
      for (l = 1; l <= launches; l++)
        if ((order[k], "mpio", l) in bw && (order[k], "mpiio", l) in bw && bw[order[k], "mpio", l] > 0)
          add(order[k] SUBSEP "ratio", bw[order[k], "mpiio", l] / bw[order[k], "mpio", l])
    printf "**%s**, h5perf (HDF5 %s), %d ranks, io %s, files in %s, %siB per process per dataset (-e %s): %d launch triplets mpio, mpiio and mpio2 (the built-in driver again, the A/A control) in a rotating order, h5perf -i %d in each. ", layer, version, ranks, io, dir, per_process, per_process, launches, iter
    printf "Throughput: median (min-max) over launches of h5perf\x27s average, MB/s as h5perf prints it. **mpiio/mpio** and **A/A** (mpio2/mpio): median (min-max) of the per-triplet ratios (> 1: faster than the built-in driver). **parity**: the exact two-sided Mann-Whitney test of the mpiio/mpio ratios against the mpio2/mpio ones (alpha 0.05): below / above = measurably slower / faster than the built-in driver against itself, ~ = not distinguishable; %s. \"mpiio\" = the same h5perf binary with LD_PRELOAD=libh5mpiio_redirect.so MPIIO_REDIRECT=1; h5perf MPIO = h5perf\x27s raw MPI-IO API in the same launches. Measured %s; load average %s at start, %s at end.\n\n", (confirm > 0 ? "a configuration with a flagged row is measured again with " confirm " triplets and the flagged row reports that rerun, marked (rerun)" : "no reruns: a first verdict stands"), started, load0, load1
    t1 = "contig-coll" SUBSEP "Write"; t2 = "chunked-coll" SUBSEP "Write"
    if ((t1 in seen) || (t2 in seen)) {
      printf "Targets (>= 1.00): contiguous collective write **%s**; chunked collective write **%s**.\n\n",
             (t1 in ratio) ? ratio[t1] : spread(t1 SUBSEP "ratio", "%.2f"), (t2 in ratio) ? ratio[t2] : spread(t2 SUBSEP "ratio", "%.2f")
    }
    print "| config | operation | PHDF5 mpio | PHDF5 mpiio | **mpiio/mpio** | A/A | parity (p) | h5perf MPIO | mpiio/MPIO |"
    print "|---|---|--:|--:|--:|--:|---|--:|--:|"
    for (k = 1; k <= rows; k++) {
      row = order[k]; split(row, f, SUBSEP)
      b = median(row SUBSEP "mpiio"); m = median(row SUBSEP "MPIO")
      printf "| %s | %s | %s | %s | **%s** | %s | %s | %.1f | %s |\n", f[1], f[2], spread(row SUBSEP "mpio", "%.0f"),
             spread(row SUBSEP "mpiio", "%.0f"), (row in ratio) ? ratio[row] : spread(row SUBSEP "ratio", "%.2f"),
             (row in aa) ? aa[row] : "-", (row in verdict) ? sprintf("%s (%.3g)", verdict[row], p[row]) : "-", m,
             (m > 0 ? sprintf("%.2f", b / m) : "-")
    }
    printf "\nParity of the write and read rows: %d measurably below the A/A control, %d above, %d not distinguishable (%d decided by a rerun).\n",
           tally["below"], tally["above"], tally["~"], reruns
  }' "$PARITY_CSV" "$CSV" >"$MD"
cat "$MD"
if ((fail)); then
  echo "h5perf.sh: at least one h5perf run FAILED (see above)" >&2
  exit 1
fi
