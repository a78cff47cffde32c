#!/usr/bin/env bash
# Installs what broadcheck needs from Debian's packages (only what is
# missing), then configures and builds the default preset.
#   scripts/setup.sh            install + build build/default
#   BC_SETUP_NO_BUILD=1 ...     install only
set -euo pipefail
cd "$(dirname "$0")/.."

# Build tools, the test framework (cmocka), and NumPy for the cross-checks
# and the benchmark's comparison.  libclang-rt-dev holds libFuzzer and
# clang's sanitizer runtimes (clang only recommends it, and recommends are
# not installed here); valgrind runs scripts/memcheck.sh.
packages=(gcc g++ clang libclang-rt-dev cmake ninja-build pkg-config libcmocka-dev libjansson-dev
          libxml2-dev python3 python3-numpy valgrind)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

if [ -z "${BC_SETUP_NO_BUILD:-}" ]; then
  cmake --preset default >/dev/null
  cmake --build --preset default
fi
