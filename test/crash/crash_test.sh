#!/usr/bin/env bash
# Crash consistency: kills (SIGKILL) a 4-rank crash_writer at several points after H5Fflush, with
# the built-in mpio driver and with the mpiio plugin, then recovers each file the way a user would
# (h5dump; if it cannot open the file, h5clear -s; then h5clear --increment) and classifies it with
# crash_check. Fails if, for any kill point, the plugin's file is worse than the built-in driver's
# (less data, or needing a stronger recovery step), or if data flushed before the kill is lost
# (the writer's rewrite before the flush included: crash_writer.cpp). Writes a table to
# <report dir>/crash-report.md (--dfs: crash-report-dfs.md); the files and logs stay in
# ${MPIIO_TEST_DIR:-/dev/shm}/mpiio-tests/crash (--dfs: crash-dfs there, on the testbed's volume,
# which goes with the testbed: the logs are copied to <report dir>/crash-dfs-logs).
#
#   crash_test.sh <mpiexec> <crash_writer> <crash_check> <h5dump> <h5clear> <report dir> [--full|--dfs]
#
# Default: Open MPI's OMPIO, both file formats (default and latest), every kill point.
# --full:  every io component the build found (MPIIO_TEST_IO_COMPONENTS from ompi_info: ROMIO is
#          romio321 in Open MPI 4.1, romio341 in 5.0).
# --dfs:   on the distributed file system of scripts/dfs.sh or scripts/cephfs.sh (scripts/test.sh
#          --on-dfs: the files on its volume, odd ranks on its second client), where the plugin
#          keeps the writer's rewrite
#          in its aggregators' memory until H5Fflush (write_behind): every io component, every kill
#          point, the default format only (each call crosses the testbed's network: both formats
#          took 123 s there, one about half). The writer fails before its flush when its ranks are
#          not on both clients or the plugin did not keep the rewrite (the run would prove
#          nothing). Exits 77 (ctest: skipped), saying why, anywhere else.
set -euo pipefail
mpiexec=$1 writer=$2 checker=$3 h5dump=$4 h5clear=$5 report_dir=$6 mode=${7:-}
dir=${MPIIO_TEST_DIR:-/dev/shm}/mpiio-tests/crash
report="$report_dir/crash-report.md"
points=(after_flush rank0_after_flush after_overwrite after_new_objects after_extend after_second_flush none)
formats=(default latest)
shared_storage=()
if [ "$mode" = --dfs ]; then
  if [ -z "${MPIIO_DFS_CTL:-}" ] || [ -z "${MPIIO_TEST_DIR:-}" ] || [ -z "${OMPI_MCA_orte_fork_agent:-}" ]; then
    echo "crash: skipped: not on the distributed file system (run inside scripts/dfs.sh or scripts/cephfs.sh with scripts/test.sh --on-dfs)"
    exit 77
  fi
  dir=$MPIIO_TEST_DIR/mpiio-tests/crash-dfs report="$report_dir/crash-report-dfs.md"
  # Every kill point (the first two lose a rewrite the flush did not write), the default format
  # only: what the latest format changes is the file's metadata, not the raw data the plugin keeps
  # behind, and the tmpfs run covers it.
  formats=(default)
  shared_storage=(--shared-storage)
fi
# The launcher's flags per MPI family (MPIIO_TEST_MPI_FAMILY comes with the test environment):
# MPICH's hydra oversubscribes by itself and has only ROMIO.
family=${MPIIO_TEST_MPI_FAMILY:-openmpi}
if [ "$family" = openmpi ]; then
  ios=(ompio)
  [ "$mode" = --full ] || [ "$mode" = --dfs ] && read -ra ios <<<"${MPIIO_TEST_IO_COMPONENTS:?}"
else
  ios=(romio)
fi
rm -rf "$dir" && mkdir -p "$dir" "$report_dir"

state_rank() { case $1 in complete) echo 3 ;; flushed_ok) echo 2 ;; flushed_bad) echo 1 ;; *) echo 0 ;; esac; }
recovery_rank() { case $1 in "as is") echo 3 ;; "h5clear -s") echo 2 ;; "h5clear --increment") echo 1 ;; *) echo 0 ;; esac; }

# Runs one writer to its kill point and recovers the file; prints
# "<state>|<recovery>|<survivors>|<elements of the flushed rewrite lost>".
run_case() { # io format point driver
  local io=$1 format=$2 point=$3 driver=$4
  local file="$dir/$io.$format.$point.$driver.h5" log="$dir/$io.$format.$point.$driver.log"
  local rc=0
  local launch=("$mpiexec" -n 4)
  [ "$family" = openmpi ] && launch+=(--oversubscribe --bind-to none --mca io "$io")
  timeout 120 "${launch[@]}" "$writer" "$driver" "$format" "$point" "$file" "${shared_storage[@]}" >"$log" 2>&1 || rc=$?
  if [ "$rc" = 124 ]; then echo "hung|none|"; return; fi
  if grep -q 'crash_writer: PRECONDITION' "$log"; then echo "precondition|none|"; return; fi
  if [ "$point" = none ] && [ "$rc" != 0 ]; then echo "writer_failed|none|"; return; fi
  cp "$file" "$file.as-killed" 2>/dev/null || true
  local recovery="as is"
  if ! "$h5dump" -H "$file" >/dev/null 2>&1; then
    recovery="h5clear -s"
    "$h5clear" -s "$file" >>"$log" 2>&1 || true
    if ! "$h5dump" -H "$file" >/dev/null 2>&1; then
      recovery="h5clear --increment"
      "$h5clear" -s --increment "$file" >>"$log" 2>&1 || true
      "$h5dump" -H "$file" >/dev/null 2>&1 || recovery="none"
    fi
  fi
  local line state survivors lost=-
  line=$("$checker" "$file")
  echo "crash_check: $line" >>"$log"
  state=${line%% *}; state=${state#state=}
  survivors=${line#* later:}
  [[ $line == *" rewrite_lost="* ]] && { lost=${line#* rewrite_lost=}; lost=${lost%% *}; }
  [ "$recovery" = none ] && state=unreadable
  echo "$state|$recovery|$survivors|$lost"
}

failures=0 cases=0
{
  echo "| io | format | killed | mpio: state | mpio: recovery | mpiio: state | mpiio: recovery | mpiio: rewrite lost | mpiio later objects | verdict |"
  echo "|---|---|---|---|---|---|---|---|---|---|"
} >"$report"
for io in "${ios[@]}"; do
  for format in "${formats[@]}"; do
    for point in "${points[@]}"; do
      IFS='|' read -r ms mr _ <<<"$(run_case "$io" "$format" "$point" mpio)"
      IFS='|' read -r ps pr psurv plost <<<"$(run_case "$io" "$format" "$point" mpiio)"
      cases=$((cases + 1))
      verdict=ok
      if [ "$ps" = precondition ] || [ "$ms" = precondition ]; then
        verdict="precondition failed (log): proves nothing"
      elif (($(state_rank "$ps") < $(state_rank "$ms"))) ||
         { (($(state_rank "$ps") == $(state_rank "$ms"))) && (($(recovery_rank "$pr") < $(recovery_rank "$mr"))); }; then
        verdict="WORSE than mpio"
      elif (($(state_rank "$ps") < 2)); then
        verdict="flushed data lost"
      elif { [ "$point" = after_second_flush ] || [ "$point" = none ]; } && [ "$ps" != complete ]; then
        verdict="incomplete after the last flush"
      fi
      [[ $plost =~ ^[1-9] ]] && verdict+=" ($plost rewritten elements hold their old values)"
      [ "$verdict" = ok ] || failures=$((failures + 1))
      echo "| $io | $format | $point | $ms | $mr | $ps | $pr | ${plost:--} | ${psurv:--} | $verdict |" >>"$report"
    done
  done
done
cat "$report"
kept="files and logs in $dir"
if [ "$mode" = --dfs ]; then # (the volume goes with the testbed)
  rm -rf "$report_dir/crash-dfs-logs" && mkdir -p "$report_dir/crash-dfs-logs"
  cp "$dir"/*.log "$report_dir/crash-dfs-logs/"
  kept="logs in $report_dir/crash-dfs-logs"
fi
echo "crash: $cases kill points x 2 drivers, $failures failed ($kept)"
[ "$failures" = 0 ]
