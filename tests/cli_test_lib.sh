# Sourced by the CLI tests (tests/*_test.sh): a scratch folder removed on
# exit, a failure counter, and expect().  The caller sets B (the broadcheck
# binary) first and ends with:  finish NAME
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# expect STATUS PATTERN -- ARGS: broadcheck ARGS exits STATUS and prints a
# line matching PATTERN (stdout and stderr together, kept in $tmp/out)
expect() {
  local want=$1 pattern=$2
  shift 3
  "$B" "$@" >"$tmp/out" 2>&1
  local got=$?
  [ "$got" = "$want" ] || fail "exit $got, expected $want: broadcheck $*"
  grep -qE -- "$pattern" "$tmp/out" || { fail "no '$pattern' in the output of: broadcheck $*"; sed 's/^/  | /' "$tmp/out" | tail -15; }
}

finish() {
  [ "$failures" = 0 ] && echo "$1: all checks passed"
  exit $((failures > 0))
}
