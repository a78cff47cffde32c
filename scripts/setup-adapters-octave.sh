#!/usr/bin/env bash
# Installs GNU Octave from Debian's packages (octave: octave-cli and its
# libraries), which sut_adapters/python/octave_worker.py drives (--sut octave,
# docs/certifications/octave.md), if it is missing.  Non-interactive and
# idempotent.  Meant to be called from scripts/setup.sh.
set -euo pipefail

"$(dirname "$0")/apt-install-missing.sh" setup-adapters-octave octave
