#!/bin/sh
# expect.sh PYTHON MODULE EXIT REGEX -- COMMAND [ARG...]
#
# CTest's wrapper for the Python adapters (tests/adapters.cmake).  Skips with
# 77 (SKIP_RETURN_CODE) when PYTHON is missing or cannot import MODULE, so a
# machine without the library reports "skipped", never "passed" ("-": no
# module needed).  Otherwise runs COMMAND and passes (0) only when it exits
# with EXIT and, unless REGEX is "-", its output matches REGEX (grep -E):
# CTest's WILL_FAIL cannot tell a failed property (exit 1) from bad usage (2).
set -u
if [ $# -lt 6 ] || [ "$5" != "--" ]; then
  echo "usage: expect.sh PYTHON MODULE EXIT REGEX -- COMMAND [ARG...]" >&2
  exit 2
fi
python=$1 module=$2 want=$3 regex=$4
shift 5

if [ "$module" != "-" ]; then
  if [ ! -x "$python" ]; then
    echo "skipped: $python not found"
    exit 77
  fi
  if ! why=$("$python" -c "import $module" 2>&1); then
    echo "skipped: $python cannot import $module: $(printf '%s' "$why" | tail -n 1)"
    exit 77
  fi
fi

out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$got" -ne "$want" ]; then
  echo "expect.sh: exit status $got, expected $want" >&2
  exit 1
fi
if [ "$regex" != "-" ] && ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect.sh: the output does not match: $regex" >&2
  exit 1
fi
exit 0
