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

"$(dirname "$0")/apt-install-missing.sh" setup-adapters-native "${packages[@]}"
