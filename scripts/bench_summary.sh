#!/usr/bin/env bash
# The summary across every published stack and layer (docs/bench/summary.md, which the README
# embeds): per benchmark case the plugin's rate over the built-in driver's with the parity verdict,
# per tiny operation the overhead ratio, and h5perf's ratios, one column per stack and layer.
#
#   bash scripts/bench_summary.sh [docs/bench] > summary.md
#
# Reads <dir>/**/results.csv, overhead.csv, h5perf.csv and results.json as scripts/main.sh
# publishes them. Plain awk (Debian's default mawk): no sorting built-ins, no CSV quoting needed
# (the columns read come before results.csv's one quoted column, or are its last).
set -euo pipefail
DIR=${1:-docs/bench}
# The published tree's path as the repository names it (docs/bench, or a part of it such as
# docs/bench/subfiling), for the links under each table.
REL=docs/bench${DIR##*docs/bench}
REL=${REL%/}
cd "$DIR"
# (runs with subfiling and runs on the distributed file systems publish apart, under subfiling/,
# dfs-*/ (GlusterFS) and cephfs-*/, with a summary of their own)
mapfile -t dirs < <(find . -name results.json -not -path '*/subfiling/*' -not -path '*/dfs-*' -not -path '*/cephfs-*' -printf '%h\n' | sed 's|^\./||' | awk '
  # bookworm first (ompio, romio, mpich), then the root stacks, older suites first (trixie, sid)
  { s = $0; sub(/^trixie/, "a", s); sub(/^sid/, "b", s)
    key = ($0 ~ /\//) ? "1" s : "0" ($0 == "ompio" ? "a" : $0 == "romio" ? "b" : "c") $0; print key "\t" $0 }' |
  sort | cut -f2)
((${#dirs[@]})) || { echo "_No published results yet: \`bash scripts/main.sh --publish\`._"; exit 0; }

# json_field <file> <key>: a string field of results.json's info object, tabs and runs of blanks as
# one blank (MPICH pads its version line).
json_field() { sed -n "s/.*\"$2\": \"\([^\"]*\)\".*/\1/p" "$1" | head -n 1 | sed 's/\\t/ /g; s/\\u0009/ /g; s/  */ /g'; }

# number_field <file> <key>: a number field of results.json's info object.
number_field() { sed -n "s/.*\"$2\": \([0-9.]*\).*/\1/p" "$1" | head -n 1; }

# A column's short title and its full description.
title() {
  local json=$1/results.json lib io
  lib=$(json_field "$json" mpi_library) io=$(json_field "$json" io_component)
  case $lib in
    "Open MPI"*) printf 'Open MPI %s %s' "$(sed 's/^Open MPI v\([0-9]*\.[0-9]*\).*/\1/' <<<"$lib")" \
                   "$([ "$io" = ompio ] && echo OMPIO || echo ROMIO)" ;;
    MPICH*) printf 'MPICH %s' "$(sed 's/.*Version:[[:space:]]*\([0-9.]*\).*/\1/' <<<"$lib")" ;;
    *) printf '%s' "$1" ;;
  esac
}
describe() {
  local json=$1/results.json part when later=""
  # The overhead and h5perf carry their own start time when published apart from the matrix.
  for part in overhead h5perf; do
    [ -f "$1/$part.md" ] || continue
    when=$(sed -n 's/.*Measured \([0-9-]* [0-9:]* [A-Z]*\);.*/\1/p' "$1/$part.md" | head -n 1)
    [ -n "$when" ] && [ "$when" != "$(json_field "$json" started)" ] && later+="; $part measured $when"
  done
  # A run with subfiling (or --thread-multiple) had MPI_THREAD_MULTIPLE for every driver.
  [ "$(json_field "$json" mpi_thread_level)" = multiple ] && later+="; MPI_THREAD_MULTIPLE"
  # The code it measured: the commit that published it (main.sh --publish runs on that tree).
  local commit
  commit=$(git log -1 --format=%h -- "$1/results.json" 2>/dev/null || true)
  # (a results.json the working tree changed, or one git does not track, is not that commit's)
  if ! git ls-files --error-unmatch "$1/results.json" >/dev/null 2>&1 ||
    ! git diff --quiet HEAD -- "$1/results.json" 2>/dev/null; then commit=""; fi
  printf '%s: %s, io %s, HDF5 %s; measured %s on %s (%s cores, %s ranks), load average %s at start%s; published in commit %s (`%s/`)' \
    "$(title "$1")" "$(json_field "$json" mpi_library | cut -d, -f1)" \
    "$(json_field "$json" io_component)" "$(json_field "$json" hdf5)" "$(json_field "$json" started)" \
    "$(json_field "$json" host)" "$(number_field "$json" cores)" "$(number_field "$json" ranks)" \
    "$(json_field "$json" loadavg_start)" "$later" "${commit:-(not yet committed)}" "$REL/$1"
}

# sorted_range: awk function giving "median (min-max)" of v[1..k] (insertion sort: mawk has none).
SORTED_RANGE='function sorted_range(v, k,   a, b, x, med) {
  for (a = 2; a <= k; a++) { x = v[a]; for (b = a - 1; b >= 1 && v[b] > x; b--) v[b + 1] = v[b]; v[b + 1] = x }
  med = (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
  return sprintf("%.2f (%.2f-%.2f)", med, v[1], v[k]) }'

# pivot: "row<TAB>column<TAB>cell" lines to one table row per row key (first-seen order), one cell
# per published column ("-" where missing); awk's `names` maps a row key to its title.
pivot() { # [awk BEGIN statements naming rows]
  awk -F'\t' -v cols="${dirs[*]}" "BEGIN { ncol = split(cols, col, \" \"); ${1:-} }"'
    !($1 in seen) { seen[$1] = 1; order[++n] = $1 }
    { cell[$1, $2] = $3 }
    END { for (i = 1; i <= n; i++) {
            line = "| " (order[i] in name ? name[order[i]] : order[i]) " |"
            for (c = 1; c <= ncol; c++) line = line " " (cell[order[i], col[c]] == "" ? "-" : cell[order[i], col[c]]) " |"
            print line } }'
}

# write_read_cells: "case<TAB>column<TAB>write|read<TAB>cell" lines to pivot's lines, one per case
# and column (first-seen order) with the cell "write / read".
write_read_cells() {
  awk -F'\t' '!(($1, $2) in seen) { seen[$1, $2] = 1; row[++n] = $1; col[n] = $2 }
    { cell[$1, $2, $3] = $4 }
    END { for (i = 1; i <= n; i++)
            printf "%s\t%s\t%s / %s\n", row[i], col[i], cell[row[i], col[i], "write"], cell[row[i], col[i], "read"] }'
}

any_layer_has() { # <file>: whether some published layer has it
  local d
  for d in "${dirs[@]}"; do [ -f "$d/$1" ] && return 0; done
  return 1
}

header() { # <first column title>
  local d line="| $1 |" rule="|---|"
  for d in "${dirs[@]}"; do line+=" $(title "$d") |"; rule+="--:|"; done
  echo "$line"
  echo "$rule"
}

# ---- the matrix: mpiio/mpio write / read per case, with the parity verdict ----------------------
echo "**h5bench-style matrix**, mpiio/mpio (write / read): the median of the per-repetition rate"
echo "ratios (> 1: the plugin is faster); ↑ / ↓: measurably faster / slower than the built-in driver"
echo "against itself (the A/A control; exact Mann-Whitney test, alpha 0.05, flagged rows confirmed"
echo "by a rerun), no mark: not distinguishable from it."
echo
header case
for d in "${dirs[@]}"; do
  awk -F, -v col="$d" 'NR > 1 && $5 == "mpio" {
      mark = $NF == "above" ? "↑" : $NF == "below" ? "↓" : ""
      printf "%s\t%s\t%s\t%.2f%s\n", $1, col, $4, $15, mark }' "$d/results.csv"
done | write_read_cells | pivot
echo
for d in "${dirs[@]}"; do
  below=$(awk -F, 'NR > 1 && $5 == "mpio" && $NF == "below"' "$d/results.csv" | wc -l)
  total=$(awk -F, 'NR > 1 && $5 == "mpio"' "$d/results.csv" | wc -l)
  more="" # the overhead's and h5perf's verdicts, where published with their A/A control
  for part in overhead h5perf; do
    [ -f "$d/$part-parity.csv" ] || continue
    more+=$(awk -F, -v part="$part" 'NR > 1 { n++; if ($10 == "below") b++ } END { printf "; %s: %d of %d", part, b, n }' "$d/$part-parity.csv")
  done
  echo "- $(describe "$d"). Measurably below: $below of $total verdicts$more."
done

# ---- the storage servers' operations (h5bench_vfd --server-ops; scripts/main.sh --storage dfs) ----
# Left out while no published layer counted them.
if any_layer_has server-ops.csv; then
  echo
  echo "**Server operations**, mpiio/mpio over both phases of a driver's first write and read (< 1: lighter"
  echo "on the servers), and in parentheses the built-in driver's second run over its first (the A/A"
  echo "control); \`server-ops.md\` per layer has the counts by kind."
  echo
  header case
  for d in "${dirs[@]}"; do
    [ -f "$d/server-ops.csv" ] || continue
    awk -F, -v col="$d" 'NR > 1 { n[$1, $2] += $8; if (!($1 in seen)) { seen[$1] = 1; order[++k] = $1 } }
      END { for (i = 1; i <= k; i++) { c = order[i]
              if (n[c, "mpio"] > 0)
                printf "%s\t%s\t%.2f (%.2f)\n", c, col, n[c, "mpiio"] / n[c, "mpio"], n[c, "mpio2"] / n[c, "mpio"] } }' \
      "$d/server-ops.csv"
  done | pivot
fi

# ---- HDF5's subfiling driver (h5bench_vfd --drivers ...,subfiling; scripts/main.sh --subfiling) ----
# Layers published without it show -; the table is left out while none has it.
have_subfiling=0
for d in "${dirs[@]}"; do awk -F, '$5 == "subfiling" { found = 1 } END { exit !found }' "$d/results.csv" && have_subfiling=1; done
if ((have_subfiling)); then
  echo
  echo "**Against HDF5's subfiling driver**, mpiio/subfiling (write / read), in the same runs: the median"
  echo "of the per-repetition rate ratios (> 1: the plugin is faster); ↑ / ↓: measurably faster / slower"
  echo "than the built-in driver against itself (the same A/A control; the first measurement's test); n/s:"
  echo "the subfiling driver refuses the case (it does not take collective transfers that come with MPI"
  echo "derived datatypes; results.json says where)."
  echo
  header case
  for d in "${dirs[@]}"; do
    awk -F, -v col="$d" 'NR > 1 && $5 == "subfiling" {
        cell = $18 == "not supported" ? "n/s" : sprintf("%.2f%s", $15, $NF == "above" ? "↑" : $NF == "below" ? "↓" : "")
        printf "%s\t%s\t%s\t%s\n", $1, col, $4, cell }' "$d/results.csv"
  done | write_read_cells | pivot
fi

# ---- per-operation overhead ------------------------------------------------------------------
if any_layer_has overhead.csv; then
  echo
  echo "**Per-operation overhead**, mpiio/mpio call rate: the median (min-max) of the per-repetition"
  echo "ratios of microseconds per call, 8 bytes per rank per call (> 1: the plugin is faster); ↑ / ↓"
  echo "as in the matrix (the same test against mpio2/mpio, the built-in driver again, flagged rows"
  echo "confirmed by a rerun)."
  echo
  header operation
  for d in "${dirs[@]}"; do
    [ -f "$d/overhead.csv" ] || continue
    # The ratios from every repetition (overhead.csv: a flagged row's are its rerun's), the mark
    # from the parity verdict where the layer was published with its A/A control.
    marks=""
    [ -f "$d/overhead-parity.csv" ] && marks="$d/overhead-parity.csv"
    awk -F, -v col="$d" -v marks="$marks" "$SORTED_RANGE"'
      BEGIN { if (marks != "") while ((getline line < marks) > 0) { split(line, f, ","); mark[f[1] " " f[2]] = f[10] == "above" ? "↑" : f[10] == "below" ? "↓" : "" } }
      NR > 1 { t[$2 " " $3, $1, $4] = $5; if (!(($2 " " $3) in seen)) { seen[$2 " " $3] = 1; op[++n] = $2 " " $3 }; if ($4 > maxrep) maxrep = $4 }
      END {
        for (i = 1; i <= n; i++) {
          k = 0
          for (r = 0; r <= maxrep; r++)
            if ((op[i], "mpio", r) in t && (op[i], "mpiio", r) in t && t[op[i], "mpiio", r] > 0)
              v[++k] = t[op[i], "mpio", r] / t[op[i], "mpiio", r]
          if (k) printf "%s\t%s\t%s%s\n", op[i], col, sorted_range(v, k), mark[op[i]]
        }
      }' "$d/overhead.csv"
  done | pivot 'name["collective write"] = "collective H5Dwrite"; name["collective read"] = "collective H5Dread"
                name["independent write"] = "independent H5Dwrite"; name["independent read"] = "independent H5Dread"
                name["file open_close"] = "H5Fopen + H5Fclose"'
fi

# ---- h5perf ----------------------------------------------------------------------------------
if any_layer_has h5perf.csv; then
  echo
  echo "**h5perf** (HDF5's own benchmark, PHDF5 API through mpio and, via the redirect shim, the"
  echo "plugin), mpiio/mpio: the median (min-max) over launch triplets (mpio, mpiio and mpio2, the A/A"
  echo "control, in a rotating order) of h5perf's average rate (write / read, without open and close);"
  echo "↑ / ↓ as in the matrix (the same test against mpio2/mpio, flagged rows confirmed by a rerun)."
  echo "Stacks whose HDF5 ships no parallel h5perf show -."
  echo
  header configuration
  for d in "${dirs[@]}"; do
    [ -f "$d/h5perf.csv" ] || continue
    if [ -f "$d/h5perf-parity.csv" ]; then
      awk -F, -v col="$d" '
        NR > 1 {
          if (!($1 in seen)) { seen[$1] = 1; cf[++n] = $1 }
          cell[$1, $2] = sprintf("%.2f (%.2f-%.2f)%s", $3, $4, $5, $10 == "above" ? "↑" : $10 == "below" ? "↓" : "")
        }
        END {
          for (i = 1; i <= n; i++) {
            w = cell[cf[i], "Write"]; r = cell[cf[i], "Read"]
            printf "%s\t%s\t%s / %s\n", cf[i], col, w == "" ? "-" : w, r == "" ? "-" : r
          }
        }' "$d/h5perf-parity.csv"
      continue
    fi
    # Published before the A/A control: mpio/mpiio launch pairs.
    awk -F, -v col="$d" "$SORTED_RANGE"'
      NR > 1 && $4 == "PHDF5" && ($5 == "Write" || $5 == "Read") {
        t[$1, $5, $2, $3] = $7; if (!($1 in seen)) { seen[$1] = 1; cf[++n] = $1 }; if ($3 > maxl) maxl = $3 }
      END {
        for (i = 1; i <= n; i++) {
          out = ""
          for (o = 1; o <= 2; o++) {
            opn = o == 1 ? "Write" : "Read"; k = 0
            for (l = 1; l <= maxl; l++)
              if ((cf[i], opn, "mpio", l) in t && (cf[i], opn, "mpiio", l) in t && t[cf[i], opn, "mpio", l] > 0)
                v[++k] = t[cf[i], opn, "mpiio", l] / t[cf[i], opn, "mpio", l]
            out = out (o == 2 ? " / " : "") (k ? sorted_range(v, k) : "-")
          }
          printf "%s\t%s\t%s\n", cf[i], col, out
        }
      }' "$d/h5perf.csv"
  done | pivot
fi
