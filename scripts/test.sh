#!/usr/bin/env bash
# Set everything up and pass every test: a packager's plain Release build
# with GCC and with Clang (no warning allowed), the default build and its
# tests, then the whole suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer, then each libFuzzer target for a short while,
# then valgrind's memcheck on a subset of the default build.
#   BROADCHECK_FUZZ_SECONDS=N scripts/test.sh   fuzz each target N s (default 15)
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's wall time goes to stderr: CI has 90 minutes, and the steps'
# times are how to see which one grew.
step() {
  local start=$SECONDS
  "$@"
  echo "test.sh: '$*' took $((SECONDS - start)) s (${SECONDS} s in all)" >&2
}
step scripts/setup.sh --no-build
step scripts/plain-build.sh gcc Release
step scripts/plain-build.sh clang Release
step cmake --workflow --preset default
step cmake --workflow --preset sanitize
step scripts/fuzz.sh "${BROADCHECK_FUZZ_SECONDS:-15}"
step scripts/memcheck.sh
