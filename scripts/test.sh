#!/usr/bin/env bash
# Set everything up and pass every test: the default build, then the whole
# suite again under AddressSanitizer and UndefinedBehaviorSanitizer, then
# each libFuzzer target for a short while, then valgrind's memcheck on a
# subset of the default build.
#   BC_FUZZ_SECONDS=N scripts/test.sh   fuzz each target N s (default 15)
set -euo pipefail
cd "$(dirname "$0")/.."
BC_SETUP_NO_BUILD=1 scripts/setup.sh
cmake --workflow --preset default
cmake --workflow --preset sanitize
scripts/fuzz.sh "${BC_FUZZ_SECONDS:-15}"
scripts/memcheck.sh
