#!/usr/bin/env bash
# unit.bench_parity_cli: h5bench_vfd_parity (bench/parity_cli.cpp), the parity test bench/h5perf.sh
# applies to its launch triplets. Five ratios each way: the exact two-sided p of complete
# separation is 2/252.
set -euo pipefail
tool=$1
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$(printf 'up|Read\t1.2,1.21,1.19,1.22,1.18\t1.0,1.01,0.99,1.02,0.98\ndown|Write\t0.9,0.91,0.89,0.92,0.88\t1.0,1.01,0.99,1.02,0.98\nsame|Read\t1.0,1.03,0.97,1.02,0.98\t1.01,0.99,1.04,0.96,1.0\n' | "$tool")
expected=$(printf 'up|Read\t0.007937\tabove\ndown|Write\t0.007937\tbelow\nsame|Read\t')
[[ "$out" == "$expected"* ]] || fail "verdicts: got
$out"
same_p=$(awk -F'\t' '$1 == "same|Read" { print $2 }' <<<"$out")
awk -v p="$same_p" 'BEGIN { exit !(p > 0.5) }' || fail "overlapping samples gave p = $same_p"
[[ "$out" == *$'\t~' ]] || fail "overlapping samples are not '~': $out"

# Malformed input is refused with status 2, not read as numbers.
for bad in 'x\t1,2' 'x\t1,a\t1' 'x\t1,-1\t1,1' 'x\t\t1'; do
  set +e
  printf "$bad\n" | "$tool" >/dev/null 2>&1
  rc=$?
  set -e
  ((rc == 2)) || fail "input '$bad' gave status $rc"
done
echo "unit.bench_parity_cli: passed"
