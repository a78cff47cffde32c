#!/usr/bin/env bash
# docs/CERTIFICATIONS.md's table is generated, never typed: the part between
# its "summarize" markers must be exactly what 'broadcheck summarize' makes
# of the JSON reports of one scripts/certify-libraries.sh run, committed in
# docs/certifications/reports/ (scripts/update-certifications.sh writes both).
#   certifications_doc_test.sh BROADCHECK SOURCE_DIR
set -u
B=$1 SRC=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
doc=$SRC/docs/CERTIFICATIONS.md
reports=("$SRC"/docs/certifications/reports/*.json)
[ -e "${reports[0]}" ] || { echo "FAIL: no reports in docs/certifications/reports/"; exit 1; }
"$B" summarize --title "Certifications of real libraries" --markdown "$tmp/generated.md" \
  "${reports[@]}"
[ $? -le 1 ] || { echo "FAIL: broadcheck summarize failed"; exit 1; }
sed -n '/^<!-- summarize: begin/,/^<!-- summarize: end/p' "$doc" | sed '1d;$d' >"$tmp/committed.md"
[ -s "$tmp/committed.md" ] || { echo "FAIL: $doc has no '<!-- summarize: begin' ... '<!-- summarize: end' section"; exit 1; }
if ! diff -u "$tmp/committed.md" "$tmp/generated.md"; then
  echo "FAIL: docs/CERTIFICATIONS.md is not what broadcheck summarize makes of"
  echo "      docs/certifications/reports/*.json: run scripts/update-certifications.sh"
  exit 1
fi
echo "docs/CERTIFICATIONS.md: generated from ${#reports[@]} reports, unchanged"
