#!/usr/bin/env bash
# Set everything up and pass every test: a packager's plain Release build
# with GCC and with Clang (no warning allowed), the default build and its
# tests, then the whole suite again under AddressSanitizer and
# UndefinedBehaviorSanitizer, then each libFuzzer target for a short while,
# then valgrind's memcheck on a subset of the default build.
#   BROADCHECK_FUZZ_SECONDS=N scripts/test.sh   fuzz each target N s (default 15)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --no-build
scripts/plain-build.sh gcc Release
scripts/plain-build.sh clang Release
cmake --workflow --preset default
cmake --workflow --preset sanitize
scripts/fuzz.sh "${BROADCHECK_FUZZ_SECONDS:-15}"
scripts/memcheck.sh
