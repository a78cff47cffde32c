#!/usr/bin/env bash
# Installs the libraries the Python adapters wrap (sut_adapters/python/):
# NumPy, PyTorch, ONNX, Dask, Numba and pydata/sparse from Debian's
# packages, only those missing.
# Non-interactive and idempotent: with everything installed it changes
# nothing and needs no network.  Meant to be called from scripts/setup.sh.
set -euo pipefail

packages=(python3 python3-numpy python3-torch python3-onnx python3-dask python3-numba
          python3-sparse)

"$(dirname "$0")/apt-install-missing.sh" setup-adapters-python "${packages[@]}"
