#!/bin/bash
# Instructions per call of the fast engine on the bench's patterns, counted by
# valgrind --tool=callgrind (independent of a shared machine's load): the
# difference between N2 and N1 calls, divided by N2 - N1, so start-up and the
# plan of a prepared call are not counted.
# Usage: bench/callgrind_calls.sh [BUILD_DIR]   (default build/default)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build/default}
lib=$build/reference/libbroadcheck_reference.a
bin=$(mktemp -d)/callgrind_calls
trap 'rm -rf "$(dirname "$bin")"' EXIT
command -v valgrind >/dev/null || { echo "valgrind not found" >&2; exit 77; }
[ -f "$lib" ] || { echo "$lib not found: build first" >&2; exit 2; }
cc -std=c11 -O2 -I"$here/../include" "$here/callgrind_calls.c" "$lib" -lm -o "$bin"
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$bin" "$@" 2>&1 |
       sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
count() { # name A B TRANSPOSED N1 N2 PREPARED
    local x y
    x=$(ir "$2" "$3" "$4" "$5" "$7")
    y=$(ir "$2" "$3" "$4" "$6" "$7")
    printf '%-22s %12d instructions per call\n' "$1" $(((y - x) / ($6 - $5)))
}
count tiny '[3,4]' '[4]' 0 1 1001 0
count tiny-prepared '[3,4]' '[4]' 0 1 1001 1
count rank5-small '[2,1,3,1,4]' '[1,5,1,6,1]' 0 1 201 0
count rank5-small-prepared '[2,1,3,1,4]' '[1,5,1,6,1]' 0 1 201 1
count outer '[4096,1]' '[1,4096]' 0 1 2 0
count rank8-write-only '[8,1,8,1,8,1,8,1]' '[1,8,1,8,1,8,1,8]' 0 1 2 0
count rank5-outer/16 '[4,1,64,1,64]' '[1,64,1,64,1]' 0 1 2 0
count transposed '[4096,4096]' '[4096,4096]' 1 1 2 0
