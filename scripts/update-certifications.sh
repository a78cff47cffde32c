#!/usr/bin/env bash
# Reruns every library's certification (scripts/certify-libraries.sh) and
# regenerates docs/CERTIFICATIONS.md's table and each page's matrix block
# (scripts/certification_pages.py) from its JSON reports, which
# are kept in docs/certifications/reports/ (CTest's docs.certifications
# checks that the two agree).
#   scripts/update-certifications.sh [--time SECONDS] [--no-setup] [--build DIR]
#   scripts/update-certifications.sh --from DIR [--build DIR]
#       (the JSON reports of a certify-libraries.sh run already made, in DIR)
# Exit codes: 0 updated; 2 a certification or the summary failed, or no
# report was made (nothing is changed then).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build/default
from=""
args=()
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build="${2:?--build needs a directory}"; args+=(--build "$2"); shift 2 ;;
    --from) from="${2:?--from needs a directory}"; shift 2 ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
shopt -s nullglob
if [ -n "$from" ]; then
  from_reports=("$from"/*.json)
  [ ${#from_reports[@]} = 0 ] || cp "${from_reports[@]}" "$out"/
else
  scripts/certify-libraries.sh --out "$out" "${args[@]}"
fi
# A library not rerun keeps its stored report: only the reports made are
# copied (this removed every stored report first, so that rerunning one
# library, or a run that made none, lost the other sixteen).
made=("$out"/*.json)
if [ ${#made[@]} = 0 ]; then
  echo "update-certifications: no JSON report in ${from:-the output of certify-libraries.sh}; nothing changed" >&2
  exit 2
fi
mkdir -p docs/certifications/reports
cp "${made[@]}" docs/certifications/reports/
# Paths in the reports (the manifest; a worker's or a --manifest in the
# SUT's name, arguments and replay lines) relative to the checkout, in
# every stored report: a run writes them as the checkout that made it had
# them (/work/wt/NAME/sut_adapters/...), which means nothing to a reader of
# another.  A path is cut where the checkout's part begins: at its first
# component naming a top-level entry of this checkout (or build) whose rest
# exists here, else at the first such component; a path with none
# (/usr/bin/node) is kept.
python3 - docs/certifications/reports/*.json <<'RELATIVE'
import json, os, re, sys
root = os.getcwd()
tops = set(os.listdir(root)) | {"build"}

def relative(path):
    if path.startswith(root + "/"):
        return os.path.relpath(path, root)
    parts = path.split("/")
    cuts = [i for i, c in enumerate(parts) if c in tops]
    for i in cuts:
        if os.path.exists(os.path.join(root, *parts[i:])):
            return "/".join(parts[i:])
    return "/".join(parts[cuts[0]:]) if cuts else path

# an absolute path: a word, or the part after "exec:" or "=", from a "/"
ABSOLUTE = re.compile(r"(?:(?<=^)|(?<=[\s:=]))/[^\s'\"]+")
for name in sys.argv[1:]:
    text = open(name, encoding="utf-8").read()
    report = json.loads(text)
    sut = report.get("sut") or {}
    fields = [sut.get("manifest") or "", sut.get("name") or "", sut.get("args") or ""]
    fields += [f.get("replay") or "" for f in report.get("failures") or []]
    paths = {p for f in fields for p in ABSOLUTE.findall(f)}
    changed = text
    for p in sorted(paths, key=len, reverse=True):
        r = relative(p)
        if r != p:
            changed = changed.replace(json.dumps(p)[1:-1], json.dumps(r)[1:-1])
    if changed != text:
        json.loads(changed)  # still a report
        open(name, "w", encoding="utf-8").write(changed)
RELATIVE
"$build/broadcheck" summarize --title "Certifications of real libraries" \
  --markdown "$out/table.md" docs/certifications/reports/*.json || [ $? = 1 ]
# The generated table replaces the section between the markers; the text
# around it is kept.
python3 - docs/CERTIFICATIONS.md "$out/table.md" <<'PY'
import sys
doc, table = open(sys.argv[1]).read(), open(sys.argv[2]).read()
begin, end = doc.index("<!-- summarize: begin"), doc.index("<!-- summarize: end")
begin = doc.index("\n", begin) + 1
open(sys.argv[1], "w").write(doc[:begin] + table + doc[end:])
PY
# Each page's matrix block, from the report its marker names (the prose
# around it is the page's own).
python3 scripts/certification_pages.py "$build/broadcheck" docs/certifications
echo "update-certifications: docs/CERTIFICATIONS.md, each page's matrix and docs/certifications/reports/ updated"
