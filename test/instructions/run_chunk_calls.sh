#!/usr/bin/env bash
# The plugin's instructions per chunk for a collective H5Dwrite and H5Dread of many small chunks
# (the benchmark's manychunks2d shape), counted by callgrind (deterministic: the same count on
# every run of the same build, whatever else the machine does), against the baseline of this stack
# in baseline.tsv: the test fails when a change adds more than MARGIN percent. A stack without a
# baseline fails too, printing the line to add (take it on the code the baseline should describe).
#
#   run_chunk_calls.sh <chunk_calls binary> <mpiexec> <stack key> [margin percent, default 10]
set -euo pipefail
BIN=$(readlink -f "$1") MPIEXEC=$2 KEY=$3 MARGIN=${4:-10}
BASELINE=$(dirname "$0")/baseline.tsv
ROWS=512 COLS=512 # 1,024 chunks of 16 x 16 ints
CHUNKS=$(((ROWS / 16) * (COLS / 16)))
command -v valgrind >/dev/null || { echo "run_chunk_calls.sh: valgrind is needed" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
(cd "$WORK" && "$MPIEXEC" -n 1 valgrind --tool=callgrind --callgrind-out-file=cg.out "$BIN" "$WORK/f.h5" $ROWS $COLS \
  >run.log 2>&1) || { cat "$WORK/run.log" >&2; echo "run_chunk_calls.sh: the run failed" >&2; exit 1; }
# Inclusive instructions of the plugin's selection callbacks (everything the plugin does for the
# operation, its MPI and HDF5 calls included), per chunk.
per_chunk() {
  callgrind_annotate --inclusive=yes --threshold=100 "$WORK/cg.out" 2>/dev/null |
    awk -v f="$1" -v n="$CHUNKS" 'index($0, f "(H5FD_t") && index($0, "[") && !done { gsub(",", "", $1); print int($1 / n); done = 1 }'
}
write=$(per_chunk mpiio::cb_write_selection) read=$(per_chunk mpiio::cb_read_selection)
[ -n "$write" ] && [ -n "$read" ] || { echo "run_chunk_calls.sh: no count for the plugin's callbacks" >&2; exit 1; }
echo "instructions per chunk ($KEY): write $write, read $read ($CHUNKS chunks of 16 x 16 ints, 1 rank)"
line=$(awk -F'\t' -v k="$KEY" '$1 == k' "$BASELINE" 2>/dev/null || true)
if [ -z "$line" ]; then
  printf 'run_chunk_calls.sh: no baseline for %s in %s; add:\n%s\t%s\t%s\n' "$KEY" "$BASELINE" "$KEY" "$write" "$read" >&2
  exit 1
fi
IFS=$'\t' read -r _ base_write base_read <<<"$line"
status=0
for side in write read; do
  got=${!side} base_var=base_$side
  base=${!base_var}
  limit=$((base + base * MARGIN / 100))
  if ((got > limit)); then
    echo "FAIL: $side costs $got instructions per chunk, more than $MARGIN% over the baseline $base" >&2
    status=1
  else
    echo "ok: $side $got <= $limit (baseline $base + $MARGIN%)"
  fi
done
exit $status
