#!/usr/bin/env bash
# Tests scripts/conformance-parse.awk, the parser that decides pass/fail per testpar sub-test for
# scripts/conformance.sh, on fixture logs: fixtures/<case>.log (a program's launcher output as
# conformance.sh records it), <case>.exit (the program's exit status; 124 = killed at the time
# limit) and <case>.expected (the parser's exact expected output). Fails on any difference, and if
# one of the required kinds of case (pass, fail, skip, hang, crash, and both launchers' formats) has
# no fixture.
#   run_parser_tests.sh [parser.awk]
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
parser=${1:-$here/../../../scripts/conformance-parse.awk}
failures=0 count=0
for log in "$here"/fixtures/*.log; do
  case=${log%.log} name=$(basename "${log%.log}")
  code=$(cat "$case.exit")
  timedout=0
  [ "$code" = 124 ] && timedout=1
  got=$(awk -v exitcode="$code" -v timedout="$timedout" -f "$parser" "$log" 2>&1)
  count=$((count + 1))
  if [ "$got" == "$(cat "$case.expected")" ]; then
    echo "ok    $name"
  else
    echo "FAIL  $name: parser output (<) differs from $name.expected (>):"
    diff <(printf '%s\n' "$got") "$case.expected" | sed 's/^/      /'
    failures=$((failures + 1))
  fi
done
for kind in pass fail skip hang crash hydra; do
  compgen -G "$here/fixtures/$kind*.log" >/dev/null || { echo "FAIL  no fixture for '$kind'"; failures=$((failures + 1)); }
done
echo "$count fixtures, $failures failure(s)"
((failures == 0))
