#!/usr/bin/env bash
# The main job: set everything up, build, check the reference against every
# conformance vector, then certify a SUT (default: the built-in reference)
# with the property engine.  Reports go to build/certify/.
# Extra arguments go to 'broadcheck run' (e.g. --sut mutant:max-dim --cases 200000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
out=build/certify
mkdir -p "$out"
build/default/broadcheck vectors
exec build/default/broadcheck run --jobs "$(nproc)" \
  --json "$out/report.json" --junit "$out/junit.xml" --certificate "$out/certificate.md" "$@"
