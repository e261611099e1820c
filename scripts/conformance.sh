#!/usr/bin/env bash
# HDF5 testpar conformance of the mpiio plugin.
#
# Builds (once per HDF5 version, cached outside the clone) HDF5's own parallel test programs from
# the unmodified HDF5 source tree against the installed libhdf5.so, runs each on 4 ranks with the
# built-in MPI-IO driver ("mpio") and with the mpiio plugin ("mpiio", selected through the
# LD_PRELOAD redirect shim, tools/), under Open MPI's OMPIO and ROMIO, and writes a side-by-side
# Markdown report. Exits 1 if any (program, sub-test) passes with mpio but not with mpiio under the
# same io component (except the documented expected differences), 77 if the HDF5 source tree the
# programs are built from is missing, 2 on usage/setup errors.
#
#   scripts/conformance.sh [options]
#     --build-dir DIR   the repository's CMake build (default: ./build); gives the next two
#     --plugin-dir DIR  directory of libh5fd_mpiio.so            (default: <build>/plugins)
#     --shim FILE       libh5mpiio_redirect.so                  (default: <build>/tools/...)
#     --hdf5-root DIR   installed parallel HDF5 (default: $HDF5_ROOT, else scripts/setup.sh)
#     --hdf5-src DIR    its source tree (default: $MPIIO_VFD_CACHE/src/hdf5-<version>)
#     --out DIR         logs, results and conformance-report.md (default: <build>/conformance)
#     --programs "A B"  programs to run (default: the CI set; see PROGRAMS below)
#     --full            add the opt-in programs (t_bigio, t_2Gio): large files, long run time
#     --io "C..."       Open MPI io components (default: "ompio romio321")
#     --drivers "D..."  default "mpio mpiio"
#     --np N            ranks (default 4)
#     --timeout S       seconds per program invocation before it is killed (default 900)
#     --build-only      build or refresh the cached test programs, run nothing
#     --report-only     rewrite the report from the results already in --out
# Environment equivalents: MPIIO_CONFORMANCE_{PROGRAMS,FULL,IO,DRIVERS,NP,TIMEOUT}, and
# MPIIO_CONFORMANCE_STRICT=1 (expected differences fail too), MPIIO_VFD_CACHE (cache root).
#
# HDF5_DRIVER is never exported to the test programs: they select the driver with
# H5Pset_fapl_mpio, which the shim redirects; HDF5_DRIVER would also switch their H5P_DEFAULT
# (serial, single-rank) opens to the plugin.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CACHE=${MPIIO_VFD_CACHE:-/var/cache/mpiio-vfd}
BUILD=$ROOT/build
PLUGIN_DIR="" SHIM="" HDF5_PREFIX=${HDF5_ROOT:-} HDF5_SRC=${MPIIO_VFD_HDF5_SRC:-} OUT=""
PROGRAMS_ARG=${MPIIO_CONFORMANCE_PROGRAMS:-}
FULL=${MPIIO_CONFORMANCE_FULL:-0}
IOS=${MPIIO_CONFORMANCE_IO:-"ompio romio321"}
DRIVERS=${MPIIO_CONFORMANCE_DRIVERS:-"mpio mpiio"}
NP=${MPIIO_CONFORMANCE_NP:-4}
TIMEOUT=${MPIIO_CONFORMANCE_TIMEOUT:-900}
STRICT=${MPIIO_CONFORMANCE_STRICT:-0}
BUILD_ONLY=0 REPORT_ONLY=0

# CI set, in run order (t_pflush2 reads what t_pflush1 left, t_prestart what t_pshutdown left).
# t_coll_md, t_chunk_alloc, t_file, t_dset, ... are parts of testphdf5, not programs of their own.
CI_PROGRAMS="testphdf5 t_shapesame t_filters_parallel t_select_io_dset t_vfd t_pread t_mpi
 t_pflush1 t_pflush2 t_pshutdown t_prestart t_init_term t_subfiling_vfd"
OPTIN_PROGRAMS="t_cache t_cache_image t_pmulti_dset t_bigio t_2Gio"
declare -A OPTIN_WHY=(
  [t_cache]="~10 min per run on 2 cores with 4 oversubscribed ranks (metadata cache server/client stress): 40 min for the four runs"
  [t_cache_image]="~15 min per run on 2 cores (rank 0 builds 175 MB test files serially); upstream does not run it either (testpar/CMakeTests.cmake: 'do not test until new version is added')"
  [t_pmulti_dset]="~10 s under ROMIO, but under OMPIO it hangs after a data mismatch in configuration 25 (filtered multi-dataset collective I/O) with the built-in driver as well, so each OMPIO run costs the full time limit"
  [t_bigio]="~7 min (built-in driver) and ~3 min (plugin) per OMPIO run, ~50 s under ROMIO"
  [t_2Gio]="> 2 GiB transfers in 128 MiB-per-dataset files; long on 2 cores"
)
declare -A PREREQ=([t_pflush2]=t_pflush1 [t_prestart]=t_pshutdown)
# testphdf5: upstream (testpar/CMakeTests.cmake) runs these sub-tests in separate invocations.
TESTPHDF5_SEPARATE="cchunk1 cchunk2 cchunk3 cchunk4 ecdsetw eidsetw2 selnone cngrpw-ingrpr cschunkw
 ccchunkw tldsc actualio MC_coll_MD_read"

log() { echo "[conformance] $*" >&2; }
die() { echo "[conformance] error: $*" >&2; exit 2; }

while (($#)); do
  case $1 in
    --build-dir) BUILD=$2; shift 2 ;;
    --plugin-dir) PLUGIN_DIR=$2; shift 2 ;;
    --shim) SHIM=$2; shift 2 ;;
    --hdf5-root) HDF5_PREFIX=$2; shift 2 ;;
    --hdf5-src) HDF5_SRC=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --programs) PROGRAMS_ARG=$2; shift 2 ;;
    --full) FULL=1; shift ;;
    --io) IOS=$2; shift 2 ;;
    --drivers) DRIVERS=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --build-only) BUILD_ONLY=1; shift ;;
    --report-only) REPORT_ONLY=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")
PLUGIN_DIR=${PLUGIN_DIR:-$BUILD/plugins}
SHIM=${SHIM:-$BUILD/tools/libh5mpiio_redirect.so}
OUT=${OUT:-$BUILD/conformance}
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
RESULTS=$OUT/results.tsv
REPORT=$OUT/conformance-report.md
EXPECTED=$ROOT/test/conformance/expected-differences.tsv

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# ---- program selection ---------------------------------------------------------------------
if [ -n "$PROGRAMS_ARG" ]; then
  PROGRAMS=""
  for p in $PROGRAMS_ARG; do # add prerequisites, keep run order
    [ -n "${PREREQ[$p]:-}" ] && [[ " $PROGRAMS_ARG " != *" ${PREREQ[$p]} "* ]] && PROGRAMS+=" ${PREREQ[$p]}"
    PROGRAMS+=" $p"
  done
else
  PROGRAMS=$CI_PROGRAMS
  [ "$FULL" = 1 ] && PROGRAMS+=" $OPTIN_PROGRAMS"
fi
PROGRAMS=$(echo $PROGRAMS)

# ---- HDF5 install, source, and the cached test programs -------------------------------------
if [ -z "$HDF5_PREFIX" ]; then
  HDF5_PREFIX=$("$ROOT/scripts/setup.sh" | tail -1) || die "scripts/setup.sh failed"
fi
[ -f "$HDF5_PREFIX/include/H5public.h" ] || die "no HDF5 install in '$HDF5_PREFIX'"
H5VER=$(awk '/#define H5_VERS_INFO/{match($0,/[0-9]+\.[0-9]+\.[0-9]+/); print substr($0,RSTART,RLENGTH)}' \
        "$HDF5_PREFIX/include/H5public.h")
HDF5_SRC=${HDF5_SRC:-$CACHE/src/hdf5-$H5VER}
if [ ! -w "$CACHE" ] && [ ! -w "$(dirname "$CACHE")" ]; then
  CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/mpiio-vfd
fi
TESTPAR=$CACHE/testpar-$H5VER
BIN=$TESTPAR/build/bin

build_testpar() {
  if [ ! -f "$HDF5_SRC/testpar/testphdf5.c" ]; then
    log "no HDF5 $H5VER source tree at '$HDF5_SRC' (scripts/setup.sh unpacks it when it builds HDF5;"
    log "or pass --hdf5-src): the testpar programs cannot be built - skipping"
    exit 77
  fi
  local lib stamp want
  lib=$(readlink -f "$HDF5_PREFIX/lib/libhdf5.so") || die "no libhdf5.so in $HDF5_PREFIX/lib"
  # Rebuild whenever the library file, the source tree or our build description changes.
  want=$(printf '%s\n' "version=$H5VER" "src=$HDF5_SRC" "lib=$lib $(stat -c '%s %Y' "$lib")" \
           "cmake=$(cat "$ROOT/test/conformance/testpar/CMakeLists.txt" "$ROOT/cmake/FindParallelHDF5.cmake" | cksum)")
  mkdir -p "$TESTPAR" || die "cannot create $TESTPAR"
  exec 9>"$TESTPAR/.lock"
  flock 9 # one builder at a time; a concurrent run waits, then reuses
  stamp=$(cat "$TESTPAR/.stamp" 2>/dev/null || true)
  local p missing=0
  for p in $CI_PROGRAMS $OPTIN_PROGRAMS; do [ -x "$BIN/$p" ] || missing=1; done
  if [ "$stamp" = "$want" ] && [ $missing = 0 ]; then
    log "reusing the testpar programs in $BIN"
  else
    log "building HDF5 $H5VER testpar programs into $TESTPAR/build (about a minute)"
    local gen=()
    command -v ninja >/dev/null && gen=(-G Ninja)
    rm -f "$TESTPAR/.stamp"
    if ! { cmake -S "$ROOT/test/conformance/testpar" -B "$TESTPAR/build" "${gen[@]}" \
             -DCMAKE_BUILD_TYPE=Release -DHDF5_ROOT="$HDF5_PREFIX" -DHDF5_SRC_DIR="$HDF5_SRC" &&
           cmake --build "$TESTPAR/build" -j "$(nproc)"; } >"$TESTPAR/build.log" 2>&1; then
      tail -30 "$TESTPAR/build.log" >&2
      die "building the testpar programs failed; see $TESTPAR/build.log"
    fi
    echo "$want" >"$TESTPAR/.stamp"
  fi
  exec 9>&-
}

check_same_libhdf5() {
  [ -f "$PLUGIN_DIR/libh5fd_mpiio.so" ] || die "no libh5fd_mpiio.so in '$PLUGIN_DIR' (build the repository first)"
  [ -f "$SHIM" ] || die "no redirect shim at '$SHIM' (build the repository first)"
  local a b
  a=$(ldd "$PLUGIN_DIR/libh5fd_mpiio.so" | awk '/libhdf5\.so/{print $3}' | xargs -r readlink -f)
  b=$(ldd "$BIN/testphdf5" | awk '/libhdf5\.so/{print $3}' | xargs -r readlink -f)
  [ -n "$a" ] && [ "$a" = "$b" ] ||
    die "the plugin loads '$a' but the test programs load '$b': they must use the same libhdf5.so"
  log "plugin and test programs load $a"
}

# ---- running ---------------------------------------------------------------------------------
descendants() { local c; for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do echo "$c"; descendants "$c"; done; }

# run_limited <seconds> <cmd...>: runs cmd; past the limit TERMs it, then KILLs it and every
# process it started (by pid). Returns the command's status, 124 on timeout.
run_limited() {
  local limit=$1; shift
  "$@" &
  local pid=$! start=$SECONDS
  while kill -0 "$pid" 2>/dev/null; do
    if ((SECONDS - start >= limit)); then
      local kids; kids=$(descendants "$pid")
      kill -TERM "$pid" 2>/dev/null; sleep 10
      # shellcheck disable=SC2086
      kill -KILL "$pid" $kids 2>/dev/null
      wait "$pid" 2>/dev/null
      return 124
    fi
    sleep 0.2
  done
  wait "$pid"
}

# mpirun_prog <io> <driver> <workdir> <log> <program> [args...]
mpirun_prog() {
  local io=$1 driver=$2 work=$3 logf=$4 prog=$5; shift 5
  local cmd=(env -u HDF5_DRIVER -u HDF5_DRIVER_CONFIG -u MPIIO_REDIRECT -u MPIIO_REDIRECT_CONFIG
             -u LD_PRELOAD -u HDF5_PLUGIN_PATH HDF5_ALARM_SECONDS=3600 srcdir="$work"
             mpirun -n "$NP" --oversubscribe --bind-to none --mca io "$io" --tag-output)
  [ "$driver" = mpiio ] &&
    cmd+=(-x LD_PRELOAD="$SHIM" -x MPIIO_REDIRECT=1 -x MPIIO_REDIRECT_VERBOSE=1 -x HDF5_PLUGIN_PATH="$PLUGIN_DIR")
  cmd+=("$BIN/$prog" "$@")
  echo "#### conformance: invoke: ${cmd[*]}" >>"$logf"
  (cd "$work" && run_limited "$TIMEOUT" "${cmd[@]}") >>"$logf" 2>&1
  local rc=$?
  echo "#### conformance: exit $rc" >>"$logf"
  return $rc
}

# The parser: turns one program's tagged log into "subtest<TAB>status<TAB>detail" lines.
# Understands the formats of HDF5's test programs: testframe ("Testing  -- desc (name)"),
# h5test TESTING()/PASSED()/H5_FAILED()/SKIPPED() (result possibly on a later line, nested
# "  Testing" under a multipart header, sections "--- X ---", "== X ==", "Configuration:" blocks),
# MPI_BANNER sections ("Proc 0: *** X"), VRFY failures and MPI_Abort.
PARSER='
function flush_rank(r) { if (r in buf) { handle(r, buf[r]); delete buf[r] } }
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function open_sub(name,   k) {
  close_open("PASS")
  name = trim(name); if (name == "") return
  cur_base = name; k = ++seen[name]; if (k > 1) name = name " #" k
  cur = name; order[++n] = name; status[name] = "RUNNING"; pending = 1
}
function close_open(st) {
  if (cur != "" && status[cur] == "RUNNING") status[cur] = st
  if (cur != "" && status[cur] == "FAILING") status[cur] = "FAIL"
  pending = 0
}
function fail_cur(why) {
  if (cur == "") { pre_fail = pre_fail == "" ? why : pre_fail; return }
  if (status[cur] == "RUNNING" || status[cur] == "PASS") status[cur] = "FAILING"
  if (!(cur in detail)) detail[cur] = why
}
function ctxname(name,   s) {
  s = ""
  if (section != "") s = section " :: "
  if (config != "") s = s config " :: "
  if (header != "") s = s header " :: "
  return s name
}
function result_token(t) {
  if (t ~ /^PASSED/) { if (status[cur] == "RUNNING") status[cur] = "PASS"; else close_open("PASS"); pending = 0 }
  else if (t ~ /^\*FAILED\*/) { fail_cur("*FAILED*"); close_open("FAIL") }
  else if (t ~ /^-SKIP-/) { if (status[cur] == "RUNNING") status[cur] = "SKIP"; pending = 0 }
}
function handle(r, s,   m, name, t, indent) {
  if (s ~ /^#### conformance: /) { return }
  # --- failures, from any rank -----------------------------------------------------------
  if (s ~ /\*\*\* PHDF5 ERROR \*\*\*/) { failmark = r; return }
  if (s ~ /Assertion \(.*\) failed at line/) { fail_cur(trim(s)); return }
  if (s ~ /MPI_ABORT was invoked|MPI_Abort|aborting MPI processes/) { aborted = 1; if (cur != "" && status[cur] != "PASS" && status[cur] != "SKIP") fail_cur("MPI_Abort: " trim(s)); return }
  if (s ~ /\*FAILED\*/ && r != 0) { fail_cur("*FAILED* on rank " r); return }
  # data verification and check macros of the test programs (any rank)
  if (s ~ /errors? found in [A-Za-z_]+|Verify failed|\*\*\* UNEXPECTED (RETURN|VALUE)|[Dd]ata (verification|mismatch)/) { fail_cur("rank " r ": " trim(s)); return }
  # the program reached its end (so its last sub-test finished)
  if (s ~ /All tests were successful|Error\(s\) were detected|tests finished with no (errors|failures)|tests (passed|detected [0-9]+ errors)|TEST ERROR.* OCCURRED/) completed = 1
  # end-of-program error totals: evidence of a failure, attributed only if nothing else was
  if (s ~ /tests detected [0-9]+ errors|TEST ERROR.* OCCURRED|!!! [0-9]+ Error\(s\) were detected|detected [0-9]+ errors\*\*\*/) { unattributed = trim(s); return }
  if (r != 0) return           # everything else that structures the output comes from rank 0
  # --- structure (rank 0) -----------------------------------------------------------------
  if (s ~ /^ *--- .* --- *$/) { t = trim(s); gsub(/^--- | ---$/, "", t); section = t; header = ""; config = ""; return }
  if (s ~ /^== .* ==$/) {
    t = s; gsub(/^== | ==$/, "", t)
    if (t ~ /^Running tests in mode /) {   # t_filters_parallel: "mode / filter / sel-io X / chunk I/O / alloc"
      sub(/^Running tests in mode /, "", t); sub(/ with filter /, " / ", t); sub(/ using selection I\/O mode /, " / sel-io ", t)
      sub(/ allocation time$/, " alloc", t); gsub(/, | and /, " / ", t); gsub(/\047/, "", t)
    }
    section = t; header = ""; return }
  if (s ~ /^(Read Testing |Collective chunk I\/O Test #[0-9]|Single Rank Independent I\/O)/) { open_sub(ctxname(trim(s))); return }   # t_bigio
  if (s ~ /^Configuration:/) { close_open("PASS"); inconfig = 1; config = ""; return }
  if (inconfig && s ~ /^  [A-Za-z][A-Za-z /]*:/) { t = s; sub(/:[ ]*/, "=", t); config = config (config == "" ? "" : ", ") trim(t); return }
  inconfig = 0
  if (s ~ /^Testing  -- .*\([^()]*\) *$/) {            # testframe
    m = s; sub(/.*\(/, "", m); sub(/\) *$/, "", m); open_sub(m); return }
  if (s ~ /^ *Testing /) {
    indent = match(s, /[^ ]/) - 1
    t = s; sub(/^ *Testing /, "", t)
    # the result may follow on the same line ("name   PASSED") or on a later one
    m = ""
    if (match(t, / PASSED *$| \*FAILED\* *$|\*FAILED\* *$| -SKIP- *$/)) { m = trim(substr(t, RSTART)); t = substr(t, 1, RSTART - 1) }
    if (match(t, /   +/)) t = substr(t, 1, RSTART - 1)      # padding, then unrelated output
    if (indent == 0) header = ""
    # An indented "Testing" right after an unindented one that got no result: that one was a
    # multipart header (TESTING_MULTIPART), not a sub-test.
    if (indent > 0 && cur != "" && cur_indent == 0 && status[cur] == "RUNNING" && !(cur in detail)) {
      header = cur_raw; delete status[cur]; seen[cur_base]--; n--; cur = ""
    }
    open_sub(ctxname(t)); cur_indent = indent; cur_raw = trim(t)
    if (m != "") result_token(m)
    return
  }
  if (match(s, /(^| )(PASSED|\*FAILED\*|-SKIP-) *$/)) { t = substr(s, RSTART); result_token(trim(t)); return }
  if (s ~ /^Proc 0: \*\*\* / && s !~ /PHDF5 (ERROR|REMARK)|SYNC/) {   # MPI_BANNER section
    t = s; sub(/^Proc 0: \*\*\* /, "", t); sub(/\.\.\. *$/, "", t); open_sub(ctxname(t)); return }
}
{
  line = $0
  if (line !~ /^\[[0-9]+,[0-9]+\]<std(out|err)>:/) {       # mpirun itself, or untagged
    if (line ~ /MPI_ABORT was invoked/) aborted = 1
    if (line ~ /^\*FAILED\*/) fail_cur("*FAILED*")
    handle(-1, line); next
  }
  # A physical line can hold several tagged segments: all but the last are partial lines.
  nseg = 0
  while (match(line, /\[[0-9]+,[0-9]+\]<std(out|err)>:/)) {
    if (nseg > 0) { segtext[nseg] = substr(line, 1, RSTART - 1) }
    tag = substr(line, RSTART + 1, RLENGTH - 2); sub(/\].*/, "", tag); split(tag, tp, ","); segrank[++nseg] = tp[2] + 0
    line = substr(line, RSTART + RLENGTH)
  }
  segtext[nseg] = line
  for (i = 1; i < nseg; i++) buf[segrank[i]] = buf[segrank[i]] segtext[i]
  r = segrank[nseg]; buf[r] = buf[r] segtext[nseg]; flush_rank(r)
}
END {
  for (r in buf) flush_rank(r)
  if (cur != "" && (status[cur] == "RUNNING" || status[cur] == "FAILING")) {
    if (timedout) { status[cur] = "TIMEOUT"; detail[cur] = "killed after the time limit" }
    else if (status[cur] == "FAILING" || aborted || (exitcode != 0 && !completed)) { status[cur] = "FAIL"; if (!(cur in detail)) detail[cur] = "program ended (exit " exitcode ") during this sub-test" }
    else status[cur] = "PASS"
  }
  for (i = 1; i <= n; i++) {
    st = status[order[i]]; if (st == "FAILING") st = "FAIL"; if (st == "RUNNING") st = "PASS"
    d = detail[order[i]]; gsub(/\t/, " ", d)
    printf "%s\t%s\t%s\n", order[i], st, d
  }
  if (timedout && (cur == "" || status[cur] != "TIMEOUT")) printf "(time limit reached after the last sub-test started)\tTIMEOUT\tkilled\n"
  if (pre_fail != "") printf "(before the first sub-test)\tFAIL\t%s\n", pre_fail
  if (unattributed != "") {
    nf = 0; for (i = 1; i <= n; i++) if (status[order[i]] == "FAIL" || status[order[i]] == "FAILING") nf++
    if (nf == 0) printf "(errors not attributed to a sub-test)\tFAIL\t%s\n", unattributed
  }
}'

# parse_log <log> <exit code> -> sub-test lines on stdout
parse_log() { awk -v exitcode="$2" -v timedout="$([ "$2" = 124 ] && echo 1 || echo 0)" "$PARSER" "$1"; }

# testframe_list <program> -> names of its testframe sub-tests in registration order, as rank 0
# of an $NP-rank run lists them (-h); names starting with "-" are disabled at that size.
declare -A TF_LIST=()
testframe_list() {
  if [ -z "${TF_LIST[$1]:-}" ]; then
    TF_LIST[$1]=$(cd "$OUT" && env -u LD_PRELOAD -u HDF5_DRIVER timeout 120 mpirun -n "$NP" --oversubscribe \
                    --bind-to none --tag-output "$BIN/$1" -h 2>/dev/null |
                  sed -n 's/^\[[0-9]*,0\]<stdout>://p' |
                  awk '/^ *-+ -+ *$/{on=1; next} on && NF>=2 {if ($1 !~ /^-/) print $1; next} on && NF==0 {exit}' |
                  tr '\n' ' ')
  fi
  echo "${TF_LIST[$1]}"
}

# run_program <prog> <io> <driver> <work>: runs one program (all its invocations), appends its
# results to $RESULTS.
run_program() {
  local prog=$1 io=$2 driver=$3 work=$4
  local logf=$OUT/logs/$prog.$io.$driver.log
  rm -f "$logf"
  local t0=$SECONDS rc=0 status detail
  # Leftover files of earlier programs (dependents read their prerequisite's files).
  [ -z "${PREREQ[$prog]:-}" ] && find "$work" -maxdepth 1 -type f -delete
  local parsed=$OUT/parsed/$prog.$io.$driver.tsv
  : >"$parsed"
  case $prog in
    testphdf5|t_shapesame|t_2Gio)
      local all skip_args=() chunks=() c
      all=$(testframe_list "$prog")
      if [ "$prog" = testphdf5 ]; then
        for c in $TESTPHDF5_SEPARATE; do skip_args+=(-x "$c"); done
        chunks=("main" $TESTPHDF5_SEPARATE)
      else
        chunks=("main")
      fi
      for c in "${chunks[@]}"; do
        local args=() begin="" tries=0 part
        if [ "$c" = main ]; then args=("${skip_args[@]}"); else args=(-o "$c"); fi
        while :; do
          part=$OUT/logs/$prog.$io.$driver.part
          rm -f "$part"
          if [ -n "$begin" ]; then mpirun_prog "$io" "$driver" "$work" "$part" "$prog" "${args[@]}" -b "$begin"
          else mpirun_prog "$io" "$driver" "$work" "$part" "$prog" "${args[@]}"; fi
          local prc=$?
          cat "$part" >>"$logf"
          local res; res=$(parse_log "$part" "$prc")
          printf '%s\n' "$res" | awk -F'\t' 'NF>=2' >>"$parsed"
          ((prc != 0)) && rc=$prc
          # Aborted in a sub-test: resume after it (main chunk only; -o runs are single tests).
          local last; last=$(printf '%s\n' "$res" | awk -F'\t' '$2=="FAIL"||$2=="TIMEOUT"{l=$1} END{print l}')
          # (only if it stopped early: a program that ran to its end reported every sub-test)
          [ "$c" = main ] && ((prc != 0)) && [ -n "$last" ] || break
          grep -Eq 'All tests were successful|Error\(s\) were detected' "$part" && break
          begin=""
          local found=0 t
          for t in $all; do
            if [ $found = 1 ] && [[ " $TESTPHDF5_SEPARATE " != *" $t "* || $prog != testphdf5 ]]; then begin=$t; break; fi
            [ "$t" = "${last%% #*}" ] && found=1
          done
          [ -n "$begin" ] && ((++tries < 15)) || break
          echo "#### conformance: resuming after the failed sub-test '$last' at '$begin'" >>"$logf"
        done
      done
      rm -f "$OUT/logs/$prog.$io.$driver.part"
      ;;
    *)
      mpirun_prog "$io" "$driver" "$work" "$logf" "$prog"; rc=$?
      parse_log "$logf" "$rc" >>"$parsed"
      ;;
  esac
  local secs=$((SECONDS - t0))
  # Program verdict. t_pflush1 ends with a non-zero exit on purpose (it _exit()s without closing
  # the file; upstream marks it WILL_FAIL): it passes when its sub-tests do.
  if ((rc == 124)); then status=TIMEOUT detail="killed after ${TIMEOUT}s"
  elif [ "$prog" = t_pflush1 ]; then
    if grep -q $'\tPASS' "$parsed" && ! grep -q $'\tFAIL' "$parsed"; then status=PASS detail="exit $rc (expected: exits without closing the file)"
    else status=FAIL detail="exit $rc"; fi
  elif ((rc == 0)) && ! grep -q $'\tFAIL' "$parsed"; then status=PASS detail=""
  else status=FAIL detail="exit $rc"; fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$prog" "(program)" "$io" "$driver" "$status" "$secs" "$detail" >>"$RESULTS"
  # How many processes the shim redirected (it announces itself once per process).
  [ "$driver" = mpiio ] &&
    printf '%s\t%s\t%s\n' "$prog" "$io" "$(grep -c 'h5mpiio_redirect: H5Pset_fapl_mpio selects' "$logf")" >>"$OUT/redirected.tsv"
  awk -F'\t' -v p="$prog" -v io="$io" -v d="$driver" 'NF>=2 { printf "%s\t%s\t%s\t%s\t%s\t\t%s\n", p, $1, io, d, $2, $3 }' \
    "$parsed" >>"$RESULTS"
  log "$(printf '%-20s %-9s %-6s %-8s %4ss' "$prog" "$io" "$driver" "$status" "$secs")"
}

# ---- report ----------------------------------------------------------------------------------
write_report() {
  local total_secs=${1:-} p
  for p in $OPTIN_PROGRAMS; do printf '%s\t%s\n' "$p" "${OPTIN_WHY[$p]:-}"; done >"$OUT/optin.tsv"
  awk -F'\t' -v ios="$IOS" -v drivers="$DRIVERS" -v programs="$PROGRAMS" -v optin="$OPTIN_PROGRAMS" \
      -v full="$FULL" -v strict="$STRICT" -v np="$NP" -v h5ver="$H5VER" -v total="$total_secs" \
      -v expected="$EXPECTED" -v redirected="$OUT/redirected.tsv" -v optinfile="$OUT/optin.tsv" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v failfile="$OUT/regressions.tsv" '
  function cell(st) { return st == "" ? "-" : st }
  function esc(s) { gsub(/\|/, "\\|", s); return s }
  BEGIN {
    nio = split(ios, IO, " "); ndr = split(drivers, DR, " "); np_ = split(programs, P, " ")
    for (i = 1; i <= np_; i++) progidx[P[i]] = i
    nexp = 0
    while ((getline line < expected) > 0) {
      if (line ~ /^#/ || line ~ /^[ \t]*$/) continue
      split(line, f, "\t"); nexp++; EP[nexp] = f[1]; ES[nexp] = f[2]; EK[nexp] = f[3]; ER[nexp] = f[4]
    }
    while ((getline line < optinfile) > 0) { split(line, f, "\t"); WHY[f[1]] = f[2] }
    while ((getline line < redirected) > 0) { split(line, f, "\t"); RD[f[1]] += f[3]; RDseen[f[1]] = 1 }
  }
  {
    key = $1 SUBSEP $2
    if (!(key in known)) { known[key] = 1; nk[$1]++; K[$1, nk[$1]] = $2 }
    S[key, $3, $4] = $5; D[key, $3, $4] = $7
    if ($2 == "(program)") T[$1, $3, $4] = $6
  }
  function expected_kind(p, s,   i) {
    for (i = 1; i <= nexp; i++) if (p == EP[i] && s ~ ES[i]) { ekind = EK[i]; ereason = ER[i]; return 1 }
    return 0
  }
  END {
    print "# mpiio plugin conformance: HDF5 " h5ver " testpar"
    print ""
    print "Generated " date " by scripts/conformance.sh: every program on " np " ranks (Open MPI, `--oversubscribe`),"
    print "with the built-in MPI-IO driver (`mpio`) and with the mpiio plugin selected by the redirect shim (`mpiio`:"
    print "`LD_PRELOAD=libh5mpiio_redirect.so MPIIO_REDIRECT=1`), under the io components " ios "."
    print "HDF5_DRIVER is not set. A regression is a (program, sub-test) that passes with `mpio` and does not with"
    print "`mpiio` under the same io component."
    print ""
    # regressions
    nreg = 0; nx = 0
    for (pi = 1; pi <= np_; pi++) { p = P[pi]
      for (k = 1; k <= nk[p]; k++) { s = K[p, k]; key = p SUBSEP s
        for (ii = 1; ii <= nio; ii++) { io = IO[ii]
          a = S[key, io, "mpio"]; b = S[key, io, "mpiio"]
          if (a == "PASS" && b != "PASS" && !(b == "SKIP")) {
            if (expected_kind(p, s)) { nx++; XL[nx] = "| " p " | " esc(s) " | " io " | " cell(b) " | " ekind " | " esc(ereason) " |"; if (strict == 1) { nreg++; RL[nreg] = "| " p " | " esc(s) " | " io " | " cell(b) " | " esc(D[key, io, "mpiio"]) " |" } }
            else { nreg++; RL[nreg] = "| " p " | " esc(s) " | " io " | " cell(b) " | " esc(D[key, io, "mpiio"]) " |" }
          } else if (a == "PASS" && b == "PASS" && expected_kind(p, s) && ekind == "pending") {
            nxp++; XP[nxp] = "| " p " | " esc(s) " | " io " |"
          }
        }
      }
    }
    print "## Verdict"
    print ""
    if (nreg == 0) print "**PASS** - no sub-test passes with `mpio` and fails with `mpiio`" (nx ? " (" nx " expected differences, listed below)." : ".")
    else print "**FAIL** - " nreg " (program, sub-test, io) cases pass with `mpio` and fail with `mpiio`."
    print ""
    if (nreg) {
      print "| program | sub-test | io | mpiio | detail |"; print "|---|---|---|---|---|"
      for (i = 1; i <= nreg; i++) { print RL[i]; print RL[i] > failfile }
      print ""
    }
    # program table
    print "## Programs"
    print ""
    hdr = "| program |"; sep = "|---|"
    for (ii = 1; ii <= nio; ii++) for (di = 1; di <= ndr; di++) { hdr = hdr " " DR[di] " " IO[ii] " |"; sep = sep "---|" }
    for (ii = 1; ii <= nio; ii++) for (di = 1; di <= ndr; di++) { hdr = hdr " s " DR[di] " " IO[ii] " |"; sep = sep "--:|" }
    print hdr " sub-tests | plugin used |"; print sep "--:|---|"
    for (pi = 1; pi <= np_; pi++) { p = P[pi]; key = p SUBSEP "(program)"
      row = "| " p " |"
      for (ii = 1; ii <= nio; ii++) for (di = 1; di <= ndr; di++) row = row " " cell(S[key, IO[ii], DR[di]]) " |"
      for (ii = 1; ii <= nio; ii++) for (di = 1; di <= ndr; di++) { t = T[p, IO[ii], DR[di]]; row = row " " (t == "" ? "-" : t) " |"; if (t != "") tsum[DR[di] " " IO[ii]] += t }
      ru = !(p in RDseen) ? "-" : RD[p] > 0 ? "yes (" RD[p] ")" : "no: never calls H5Pset_fapl_mpio"
      print row " " nk[p] - 1 " | " ru " |"
    }
    row = "| **total** |"
    for (ii = 1; ii <= nio; ii++) for (di = 1; di <= ndr; di++) row = row " |"
    for (ii = 1; ii <= nio; ii++) for (di = 1; di <= ndr; di++) row = row " " tsum[DR[di] " " IO[ii]] + 0 " |"
    print row " | |"
    print ""
    print "`plugin used`: yes (N) = N rank processes of the `mpiio` runs (all invocations) were redirected to the plugin (the shim announces"
    print "itself once per process, MPIIO_REDIRECT_VERBOSE=1); programs that never call H5Pset_fapl_mpio (raw MPI-IO,"
    print "serial HDF5, not-built VFDs) run identically in both columns."
    print ""
    if (total != "") print "Wall time of the whole run (build check, all programs, report): " total " s."
    print ""
    n = split(optin, O, " "); s = ""
    for (i = 1; i <= n; i++) if (!(O[i] in progidx)) s = s "| " O[i] " | " esc(WHY[O[i]]) " |\n"
    if (s != "") {
      print "Opt-in programs not run here (outside the CI time budget; `MPIIO_CONFORMANCE_FULL=1` or `--full` runs them,"
      print "`--programs \"...\"` picks any):"
      print ""; print "| program | why opt-in |"; print "|---|---|"; printf "%s", s; print ""
    }
    print "`t_coll_md`, `t_chunk_alloc`, `t_dset`, `t_file`, `t_mdset`, `t_prop`, ... are compiled into `testphdf5`;"
    print "their sub-tests appear under testphdf5 below (for example `calloc`, `chkallocser2par`, `noselcollmdread`)."
    print ""
    print "## Expected differences"
    print ""
    print "Cases listed in test/conformance/expected-differences.tsv: `inapplicable` (the test checks something no"
    print "external driver can satisfy; the reason cites the line) or `pending` (a known missing feature). They do not"
    print "fail the run unless MPIIO_CONFORMANCE_STRICT=1."
    print ""
    if (nx) { print "| program | sub-test | io | mpiio | kind | reason |"; print "|---|---|---|---|---|---|"; for (i = 1; i <= nx; i++) print XL[i]; print "" }
    else { print "None observed in this run."; print "" }
    if (nxp) { print "Listed as pending but passing now (remove from the list):"; print ""; print "| program | sub-test | io |"; print "|---|---|---|"; for (i = 1; i <= nxp; i++) print XP[i]; print "" }
    # sub-tests
    print "## Sub-tests"
    print ""
    print "PASS / FAIL / SKIP (the program skipped it) / TIMEOUT; `-` = not reached (the program ended before it)."
    print ""
    hdr = "| program | sub-test |"; sep = "|---|---|"
    for (ii = 1; ii <= nio; ii++) for (di = 1; di <= ndr; di++) { hdr = hdr " " DR[di] " " IO[ii] " |"; sep = sep "---|" }
    print hdr; print sep
    for (pi = 1; pi <= np_; pi++) { p = P[pi]
      for (k = 1; k <= nk[p]; k++) { s = K[p, k]; if (s == "(program)") continue; key = p SUBSEP s
        row = "| " p " | " esc(s) " |"; mark = ""
        for (ii = 1; ii <= nio; ii++) {
          for (di = 1; di <= ndr; di++) { st = cell(S[key, IO[ii], DR[di]]); row = row " " (st ~ /FAIL|TIMEOUT/ ? "**" st "**" : st) " |" }
        }
        print row
      }
    }
    print ""
    print "Logs: logs/<program>.<io>.<driver>.log next to this report."
    exit (nreg > 0)
  }' "$RESULTS" >"$REPORT"
}

# ---- main ------------------------------------------------------------------------------------
main() {
  if [ "$REPORT_ONLY" = 1 ]; then
    [ -f "$RESULTS" ] || die "no results in $OUT"
    PROGRAMS=$(awk -F'\t' '!seen[$1]++{printf "%s ", $1}' "$RESULTS")
    rm -f "$OUT/regressions.tsv"
    write_report; rc=$?
    log "report: $REPORT"; exit $rc
  fi

  build_testpar
  [ "$BUILD_ONLY" = 1 ] && { log "test programs in $BIN"; exit 0; }
  check_same_libhdf5
  for p in $PROGRAMS; do [ -x "$BIN/$p" ] || die "no test program '$p' in $BIN"; done

  rm -rf "$OUT/logs" "$OUT/parsed" "$OUT/work" "$OUT/regressions.tsv" "$OUT/redirected.tsv"
  mkdir -p "$OUT/logs" "$OUT/parsed"
  : >"$RESULTS"
  T0=$SECONDS
  log "programs: $PROGRAMS"
  log "io components: $IOS; drivers: $DRIVERS; $NP ranks; ${TIMEOUT}s limit per invocation; output in $OUT"
  for prog in $PROGRAMS; do
    for io in $IOS; do
      for driver in $DRIVERS; do
        work=$OUT/work/$io-$driver
        mkdir -p "$work"
        run_program "$prog" "$io" "$driver" "$work"
      done
    done
  done
  rm -rf "$OUT/work"
  write_report "$((SECONDS - T0))"; rc=$?
  log "report: $REPORT"
  if ((rc)); then
    log "FAIL: cases that pass with mpio and fail with mpiio:"
    sed 's/^/  /' "$OUT/regressions.tsv" >&2
    exit 1
  fi
  log "PASS: no case passes with mpio and fails with mpiio"
  exit 0
}

# Parsed completely before it runs: editing this file never disturbs a running instance.
main; exit $?
