#!/usr/bin/env bash
# A packager's build: the plain CMake commands, no preset, no -Werror, with
# one compiler and one build type, in build/plain-COMPILER-TYPE.  Fails if
# the build fails or prints any compiler warning (CI runs it with gcc and
# clang in Release, the configuration a distribution builds).
#   scripts/plain-build.sh COMPILER [BUILD_TYPE]    (default Release)
# e.g. scripts/plain-build.sh clang Debug
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: scripts/plain-build.sh COMPILER [BUILD_TYPE]" >&2
  exit 2
fi
cc=$1
type=${2:-Release}
compilers=(CC="$cc")
case $cc in
  gcc) compilers+=(CXX=g++) ;;
  clang) compilers+=(CXX=clang++) ;;
esac
dir=build/plain-$(basename "$cc")-$type
log=$dir.log
mkdir -p build
# the command of the README, with the compiler chosen through CC/CXX
if ! env "${compilers[@]}" cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE="$type" > "$log" 2>&1 ||
   ! cmake --build "$dir" --parallel "$(nproc)" >> "$log" 2>&1; then
  tail -n 60 "$log" >&2
  echo "plain-build: $cc $type: the build failed (log: $log)" >&2
  exit 1
fi
if grep -n -i 'warning:' "$log" >&2; then
  echo "plain-build: $cc $type: built, but with the compiler warnings above (log: $log)" >&2
  exit 1
fi
echo "plain-build: $cc $type: built without a warning ($dir)"
