#!/usr/bin/env bash
# The main job: set everything up, build, and certify the built-in
# reference against every conformance vector in spec/vectors.
# Extra arguments go to 'broadcheck vectors' (files or folders).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/default/broadcheck vectors "$@"
