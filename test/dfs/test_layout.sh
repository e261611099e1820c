#!/usr/bin/env bash
# Runs test_layout (test_layout.cpp) and checks that stats=summary named both files' layouts, the
# 1 MiB and the 4 MiB stripe unit, as CephFS's layout attribute gave them.
#   test_layout.sh <mpiexec and its arguments...> <test_layout>
set -uo pipefail
log=$(mktemp)
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
((rc == 0)) || exit $rc
# (outside the CephFS testbed the test skips, and no file was written)
grep -q "SKIPPED" "$log" && ! grep -q "^mpiio stats:" "$log" && exit 0
for unit in 1M 4M; do
  grep -q "layout: stripe unit $unit x 1 stripes (ceph.file.layout" "$log" ||
    { echo "test_layout.sh: stats=summary did not name the $unit layout (ceph.file.layout)" >&2; exit 1; }
done
echo "test_layout.sh: stats=summary named the 1M and the 4M layouts"
