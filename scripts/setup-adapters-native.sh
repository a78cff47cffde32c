#!/usr/bin/env bash
# Installs the native libraries that the adapters of sut_adapters/libraries/
# wrap (oneDNN, XNNPACK, xtensor, Eigen) and a C++ compiler, from Debian's
# packages.  Idempotent: installs only what is missing; non-interactive.
# After it, 'cmake --workflow --preset default' builds every adapter; an
# adapter whose library is still missing is skipped (reported at configure
# time and by the CTest adapters.native-availability), never a pass.
#   scripts/setup-adapters-native.sh
set -euo pipefail

# libpthreadpool-dev: xnnpack.h includes <pthreadpool.h>, which Debian's
# libxnnpack-dev does not pull in.  xtl-dev comes with xtensor-dev.
packages=(g++ libdnnl-dev libxnnpack-dev libpthreadpool-dev xtensor-dev libeigen3-dev)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-adapters-native: all installed (${packages[*]})"
  exit 0
fi
echo "setup-adapters-native: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
echo "setup-adapters-native: done"
