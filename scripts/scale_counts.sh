#!/usr/bin/env bash
# Counted costs as the rank count grows (docs/scale.md): for one collective H5Dwrite + H5Dread of a
# contiguous, a strided and an interleaved selection, and for H5Fopen + H5Fclose, the collective MPI
# calls and the bytes exchanged per rank (PMPI: tools/libmpi_counts.so, what HDF5 and the driver
# hand to MPI), and the file-system calls per rank on the data file and the MPI-IO layer's side
# files (strace), for the built-in driver and the plugin at several rank counts, with the growth
# extrapolated to 8,192 ranks. Counts, not times: they do not depend on the machine's load.
#
#   bash scripts/scale_counts.sh [--ranks 4,16,64] [--layers ompio,romio] [--reps 8] [--out FILE]
#                                [--config S]
#
# --config S: the plugin's configuration string in every mpiio run (e.g. collective_route=aggregate,
# the route `auto` takes on shared storage; on /dev/shm auto keeps the local rule).
#
# Needs a build (scripts/build.sh: build/, Open MPI: the launcher oversubscribes 2 cores). Writes
# FILE (default docs/scale.md; build/scale/ holds every count). Each number is
# (count with --reps repetitions - count with none) / reps, averaged over the ranks.
#
# The aggregating route over nodes (docs/scale-aggregate.md):
#
#   bash scripts/scale_counts.sh --aggregate [--ranks 4,16,64] [--nodes 1,2,4] [--sizes 16384,1048576]
#                                [--cases contiguous,strided,interleaved,metadata] [--reps 2]
#                                [--config S] [--out FILE]
#
# runs the plugin alone (default --config "collective_route=aggregate;write_behind=off") for every
# rank count x node count x bytes per rank (SCALE_PROBE_BYTES), all cases in one job (metadata, the
# collective metadata flush, only with the first size): 1 node is plain mpirun --oversubscribe on
# /dev/shm, N > 1 nodes scripts/multihost.sh --hosts N (ranks / N per host, its probe first; the
# file in a directory all hosts share). Combinations with fewer ranks than nodes, or ranks not a
# multiple of the nodes, are skipped. Per rank and per transfer (the probe's phases,
# MPI_Pcontrol: counts divided by --reps, no difference of runs): the plugin's collective calls,
# its point-to-point messages (split between the ranks that aggregated in the transfer, those that
# received piece descriptions, and the others), the distinct aggregators a rank told, the bytes
# of the descriptions against the rank's own data bytes. Writes FILE (default
# build/scale/aggregate.md: the tables, for docs/scale-aggregate.md) and
# build/scale/aggregate/aggregate.tsv (every row; each job's counts and log beside it). The
# plugin is copied once at the start, so that a rebuild meanwhile does not mix two builds.
set -euo pipefail
cd "$(dirname "$0")/.."
ORIG_ARGS=("$@")
RANKS=4,16,64 LAYERS=ompio,romio REPS=8 OUT=docs/scale.md BUILD=${BUILD_DIR:-build} CONFIG=
MODE=layers NODES=1,2,4 SIZES=16384,1048576 CASES=contiguous,strided,interleaved,metadata
REPS_SET="" OUT_SET="" CONFIG_SET=""
while (($#)); do
  case $1 in
    --aggregate) MODE=aggregate; shift ;;
    --nodes) NODES=$2; shift 2 ;;
    --sizes) SIZES=$2; shift 2 ;;
    --cases) CASES=$2; shift 2 ;;
    --ranks) RANKS=$2; shift 2 ;;
    --layers) LAYERS=$2; shift 2 ;;
    --reps) REPS=$2; REPS_SET=1; shift 2 ;;
    --out) OUT=$2; OUT_SET=1; shift 2 ;;
    --config) CONFIG=$2; CONFIG_SET=1; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "scale_counts.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for f in "$BUILD/tools/libmpi_counts.so" "$BUILD/tools/scale_probe" "$BUILD/plugins/libh5fd_mpiio.so"; do
  [ -e "$f" ] || { echo "scale_counts.sh: $f missing: run scripts/build.sh first" >&2; exit 1; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
COLLECTIVES="MPI_Allreduce MPI_Iallreduce MPI_Allgather MPI_Allgatherv MPI_Bcast MPI_Reduce MPI_Gather MPI_Scan"
COLLECTIVES+=" MPI_Exscan MPI_Alltoall MPI_Alltoallv MPI_Alltoallw MPI_Barrier MPI_Ibarrier MPI_Comm_dup MPI_Comm_split_type MPI_File_open"
COLLECTIVES+=" MPI_File_close MPI_File_set_view MPI_File_set_size MPI_File_read_at_all MPI_File_write_at_all MPI_File_sync"

if [ "$MODE" = aggregate ]; then
  [ -n "$REPS_SET" ] || REPS=2
  [ -n "$CONFIG_SET" ] || CONFIG="collective_route=aggregate;write_behind=off"
  [ -n "$OUT_SET" ] || OUT=$BUILD/scale/aggregate.md
  PROBE=$BUILD/test/multihost/multihost_probe
  AWORK=$PWD/$BUILD/scale/aggregate ASHARED=/dev/shm/mpiio-scale-aggregate
  rm -rf "$AWORK" "$ASHARED"; mkdir -p "$AWORK/plugins" "$ASHARED"
  trap 'rm -rf "$ASHARED"' EXIT
  # Every job loads this copy of the plugin: a rebuild meanwhile does not mix two builds' counts.
  cp "$BUILD/plugins/libh5fd_mpiio.so" "$AWORK/plugins/"
  PLUGIN_BUILT=$(date -u -r "$BUILD/plugins/libh5fd_mpiio.so" '+%Y-%m-%d %H:%M UTC')
  IFS=, read -ra ranks <<<"$RANKS"
  IFS=, read -ra nodes <<<"$NODES"
  IFS=, read -ra sizes <<<"$SIZES"
  env_of() { # <size> <counts dir>: the ranks' environment
    printf '%s\n' "HDF5_PLUGIN_PATH=$AWORK/plugins" "LD_PRELOAD=$PWD/$BUILD/tools/libmpi_counts.so" \
      "MPI_COUNTS_DIR=$2" "SCALE_PROBE_CONFIG=$CONFIG" "SCALE_PROBE_BYTES=$1"
  }
  # arun <ranks> <nodes> <size> <cases> <dir>: the probe's cases in one job under the counter.
  arun() {
    local np=$1 n=$2 size=$3 cases=$4 dir=$5 kv args=()
    mkdir -p "$dir"
    rm -f "$ASHARED"/probe.h5*
    if ((n == 1)); then
      while read -r kv; do args+=(-x "$kv"); done < <(env_of "$size" "$dir")
      timeout 1200 mpirun -n "$np" --oversubscribe --bind-to none "${args[@]}" \
        "$BUILD/tools/scale_probe" mpiio "$cases" "$REPS" "$ASHARED/probe.h5" >"$dir/log" 2>&1
    else
      [ -x "$PROBE" ] || { echo "scale_counts.sh: $PROBE missing (the multihost tests' probe)" >&2; return 1; }
      while read -r kv; do args+=(--env "$kv"); done < <(env_of "$size" "$dir")
      bash scripts/multihost.sh --hosts "$n" --per-host $((np / n)) --shared "$ASHARED" --timeout 1200 \
        --probe "$PWD/$PROBE" "${args[@]}" -- "$PWD/$BUILD/tools/scale_probe" mpiio "$cases" "$REPS" \
        "$ASHARED/probe.h5" >"$dir/log" 2>&1
      grep -q "MPI sees $n nodes" "$dir/log" || { echo "scale_counts.sh: not $n nodes (see $dir/log)" >&2; return 1; }
    fi
  }
  # analyse <dir> <label fields...>: a TSV row per phase of the job (per rank, per transfer).
  # Tags: the aggregating route's piece descriptions 0x6d71 = 28017, its data 0x6d70 = 28016
  # (driver/collective/aggregate_route.cpp).
  analyse() {
    local dir=$1; shift
    cat "$dir"/counts.*.tsv >/dev/null
    for f in "$dir"/counts.*.tsv; do r=${f##*/counts.}; r=${r%.tsv}; sed "s/^/$r\t/" "$f"; done |
      awk -F'\t' -v reps="$REPS" -v coll="$COLLECTIVES" -v label="$*" -v cases="$CASE_LIST" '
      BEGIN { OFS = "\t"; n = split(coll, c, " "); for (i = 1; i <= n; ++i) is[c[i]] = 1
              nc = split(cases, cname, ",") }
      { r = $1; caller = $2; call = $3; calls = $4; bytes = $5; tag = $6; ph = $7; peers = $8
        if (ph == 0) next
        key = ph SUBSEP r; phases[ph] = 1; rank[r] = 1
        if (is[call] && call != "MPI_File_open" && call != "MPI_File_close") {
          if (caller == "mpiio") cp[key] += calls; else if (caller == "hdf5") ch[key] += calls }
        if (caller != "mpiio") next
        if (call ~ /^MPI_(Send|Ssend|Isend|Issend|Sendrecv)$/) { sends[key] += calls }
        if (call ~ /^MPI_(Recv|Irecv|Mrecv|Sendrecv)$/) { recvs[key] += calls }
        if (call == "MPI_Issend" && tag == 28017) { told[key] += peers; dsent[key] += bytes }
        if (call == "MPI_Recv" && tag == 28017) { agg[key] = 1; drecv[key] += bytes }
        if (call == "MPI_Isend" && tag == 28016) isend_b[key] += bytes
        if (call == "MPI_Irecv" && tag == 28016) irecv_b[key] += bytes
        if (call ~ /^MPI_File_(write|read)_at$/) fcalls[key] += calls
        if (call == "MPI_Iprobe") probes[key] += calls }
      END {
        for (ph in phases) {
          k = ph % 10; dir = k == 1 ? "write" : k == 2 ? "read" : "flush"
          name = cname[int(ph / 10)]
          P = 0; A = 0; na = 0
          delete S
          for (r in rank) {
            key = ph SUBSEP r; P++
            m = (sends[key] + recvs[key]) / reps
            own = (k == 2 ? irecv_b[key] : isend_b[key]) / reps
            S["cp"] += cp[key] / reps; S["ch"] += ch[key] / reps
            S["probe"] += probes[key] / reps
            if (agg[key]) {
              A++; S["am"] += m; if (m > S["amx"]) S["amx"] = m
              f = fcalls[key] / reps; if (f > S["afx"]) S["afx"] = f
              d = drecv[key] / reps; if (d > S["adx"]) S["adx"] = d
            } else {
              na++; S["nm"] += m; if (m > S["nmx"]) S["nmx"] = m
            }
            t = told[key] / reps; if (t > S["tx"]) S["tx"] = t
            ds = dsent[key] / reps; S["ds"] += ds; if (ds > S["dsx"]) S["dsx"] = ds
            S["own"] += own
            if (own > 0 && ds / own > S["ratio"]) S["ratio"] = ds / own
          }
          printf "%s\t%s\t%s\t%s\t%d\t%.2f\t%.2f\t%.2f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.4f\t%.1f\n",
            label, name, dir, ph, A, S["cp"] / P, S["ch"] / P,
            na ? S["nm"] / na : 0, S["nmx"], A ? S["am"] / A : 0, S["amx"], S["afx"], S["tx"],
            S["ds"] / P, S["dsx"], S["adx"], S["own"] / P, 100 * S["ratio"], S["probe"] / P
        }
      }' | sort -t$'\t' -k6,6n
  }
  ROWS=$AWORK/aggregate.tsv
  printf 'ranks\tnodes\tbytes\tcase\tdir\tphase\taggregating\tplugin_coll\thdf5_coll\tother_msgs_mean\tother_msgs_max\tagg_msgs_mean\tagg_msgs_max\tagg_file_calls_max\taggregators_told_max\tdesc_sent_mean\tdesc_sent_max\tdesc_recv_agg_max\tdata_own_mean\tdesc_pct_max\tiprobes_mean\n' >"$ROWS"
  for size in "${sizes[@]}"; do
    CASE_LIST=$CASES
    [ "$size" = "${sizes[0]}" ] || CASE_LIST=$(tr , '\n' <<<"$CASES" | grep -vx metadata | paste -sd,)
    for np in "${ranks[@]}"; do
      for n in "${nodes[@]}"; do
        ((np >= n && np % n == 0)) || continue
        dir=$AWORK/$np-$n-$size
        echo "scale_counts.sh: $np ranks, $n node(s), $size bytes per rank: $CASE_LIST" >&2
        arun "$np" "$n" "$size" "$CASE_LIST" "$dir" || { echo "scale_counts.sh: run failed (see $dir/log)" >&2; exit 1; }
        analyse "$dir" "$np	$n	$size" >>"$ROWS"
      done
    done
  done
  # The tables (markdown) from the rows: condensed (writes; a read's messages and bytes are checked
  # to be the same), then every row.
  tables() {
    awk -F'\t' '
      NR == 1 { next }
      { key = $1 "\t" $2; if (!(key in seen)) { seen[key] = 1; order[++nk] = key }
        col = $3 "\t" $4; if ($4 != "metadata" && !(col in cseen)) { cseen[col] = 1; cols[++nc] = col }
        if ($5 == "write" || $5 == "flush") { for (i = 1; i <= NF; ++i) W[key, col, i] = $i }
        if ($5 == "read") { for (i = 1; i <= NF; ++i) R[key, col, i] = $i }
        if ($5 != "flush") { pc[$8] = 1; hc[$9] = 1 } else { fpc[$8] = 1; fhc[$9] = 1 } }
      function kib(b) { return b >= 1048576 ? (b / 1048576) " MiB" : (b / 1024) " KiB" }
      function vals(a,   s, v) { s = ""; for (v in a) s = s (s == "" ? "" : ", ") v; return s }
      # A table of the write rows: a line per row key, a cell per column of fields a, b, c, d.
      function table(fmt, a, b, c, d,   k, col, line, kk) {
        hdr()
        for (k = 1; k <= nk; ++k) {
          line = "| " order[k]; gsub("\t", " | ", line); line = line " |"
          for (col = 1; col <= nc; ++col) {
            kk = order[k] SUBSEP cols[col]
            if (!((kk, 1) in W)) { line = line " - |"; continue }
            line = line sprintf(fmt, W[kk, a], W[kk, b], W[kk, c], W[kk, d])
          }
          print line
        }
      }
      function hdr(title,   c, split_c, line, sep) {
        line = "| ranks | nodes |"; sep = "|---|---|"
        for (c = 1; c <= nc; ++c) { split(cols[c], split_c, "\t"); line = line " " split_c[2] ", " kib(split_c[1]) " |"; sep = sep "---|" }
        print line; print sep }
      END {
        differ = 0
        for (k = 1; k <= nk; ++k) for (c = 1; c <= nc; ++c) for (i = 10; i <= 20; ++i)
          if (i != 14 && (order[k], cols[c], i) in W && W[order[k], cols[c], i] != R[order[k], cols[c], i]) differ = 1
        print "**Collective calls per rank per transfer**: the plugin " vals(pc) ", the library (HDF5) " vals(hc) \
          " in every write and read row" (vals(fpc) == "" ? "." : \
          "; per collective metadata flush the plugin " vals(fpc) ", the library " vals(fhc) ".")
        print (differ ? "A read row differs from its write row in messages or bytes: see every row below." \
                      : "Every read makes the same messages and bytes as its write (the tables show the writes).")
        print ""
        print "**Point-to-point messages per rank per write**, posted by the plugin (sends and receives, its own"
        print "included): the other ranks mean / max, then the aggregators max, and (in brackets) the ranks that"
        print "aggregated in the transfer:"
        print ""
        table(" %.2f / %d; %d (%d) |", 10, 11, 13, 7)
        print ""
        print "**Piece descriptions per rank per write**: bytes a rank sends its aggregators (mean / max), the most"
        print "an aggregator receives, and the largest share of a rank'"'"'s own data bytes:"
        print ""
        table(" %d / %d; %d; %.4f %% |", 16, 17, 18, 20)
      }' "$1"
    # the flush rows, straight from the TSV
    awk -F'\t' '$5 == "flush" && !shown++ {
        print ""
        print "**Collective metadata flush** (H5Fflush of 16 rewritten object headers over a 192 MB file), per rank:"
        print ""
        print "| ranks | nodes | aggregating | messages, other ranks (mean / max) | messages, aggregators (max) | aggregator file calls (max) | descriptions sent (mean / max bytes) | own data (mean bytes) |"
        print "|---|---|---|---|---|---|---|---|" }
      $5 == "flush" { printf "| %s | %s | %s | %.2f / %d | %d | %d | %d / %d | %d |\n", $1, $2, $7, $10, $11, $13, $14, $16, $17, $19 }' "$1"
    echo
    echo "**Every row** (per rank per transfer; MPI_Iprobe: the description exchange's polling, which depends on timing):"
    echo
    echo "| ranks | nodes | bytes/rank | case | transfer | aggregating | plugin coll. calls | HDF5 coll. calls | msgs, other ranks (mean / max) | msgs, aggregators (mean / max) | aggregator file calls (max) | aggregators told (max) | descr. bytes sent (mean / max) | descr. bytes received by an aggregator (max) | own data bytes (mean) | descr. / data (max) | MPI_Iprobe (mean) |"
    echo "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
    tail -n +2 "$1" | awk -F'\t' '{ printf "| %s | %s | %s | %s | %s | %s | %.2f | %.2f | %.2f / %d | %.1f / %d | %d | %d | %d / %d | %d | %d | %.4f %% | %.1f |\n",
      $1, $2, $3, $4, $5, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21 }'
  }
  {
    shown=""
    for arg in "${ORIG_ARGS[@]}"; do # (quoted only where a shell needs it)
      if [[ $arg =~ ^[A-Za-z0-9_,./=:+-]+$ ]]; then shown+=" $arg"; else shown+=" '$arg'"; fi
    done
    echo "Counted by \`bash scripts/scale_counts.sh$shown\`"
    echo "($(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- 2>/dev/null || echo ' with uncommitted changes')), $(mpirun --version 2>/dev/null | head -1),"
    echo "HDF5 $("$BUILD/tools/scale_probe" version), the plugin as built $PLUGIN_BUILT, configuration \`$CONFIG\`;"
    echo "per rank and per transfer ($REPS of each)."
    echo
    tables "$ROWS"
  } >"$AWORK/aggregate.md"
  mkdir -p "$(dirname "$OUT")"
  [ "$AWORK/aggregate.md" -ef "$OUT" ] || cp "$AWORK/aggregate.md" "$OUT"
  echo "scale_counts.sh: wrote $OUT (rows in $ROWS, counts in $AWORK)" >&2
  exit 0
fi
command -v strace >/dev/null || { echo "scale_counts.sh: strace is needed (apt-get install strace)" >&2; exit 1; }
WORK=$PWD/$BUILD/scale DATA=/dev/shm/mpiio-scale
rm -rf "$WORK" "$DATA"; mkdir -p "$WORK" "$DATA"
trap 'rm -rf "$DATA"' EXIT

# run <layer> <ranks> <driver> <case> <reps> <dir>: the probe under the PMPI counter.
run() {
  local io=$1 np=$2 driver=$3 case=$4 reps=$5 dir=$6
  mkdir -p "$dir"
  timeout 600 mpirun -n "$np" --oversubscribe --bind-to none --mca io "$io" \
    -x HDF5_PLUGIN_PATH="$PWD/$BUILD/plugins" -x LD_PRELOAD="$PWD/$BUILD/tools/libmpi_counts.so" \
    -x MPI_COUNTS_DIR="$dir" -x SCALE_PROBE_CONFIG="$CONFIG" "$BUILD/tools/scale_probe" "$driver" "$case" "$reps" "$DATA/probe.h5" >/dev/null
}

# totals <dir> <ranks>: "collective_calls bytes_exchanged plugin_bytes" averaged over the ranks
# (bytes: of the collective calls that exchange data; MPI-IO data calls excluded).
totals() {
  cat "$1"/counts.*.tsv | awk -v np="$2" -v coll="$COLLECTIVES" '
    BEGIN { n = split(coll, c, " "); for (i = 1; i <= n; ++i) is[c[i]] = 1 }
    is[$2] { calls += $3; if ($2 !~ /^MPI_File_/) { bytes += $4; if ($1 == "mpiio") own += $4 } }
    END { printf "%.3f %.1f %.1f\n", calls / np, bytes / np, own / np }'
}

# per_op <layer> <ranks> <driver> <case>: the difference of a run with REPS repetitions and one
# with none, per repetition.
per_op() {
  local base=$WORK/$1/$2/$3/$4
  run "$1" "$2" "$3" "$4" 0 "$base/0"
  run "$1" "$2" "$3" "$4" "$REPS" "$base/n"
  paste <(totals "$base/n" "$2") <(totals "$base/0" "$2") |
    awk -v r="$REPS" '{ printf "%.2f %.0f %.0f\n", ($1 - $4) / r, ($2 - $5) / r, ($3 - $6) / r }'
}

# file_ops <layer> <ranks> <driver>: file-system calls per rank per H5Fopen + H5Fclose on the
# probe's directory (the data file and the MPI-IO layer's side files): "opens other_calls".
file_ops() {
  local io=$1 np=$2 driver=$3 reps
  local out=$WORK/$io/$np/$driver/strace
  mkdir -p "$out"
  for reps in 0 "$REPS"; do
    timeout 900 strace -f -qq -o "$out/trace.$reps" \
      -e trace=open,openat,creat,unlink,unlinkat,stat,lstat,newfstatat,statx,access,faccessat,faccessat2,statfs,truncate \
      mpirun -n "$np" --oversubscribe --bind-to none --mca io "$io" -x HDF5_PLUGIN_PATH="$PWD/$BUILD/plugins" \
      -x SCALE_PROBE_CONFIG="$CONFIG" "$BUILD/tools/scale_probe" "$driver" open "$reps" "$DATA/probe.h5" >/dev/null
  done
  for reps in 0 "$REPS"; do
    grep -F "$DATA" "$out/trace.$reps" |
      awk '{ if ($0 ~ /open(at)?\(/ || $0 ~ /creat\(/) o++; else other++ } END { printf "%d %d\n", o, other }'
  done | paste - - | awk -v np="$np" -v r="$REPS" '{ printf "%.2f %.2f\n", ($3 - $1) / np / r, ($4 - $2) / np / r }'
}

# extrapolate <bytes at each rank count>: the bytes per rank at 8,192 ranks, a straight line
# through the last two rank counts ("same" when they are equal).
extrapolate() {
  local n=${#ranks[@]}
  if ((n < 2)); then echo "-"; return; fi
  local p1=${ranks[n - 2]} p2=${ranks[n - 1]} b1=${*:n-1:1} b2=${*:n:1}
  awk -v p1="$p1" -v p2="$p2" -v b1="$b1" -v b2="$b2" \
    'BEGIN { if (b1 == b2) print "same (" b2 ")"; else printf "%.0f\n", b2 + (b2 - b1) / (p2 - p1) * (8192 - p2) }'
}

IFS=, read -ra ranks <<<"$RANKS"
IFS=, read -ra layers <<<"$LAYERS"
{
  echo "# Costs that grow with the rank count"
  echo
  echo "Counted by \`bash scripts/scale_counts.sh\` ($(date -u '+%Y-%m-%d %H:%M UTC'), $(git rev-parse --short HEAD)),"
  echo "$(mpirun --version 2>/dev/null | head -1), HDF5 $("$BUILD/tools/scale_probe" version), ranks oversubscribed on this"
  echo "machine. Per rank and per operation (the difference of $REPS repetitions and none, divided by $REPS,"
  echo "averaged over the ranks). Calls and bytes are what HDF5 and the driver hand to MPI (PMPI:"
  echo "\`tools/libmpi_counts.so\`); MPI-IO's own exchanges inside \`MPI_File_*_all\` are not visible there."
  echo "The built-in driver is part of libhdf5, so its column counts HDF5's calls and its own together,"
  echo "as does the plugin's (HDF5's calls plus the plugin's); **plugin's own bytes** are the plugin's alone."
  [ -z "$CONFIG" ] || echo "The plugin's configuration in every run: \`$CONFIG\`."
  echo
  for io in "${layers[@]}"; do
    layer=$io
    if [ "$io" = romio ]; then # the component's name comes from the MPI (romio321, romio341)
      layer=$(ompi_info --parsable 2>/dev/null | awk -F: '/^mca:io:romio/{print $3; exit}')
      [ -n "$layer" ] || { echo "scale_counts.sh: this Open MPI has no ROMIO component" >&2; exit 1; }
    fi
    echo "## ${io^^} (\`--mca io $layer\`)"
    echo
    echo "| operation | driver | collective calls per rank (P = ${RANKS//,/, }) | bytes exchanged per rank | at 8,192 ranks (extrapolated) | plugin's own bytes per rank |"
    echo "|---|---|---|---|---|---|"
    for case in contiguous strided interleaved open; do
      label=$case; [ "$case" = open ] && label="H5Fopen + H5Fclose" || label="$case collective H5Dwrite + H5Dread"
      for driver in mpio mpiio; do
        calls=() bytes=() own=()
        for np in "${ranks[@]}"; do
          read -r c b o < <(per_op "$layer" "$np" "$driver" "$case")
          calls+=("$c") bytes+=("$b") own+=("$o")
        done
        own_text="-"; [ "$driver" = mpiio ] && own_text=$(IFS=/; echo "${own[*]}")
        echo "| $label | $driver | $(IFS=/; echo "${calls[*]}") | $(IFS=/; echo "${bytes[*]}") | $(extrapolate "${bytes[@]}") | $own_text |"
      done
    done
    echo
    echo "File-system calls per rank per H5Fopen + H5Fclose on the data file and the MPI-IO layer's side"
    echo "files (strace: opens / other path calls such as stat, access, unlink):"
    echo
    echo "| driver |$(printf ' P = %s |' "${ranks[@]}")"
    echo "|---|$(printf -- '---|%.0s' "${ranks[@]}")"
    for driver in mpio mpiio; do
      row="| $driver |"
      for np in "${ranks[@]}"; do
        read -r o x < <(file_ops "$layer" "$np" "$driver")
        row+=" $o / $x |"
      done
      echo "$row"
    done
    echo
  done
} >"$WORK/scale.md"
cp "$WORK/scale.md" "$OUT"
echo "scale_counts.sh: wrote $OUT (counts in $WORK)" >&2
