#!/usr/bin/env bash
# The repetition noise of the published tables: per case and direction of every runs.csv under
# the given directories (default: the tmpfs tables, docs/bench without dfs-* and subfiling), the
# standard deviation of log(mpio2/mpio) over the first measurement's repetitions; prints how many
# rows and their quartiles. `build/bench/h5bench_vfd_parity --power <sd>` turns a noise into the
# parity test's detection limit (docs/bench/README.md, "The parity test").
#
#   bash scripts/parity_noise.sh [dir ...]
set -euo pipefail
cd "$(dirname "$0")/.."
(($#)) || set -- docs/bench
find "$@" -name runs.csv ! -path '*/dfs-*' ! -path '*/subfiling/*' -print0 | xargs -0 awk '
  BEGIN { FS = "," }
  FNR == 1 { file++; next }
  $8 == "first" && ($2 == "mpio" || $2 == "mpio2") {
    row = file SUBSEP $1 SUBSEP $3; rep = row SUBSEP $4
    v[rep SUBSEP $2] = log($7); rows[row] = 1; reps[rep] = row }
  END {
    for (rep in reps) {
      a = v[rep SUBSEP "mpio"]; b = v[rep SUBSEP "mpio2"]
      if (a == "" || b == "") continue
      row = reps[rep]; n[row]++; s[row] += b - a; ss[row] += (b - a) * (b - a) }
    for (row in rows) if (n[row] >= 5) { m = s[row] / n[row]; print sqrt(ss[row] / n[row] - m * m) } }' |
  sort -g | awk '{ sd[NR] = $1 } END {
    if (NR == 0) { print "no runs.csv with 5 or more repetitions"; exit 1 }
    printf "%d rows; sd of log(mpio2/mpio): quartiles %.3f, median %.3f, %.3f\n", NR,
      sd[int(NR / 4) + 1], sd[int(NR / 2) + 1], sd[int(3 * NR / 4) + 1] }'
