#!/usr/bin/env bash
# HDF5 testpar conformance of the mpiio plugin.
#
# Builds (once per HDF5 version, cached outside the clone) HDF5's own parallel test programs from
# the unmodified HDF5 source tree against the installed libhdf5.so, runs each on 4 ranks with the
# built-in MPI-IO driver ("mpio") and with the mpiio plugin ("mpiio", selected through the
# LD_PRELOAD redirect shim, tools/), under every MPI-IO layer of the MPI family (Open MPI: OMPIO and
# ROMIO; MPICH: ROMIO), and writes a side-by-side Markdown report. Exits 1 if any (program,
# sub-test) passes with mpio but not with mpiio under the same layer (except the documented
# expected differences), 77 if the HDF5 source tree the programs are built from is missing, 2 on
# usage/setup errors.
#
#   scripts/conformance.sh [options]
#     --mpi F           MPI family: openmpi (default) or mpich; the HDF5, test programs and
#                       launcher must all be of that family
#     --mpiexec FILE    its launcher (default: mpiexec.<family>, else mpiexec)
#     --mpicc FILE      its C compiler wrapper for the test programs (default: mpicc.<family>)
#     --build-dir DIR   the repository's CMake build (default: ./build); gives the next two
#     --plugin-dir DIR  directory of libh5fd_mpiio.so            (default: <build>/plugins)
#     --shim FILE       libh5mpiio_redirect.so                  (default: <build>/tools/...)
#     --hdf5-root DIR   installed parallel HDF5 (default: $HDF5_ROOT, else scripts/setup.sh)
#     --hdf5-src DIR    its source tree (default: $MPIIO_VFD_CACHE/src/hdf5-<version>)
#     --out DIR         logs, results and conformance-report.md (default: <build>/conformance,
#                       with --on-dfs <build>/conformance-dfs, on scripts/cephfs.sh's testbed
#                       <build>/conformance-cephfs)
#     --programs "A B"  programs to run (default: the CI set; see PROGRAMS below)
#     --full            add the opt-in programs (OPTIN_PROGRAMS below: long run times), and run
#                       the CI programs limited to some MPI-IO layers (CI_IO_ONLY) under all
#     --io "C..."       MPI-IO layers: Open MPI io components (default "ompio romio321"); under
#                       MPICH only "romio" (the default) exists
#     --drivers "D..."  default "mpio mpiio"
#     --np N            ranks (default 4)
#     --timeout S       seconds per program invocation before it is killed (default 900, with
#                       --on-dfs 2400)
#     --on-dfs          inside scripts/dfs.sh or scripts/cephfs.sh: the programs work in a
#                       directory on its volume ($MPIIO_DFS_DIR/conformance), each rank started
#                       through the testbed's rank agent ($MPIIO_DFS_AGENT before the program:
#                       odd ranks on the second client, under Open MPI and MPICH alike),
#                       HDF5_USE_FILE_LOCKING=FALSE for both
#                       drivers (why: at RUN_ENV below); logs and report stay in --out, outside
#                       the volume, so they outlive the testbed
#     --build-only      build or refresh the cached test programs, run nothing
#     --report-only     rewrite the report from the results already in --out
# Environment equivalents: MPIIO_CONFORMANCE_{MPI,PROGRAMS,FULL,IO,DRIVERS,NP,TIMEOUT}, and
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
IOS=${MPIIO_CONFORMANCE_IO:-}
MPI_FAMILY=${MPIIO_CONFORMANCE_MPI:-openmpi} MPIEXEC="" MPICC=""
DRIVERS=${MPIIO_CONFORMANCE_DRIVERS:-"mpio mpiio"}
NP=${MPIIO_CONFORMANCE_NP:-4}
TIMEOUT=${MPIIO_CONFORMANCE_TIMEOUT:-900}
STRICT=${MPIIO_CONFORMANCE_STRICT:-0}
BUILD_ONLY=0 REPORT_ONLY=0 IO_GIVEN=${MPIIO_CONFORMANCE_IO:+1} ON_DFS=0
TIMEOUT_GIVEN=${MPIIO_CONFORMANCE_TIMEOUT:+1}

# CI set, in run order (t_pflush2 reads what t_pflush1 left, t_prestart what t_pshutdown left).
# t_coll_md, t_chunk_alloc, t_file, t_dset, ... are parts of testphdf5, not programs of their own.
CI_PROGRAMS="testphdf5 t_shapesame t_filters_parallel t_select_io_dset t_pmulti_dset t_vfd t_pread t_mpi
 t_pflush1 t_pflush2 t_pshutdown t_prestart t_init_term"
OPTIN_PROGRAMS="t_cache t_cache_image t_bigio t_2Gio t_subfiling_vfd"
declare -A OPTIN_WHY=(
  [t_cache]="~10 min per run on 2 cores with 4 oversubscribed ranks (metadata cache server/client stress): 40 min for the four runs"
  [t_cache_image]="3-6 min per run on 2 cores (rank 0 builds two 175 MB files serially), ~17 min for the four runs; upstream does not run it either (testpar/CMakeTests.cmake: \"do not test until new version is added\")"
  [t_bigio]="~7 min (built-in driver) and ~3 min (plugin) per OMPIO run, ~50 s under ROMIO"
  [t_2Gio]="> 2 GiB transfers in 128 MiB-per-dataset files; long on 2 cores"
  [t_subfiling_vfd]="the subfiling driver's own test: it never selects the MPI-IO driver, so the plugin is never loaded (0 redirected opens) and both columns run the same code; 27-39 s per run under Open MPI, and under MPICH 4.0 on 4 oversubscribed ranks still in its fourth sub-test after 150 s (each run may take the full time limit)"
)
# Programs the CI set runs under some MPI-IO layers only; --full, --programs and --io run them
# under every layer.
declare -A CI_IO_ONLY=([t_pmulti_dset]="romio" [t_filters_parallel]="romio321 romio")
declare -A CI_IO_WHY=(
  [t_pmulti_dset]="under OMPIO it hangs with the built-in driver too (after a data mismatch in configuration 25, filtered multi-dataset collective I/O), so each OMPIO run would cost the full time limit; under Open MPI's ROMIO it took 165 s of the reference stage's 576 (2026-12-04, load 6-10), under MPICH's ROMIO 20 s: CI runs it in the mpich-1.14.5 stage"
  [t_filters_parallel]="the longest program of the set (150-180 s per OMPIO run on 2 cores at load 10, 2026-12-03); CI runs it under OMPIO in the openmpi-1.14.6 stage (which names its layer, MPIIO_CONFORMANCE_IO=ompio, so this limit does not apply there) and under ROMIO here and under MPICH"
)
# Programs the CI set leaves out under a layer even where the layer is named (the openmpi-1.14.6
# stage's MPIIO_CONFORMANCE_IO=ompio): they hang there with the built-in driver, so each such run
# would cost the full time limit (610 s of that stage on 2026-12-04).
declare -A CI_HANGS_UNDER=([t_pmulti_dset]="ompio")
declare -A PREREQ=([t_pflush2]=t_pflush1 [t_prestart]=t_pshutdown)
# testphdf5: upstream (testpar/CMakeTests.cmake) runs these sub-tests in separate invocations.
TESTPHDF5_SEPARATE="cchunk1 cchunk2 cchunk3 cchunk4 ecdsetw eidsetw2 selnone cngrpw-ingrpr cschunkw
 ccchunkw tldsc actualio MC_coll_MD_read"

log() { echo "[conformance] $*" >&2; }
die() { echo "[conformance] error: $*" >&2; exit 2; }

while (($#)); do
  case $1 in
    --mpi) MPI_FAMILY=$2; shift 2 ;;
    --mpiexec) MPIEXEC=$2; shift 2 ;;
    --mpicc) MPICC=$2; shift 2 ;;
    --build-dir) BUILD=$2; shift 2 ;;
    --plugin-dir) PLUGIN_DIR=$2; shift 2 ;;
    --shim) SHIM=$2; shift 2 ;;
    --hdf5-root) HDF5_PREFIX=$2; shift 2 ;;
    --hdf5-src) HDF5_SRC=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --programs) PROGRAMS_ARG=$2; shift 2 ;;
    --full) FULL=1; shift ;;
    --io) IOS=$2; IO_GIVEN=1; shift 2 ;;
    --drivers) DRIVERS=$2; shift 2 ;;
    --np) NP=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; TIMEOUT_GIVEN=1; shift 2 ;;
    --on-dfs) ON_DFS=1; shift ;;
    --build-only) BUILD_ONLY=1; shift ;;
    --report-only) REPORT_ONLY=1; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done
case $MPI_FAMILY in
  openmpi) IOS=${IOS:-"ompio romio321"}; MPI_LABEL="Open MPI, \`--oversubscribe --bind-to none\`" ;;
  mpich) IOS=${IOS:-romio}; MPI_LABEL="MPICH, hydra \`mpiexec\`" ;;
  *) die "--mpi must be openmpi or mpich (got '$MPI_FAMILY')" ;;
esac
[ -n "$MPIEXEC" ] || MPIEXEC=$(command -v "mpiexec.$MPI_FAMILY" || command -v mpiexec || true)
[ -n "$MPICC" ] || MPICC=$(command -v "mpicc.$MPI_FAMILY" || command -v mpicc || true)
[ -x "$MPIEXEC" ] || die "no MPI launcher (mpiexec.$MPI_FAMILY); pass --mpiexec"
BUILD=$(cd "$BUILD" 2>/dev/null && pwd || echo "$BUILD")
PLUGIN_DIR=${PLUGIN_DIR:-$BUILD/plugins}
SHIM=${SHIM:-$BUILD/tools/libh5mpiio_redirect.so}
# The programs' working directories: next to the report, or on the testbed's volume (--on-dfs),
# where the agent runs each odd rank in the second client's mount of the same path.
AGENT="" WORK_ROOT="" RUN_ENV=()
if [ "$ON_DFS" = 1 ]; then
  [ -n "${MPIIO_DFS_DIR:-}" ] && [ -x "${MPIIO_DFS_AGENT:-}" ] ||
    die "--on-dfs runs inside scripts/dfs.sh or scripts/cephfs.sh (MPIIO_DFS_DIR and MPIIO_DFS_AGENT are not set)"
  AGENT=$MPIIO_DFS_AGENT WORK_ROOT=$MPIIO_DFS_DIR/conformance
  # (a call there crosses the testbed's network: t_filters_parallel alone took 814 s under OMPIO)
  [ -n "$TIMEOUT_GIVEN" ] || TIMEOUT=2400
  # The programs' serial opens (rank 0 alone, the sec2 driver: H5P_DEFAULT) without HDF5's flock,
  # under both drivers: on this GlusterFS a lock outlives the close that releases it by up to a
  # second (an flock right after closing the file, by the same process, was refused 12 times in 20
  # with 50 ms between), so a program that reopens a file serially soon after closing it fails with
  # EAGAIN on either driver, the faster one more often (t_filters_parallel's interleaved read, once,
  # under ROMIO with the plugin). The MPI-IO drivers take no such lock.
  RUN_ENV=(HDF5_USE_FILE_LOCKING=FALSE)
fi
# (the CephFS testbed's report beside the GlusterFS testbed's: conformance-cephfs)
OUT=${OUT:-$BUILD/conformance$([ "$ON_DFS" = 0 ] || { [ "${MPIIO_DFS_KIND:-}" = cephfs ] && echo -cephfs || echo -dfs; })}
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd)
WORK_ROOT=${WORK_ROOT:-$OUT/work}
RESULTS=$OUT/results.tsv
REPORT=$OUT/conformance-report.md
EXPECTED=$ROOT/test/conformance/expected-differences.tsv

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

# ---- program selection ---------------------------------------------------------------------
CI_MODE=0
if [ -n "$PROGRAMS_ARG" ]; then
  PROGRAMS=""
  for p in $PROGRAMS_ARG; do # add prerequisites, keep run order
    [ -n "${PREREQ[$p]:-}" ] && [[ " $PROGRAMS_ARG " != *" ${PREREQ[$p]} "* ]] && PROGRAMS+=" ${PREREQ[$p]}"
    PROGRAMS+=" $p"
  done
else
  PROGRAMS=$CI_PROGRAMS
  if [ "$FULL" = 1 ]; then PROGRAMS+=" $OPTIN_PROGRAMS"; else CI_MODE=1; fi
fi
PROGRAMS=$(echo $PROGRAMS)

# ---- HDF5 install, source, and the cached test programs -------------------------------------
if [ -z "$HDF5_PREFIX" ]; then
  HDF5_PREFIX=$("$ROOT/scripts/setup.sh" --mpi "$MPI_FAMILY" | tail -1) || die "scripts/setup.sh failed"
fi
[ -f "$HDF5_PREFIX/include/H5public.h" ] || die "no HDF5 install in '$HDF5_PREFIX'"
H5VER=$(awk '/#define H5_VERS_INFO/{match($0,/[0-9]+\.[0-9]+\.[0-9]+/); print substr($0,RSTART,RLENGTH)}' \
        "$HDF5_PREFIX/include/H5public.h")
HDF5_SRC=${HDF5_SRC:-$CACHE/src/hdf5-$H5VER}
if [ ! -w "$CACHE" ] && [ ! -w "$(dirname "$CACHE")" ]; then
  CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/mpiio-vfd
fi
# One build of the programs per (HDF5 version, MPI family), as the HDF5 prefixes.
TESTPAR=$CACHE/testpar-$H5VER$([ "$MPI_FAMILY" = openmpi ] || echo "-$MPI_FAMILY")
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
    # From scratch: the cache may come from another checkout, whose CMake cache names its source
    # directory and refuses this one.
    rm -rf "$TESTPAR/.stamp" "$TESTPAR/build"
    if ! { cmake -S "$ROOT/test/conformance/testpar" -B "$TESTPAR/build" "${gen[@]}" \
             -DCMAKE_BUILD_TYPE=Release -DHDF5_ROOT="$HDF5_PREFIX" -DHDF5_SRC_DIR="$HDF5_SRC" \
             ${MPICC:+-DMPI_C_COMPILER="$MPICC"} -DMPIEXEC_EXECUTABLE="$MPIEXEC" &&
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

# launcher <io>: the launch command for $NP ranks under MPI-IO layer <io>, every output line tagged
# "[1,<rank>]<stdout>:" (Open MPI's --tag-output; hydra writes the same form for both streams when
# asked with -prepend-pattern), as the parser expects.
launcher() {
  if [ "$MPI_FAMILY" = openmpi ]; then
    echo "$MPIEXEC" -n "$NP" --oversubscribe --bind-to none --mca io "$1" --tag-output
  else
    echo "$MPIEXEC" -n "$NP" -prepend-pattern "[1,%r]<stdout>:"
  fi
}
# rank_env <name=value>...: launcher flags that set each variable in every rank.
rank_env() {
  local kv
  for kv in "$@"; do
    if [ "$MPI_FAMILY" = openmpi ]; then printf -- '-x %s ' "$kv"; else printf -- '-genv %s %s ' "${kv%%=*}" "${kv#*=}"; fi
  done
  echo
}

# mpirun_prog <io> <driver> <workdir> <log> <program> [args...]
mpirun_prog() {
  local io=$1 driver=$2 work=$3 logf=$4 prog=$5; shift 5
  local launch=() envs=()
  read -ra launch <<<"$(launcher "$io")"
  local cmd=(env -u HDF5_DRIVER -u HDF5_DRIVER_CONFIG -u MPIIO_REDIRECT -u MPIIO_REDIRECT_CONFIG
             -u LD_PRELOAD -u HDF5_PLUGIN_PATH HDF5_ALARM_SECONDS=3600 srcdir="$work" "${RUN_ENV[@]}"
             "${launch[@]}")
  if [ "$driver" = mpiio ]; then
    read -ra envs <<<"$(rank_env LD_PRELOAD="$SHIM" MPIIO_REDIRECT=1 MPIIO_REDIRECT_VERBOSE=1 HDF5_PLUGIN_PATH="$PLUGIN_DIR")"
    cmd+=("${envs[@]}")
  fi
  cmd+=(${AGENT:+"$AGENT"} "$BIN/$prog" "$@")
  echo "#### conformance: invoke: ${cmd[*]}" >>"$logf"
  (cd "$work" && run_limited "$TIMEOUT" "${cmd[@]}") >>"$logf" 2>&1
  local rc=$?
  echo "#### conformance: exit $rc" >>"$logf"
  return $rc
}

# parse_log <log> <exit code> -> sub-test lines on stdout
# (the parser is scripts/conformance-parse.awk, tested on its own by test/conformance/parser)
parse_log() {
  awk -v exitcode="$2" -v timedout="$([ "$2" = 124 ] && echo 1 || echo 0)" -f "$ROOT/scripts/conformance-parse.awk" "$1"
}

# testframe_list <program> -> names of its testframe sub-tests in registration order, as rank 0
# of an $NP-rank run lists them (-h); names starting with "-" are disabled at that size.
declare -A TF_LIST=()
testframe_list() {
  if [ -z "${TF_LIST[$1]:-}" ]; then
    local launch=()
    read -ra launch <<<"$(launcher "${IOS%% *}")"
    TF_LIST[$1]=$(cd "$OUT" && env -u LD_PRELOAD -u HDF5_DRIVER timeout 120 "${launch[@]}" "$BIN/$1" -h 2>/dev/null |
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
  local no_atomicity=0
  grep -qs "Atomicity tests will be skipped" "$OUT"/logs/testphdf5.* && no_atomicity=1
  local where=""
  local testbed="scripts/dfs.sh (GlusterFS: three servers, two FUSE clients)"
  [ "${MPIIO_DFS_KIND:-glusterfs}" != cephfs ] ||
    testbed="scripts/cephfs.sh (CephFS: a monitor, two OSDs, an MDS, two ceph-fuse clients)"
  [ "$ON_DFS" = 0 ] || where="On the distributed file system of $testbed: the programs' working directories on its volume, the odd ranks on its second client and the even ranks on the first (the testbed's rank agent starts each rank); HDF5_USE_FILE_LOCKING=FALSE under both drivers (on GlusterFS a lock released by a close lingers up to a second: the programs' serial reopens would fail with EAGAIN)."
  awk -F'\t' -v ios="$IOS" -v drivers="$DRIVERS" -v programs="$PROGRAMS" -v optin="$OPTIN_PROGRAMS" -v mpi="$MPI_LABEL" \
      -v where="$where" -v contextfile="$OUT/context.txt" \
      -v full="$FULL" -v strict="$STRICT" -v np="$NP" -v h5ver="$H5VER" -v total="$total_secs" \
      -v expected="$EXPECTED" -v redirected="$OUT/redirected.tsv" -v optinfile="$OUT/optin.tsv" -v no_atomicity="$no_atomicity" -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v failfile="$OUT/regressions.tsv" '
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
    print "Generated " date " by scripts/conformance.sh: every program on " np " ranks (" mpi "),"
    print "with the built-in MPI-IO driver (`mpio`) and with the mpiio plugin selected by the redirect shim (`mpiio`:"
    print "`LD_PRELOAD=libh5mpiio_redirect.so MPIIO_REDIRECT=1`), under the MPI-IO layers " ios "."
    print "HDF5_DRIVER is not set. A regression is a (program, sub-test) that passes with `mpio` and does not with"
    print "`mpiio` under the same MPI-IO layer."
    print ""
    if (where != "") { print where; print "" }
    nc = 0
    while ((getline line < contextfile) > 0) { print line; nc++ }
    if (nc) print ""
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
    s = ""
    for (pi = 1; pi <= np_; pi++) { p = P[pi]
      for (ii = 1; ii <= nio; ii++) if (S[p SUBSEP "(program)", IO[ii], DR[1]] == "n/r") s = s "| " p " | " IO[ii] " | " esc(D[p SUBSEP "(program)", IO[ii], DR[1]]) " |\n"
    }
    if (s != "") {
      print "Run under some MPI-IO layers only in the CI set (`n/r` = not run; `--full` or `--io` runs them everywhere):"
      print ""; print "| program | layer not run | why |"; print "|---|---|---|"; printf "%s", s; print ""
    }
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
    if (no_atomicity == 1) {
      print "testphdf5 `atomicity` (H5Fset_mpi_atomicity, which reaches the driver through its file struct layout) is"
      print "not registered with this MPI: testpar/testphdf5.c:547 skips it for Open MPI < 5 (\"support for atomicity"
      print "operations not being implemented\"), for both drivers."
      print ""
    }
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
    print "PASS / FAIL / SKIP (the program skipped it) / TIMEOUT; `-` = not reached (the program ended before it) or"
    print "not run (`n/r` in the program table)."
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

  rm -rf "$OUT/logs" "$OUT/parsed" "$OUT/work" "$WORK_ROOT" "$OUT/regressions.tsv" "$OUT/redirected.tsv" "$OUT/context.txt"
  mkdir -p "$OUT/logs" "$OUT/parsed"
  : >"$RESULTS"
  T0=$SECONDS
  local load0; load0=$(cut -d' ' -f1-3 /proc/loadavg)
  log "programs: $PROGRAMS"
  log "MPI: $MPI_FAMILY ($MPIEXEC); MPI-IO layers: $IOS; drivers: $DRIVERS; $NP ranks; ${TIMEOUT}s limit per invocation; output in $OUT"
  for prog in $PROGRAMS; do
    for io in $IOS; do
      if [ "$CI_MODE" = 1 ] && [ -n "${CI_IO_ONLY[$prog]:-}" ] && [[ " ${CI_IO_ONLY[$prog]} " != *" $io "* ]] &&
         { [ -z "$IO_GIVEN" ] || [[ " ${CI_HANGS_UNDER[$prog]:-} " == *" $io "* ]]; }; then
        for driver in $DRIVERS; do
          printf '%s\t(program)\t%s\t%s\tn/r\t\t%s\n' "$prog" "$io" "$driver" "not run in CI: ${CI_IO_WHY[$prog]:-}" >>"$RESULTS"
        done
        log "$(printf '%-20s %-9s %-15s n/r (CI runs it under %s only)' "$prog" "$io" "" "${CI_IO_ONLY[$prog]}")"
        continue
      fi
      for driver in $DRIVERS; do
        work=$WORK_ROOT/$io-$driver
        mkdir -p "$work"
        run_program "$prog" "$io" "$driver" "$work"
      done
    done
  done
  rm -rf "$WORK_ROOT"
  # Where and when: timings on a shared machine mean little without its load.
  local commit
  commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
  git -C "$ROOT" diff --quiet HEAD 2>/dev/null || commit+=" with local changes"
  {
    echo "Machine: $(nproc) cores, $(uname -sr), $(. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-}");" \
         "repository commit $commit."
    echo "Load average (1, 5, 15 min): $load0 at the start, $(cut -d' ' -f1-3 /proc/loadavg) at the end."
  } >"$OUT/context.txt"
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
