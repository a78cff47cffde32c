#!/usr/bin/env bash
# The main job: install what the core needs, build it (build/core), check
# the reference against every conformance vector, then certify a SUT
# (default: the built-in reference) with the property engine.  Reports go to
# build/certify/.  Nothing of the library adapters is installed or built
# (scripts/test.sh and scripts/certify-libraries.sh set those up).
# Extra arguments go to 'broadcheck run' (e.g. --sut mutant:max-dim --cases 200000).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --core
out=build/certify
mkdir -p "$out"
build/core/broadcheck vectors
exec build/core/broadcheck run \
  --json "$out/report.json" --junit "$out/junit.xml" --certificate "$out/certificate.md" "$@"
