#!/usr/bin/env bash
# bench.subfiling: one small h5bench_vfd pass with HDF5's subfiling driver beside the built-in
# driver and the plugin: it runs under MPI_THREAD_MULTIPLE, its reads are verified, a
# case it refuses (chunked2d/coll: a collective read with MPI derived datatypes) is reported as not
# supported rather than failing the run, its file is reported (stub + subfiles + configuration file)
# and nothing is left behind. Skipped (77) when the HDF5 has no subfiling driver.
#   subfiling_smoke_test.sh <launcher words...> -- <h5bench_vfd>
set -euo pipefail
launch=()
while [ "$1" != -- ]; do launch+=("$1"); shift; done
bench=$2
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d /dev/shm/bench_subfiling.XXXXXX)
trap 'rm -rf "$work"' EXIT
set +e
"${launch[@]}" "$bench" --patterns cc1d/coll,chunked2d/coll,cc1d/ind --drivers mpio,mpiio,subfiling,mpio2 \
  --size tiny --reps 1 --warmup 0 --timesteps 1 --stop-on-failure --dir "$work/data" --out "$work/out" \
  >"$work/stdout" 2>"$work/stderr"
rc=$?
set -e
if grep -q "built without the subfiling driver" "$work/stderr"; then
  echo "SKIP: $(grep -m1 'subfiling' "$work/stderr")"
  exit 77
fi
((rc == 0)) || { cat "$work/stderr" "$work/stdout" >&2; fail "h5bench_vfd exit $rc"; }
csv=$work/out/results.csv
json=$work/out/results.json
[ "$(awk -F, '$5 == "subfiling" && $18 == "ok"' "$csv" | wc -l)" -eq 5 ] || fail "5 subfiling rows ran: $(cat "$csv")"
awk -F, '$1 == "chunked2d/coll" && $4 == "read" && $5 == "subfiling" && $18 == "not supported"' "$csv" | grep -q . ||
  fail "chunked2d/coll's subfiling read is not reported as not supported"
grep -q '"not_supported": {"write": "", "read": "[^"][^"]*"}' "$json" || fail "results.json does not say why"
grep -q '"mpi_thread_level": "multiple"' "$json" || fail "not run with MPI_THREAD_MULTIPLE"
grep -q '"subfiling_files": "stub [0-9.]* [KMi]*B + [0-9]* subfiles\? [0-9.]* [KMi]*B + config' "$json" ||
  fail "no subfiled file reported"
grep -q "mpiio/subfiling" "$work/out/table.md" || fail "table.md has no mpiio/subfiling column"
grep -q "All cases verified" "$work/stdout" || fail "not every case verified"
left=$(find "$work/data" -type f 2>/dev/null | head -n 5)
[ -z "$left" ] || fail "files left behind: $left"
echo "bench.subfiling: passed"
