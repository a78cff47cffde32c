#!/usr/bin/env bash
# The relocatable install (CTest package.relocated): a copy of the source
# tree is built the way a packager builds it (the plain Release command,
# core only), installed with --prefix, the prefix moved elsewhere, and the
# copies of the source and build trees deleted.  Then, from the moved prefix
# alone, in an empty folder:
#   - 'broadcheck list paths' names only files inside the prefix;
#   - 'broadcheck vectors' checks the installed conformance vectors;
#   - 'broadcheck run' certifies the built-in reference;
#   - the installed example adapter (.so) is certified through the installed
#     broadcheck-worker;
#   - an exec: worker outside the tree imports the installed Python wire
#     helper (import bcwire), and one in Node the JavaScript one
#     (require('bcwire'); only where node is installed, else said).
#   tests/relocation_test.sh SOURCE_DIR WORK_DIR C_COMPILER GENERATOR
set -euo pipefail
if [ $# -ne 4 ]; then
  echo "usage: tests/relocation_test.sh SOURCE_DIR WORK_DIR C_COMPILER GENERATOR" >&2
  exit 2
fi
src_dir=$(cd "$1" && pwd)
work=$2
cc=$3
generator=$4

fail() {
  echo "relocation test: FAILED: $*" >&2
  exit 1
}
step() {
  echo "relocation test: $1"
}

rm -rf "$work"
mkdir -p "$work/source" "$work/worker" "$work/cwd"
work=$(cd "$work" && pwd)

# The source tree's files (not its build folders): from git where there is
# one (tracked and new files, not ignored ones), else the folder less build/.
if git -C "$src_dir" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  # (a tracked file deleted in the work tree is skipped, not an error)
  (cd "$src_dir" && git ls-files -z --cached --others --exclude-standard |
     tar --null -T - --ignore-failed-read -cf - 2>/dev/null) | tar -C "$work/source" -xf -
else
  (cd "$src_dir" && tar --exclude=./build --exclude=./node_modules -cf - .) |
    tar -C "$work/source" -xf -
fi
cp "$src_dir"/tests/relocation/shape_worker.py "$src_dir"/tests/relocation/shape_worker.js \
   "$work/worker/"

step "configure and build a copy, core only (plain Release)"
cmake -S "$work/source" -B "$work/build" -G "$generator" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_BUILD_TYPE=Release -DBC_BUILD_TESTS=OFF -DBROADCHECK_LIBRARY_ADAPTERS=OFF \
  -DCMAKE_INSTALL_PREFIX=/nonexistent/configured-prefix >"$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; fail "configure"; }
cmake --build "$work/build" >"$work/build.log" 2>&1 || { cat "$work/build.log"; fail "build"; }
step "the Release build has no MMX instruction (tests/no_mmx.sh)"
mmx=0
bash "$src_dir"/tests/no_mmx.sh "$work/build/broadcheck" "$work/build/broadcheck-worker" || mmx=$?
# 77: no objdump here, not checked (said on stderr)
[ $mmx = 0 ] || [ $mmx = 77 ] || fail "tests/no_mmx.sh exited $mmx on the Release build"
step "install with --prefix, move the prefix, delete the source and build trees"
cmake --install "$work/build" --prefix "$work/first-prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "install"; }
mkdir -p "$work/moved"
mv "$work/first-prefix" "$work/moved/prefix"
rm -rf "$work/source" "$work/build"
prefix="$work/moved/prefix"
B="$prefix/bin/broadcheck"
cd "$work/cwd"
# nothing from the environment may point it elsewhere
unset BROADCHECK_WORKER BROADCHECK_ADAPTER_PATH PYTHONPATH NODE_PATH

step "broadcheck list paths: every file inside the prefix"
"$B" list paths > paths.txt || { cat paths.txt; fail "list paths exited $?"; }
cat paths.txt
while read -r kind path; do
  case "$path" in
    "$prefix"/*) ;;
    *) fail "list paths: $kind is $path, outside the prefix $prefix" ;;
  esac
done < paths.txt
[ "$(wc -l < paths.txt)" -eq 6 ] || fail "list paths: expected 6 kinds"

step "broadcheck vectors (the installed vectors)"
"$B" vectors > vectors.txt || { tail -5 vectors.txt; fail "vectors exited $?"; }
grep -q "^$prefix/share/broadcheck/vectors/numpy.vec: [1-9][0-9]* passed, 0 failed$" vectors.txt ||
  fail "vectors did not read the installed numpy.vec: $(head -3 vectors.txt)"
tail -1 vectors.txt

step "broadcheck run (the reference)"
"$B" run --cases 300 --quiet --json run.json || fail "run exited $?"
grep -q '"failed": 0' run.json || fail "run: no totals in run.json"

step "a .so adapter, through the installed worker"
adapter="$prefix/lib/broadcheck/adapters/libbc_example_adapter.so"
[ -f "$adapter" ] || adapter=$(find "$prefix" -name libbc_example_adapter.so | head -1)
[ -f "$adapter" ] || fail "the example adapter is not installed"
"$B" run --sut "$adapter" --rule numpy --cases 300 > so.txt ||
  { cat so.txt; fail "the adapter's certification exited $?"; }
grep -q "^verdict: CONFORMS$" so.txt || fail "the adapter was not certified: $(tail -3 so.txt)"

step "an exec: worker importing the installed bcwire.py"
"$B" run --sut "exec:python3 $work/worker/shape_worker.py" --rule numpy \
  --property shape-differential,commutative --cases 300 > py.txt ||
  { cat py.txt; fail "the Python worker's certification exited $?"; }
grep -q "^verdict: CONFORMS$" py.txt || fail "the Python worker was not certified: $(tail -3 py.txt)"

if command -v node >/dev/null; then
  step "an exec: worker requiring the installed bcwire.js"
  "$B" run --sut "exec:node $work/worker/shape_worker.js" --rule numpy \
    --property shape-differential,commutative --cases 300 > js.txt ||
    { cat js.txt; fail "the Node worker's certification exited $?"; }
  grep -q "^verdict: CONFORMS$" js.txt || fail "the Node worker was not certified: $(tail -3 js.txt)"
else
  step "no node here: the JavaScript helper is not checked"
fi
echo "relocation test: passed"
