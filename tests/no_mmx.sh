#!/bin/bash
# Fails if a binary of ours holds an MMX instruction (CTest build.no-mmx,
# and the plain Release copy of tests/relocation_test.sh).
#
# An MMX instruction fills the x87 register stack until an EMMS empties it,
# and every long double load meanwhile gives -nan: GCC 12 at -O3 vectorised
# 8-byte copies through %mm0 with no EMMS, and the matmul reference's long
# double sums then reported a correct SUT failing (docs/ENGINE.md "The x87
# stack").  The reference now empties the stack itself; this check keeps
# our own code from leaving it full in the first place.
#
#     tests/no_mmx.sh FILE...      exit 0 clean, 1 found, 77 no objdump
set -u
if ! command -v objdump > /dev/null; then
  echo "no-mmx: objdump not found (binutils): not checked" >&2
  exit 77
fi
status=0
for f in "$@"; do
  if [ ! -f "$f" ]; then
    echo "no-mmx: $f: no such file" >&2
    exit 2
  fi
  # the functions with an instruction naming %mm0..%mm7 (AT&T syntax)
  found=$(objdump -d --no-show-raw-insn "$f" |
          awk '/^[0-9a-f]+ <.*>:$/ { fn = $2; sub(/:$/, "", fn) } /%mm[0-7]([^0-9]|$)/ { print fn ": " $0 }')
  if [ -n "$found" ]; then
    echo "no-mmx: $f has MMX instructions (an x87 stack left full breaks long double):" >&2
    echo "$found" | head -20 >&2
    status=1
  fi
done
[ $status = 0 ] && echo "no-mmx: $# file(s), no MMX instruction"
exit $status
