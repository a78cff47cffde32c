#!/usr/bin/env bash
# Installs those of the given Debian packages that are not installed yet
# (apt-get, as root or through sudo; non-interactive).  With all of them
# installed it changes nothing and needs no network.  Shared by
# scripts/setup.sh and scripts/setup-adapters-*.sh.
#   scripts/apt-install-missing.sh [--with-recommends] LABEL PACKAGE...
# LABEL starts each line printed (the calling script's name).
set -euo pipefail

recommends=(--no-install-recommends)
if [ "${1:-}" = --with-recommends ]; then
  recommends=()
  shift
fi
if [ $# -lt 2 ]; then
  echo "usage: scripts/apt-install-missing.sh [--with-recommends] LABEL PACKAGE..." >&2
  exit 2
fi
label="$1"
shift

missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "$label: already installed: $*"
  exit 0
fi

echo "$label: installing ${missing[*]}"
sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
"${sudo_cmd[@]}" apt-get update -qq
# env inside sudo: sudo's env_reset would drop a DEBIAN_FRONTEND set outside it
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${recommends[@]}" \
  "${missing[@]}" >/dev/null
