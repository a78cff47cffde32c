#!/usr/bin/env bash
# Set everything up and pass every test: the default build, then the whole
# suite again under AddressSanitizer and UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."
BC_SETUP_NO_BUILD=1 scripts/setup.sh
cmake --workflow --preset default
cmake --workflow --preset sanitize
