#!/usr/bin/env bash
# bench.fpp: one small h5bench_vfd pass with the file-per-process ceiling (bench/fpp_kernel.hpp)
# beside the built-in driver and the plugin: its reads are verified (every byte each rank wrote
# to its own file comes back into place, compound fields and records in memory included), a
# compressed case is reported as not supported rather than run, the tables carry the mpiio/fpp
# column and the rank files are removed.
#   fpp_smoke_test.sh <launcher words...> -- <h5bench_vfd>
set -euo pipefail
launch=()
while [ "$1" != -- ]; do launch+=("$1"); shift; done
bench=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d /dev/shm/bench_fpp.XXXXXX)
trap 'rm -rf "$work"' EXIT
set +e
"${launch[@]}" "$bench" --patterns cc1d/coll,ci1d/coll,ic1d/coll,cs1d/ind,deflate2d/coll --drivers mpio,mpiio,fpp,mpio2 \
  --size tiny --reps 1 --warmup 0 --timesteps 2 --stop-on-failure --dir "$work/data" --out "$work/out" \
  >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
((rc == 0)) || { cat "$work/stderr" "$work/stdout" >&2; fail "h5bench_vfd exit $rc"; }
csv=$work/out/results.csv
[ "$(awk -F, '$5 == "fpp" && $18 == "ok"' "$csv" | wc -l)" -eq 8 ] || fail "8 fpp rows ran: $(cat "$csv")"
[ "$(awk -F, '$1 == "deflate2d/coll" && $5 == "fpp" && $18 == "not supported"' "$csv" | wc -l)" -eq 2 ] ||
  fail "deflate2d/coll's fpp phases are not reported as not supported"
grep -q '"mpiio_over_fpp": {"median": [0-9]' "$work/out/results.json" || fail "results.json has no mpiio_over_fpp"
grep -q "mpiio/fpp" "$work/out/table.md" || fail "table.md has no mpiio/fpp column"
grep -q "mpiio/fpp" "$work/out/table.txt" || fail "table.txt has no mpiio/fpp column"
grep -q "All cases verified" "$work/stdout" || fail "not every case verified"
left=$(find "$work/data" -type f 2>/dev/null | head -n 5)
[ -z "$left" ] || fail "files left behind: $left"
echo "bench.fpp: passed"
