#!/usr/bin/env bash
# Runs a command; passes iff it exits 0 and its stderr matches an extended regex.
#   run_expect_stderr.sh <regex> <command> [args...]
set -uo pipefail
pattern=$1; shift
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$@" 2> >(tee "$err" >&2)
rc=$?
wait
if [ $rc -ne 0 ]; then echo "FAIL: '$*' exited with $rc"; exit 1; fi
if ! grep -Eq "$pattern" "$err"; then echo "FAIL: stderr of '$*' does not match '$pattern'"; exit 1; fi
echo PASS
