# Parser of one HDF5 testpar program's log (scripts/conformance.sh): prints one line per sub-test,
#   <sub-test><TAB><PASS|FAIL|SKIP|TIMEOUT><TAB><detail>
# in the order the sub-tests started.
#
#   awk -v exitcode=<program exit status> -v timedout=<0|1> -f scripts/conformance-parse.awk <log>
#
# Input: the launcher's rank-tagged output, "[<job>,<rank>]<stdout|stderr>:<text>" (Open MPI's
# --tag-output; under MPICH conformance.sh asks hydra for the same form with -prepend-pattern).
# Untagged lines come from the launcher itself. A physical line can hold several tagged segments
# when a rank wrote a partial line: all but the last segment are continued, not ended.
#
# Understands the formats of HDF5's test programs: testframe ("Testing  -- desc (name)"), h5test
# TESTING()/PASSED()/H5_FAILED()/SKIPPED() (result possibly on a later line, nested "  Testing" under
# a multipart header, sections "--- X ---", "== X ==", "Configuration:" blocks), MPI_BANNER
# sections ("Proc 0: *** X"), VRFY failures and MPI_Abort. The sub-test running when the program
# ended is TIMEOUT if it was killed (timedout=1), FAIL if the program aborted or exited non-zero
# before reporting its end, PASS otherwise.
#
# Tested by test/conformance/parser (ctest -L unit): fixture logs for pass, fail, skip, hang and
# crash, in both launchers' formats, with their expected output.
function flush_rank(r) { if (r in buf) { handle(r, buf[r]); delete buf[r] } }
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t]+$/, "", s); return s }
function open_sub(name,   k) {
  close_open("PASS")
  name = trim(name); if (name == "") return
  cur_base = name; k = ++seen[name]; if (k > 1) name = name " #" k
  cur = name; order[++n] = name; status[name] = "RUNNING"; pending = 1
}
function close_open(st) {
  if (cur != "" && status[cur] == "RUNNING") status[cur] = st
  if (cur != "" && status[cur] == "FAILING") status[cur] = "FAIL"
  pending = 0
}
function fail_cur(why) {
  if (cur == "") { pre_fail = pre_fail == "" ? why : pre_fail; return }
  if (status[cur] == "RUNNING" || status[cur] == "PASS") status[cur] = "FAILING"
  if (!(cur in detail)) detail[cur] = why
}
function ctxname(name,   s) {
  s = ""
  if (section != "") s = section " :: "
  if (config != "") s = s config " :: "
  if (header != "") s = s header " :: "
  return s name
}
function result_token(t) {
  if (t ~ /^PASSED/) { if (status[cur] == "RUNNING") status[cur] = "PASS"; else close_open("PASS"); pending = 0 }
  else if (t ~ /^\*FAILED\*/) { fail_cur("*FAILED*"); close_open("FAIL") }
  else if (t ~ /^-SKIP-/) { if (status[cur] == "RUNNING") status[cur] = "SKIP"; pending = 0 }
}
function handle(r, s,   m, name, t, indent) {
  if (s ~ /^#### conformance: /) { return }
  # --- failures, from any rank -----------------------------------------------------------
  if (s ~ /\*\*\* PHDF5 ERROR \*\*\*/) { failmark = r; return }
  if (s ~ /Assertion \(.*\) failed at line/) { fail_cur(trim(s)); return }
  if (s ~ /MPI_ABORT was invoked|MPI_Abort|aborting MPI processes/) { aborted = 1; if (cur != "" && status[cur] != "PASS" && status[cur] != "SKIP") fail_cur("MPI_Abort: " trim(s)); return }
  if (s ~ /\*FAILED\*/ && r != 0) { fail_cur("*FAILED* on rank " r); return }
  # data verification and check macros of the test programs (any rank)
  if (s ~ /errors? found in [A-Za-z_]+|Verify failed|\*\*\* UNEXPECTED (RETURN|VALUE)|[Dd]ata (verification|mismatch)/) { fail_cur("rank " r ": " trim(s)); return }
  # the program reached its end (so its last sub-test finished)
  if (s ~ /All tests were successful|Error\(s\) were detected|tests finished with no (errors|failures)|tests (passed|detected [0-9]+ errors)|TEST ERROR.* OCCURRED/) completed = 1
  # end-of-program error totals: evidence of a failure, attributed only if nothing else was
  if (s ~ /tests detected [0-9]+ errors|TEST ERROR.* OCCURRED|!!! [0-9]+ Error\(s\) were detected|detected [0-9]+ errors\*\*\*/) { unattributed = trim(s); return }
  if (r != 0) return           # everything else that structures the output comes from rank 0
  # --- structure (rank 0) -----------------------------------------------------------------
  if (s ~ /^ *--- .* --- *$/) { t = trim(s); gsub(/^--- | ---$/, "", t); section = t; header = ""; config = ""; return }
  if (s ~ /^== .* ==$/) {
    t = s; gsub(/^== | ==$/, "", t)
    if (t ~ /^Running tests in mode /) {   # t_filters_parallel: "mode / filter / sel-io X / chunk I/O / alloc"
      sub(/^Running tests in mode /, "", t); sub(/ with filter /, " / ", t); sub(/ using selection I\/O mode /, " / sel-io ", t)
      sub(/ allocation time$/, " alloc", t); gsub(/, | and /, " / ", t); gsub(/\047/, "", t)
    }
    section = t; header = ""; return }
  if (s ~ /^(Read Testing |Collective chunk I\/O Test #[0-9]|Single Rank Independent I\/O)/) { open_sub(ctxname(trim(s))); return }   # t_bigio
  if (s ~ /^Configuration:/) { close_open("PASS"); inconfig = 1; config = ""; return }
  if (inconfig && s ~ /^  [A-Za-z][A-Za-z /]*:/) { t = s; sub(/:[ ]*/, "=", t); config = config (config == "" ? "" : ", ") trim(t); return }
  inconfig = 0
  if (s ~ /^Testing  -- .*\([^()]*\) *$/) {            # testframe
    m = s; sub(/.*\(/, "", m); sub(/\) *$/, "", m); open_sub(m); return }
  if (s ~ /^ *Testing /) {
    indent = match(s, /[^ ]/) - 1
    t = s; sub(/^ *Testing /, "", t)
    # the result may follow on the same line ("name   PASSED") or on a later one
    m = ""
    if (match(t, / PASSED *$| \*FAILED\* *$|\*FAILED\* *$| -SKIP- *$/)) { m = trim(substr(t, RSTART)); t = substr(t, 1, RSTART - 1) }
    if (match(t, /   +/)) t = substr(t, 1, RSTART - 1)      # padding, then unrelated output
    if (indent == 0) header = ""
    # An indented "Testing" right after an unindented one that got no result: that one was a
    # multipart header (TESTING_MULTIPART), not a sub-test.
    if (indent > 0 && cur != "" && cur_indent == 0 && status[cur] == "RUNNING" && !(cur in detail)) {
      header = cur_raw; delete status[cur]; seen[cur_base]--; n--; cur = ""
    }
    open_sub(ctxname(t)); cur_indent = indent; cur_raw = trim(t)
    if (m != "") result_token(m)
    return
  }
  if (s ~ /^ *SKIPPED( |$)/) { result_token("-SKIP-"); return }   # puts("SKIPPED") in testpar, "SKIPPED - Subfiling VFD not built"
  if (match(s, /(^| )(PASSED|\*FAILED\*|-SKIP-) *$/)) { t = substr(s, RSTART); result_token(trim(t)); return }
  if (s ~ /^Proc 0: \*\*\* / && s !~ /PHDF5 (ERROR|REMARK)|SYNC/) {   # MPI_BANNER section
    t = s; sub(/^Proc 0: \*\*\* /, "", t); sub(/\.\.\. *$/, "", t); open_sub(ctxname(t)); return }
}
{
  line = $0
  if (line !~ /^\[[0-9]+,[0-9]+\]<std(out|err)>:/) {       # mpirun itself, or untagged
    if (line ~ /MPI_ABORT was invoked/) aborted = 1
    if (line ~ /^\*FAILED\*/) fail_cur("*FAILED*")
    handle(-1, line); next
  }
  # A physical line can hold several tagged segments: all but the last are partial lines.
  nseg = 0
  while (match(line, /\[[0-9]+,[0-9]+\]<std(out|err)>:/)) {
    if (nseg > 0) { segtext[nseg] = substr(line, 1, RSTART - 1) }
    tag = substr(line, RSTART + 1, RLENGTH - 2); sub(/\].*/, "", tag); split(tag, tp, ","); segrank[++nseg] = tp[2] + 0
    line = substr(line, RSTART + RLENGTH)
  }
  segtext[nseg] = line
  # The redirect shim's notice is a whole line of its own on stderr, but hydra's prepend pattern
  # tags it like stdout and it may land inside a rank's partial line: it belongs to no sub-test.
  for (i = 1; i <= nseg; i++) if (segtext[i] ~ /^h5mpiio_redirect: /) segtext[i] = ""
  for (i = 1; i < nseg; i++) buf[segrank[i]] = buf[segrank[i]] segtext[i]
  r = segrank[nseg]; buf[r] = buf[r] segtext[nseg]
  # Rank 0 announces a sub-test with a partial line ("Testing X   ", the result follows later);
  # what other ranks print meanwhile belongs to that sub-test, so open it first.
  if (r != 0 && (0 in buf) && buf[0] ~ /^ *Testing /) flush_rank(0)
  flush_rank(r)
}
END {
  for (r in buf) flush_rank(r)
  if (cur != "" && (status[cur] == "RUNNING" || status[cur] == "FAILING")) {
    if (timedout) { status[cur] = "TIMEOUT"; detail[cur] = "killed after the time limit" }
    else if (status[cur] == "FAILING" || aborted || (exitcode != 0 && !completed)) { status[cur] = "FAIL"; if (!(cur in detail)) detail[cur] = "program ended (exit " exitcode ") during this sub-test" }
    else status[cur] = "PASS"
  }
  for (i = 1; i <= n; i++) {
    st = status[order[i]]; if (st == "FAILING") st = "FAIL"; if (st == "RUNNING") st = "PASS"
    d = detail[order[i]]; gsub(/\t/, " ", d)
    printf "%s\t%s\t%s\n", order[i], st, d
  }
  if (timedout && (cur == "" || status[cur] != "TIMEOUT")) printf "(time limit reached after the last sub-test started)\tTIMEOUT\tkilled\n"
  if (pre_fail != "") printf "(before the first sub-test)\tFAIL\t%s\n", pre_fail
  if (unattributed != "") {
    nf = 0; for (i = 1; i <= n; i++) if (status[order[i]] == "FAIL" || status[order[i]] == "FAILING") nf++
    if (nf == 0) printf "(errors not attributed to a sub-test)\tFAIL\t%s\n", unattributed
  }
}
