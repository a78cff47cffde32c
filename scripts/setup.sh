#!/usr/bin/env bash
# Installs what broadcheck needs from Debian's packages (only what is
# missing; apt-get, as root or through sudo), then configures and builds.
#   scripts/setup.sh              everything the tests need, and the
#                                 libraries the adapters wrap; builds the
#                                 default preset (build/default)
#   scripts/setup.sh --core       only what the core needs (a C compiler,
#                                 CMake, Ninja, pkg-config, jansson, libxml2);
#                                 builds the core preset (build/core: no
#                                 tests, no library adapters), which
#                                 scripts/certify.sh uses
#   scripts/setup.sh --no-build   install only (either mode)
#   BROADCHECK_SETUP_ADAPTERS=0 scripts/setup.sh
#                                 everything but the libraries the adapters
#                                 wrap (their adapters are then "not
#                                 available" and their tests skipped)
set -euo pipefail
cd "$(dirname "$0")/.."
core=0
build=1
for arg in "$@"; do
  case $arg in
    --core) core=1 ;;
    --no-build) build=0 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (expected --core or --no-build)" >&2; exit 2 ;;
  esac
done

# The core: a C compiler and its C library headers (gcc only recommends
# libc6-dev, and recommends are not installed here), the build tools, and
# the report libraries.
core_packages=(gcc libc6-dev cmake ninja-build pkg-config libjansson-dev libxml2-dev)
# The tests and CI: g++ and clang (with libFuzzer and the sanitizer runtimes
# of libclang-rt-dev, which clang only recommends) for the plain builds of
# both compilers and scripts/fuzz.sh; make for the plain CMake command;
# cmocka; NumPy for the cross-checks and the benchmark's comparison; PyYAML
# for the CI-recipe test; jsonschema and xmllint to check the reports against
# docs/report.schema.json and docs/junit.xsd; chromium (headless) to open the
# page of 'broadcheck summarize'; valgrind for scripts/memcheck.sh; git for the
# commit that --version names.
test_packages=(g++ clang libclang-rt-dev make libcmocka-dev python3 python3-numpy python3-yaml
               python3-jsonschema libxml2-utils chromium
               valgrind git)

if [ "$core" = 1 ]; then
  scripts/apt-install-missing.sh setup "${core_packages[@]}"
else
  scripts/apt-install-missing.sh setup "${core_packages[@]}" "${test_packages[@]}"
  # The libraries the adapters wrap (docs/CERTIFICATIONS.md), so that every
  # adapter runs and CI checks its known verdicts.
  if [ "${BROADCHECK_SETUP_ADAPTERS:-1}" != 0 ]; then
    for s in scripts/setup-adapters-*.sh; do
      if [ -e "$s" ]; then bash "$s"; fi
    done
  fi
fi

if [ "$build" = 1 ]; then
  preset=default
  [ "$core" = 1 ] && preset=core
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
fi
