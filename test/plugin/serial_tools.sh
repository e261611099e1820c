#!/usr/bin/env bash
# HDF5's serial tools read a file the plugin wrote:
#   1. h5dump / h5ls with their default (sec2) driver;
#   2. h5dump / h5ls with HDF5_DRIVER=mpiio, outside mpirun (the driver starts MPI itself), when the
#      tools run on the parallel libhdf5 the plugin is built against (a stock install's tools);
#      where they run on another libhdf5 (a distribution's tools use its serial one: Debian's
#      h5dump), HDF5_DRIVER=mpiio must fail cleanly instead, with the plugin's error naming both
#      libraries, and no crash.
# Usage: serial_tools.sh <write_sample> <scratch dir>
# Needs MPIIO_TEST_H5DUMP, MPIIO_TEST_H5LS, MPIIO_TEST_TOOLS_PARALLEL (ON/OFF),
# MPIIO_TEST_MPIEXEC(_FLAGS) and HDF5_PLUGIN_PATH (set by ctest).
set -uo pipefail
writer=$1 dir=$2
read -ra mpiexec <<<"${MPIIO_TEST_MPIEXEC:?} ${MPIIO_TEST_MPIEXEC_FLAGS:-}"
h5dump=${MPIIO_TEST_H5DUMP:?} h5ls=${MPIIO_TEST_H5LS:?}
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
expect_in() { # <file> <fixed string> <what>
  grep -qF -- "$2" "$1" || fail "$3: output does not contain '$2'"
}

rm -rf "$dir" && mkdir -p "$dir" || exit 1
file=$dir/sample.h5
unset HDF5_DRIVER HDF5_DRIVER_CONFIG

"${mpiexec[@]}" -n 2 "$writer" "$file" || { echo "FAIL: writer failed"; exit 1; }
[ -s "$file" ] || { echo "FAIL: writer produced no file"; exit 1; }

check_dump() { # <stdout file> <what>
  expect_in "$1" 'DATASET "values"' "$2"
  expect_in "$1" '(0): 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110' "$2"
  expect_in "$1" 'DATASET "matrix"' "$2"
  expect_in "$1" '(0,0): 0.5, 1.5, 2.5,' "$2"
  expect_in "$1" '(3,0): 30.5, 31.5, 32.5' "$2"
  expect_in "$1" 'ATTRIBUTE "version"' "$2"
}
check_ls() { # <stdout file> <what>
  grep -Eq '^/values +Dataset \{12\}' "$1" || fail "$2: no '/values Dataset {12}'"
  grep -Eq '^/grp/matrix +Dataset \{4, 3\}' "$1" || fail "$2: no '/grp/matrix Dataset {4, 3}'"
}

# 1. plain serial tools (sec2)
"$h5dump" "$file" >"$dir/dump.sec2" 2>"$dir/dump.sec2.err"
rc=$?; [ $rc -eq 0 ] || { cat "$dir/dump.sec2.err"; fail "h5dump (sec2) exited with $rc"; }
check_dump "$dir/dump.sec2" "h5dump (sec2)"
"$h5ls" -r "$file" >"$dir/ls.sec2" 2>"$dir/ls.sec2.err"
rc=$?; [ $rc -eq 0 ] || { cat "$dir/ls.sec2.err"; fail "h5ls (sec2) exited with $rc"; }
check_ls "$dir/ls.sec2" "h5ls (sec2)"

# 2. (tools on another libhdf5) the plugin refuses to load and the tool fails. HDF5 1.14 then exits
# with an error and the plugin's message; HDF5 2.2 crashes after any failed initialisation (the
# same with HDF5_DRIVER=no-such-driver, no plugin involved), and the plugin's message, pushed
# through the second libhdf5, is lost: there the library's own line that the plugin gave no class
# is what shows the refusal.
if [ "${MPIIO_TEST_TOOLS_PARALLEL:?}" != ON ]; then
  HDF5_DRIVER=mpiio "$h5dump" "$file" >"$dir/dump.mpiio" 2>"$dir/dump.mpiio.err"
  rc=$? what="h5dump (HDF5_DRIVER=mpiio) on another libhdf5"
  if [ "${MPIIO_TEST_HDF5_VERSION:?}" \< 2 ]; then
    { [ $rc -ne 0 ] && [ $rc -le 128 ]; } || fail "$what exited with $rc (expected a clean failure)"
    expect_in "$dir/dump.mpiio.err" 'one process cannot use two HDF5 libraries' "$what"
  else
    [ $rc -ne 0 ] || fail "$what succeeded"
    expect_in "$dir/dump.mpiio.err" "can't get VFD info from plugin" "$what"
  fi
  [ $failures -eq 0 ] || { cat "$dir/dump.mpiio.err"; echo "$failures failure(s)"; exit 1; }
  rm -rf "$dir"
  echo "PASS (the tools run on another libhdf5: HDF5_DRIVER=mpiio refused, exit $rc)"
  exit 0
fi

# 2. the same tools through the plugin, without mpirun
HDF5_DRIVER=mpiio HDF5_DRIVER_CONFIG='stats=summary' "$h5dump" "$file" >"$dir/dump.mpiio" 2>"$dir/dump.mpiio.err"
rc=$?; [ $rc -eq 0 ] || { cat "$dir/dump.mpiio.err"; fail "h5dump (HDF5_DRIVER=mpiio) exited with $rc"; }
check_dump "$dir/dump.mpiio" "h5dump (mpiio)"
cmp -s "$dir/dump.sec2" "$dir/dump.mpiio" || { diff "$dir/dump.sec2" "$dir/dump.mpiio"; fail "h5dump output differs between sec2 and mpiio"; }
grep -q 'mpiio stats' "$dir/dump.mpiio.err" || { cat "$dir/dump.mpiio.err"; fail "h5dump with HDF5_DRIVER=mpiio did not go through the plugin (no 'mpiio stats' on stderr)"; }

HDF5_DRIVER=mpiio "$h5ls" -r "$file" >"$dir/ls.mpiio" 2>"$dir/ls.mpiio.err"
rc=$?; [ $rc -eq 0 ] || { cat "$dir/ls.mpiio.err"; fail "h5ls (HDF5_DRIVER=mpiio) exited with $rc"; }
cmp -s "$dir/ls.sec2" "$dir/ls.mpiio" || { diff "$dir/ls.sec2" "$dir/ls.mpiio"; fail "h5ls output differs between sec2 and mpiio"; }

HDF5_DRIVER=mpiio HDF5_DRIVER_CONFIG='comm=self' "$h5dump" -d /values "$file" >"$dir/dump.self" 2>"$dir/dump.self.err"
rc=$?; [ $rc -eq 0 ] || { cat "$dir/dump.self.err"; fail "h5dump (HDF5_DRIVER=mpiio, comm=self) exited with $rc"; }
expect_in "$dir/dump.self" '(0): 0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110' "h5dump -d (comm=self)"

if [ $failures -ne 0 ]; then echo "$failures failure(s)"; exit 1; fi
rm -rf "$dir"
echo PASS
