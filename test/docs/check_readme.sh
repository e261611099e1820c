#!/usr/bin/env bash
# usage: check_readme.sh <README.md>
# The README stays what a cluster user reads in ten minutes: at most 250 lines; no table cell over
# 40 words; no sentence over 50 words (prose lines, code blocks and tables left out, a sentence
# ending at ". ", "? " or "! " or at a paragraph's end); and the four sections a newcomer looks
# for, by name. Prints each problem; exit 1 if any.
set -euo pipefail
readme=${1:?usage: check_readme.sh <README.md>}
failed=0
lines=$(wc -l <"$readme")
((lines <= 250)) || { echo "FAIL: $readme has $lines lines (at most 250)"; failed=1; }
for section in "Does it help me?" "Install on a cluster" "Turn it on" "Is it active?"; do
  grep -qxF "## $section" "$readme" || { echo "FAIL: no section '## $section'"; failed=1; }
done
awk '
  function words(text,   n, w) { n = split(text, w, /[ \t]+/); while (n > 0 && w[n] == "") n--;
                                  return (n > 0 && w[1] == "") ? n - 1 : n }
  function flush_paragraph(   n, i, s, part) {
    gsub(/[.?!]["`)]?( |$)/, "&\n", para); n = split(para, part, "\n")
    for (i = 1; i <= n; i++) if (words(part[i]) > 50) {
      printf "FAIL: line %d: a sentence of %d words: %s\n", start, words(part[i]), substr(part[i], 1, 80); bad = 1 }
    para = "" }
  /^```/ { fence = !fence; flush_paragraph(); next }
  fence || /^    / { next }
  /^\|/ { n = split($0, cell, "|"); for (i = 2; i < n; i++) if (words(cell[i]) > 40) {
            printf "FAIL: line %d: a table cell of %d words\n", NR, words(cell[i]); bad = 1 }
          next }
  /^[ \t]*$/ || /^#/ { flush_paragraph(); next }
  /^[ \t]*([-*]|[0-9]+[.]) / { flush_paragraph() }   # a list item starts a sentence
  { if (para == "") start = NR; para = para " " $0 }
  END { flush_paragraph(); exit bad }' "$readme" || failed=1
((failed == 0)) || exit 1
echo "README: $lines lines, every table cell and sentence within bounds, the four sections there"
