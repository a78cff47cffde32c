#!/usr/bin/env bash
# The reports against their published schemas (docs/report.schema.json,
# docs/junit.xsd), in every state a run can end in: conforming, a wrong
# answer (JUnit <failure>), a crashing SUT (JUnit <error>), a known
# divergence (<skipped> with its reason), an unresponsive SUT, shards merged.
#   report_schema_test.sh BROADCHECK FAULTY_DIR HOSTILE_WORKER SOURCE_DIR
set -u
B=$1 FAULTY=$2 HOSTILE=$3 SRC=$4
. "$(dirname "$0")/cli_test_lib.sh"

for tool in xmllint python3; do
  command -v $tool >/dev/null || { echo "SKIPPED: $tool is missing (scripts/setup.sh installs it)"; exit 77; }
done
python3 -c "import jsonschema" 2>/dev/null ||
  { echo "SKIPPED: python3 jsonschema is missing (scripts/setup.sh installs python3-jsonschema)"; exit 77; }

# report NAME EXIT ARGS...: broadcheck run ARGS with all three reports, which
# must exit EXIT; the reports go to $tmp/NAME.{json,xml,md}
report() {
  local name=$1 want=$2
  shift 2
  "$B" run --quiet --jobs 2 --json "$tmp/$name.json" --junit "$tmp/$name.xml" \
    --certificate "$tmp/$name.md" "$@" >"$tmp/$name.out" 2>&1
  local got=$?
  [ "$got" = "$want" ] || { fail "$name: exit $got, expected $want"; tail -5 "$tmp/$name.out"; }
}

cat >"$tmp/manifest.json" <<'EOF'
{"broadcheck_manifest": 1, "name": "zero-wildcard demo", "version": "1.0",
 "known_divergences": [{"id": "zero-pairs-with-any", "class": "a", "property": "shape-differential",
   "case": "numpy [0] [2]", "note": "a 0 dim pairs with any dim"}]}
EOF
shape=(--rule numpy --property shape-differential,commutative --cases 2000)
report conforms 0 --sut reference --cases 2000
report failure 1 --sut mutant:zero-wildcard "${shape[@]}"
report crash 1 --sut "$FAULTY/libfault_crash.so" "${shape[@]}"
report known 0 --sut mutant:zero-wildcard --rule numpy --property shape-differential --cases 2000 \
  --manifest "$tmp/manifest.json"
report unresponsive 1 --sut "exec:$HOSTILE --never" "${shape[@]}" --timeout-ms 200 \
  --unresponsive-after 2
# nothing checked (a worker of rule numpy alone asked rule none): NOT
# CERTIFIED, exit 3, never a pass
report unchecked 3 --sut "exec:python3 $SRC/tests/faulty_workers/shm_worker.py honest" \
  --rule none --property shape-differential --cases 200
# a medium-tier failure: the tier and the budget in the config and the replay line
report medium 1 --sut mutant:simd-tail --value-tier medium --max-bytes 512M --rule none \
  --property value-differential --value-cases 50
for k in 1 2; do
  "$B" run --quiet --sut mutant:zero-wildcard "${shape[@]}" --shard $k/2 --json "$tmp/shard$k.json"
done
"$B" merge --json "$tmp/merged.json" --junit "$tmp/merged.xml" "$tmp/shard1.json" \
  "$tmp/shard2.json" >/dev/null 2>&1
[ $? = 1 ] || fail "merge of a failing run: exit $?"
# a clean run with a shard missing certifies nothing: exit 3
"$B" run --quiet --sut reference "${shape[@]}" --shard 1/2 --json "$tmp/clean1.json"
"$B" merge --json "$tmp/partial.json" "$tmp/clean1.json" >"$tmp/partial.out" 2>&1
status=$?
[ $status = 3 ] || fail "merge with a shard missing: exit $status, expected 3"
grep -q 'verdict: NOT CERTIFIED: incomplete' "$tmp/partial.out" ||
  fail "merge with a shard missing: $(tail -3 "$tmp/partial.out")"

for name in conforms failure crash known unresponsive unchecked medium merged; do
  xmllint --noout --schema "$SRC/docs/junit.xsd" "$tmp/$name.xml" 2>"$tmp/xmllint.err" ||
    { fail "$name.xml does not validate against docs/junit.xsd"; cat "$tmp/xmllint.err"; }
done
python3 - "$SRC/docs/report.schema.json" "$tmp" <<'EOF' || fail "a JSON report does not validate"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
check = jsonschema.Draft202012Validator(schema)
bad = 0
for name in ["conforms", "failure", "crash", "known", "unresponsive", "unchecked", "medium",
             "merged"]:
    report = json.load(open("%s/%s.json" % (sys.argv[2], name)))
    for e in check.iter_errors(report):
        print("%s.json %s: %s" % (name, e.json_path, e.message[:300]))
        bad += 1
sys.exit(1 if bad else 0)
EOF

# What each report says: a wrong answer is a <failure>, no answer an <error>,
# a known divergence <skipped> with its id; the JSON verdicts agree.
grep -q '<failure message="SUT gives' "$tmp/failure.xml" || fail "failure.xml has no <failure>"
grep -q '<error ' "$tmp/failure.xml" && fail "failure.xml has an <error>: a wrong answer is a failure"
grep -q '<error message="SUT: internal error\|<error message="[^"]*internal error' "$tmp/crash.xml" ||
  fail "crash.xml: a crash is not an <error>"
grep -q 'errors="[1-9]' "$tmp/crash.xml" || fail "crash.xml counts no error"
grep -q '<skipped message="known divergence zero-pairs-with-any (class a)' "$tmp/known.xml" ||
  fail "known.xml: the known divergence is not <skipped> with its reason"
python3 - "$tmp" <<'EOF' || fail "JSON verdicts"
import json, sys
v = {n: json.load(open("%s/%s.json" % (sys.argv[1], n))) for n in
     ["conforms", "failure", "crash", "known", "unresponsive", "merged"]}
assert v["conforms"]["verdict"] == "CONFORMS" and v["conforms"]["conforms"], v["conforms"]["verdict"]
m = json.load(open("%s/medium.json" % sys.argv[1]))
assert m["config"]["value_tier"] == "medium" and m["config"]["max_bytes"] == 512 << 20, m["config"]
assert v["conforms"]["config"]["value_tier"] == "small", v["conforms"]["config"]
assert m["totals"]["value_bytes"] > 0, m["totals"]
# every compared output is moved too, with the inputs it was made from
assert m["totals"]["value_moved_bytes"] > m["totals"]["value_bytes"], m["totals"]
f = m["failures"][0]
assert "--value-tier medium --max-bytes 536870912" in f["replay"], f["replay"]
assert f["minimal"] == "none op=add dtype=int32 [1001] -> [1001]", f["minimal"]
assert v["failure"]["verdict"].startswith("DIVERGES") and not v["failure"]["conforms"]
assert v["crash"]["verdict"].startswith("DIVERGES")
assert v["known"]["verdict"] == "CONFORMS WITH KNOWN DIVERGENCES (1)", v["known"]["verdict"]
assert v["known"]["sut"]["declared_name"] == "zero-wildcard demo"
assert v["unresponsive"]["ended"] == "sut-unresponsive", v["unresponsive"]["ended"]
assert v["merged"]["verdict"] == v["failure"]["verdict"], (v["merged"]["verdict"], v["failure"]["verdict"])
u = json.load(open("%s/unchecked.json" % sys.argv[1]))
assert u["verdict"] == "NOT CERTIFIED: nothing was checked" and not u["conforms"], u["verdict"]
EOF
grep -q '## Verdict: NOT CERTIFIED: nothing was checked' "$tmp/unchecked.md" ||
  fail "unchecked.md: the certificate does not say NOT CERTIFIED"

if [ "$failures" -gt 0 ]; then
  echo "$failures check(s) failed"
  exit 1
fi
echo "reports: every one validates, and says what happened"
