#!/usr/bin/env bash
# scripts/update-certifications.sh keeps what it was not asked to redo: on a
# copy of the docs, a --from directory holding one library's report replaces
# that report alone, and one holding none changes nothing (exit 2).  Before,
# it removed every stored report first and lost the other sixteen.
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

cp "$reports/$first" "$tmp/one/"
bash "$tmp/copy/scripts/update-certifications.sh" --from "$tmp/one" --build "$tmp/build" >"$tmp/out" 2>&1 ||
  fail "updating from one report failed: $(tail -5 "$tmp/out")"
[ "$(ls "$reports" | wc -l)" = "$stored" ] || fail "updating one report left $(ls "$reports" | wc -l) of $stored"
cmp -s "$tmp/copy/docs/CERTIFICATIONS.md" "$SRC/docs/CERTIFICATIONS.md" ||
  fail "the same reports made another docs/CERTIFICATIONS.md"
[ $failures = 0 ] && echo "update_certifications_test: all checks passed"
exit $((failures > 0))
