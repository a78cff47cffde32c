#!/usr/bin/env bash
# Installs the libraries the Python adapters wrap (sut_adapters/python/):
# NumPy, PyTorch and ONNX from Debian's packages, only those missing.
# Non-interactive and idempotent: with everything installed it changes
# nothing and needs no network.  Meant to be called from scripts/setup.sh.
set -euo pipefail

packages=(python3 python3-numpy python3-torch python3-onnx)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup-adapters-python: ${packages[*]} already installed"
  exit 0
fi

echo "setup-adapters-python: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
# env inside sudo: sudo's env_reset would drop a DEBIAN_FRONTEND set outside it
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
  "${missing[@]}" >/dev/null
