#!/usr/bin/env bash
# scripts/update-certifications.sh keeps what it was not asked to redo: on a
# copy of the docs, a --from directory holding one library's report replaces
# that report alone, and one holding none changes nothing (exit 2).  Before,
# it removed every stored report first and lost the other sixteen.  The
# paths it stores are relative to the checkout (they were the absolute
# paths of whichever checkout ran the certification).
#   update_certifications_test.sh BROADCHECK SOURCE_DIR
set -u
B=$1 SRC=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
mkdir -p "$tmp/copy/scripts" "$tmp/build" "$tmp/one" "$tmp/none"
cp "$SRC/scripts/update-certifications.sh" "$SRC/scripts/certification_pages.py" "$tmp/copy/scripts/"
cp -r "$SRC/docs" "$tmp/copy/docs"
ln -s "$B" "$tmp/build/broadcheck"
reports=$tmp/copy/docs/certifications/reports
stored=$(ls "$reports" | wc -l)
[ "$stored" -gt 1 ] || fail "fewer than two stored reports to keep ($stored)"
first=$(ls "$reports" | head -1)

bash "$tmp/copy/scripts/update-certifications.sh" --from "$tmp/none" --build "$tmp/build" >"$tmp/out" 2>&1
status=$?
[ $status = 2 ] || fail "a --from directory without reports exits $status, expected 2"
grep -q 'no JSON report in' "$tmp/out" || fail "no reason given: $(cat "$tmp/out")"
[ "$(ls "$reports" | wc -l)" = "$stored" ] || fail "a run that made no report removed stored ones"

# The report as another checkout's run writes it: its manifest path (and a
# --manifest in its arguments) absolute; stored, they are relative to the
# checkout (the copy is one: it has sut_adapters/).
mkdir -p "$tmp/copy/sut_adapters"
python3 - "$reports/$first" "$tmp/one/$first" <<'EDIT'
import json, sys
text = open(sys.argv[1]).read()
sut = json.loads(text)["sut"]
away = "/elsewhere/wt/other/sut_adapters/python/x.manifest.json"
def put(key, old, new):
    global text
    was = '"%s": %s' % (key, json.dumps(old))
    assert was in text, was
    text = text.replace(was, '"%s": %s' % (key, json.dumps(new)), 1)
put("manifest", sut["manifest"], away)
put("args", sut["args"], (sut["args"] + " --manifest " + away).strip())
open(sys.argv[2], "w").write(text)
EDIT
grep -q '"/elsewhere/wt/other/sut_adapters/python/x.manifest.json"' "$tmp/one/$first" ||
  fail "the test's absolute manifest path was not planted"
bash "$tmp/copy/scripts/update-certifications.sh" --from "$tmp/one" --build "$tmp/build" >"$tmp/out" 2>&1 ||
  fail "updating from one report failed: $(tail -5 "$tmp/out")"
[ "$(ls "$reports" | wc -l)" = "$stored" ] || fail "updating one report left $(ls "$reports" | wc -l) of $stored"
python3 - "$reports/$first" <<'CHECK' || fail "the stored report's paths are not relative to the checkout"
import json, sys
sut = json.load(open(sys.argv[1]))["sut"]
want = "sut_adapters/python/x.manifest.json"
ok = sut["manifest"] == want and sut["args"].endswith("--manifest " + want)
print(sut["manifest"], "|", sut["args"]) if not ok else None
sys.exit(0 if ok else 1)
CHECK
# and the reports kept in the repository have no absolute path left
for f in "$SRC"/docs/certifications/reports/*.json; do
  python3 - "$f" <<'STORED' || fail "$(basename "$f"): an absolute manifest path"
import json, sys
sut = json.load(open(sys.argv[1]))["sut"]
sys.exit(1 if (sut.get("manifest") or "").startswith("/") or " /" in " " + sut.get("args", "") else 0)
STORED
done
cmp -s "$tmp/copy/docs/CERTIFICATIONS.md" "$SRC/docs/CERTIFICATIONS.md" ||
  fail "the same reports made another docs/CERTIFICATIONS.md"
[ $failures = 0 ] && echo "update_certifications_test: all checks passed"
exit $((failures > 0))
