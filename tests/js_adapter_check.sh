#!/usr/bin/env bash
# CTest's runner for the JavaScript adapters (tests/adapters_js.cmake).
# Exits 77 (CTest: skipped, never passed) when node, or an npm package the
# test needs, is missing: scripts/setup-adapters-js.sh installs them.
#
#   js_adapter_check.sh JS_DIR node-test FILE
#       runs `node FILE`; it must exit 0
#   js_adapter_check.sh JS_DIR pass PACKAGES BROADCHECK ARGS...
#       runs BROADCHECK ARGS; it must exit 0 (every selected cell passed)
#   js_adapter_check.sh JS_DIR fatal BROADCHECK WORKER
#       runs WORKER copied where no package can be found: broadcheck must
#       exit 2 and say the SUT is not available
# PACKAGES is a comma-separated list of npm packages, resolved from JS_DIR.
set -uo pipefail
js_dir=$1 mode=$2
shift 2

skip() { echo "SKIPPED: $*"; exit 77; }
command -v node >/dev/null || skip "node is not installed (scripts/setup-adapters-js.sh installs it)"

need_packages() {
  local pkg
  for pkg in ${1//,/ }; do
    (cd "$js_dir" && node -e "require.resolve('$pkg')" 2>/dev/null) ||
      skip "npm package $pkg is not installed in $js_dir (run scripts/setup-adapters-js.sh)"
  done
}

# Runs "$@", prints its output, and checks its exit status is $1.
expect_status() {
  local want=$1 out status
  shift
  out=$("$@" 2>&1)
  status=$?
  printf '%s\n' "$out"
  if [ "$status" -ne "$want" ]; then
    echo "FAILED: exit status $status, expected $want: $*"
    exit 1
  fi
  LAST_OUTPUT=$out
}

case $mode in
  node-test)
    expect_status 0 node "$1" ;;
  pass)
    need_packages "$1"
    shift
    expect_status 0 "$@" ;;
  fatal)
    broadcheck=$1 worker=$2
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    cp "$js_dir"/*.js "$tmp"/
    (cd "$tmp" && node -e "require.resolve('onnxruntime-node')" 2>/dev/null ||
      node -e "require.resolve('onnxruntime-web')" 2>/dev/null ||
      node -e "require.resolve('@tensorflow/tfjs-core')" 2>/dev/null ||
      node -e "require.resolve('@stdlib/ndarray/ctor')" 2>/dev/null ||
      node -e "require.resolve('mathjs')" 2>/dev/null) &&
      skip "the packages are found from $tmp too (a node_modules above it): cannot hide them"
    expect_status 2 "$broadcheck" run --sut "exec:node $tmp/$worker" --cases 10
    case $LAST_OUTPUT in
      *"is not available: Cannot find module"*) ;;
      *) echo "FAILED: broadcheck did not report the worker not available"; exit 1 ;;
    esac ;;
  *)
    echo "js_adapter_check.sh: unknown mode $mode" >&2
    exit 2 ;;
esac
