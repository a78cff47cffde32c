#!/usr/bin/env bash
# Known divergences (docs/MANIFEST.md), as a maintainer uses them: a SUT
# whose only failure is declared conforms (exit 0); deleting the entry makes
# it diverge (exit 1); an entry whose case passes is XPASS (a warning, exit 1
# under --strict); a bad manifest is refused (exit 2) naming the field.  For a
# built-in mutant in process and for the same mutant as an external worker
# (exec:), and across shards merged.
#   known_divergences_test.sh BROADCHECK WORKER HOSTILE_WORKER
set -u
B=$1
W=$2
H=$3
. "$(dirname "$0")/cli_test_lib.sh"

manifest() { # manifest FILE CASE: one known divergence with that case
  cat >"$1" <<EOF
{
  "broadcheck_manifest": 1,
  "name": "zero-wildcard demo",
  "version": "1.0",
  "known_divergences": [
    {"id": "zero-pairs-with-any", "class": "a", "property": "shape-differential",
     "case": "$2", "link": "https://github.com/PaddlePaddle/Paddle/issues/37077",
     "note": "a 0 dim pairs with any dim"}
  ]
}
EOF
}

run=(run --rule numpy --property shape-differential --cases 3000 --jobs 2 --timeout-ms 60000)
manifest "$tmp/known.json" "numpy [0] [2]"
manifest "$tmp/stale.json" "numpy [1] [2]"
printf '{"broadcheck_manifest": 1, "name": "x", "version": "1", "known_divergences": []}\n' >"$tmp/empty.json"

for sut in mutant:zero-wildcard "exec:$W --builtin mutant:zero-wildcard"; do
  # The failure shrinks to the declared case: known, the SUT conforms.
  expect 0 'verdict: CONFORMS WITH KNOWN DIVERGENCES \(1\)' -- "${run[@]}" --sut "$sut" \
    --manifest "$tmp/known.json" --json "$tmp/known-report.json"
  python3 - "$tmp/known-report.json" <<'EOF' || fail "JSON report of the known run ($sut)"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["conforms"] is True and d["verdict"].startswith("CONFORMS WITH KNOWN"), d["verdict"]
assert d["sut"]["declared_name"] == "zero-wildcard demo" and d["sut"]["declared_version"] == "1.0"
k = d["known_divergences"][0]
assert k["status"] == "xfail" and k["explained"] == 1, k
assert [f["known"] for f in d["failures"]] == ["zero-pairs-with-any"], d["failures"]
assert [c["verdict"] for c in d["cells"]] == ["xfail"], d["cells"]
EOF
  # Without the entry the same failure is a divergence.
  expect 1 'verdict: DIVERGES: 1 new failure' -- "${run[@]}" --sut "$sut" --manifest "$tmp/empty.json"
  expect 1 'verdict: DIVERGES: 1 new failure' -- "${run[@]}" --sut "$sut"
  # A stale entry (its case passes) next to an undeclared failure: XPASS and DIVERGES.
  expect 1 'XPASS +zero-pairs-with-any' -- "${run[@]}" --sut "$sut" --manifest "$tmp/stale.json"
done

# On a correct SUT a declared divergence passes: XPASS, a warning, an error under --strict.
expect 0 'WARNING: 1 known divergence passed \(XPASS\)' -- "${run[@]}" --sut reference --manifest "$tmp/known.json"
grep -q 'verdict: CONFORMS$' "$tmp/out" || fail "an XPASS without --strict still conforms"
expect 1 'verdict: DIVERGES: 1 known divergence no longer fails \(XPASS, --strict\)' -- \
  "${run[@]}" --sut reference --manifest "$tmp/known.json" --strict
expect 1 'verdict: DIVERGES' -- "${run[@]}" --sut "exec:$W --builtin reference" \
  --manifest "$tmp/known.json" --strict

# Shards: each replays its share of the entries; the merge says what one run says.
for k in 1 2; do
  "$B" "${run[@]}" --sut mutant:zero-wildcard --manifest "$tmp/known.json" --shard $k/2 \
    --quiet --json "$tmp/shard$k.json"
done
expect 0 'verdict: CONFORMS WITH KNOWN DIVERGENCES \(1\)' -- merge --json "$tmp/merged.json" \
  "$tmp/shard1.json" "$tmp/shard2.json"
# A shard of another manifest is not of the same run.
"$B" "${run[@]}" --sut mutant:zero-wildcard --manifest "$tmp/empty.json" --shard 2/2 --quiet \
  --json "$tmp/other2.json"
expect 2 "known_divergences|sut.declared_name" -- merge "$tmp/shard1.json" "$tmp/other2.json"

# Bad manifests: exit 2, naming the file and the field.
bad() { # bad PATTERN JSON
  printf '%s\n' "$2" >"$tmp/bad.json"
  expect 2 "$1" -- "${run[@]}" --sut reference --manifest "$tmp/bad.json"
}
bad "line [0-9]+, column [0-9]+: " '{"broadcheck_manifest": 1,'
bad "unknown field 'nmae'" '{"broadcheck_manifest": 1, "nmae": "x", "version": "1"}'
bad "missing field 'name'" '{"broadcheck_manifest": 1, "version": "1"}'
bad '"broadcheck_manifest": 1 \(the format version\)' '{"name": "x", "version": "1"}'
bad "known_divergences\[0\] \('a'\).case: " '{"broadcheck_manifest": 1, "name": "x", "version": "1", "known_divergences": [{"id": "a", "class": "a", "property": "shape-differential", "case": "numpy [2", "note": "n"}]}'
bad "class must be" '{"broadcheck_manifest": 1, "name": "x", "version": "1", "known_divergences": [{"id": "a", "class": "d", "property": "shape-differential", "case": "numpy [2]", "note": "n"}]}'
bad "no property 'shape-diff'" '{"broadcheck_manifest": 1, "name": "x", "version": "1", "known_divergences": [{"id": "a", "class": "a", "property": "shape-diff", "case": "numpy [2]", "note": "n"}]}'
bad "checks values, but the case is a shape line" '{"broadcheck_manifest": 1, "name": "x", "version": "1", "known_divergences": [{"id": "a", "class": "a", "property": "value-differential", "case": "numpy [2]", "note": "n"}]}'
bad "the id is also known_divergences\[0\]" '{"broadcheck_manifest": 1, "name": "x", "version": "1", "known_divergences": [{"id": "a", "class": "a", "property": "shape-differential", "case": "numpy [2]", "note": "n"}, {"id": "a", "class": "b", "property": "shape-differential", "case": "numpy [3]", "note": "n"}]}'
bad "reach.*not a dtype name" '{"broadcheck_manifest": 1, "name": "x", "version": "1", "known_divergences": [{"id": "a", "class": "a", "property": "shape-differential", "case": "numpy [2]", "note": "n", "reach": {"dtypes": ["float128"]}}]}'
# The manifest's scope against the SUT's own declaration (its HELLO).
bad "the manifest claims max_rank 3, the SUT declares 64" '{"broadcheck_manifest": 1, "name": "x", "version": "1", "scope": {"max_rank": 3}}'
bad "the SUT declares dtype .*, the manifest does not claim it" '{"broadcheck_manifest": 1, "name": "x", "version": "1", "scope": {"dtypes": ["int32"]}}'

# A reach widens an entry to the failures of its cells, and says so.
cat >"$tmp/reach.json" <<'EOF'
{"broadcheck_manifest": 1, "name": "x", "version": "1",
 "known_divergences": [{"id": "zero", "class": "a", "property": "shape-differential",
   "case": "numpy [0] [3]", "note": "any 0", "reach": {"rules": ["numpy"]}}]}
EOF
expect 0 '[1-9][0-9]* failing cases within its reach; reach: rules numpy, ops any, dtypes any' -- \
  "${run[@]}" --sut mutant:zero-wildcard --manifest "$tmp/reach.json"

# An entry whose case passes when replayed, though cases within its reach
# failed in the same run, fails intermittently (an unwritten output seen only
# on dirty memory): XFAIL, not an XPASS telling its maintainer to delete it,
# in one run and in shards merged.  (Here the case passes for good and the
# reach holds the failures; before, --strict made it DIVERGES.)
cat >"$tmp/intermittent.json" <<'EOF'
{"broadcheck_manifest": 1, "name": "x", "version": "1",
 "known_divergences": [{"id": "zero", "class": "a", "property": "shape-differential",
   "case": "numpy [2] [2]", "note": "any 0", "reach": {"rules": ["numpy"]}}]}
EOF
expect 0 'XFAIL +zero .*its case passed when replayed, but [1-9][0-9]* failing cases of this run lie within it: it fails intermittently' -- \
  "${run[@]}" --sut mutant:zero-wildcard --manifest "$tmp/intermittent.json" --strict
for k in 1 2; do
  "$B" "${run[@]}" --sut mutant:zero-wildcard --manifest "$tmp/intermittent.json" --strict \
    --shard $k/2 --quiet --json "$tmp/intermittent$k.json"
done
expect 0 'XFAIL +zero .*it fails intermittently' -- merge \
  "$tmp/intermittent1.json" "$tmp/intermittent2.json"
expect 1 'XPASS +zero' -- "${run[@]}" --sut reference --manifest "$tmp/intermittent.json" --strict

# A reach with a detail: every failing case it holds is counted as known when
# checked, and the cell goes on (no stop, no shrink); a property it does not
# name still fails.
cat >"$tmp/reach-detail.json" <<'EOF'
{"broadcheck_manifest": 1, "name": "x", "version": "1",
 "known_divergences": [{"id": "zero", "class": "a", "property": "shape-differential",
   "case": "numpy [0] [3]", "note": "any 0",
   "reach": {"rules": ["numpy"], "detail": "^SUT gives \\[[0-9,]*\\], reference rejects: dim-mismatch"}}]}
EOF
expect 0 '^[0-9]+ passed, 0 failed, 0 unsupported, [1-9][0-9]* known' -- "${run[@]}" \
  --sut mutant:zero-wildcard --manifest "$tmp/reach-detail.json" --json "$tmp/reach-report.json"
python3 - "$tmp/reach-report.json" <<'EOF' || fail "JSON report of the reach run"
import json, sys
d = json.load(open(sys.argv[1]))
cell = d["cells"][0]
assert cell["verdict"] == "xfail" and cell["failed"] == 0 and cell["known_failed"] > 0, cell
assert cell["ended"] == "ran", cell  # the cell went on to its whole budget
k = d["known_divergences"][0]
assert k["reach_hits"] == cell["known_failed"] and k["status"] == "xfail", k
assert d["failures"] == [], d["failures"]
EOF
expect 1 'associative +FAIL' -- run --rule numpy --property shape-differential,associative \
  --cases 3000 --jobs 2 --sut mutant:zero-wildcard --manifest "$tmp/reach-detail.json"
# A detail that does not hold the failures explains none of them.
sed 's/dim-mismatch"/overflow"/' "$tmp/reach-detail.json" >"$tmp/reach-other.json"
expect 1 'verdict: DIVERGES: 1 new failure' -- "${run[@]}" --sut mutant:zero-wildcard \
  --manifest "$tmp/reach-other.json"
bad "not a POSIX extended regular expression" '{"broadcheck_manifest": 1, "name": "x", "version": "1", "known_divergences": [{"id": "a", "class": "a", "property": "shape-differential", "case": "numpy [2]", "note": "n", "reach": {"detail": "a("}}]}'
# A reach's case_line narrows it by what only the shapes can say: every
# failing case is within the detail above, but only those whose line (as
# found) starts with a first shape [0] are known; the first one outside
# fails.
python3 - "$tmp/reach-detail.json" "$tmp/reach-case.json" '^numpy \[0\] ' <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["known_divergences"][0]["reach"]["case_line"] = sys.argv[3]
json.dump(m, open(sys.argv[2], "w"))
EOF
expect 1 'verdict: DIVERGES: 1 new failure' -- "${run[@]}" --sut mutant:zero-wildcard \
  --manifest "$tmp/reach-case.json" --json "$tmp/reach-case-report.json"
grep -Fq 'case lines /^numpy \[0\] /' "$tmp/out" || fail "the summary names the reach's case lines"
python3 - "$tmp/reach-case-report.json" <<'EOF' || fail "JSON report of the case_line run"
import json, sys
d = json.load(open(sys.argv[1]))
k = d["known_divergences"][0]
assert k["reach"]["case_line"] == "^numpy \\[0\\] ", k["reach"]
f = d["failures"][0]
assert not f["original"].startswith("numpy [0] "), f  # and the new one is outside it
EOF
# and one that every line matches takes them all, as the detail alone did
python3 - "$tmp/reach-detail.json" "$tmp/reach-case-all.json" '^numpy ' <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
m["known_divergences"][0]["reach"]["case_line"] = sys.argv[3]
json.dump(m, open(sys.argv[2], "w"))
EOF
expect 0 '^[0-9]+ passed, 0 failed, 0 unsupported, [1-9][0-9]* known' -- "${run[@]}" \
  --sut mutant:zero-wildcard --manifest "$tmp/reach-case-all.json"
bad "case_line: not a POSIX extended regular expression" '{"broadcheck_manifest": 1, "name": "x", "version": "1", "known_divergences": [{"id": "a", "class": "a", "property": "shape-differential", "case": "numpy [2]", "note": "n", "reach": {"case_line": "a("}}]}'

# A new bug never hides behind a known one (a wrong verdict: the failure was
# counted as the declared one).  The hostile worker has two bugs: a 0 against
# 1 gives 1 ("SUT gives [1], reference gives [0]"), and a 0 against 5 gives 5
# ("SUT gives [5], reference rejects").  Declare the first: a failure of the
# second shrank onto its case and passed as known.  A shrink now keeps the kind
# of failure it started from, so it ends on the second bug's own case.
two_bugs=(--sut "exec:$H --on numpy --zero-pairs-any")
manifest "$tmp/first-bug.json" "numpy [0] []"
expect 1 'verdict: DIVERGES: 1 new failure' -- "${run[@]}" "${two_bugs[@]}" \
  --manifest "$tmp/first-bug.json"
grep -Eq 'minimal: +numpy \[0\] \[[2-9]\] -> error:dim-mismatch' "$tmp/out" ||
  fail "the shrink kept the second bug's kind of failure"
grep -Eq 'detail: +SUT gives \[1\], reference gives' "$tmp/out" &&
  fail "the report shows the first bug's failure as the new one"
manifest "$tmp/second-bug.json" "numpy [0] [2]"
expect 0 'verdict: CONFORMS WITH KNOWN DIVERGENCES \(1\)' -- "${run[@]}" "${two_bugs[@]}" \
  --manifest "$tmp/second-bug.json"
# Nor does a shrink step into a reach its failure was not in when found: the
# reach below takes "SUT gives [2], ..." only, the failure found is wider, so
# it is a divergence (it was known: its minimal case fell within the reach).
cat >"$tmp/narrow-reach.json" <<'EOF'
{"broadcheck_manifest": 1, "name": "x", "version": "1",
 "known_divergences": [{"id": "zero", "class": "a", "property": "shape-differential",
   "case": "numpy [0] [2]", "note": "only a 2", "reach": {"detail": "^SUT gives \\[2\\],"}}]}
EOF
expect 1 'verdict: DIVERGES: 1 new failure' -- "${run[@]}" --sut mutant:zero-wildcard \
  --manifest "$tmp/narrow-reach.json"
grep -Eq 'minimal: .*-> error:dim-mismatch' "$tmp/out" || fail "the narrow reach's failure is shown"

# broadcheck replay names the known divergence that explains its failure, as
# the run counts it (its own case, else a reach holding the case and what it
# showed), and still exits 1; one the manifest does not explain is not named.
replay=(replay --sut mutant:zero-wildcard --property shape-differential)
expect 1 "^known divergence 'zero-pairs-with-any' of .*/known.json \(class a: a bug of the SUT\): a 0 dim pairs with any dim https://github.com/PaddlePaddle/Paddle/issues/37077$" -- \
  "${replay[@]}" --manifest "$tmp/known.json" 'numpy [0] [2]'
expect 1 '^FAIL shape-differential' -- "${replay[@]}" --manifest "$tmp/known.json" 'numpy [0] [3]'
grep -q 'known divergence' "$tmp/out" && fail "replay names an entry whose case it is not"
expect 1 '^FAIL shape-differential' -- "${replay[@]}" --manifest "$tmp/empty.json" 'numpy [0] [2]'
grep -q 'known divergence' "$tmp/out" && fail "replay names a known divergence with none declared"
expect 1 "^known divergence 'zero' of .*/reach-detail.json" -- "${replay[@]}" \
  --manifest "$tmp/reach-detail.json" 'numpy [0] [5]'
expect 1 '^FAIL shape-differential' -- "${replay[@]}" --manifest "$tmp/narrow-reach.json" 'numpy [0] [3]'
grep -q 'known divergence' "$tmp/out" && fail "replay names a reach whose detail the failure is not"
expect 0 '^PASS shape-differential' -- "${replay[@]}" --manifest "$tmp/known.json" 'numpy [2] [2]'

# A replay whose question goes unanswered confirms nothing: a SUT that never
# answers broadcast-to questions leaves the entry "not confirmed", never XFAIL
# (it was XFAIL: the timeout counted as the declared failure).
cat >"$tmp/silent.json" <<'EOF'
{"broadcheck_manifest": 1, "name": "silent", "version": "1", "known_divergences": [
  {"id": "silent", "class": "a", "property": "shape-differential",
   "case": "broadcast-to [3] [1] -> error:dim-mismatch", "note": "never answers"}]}
EOF
expect 1 'not confirmed: a question of its replay went unanswered in time, twice' -- run \
  --sut "exec:$H --on broadcast-to --never" --rule broadcast-to --property shape-differential \
  --cases 3 --jobs 1 --timeout-ms 300 --manifest "$tmp/silent.json" --json "$tmp/silent-report.json"
python3 - "$tmp/silent-report.json" <<'EOF' || fail "JSON report of the silent run"
import json, sys
d = json.load(open(sys.argv[1]))
k = d["known_divergences"][0]
assert k["status"] == "not-checked", k
EOF

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "known divergences: every check passed"
