#!/usr/bin/env bash
# Installs what broadcheck needs from Debian's packages (only what is
# missing), then configures and builds the default preset.
#   scripts/setup.sh            install + build build/default
#   BC_SETUP_NO_BUILD=1 ...     install only
#   BC_SETUP_ADAPTERS=0 ...     without the libraries the adapters wrap
set -euo pipefail
cd "$(dirname "$0")/.."

# Build tools, the test framework (cmocka), and NumPy for the cross-checks
# and the benchmark's comparison.  libclang-rt-dev holds libFuzzer and
# clang's sanitizer runtimes (clang only recommends it, and recommends are
# not installed here); valgrind runs scripts/memcheck.sh.
packages=(gcc g++ clang libclang-rt-dev cmake ninja-build pkg-config libcmocka-dev libjansson-dev
          libxml2-dev python3 python3-numpy valgrind)

scripts/apt-install-missing.sh setup "${packages[@]}"

# The libraries the adapters wrap (docs/CERTIFICATIONS.md), so that every
# adapter runs and CI checks its known verdicts.  BC_SETUP_ADAPTERS=0 skips
# them (the adapters are then "not available" and their tests skipped).
if [ "${BC_SETUP_ADAPTERS:-1}" != 0 ]; then
  for s in scripts/setup-adapters-*.sh; do
    if [ -e "$s" ]; then bash "$s"; fi
  done
fi

if [ -z "${BC_SETUP_NO_BUILD:-}" ]; then
  cmake --preset default >/dev/null
  cmake --build --preset default
fi
