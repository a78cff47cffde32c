#!/usr/bin/env bash
# broadcheck summarize, as a maintainer of several adapters uses it: three
# reports (a conforming SUT, one with known divergences, one that diverges)
# make one Markdown table and one HTML page whose figures are the reports';
# the page is opened in a real headless browser (Debian's chromium): its
# DOM must hold the summary and matrices, and a screenshot is taken
# (SUMMARY_SCREENSHOT=FILE keeps it).  Skipped (77) without chromium.
#   summarize_test.sh BROADCHECK
set -u
B=$1
. "$(dirname "$0")/cli_test_lib.sh"

cat >"$tmp/manifest.json" <<'EOF'
{"broadcheck_manifest": 1, "name": "zero-wildcard demo", "version": "1.0",
 "semantics": {"int_div": "floor"},
 "known_divergences": [{"id": "zero-pairs-with-any", "class": "a", "property": "shape-differential",
   "case": "numpy [0] [2]", "note": "a 0 dim pairs with any dim"}]}
EOF
run=(run --quiet --jobs 2 --rule numpy,broadcast-to --property shape-differential,prepend-ones --cases 2000)
"$B" "${run[@]}" --sut reference --json "$tmp/reference.json"
"$B" "${run[@]}" --sut mutant:zero-wildcard --manifest "$tmp/manifest.json" --json "$tmp/known.json" \
  --rule numpy --property shape-differential
"$B" "${run[@]}" --sut mutant:max-dim --json "$tmp/diverges.json"

"$B" summarize --title "Three SUTs" --markdown "$tmp/s.md" --html "$tmp/s.html" \
  "$tmp/reference.json" "$tmp/known.json" "$tmp/diverges.json"
rc=$?
[ $rc = 1 ] || fail "summarize of a diverging SUT: exit $rc, expected 1"
"$B" summarize --markdown "$tmp/ok.md" "$tmp/reference.json" "$tmp/known.json"
rc=$?
[ $rc = 0 ] || fail "summarize of conforming SUTs: exit $rc, expected 0"

# The Markdown: one row per SUT, the report's own verdict and counts.
grep -q '^# Three SUTs$' "$tmp/s.md" || fail "no title"
grep -q '^| reference | broadcheck [0-9.]* | CONFORMS | – | 4 | 0 | 0 | 0 |  |$' "$tmp/s.md" ||
  fail "the reference row: $(grep '^| reference' "$tmp/s.md")"
grep -q '^| zero-wildcard demo | 1.0 | CONFORMS WITH KNOWN DIVERGENCES (1) | `int_div=floor` | 0 | 0 | 1 | 0 | `zero-pairs-with-any` (a, xfail) |$' "$tmp/s.md" ||
  fail "the known row: $(grep '^| zero-wildcard' "$tmp/s.md")"
grep -q '^| mutant:max-dim | mutant | DIVERGES: ' "$tmp/s.md" || fail "the diverging row"
grep -q '^broadcheck replay --sut mutant:max-dim ' "$tmp/s.md" || fail "no replay line of the new failure"

# One report's matrix block for its docs/certifications page: the report's
# cells with their counts, its verdict and semantics.
"$B" summarize --matrix "$tmp/page.md" "$tmp/known.json"
rc=$?
[ $rc = 0 ] || fail "summarize --matrix of a conforming SUT: exit $rc"
python3 - "$tmp/known.json" "$tmp/page.md" <<'EOF' || fail "the page matrix is not the report's"
import json, sys
r = json.load(open(sys.argv[1]))
page = open(sys.argv[2], encoding="utf-8").read()
assert "**CONFORMS WITH KNOWN DIVERGENCES (1)**; declared semantics: `int_div=floor`." in page, page
cell = [c for c in r["cells"] if c["rule"] == "numpy" and c["property"] == "shape-differential"][0]
assert cell["verdict"] == "xfail", cell
row = [l for l in page.splitlines() if l.startswith("| numpy |")]
assert row == ["| numpy | ⚠️ %d (%d known) |" % (cell["passed"], cell["known_failed"])], row
t = r["totals"]
assert "Cases: %d passed, %d failed, %d known, %d unsupported." % (
    t["passed"], t["failed"], t["known_failed"], t["unsupported"]) in page
EOF
"$B" summarize --matrix - "$tmp/diverges.json" >"$tmp/page2.md"
[ $? = 1 ] || fail "summarize --matrix of a diverging SUT: not exit 1"
grep -qE '^\| numpy \| ❌ [0-9]+/[0-9]+ \|' "$tmp/page2.md" || fail "a failing cell's counts: $(grep '^| numpy' "$tmp/page2.md")"
"$B" summarize --matrix "$tmp/two.md" "$tmp/reference.json" "$tmp/known.json" 2>"$tmp/err"
[ $? = 2 ] && grep -q 'exactly one' "$tmp/err" || fail "--matrix of two reports is not refused: $(cat "$tmp/err")"
[ ! -e "$tmp/two.md" ] || fail "--matrix of two reports wrote a block"

# Bad input: named, exit 2, nothing written.
echo '{"schema": "other"}' >"$tmp/bad.json"
"$B" summarize --markdown "$tmp/bad.md" "$tmp/reference.json" "$tmp/bad.json" 2>"$tmp/err"
rc=$?
[ $rc = 2 ] || fail "a bad report: exit $rc, expected 2"
grep -q "bad.json': not a broadcheck report" "$tmp/err" || fail "the bad report is not named: $(cat "$tmp/err")"
[ ! -e "$tmp/bad.md" ] || fail "a summary was written from a bad report"
"$B" summarize --markdown "$tmp/reference.json" "$tmp/reference.json" 2>/dev/null
[ $? = 2 ] || fail "an output on an input is not refused"

# The page in a real browser.
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
  echo "SKIPPED (the Markdown checks passed): chromium is not installed (scripts/setup.sh installs it)"
  [ "$failures" -gt 0 ] && exit 1
  exit 77
fi
flags=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir="$tmp/profile")
"$browser" "${flags[@]}" --dump-dom "file://$tmp/s.html" >"$tmp/dom.html" 2>"$tmp/browser.err" ||
  { fail "chromium could not load the page"; tail -3 "$tmp/browser.err"; }
python3 - "$tmp/dom.html" <<'EOF' || fail "the page as the browser built it"
import re, sys
dom = open(sys.argv[1], encoding="utf-8").read()
summary = re.search(r'<table id="summary">(.*?)</table>', dom, re.S)
assert summary, "no summary table"
rows = re.findall(r"<tr>", summary.group(1))
assert len(rows) == 4, "summary rows: %d, want 3 SUTs and a header" % len(rows)
for k in range(3):
    assert 'id="matrix-%d"' % k in dom, "no matrix %d" % k
assert dom.count('class="pass"') >= 4 and 'class="xfail"' in dom and 'class="fail"' in dom
assert 'href="#sut-2-failure-0"' in dom and 'id="sut-2-failure-0"' in dom, "no link to the failure"
assert "CONFORMS WITH KNOWN DIVERGENCES (1)" in dom
cells = re.findall(r'<td class="semantics">(.*?)</td>', summary.group(1))
assert cells == ["the reference's own", "<code>int_div=floor</code>", "the reference's own"], cells
EOF
shot=${SUMMARY_SCREENSHOT:-$tmp/shot.png}
"$browser" "${flags[@]}" --window-size=1400,900 --screenshot="$shot" "file://$tmp/s.html" \
  >/dev/null 2>&1 || fail "no screenshot"
[ -s "$shot" ] || fail "the screenshot is empty"

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "summarize: Markdown and HTML agree with the reports; the page renders"
