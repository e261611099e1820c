#!/usr/bin/env bash
# usage: check_figures.sh <repository root>
# Every performance figure the documentation states comes from a published table, so it cannot
# drift from the measurements. A figure is a ratio written "1.23x" or "1.02-5.37x" anywhere in
# README.md, CONTRIBUTING.md and docs/ (but the tables themselves), and every number in the
# README's "Does it help me?" table. Published numbers are those with a decimal point in the
# benchmark's tables and files under docs/bench/ (its table rows and CSV files) and in the tables of
# docs/measurements.md (rows beginning with "|", indented or not), the record of measurements by hand. A figure passes
# when each of its numbers is written exactly as a published one: "36x" fails where the table says
# 34.67. Prints every figure that fails, with its file and line; exit 1 if any.
set -euo pipefail
root=${1:?usage: check_figures.sh <repository root>}
cd "$root"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The published numbers, one a line.
{
  find docs/bench -name '*.md' ! -path docs/bench/README.md -exec grep -h '^|' {} + || true
  find docs/bench -name '*.csv' -exec cat {} + || true
  grep -h '^[[:space:]]*|' docs/measurements.md || true
} | grep -oE '[0-9]+\.[0-9]+' | sort -u >"$work/published"
[ -s "$work/published" ] || { echo "FAIL: no published tables under docs/bench"; exit 1; }

# The figures: "file:line:figure".
docs=(README.md CONTRIBUTING.md)
while IFS= read -r f; do docs+=("$f"); done < <(find docs -name '*.md' ! -path docs/measurements.md \
  ! -path 'docs/bench/*/*' ! -path docs/bench/summary.md | sort)
for f in "${docs[@]}"; do
  [ -f "$f" ] || continue
  # a ratio: digits (a range "a-b"), then x, not part of a longer word or number
  grep -noE '(^|[^0-9A-Za-z.])[0-9]+(\.[0-9]+)?(-[0-9]+(\.[0-9]+)?)?x($|[^0-9A-Za-z_])' "$f" |
    sed -E "s|^([0-9]+):[^0-9]*([0-9][0-9.-]*)x.*|$f:\1:\2x|" || true
done >"$work/figures"
awk '/^## Does it help me\?/ {on = 1; next} /^## / {on = 0} on && /^\|/ {
       n = split($0, cell, "|"); for (i = 1; i <= n; ++i) {
         s = cell[i]; while (match(s, /[0-9]+\.[0-9]+/)) {
           print "README.md:" NR ":" substr(s, RSTART, RLENGTH); s = substr(s, RSTART + RLENGTH) } } }' \
  README.md >>"$work/figures"

failed=0 checked=0
while IFS= read -r entry; do
  figure=${entry##*:}
  checked=$((checked + 1))
  for number in $(grep -oE '[0-9]+(\.[0-9]+)?' <<<"$figure"); do
    if ! grep -qxF -- "$number" "$work/published"; then
      echo "FAIL: $entry: $number is in no published table (docs/bench/, docs/measurements.md)"
      failed=1
    fi
  done
done <"$work/figures"
((failed == 0)) || { echo "write each figure as a table gives it, or say it in words"; exit 1; }
echo "figures: $checked performance figures in the documentation, every one in a published table"
