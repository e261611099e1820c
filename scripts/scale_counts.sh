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
set -euo pipefail
cd "$(dirname "$0")/.."
RANKS=4,16,64 LAYERS=ompio,romio REPS=8 OUT=docs/scale.md BUILD=${BUILD_DIR:-build} CONFIG=
while (($#)); do
  case $1 in
    --ranks) RANKS=$2; shift 2 ;;
    --layers) LAYERS=$2; shift 2 ;;
    --reps) REPS=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --config) CONFIG=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "scale_counts.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
for f in "$BUILD/tools/libmpi_counts.so" "$BUILD/tools/scale_probe" "$BUILD/plugins/libh5fd_mpiio.so"; do
  [ -e "$f" ] || { echo "scale_counts.sh: $f missing: run scripts/build.sh first" >&2; exit 1; }
done
command -v strace >/dev/null || { echo "scale_counts.sh: strace is needed (apt-get install strace)" >&2; exit 1; }
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
WORK=$PWD/$BUILD/scale DATA=/dev/shm/mpiio-scale
rm -rf "$WORK" "$DATA"; mkdir -p "$WORK" "$DATA"
trap 'rm -rf "$DATA"' EXIT
COLLECTIVES="MPI_Allreduce MPI_Iallreduce MPI_Allgather MPI_Allgatherv MPI_Bcast MPI_Reduce MPI_Gather MPI_Scan"
COLLECTIVES+=" MPI_Exscan MPI_Alltoall MPI_Alltoallv MPI_Alltoallw MPI_Barrier MPI_Ibarrier MPI_Comm_dup MPI_Comm_split_type MPI_File_open"
COLLECTIVES+=" MPI_File_close MPI_File_set_view MPI_File_set_size MPI_File_read_at_all MPI_File_write_at_all MPI_File_sync"

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
