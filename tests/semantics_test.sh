#!/usr/bin/env bash
# Declared value semantics (docs/ENGINE.md "Value semantics", docs/MANIFEST.md
# "semantics") are checked, not excused: the reference SUT, which truncates,
# wraps and rounds float16 sums at every step, must DIVERGE from each variant
# a manifest declares for it; the failure's replay line carries the manifest
# and reproduces; a manifest naming no variant conforms; a bad choice is
# refused naming the field.  (That a SUT with the variant conforms is the
# adapters' certifications: NumPy floors, oneDNN rounds, XNNPACK saturates.)
#   semantics_test.sh BROADCHECK
set -u
B=$1
. "$(dirname "$0")/cli_test_lib.sh"

manifest() { # manifest FILE SEMANTICS-JSON
  printf '{"broadcheck_manifest": 1, "name": "truncating reference", "version": "1",\n "semantics": %s}\n' "$2" >"$1"
}

run=(run --sut reference --rule numpy --property value-differential --value-cases 4000 --jobs 2)
declare -A detail=(
  [int_div_floor]='op=div'
  [int_div_nearest]='op=div'
  [int_div_round]='op=div'
  [int_overflow]='op=(add|sub|mul)'
  [float16_sum]='op=sum-to-shape dtype=float16')
manifest "$tmp/int_div_floor.json" '{"int_div": "floor"}'
manifest "$tmp/int_div_nearest.json" '{"int_div": "nearest-f32"}'
manifest "$tmp/int_div_round.json" '{"int_div": "nearest"}'
manifest "$tmp/int_overflow.json" '{"int_overflow": "saturate"}'
manifest "$tmp/float16_sum.json" '{"float16_sum": "wide"}'
# found_and_replayed VARIANT ARGS: the run in $tmp/out found a case of
# VARIANT's ops, its replay line carries ARGS and reproduces (exit 1, FAIL),
# as printed.
found_and_replayed() {
  grep -qE "minimal: .*${detail[$1]}" "$tmp/out" || fail "$1: the failure is not a ${detail[$1]} case"
  replay=$(sed -n 's/^  replay: *//p' "$tmp/out" | head -1)
  case "$replay" in
    *"$2"*) ;;
    *) fail "$1: the replay line does not carry $2: $replay" ;;
  esac
  eval "\"$B\" ${replay#broadcheck }" >"$tmp/replay.out" 2>&1
  rc=$?
  [ "$rc" = 1 ] && grep -q '^FAIL' "$tmp/replay.out" || { fail "$1: replay exit $rc: $replay"; cat "$tmp/replay.out"; }
}
for variant in int_div_floor int_div_nearest int_div_round int_overflow; do
  expect 1 'verdict: DIVERGES' -- "${run[@]}" --manifest "$tmp/$variant.json" --json "$tmp/$variant-report.json"
  grep -q 'value semantics: ' "$tmp/out" || fail "$variant: the summary does not name the semantics"
  found_and_replayed "$variant" "--manifest $tmp/$variant.json"
  python3 - "$tmp/$variant-report.json" "$variant" <<'EOF' || fail "$variant: JSON report"
import json, sys
d = json.load(open(sys.argv[1]))
want = {"int_div_floor": "int_div=floor", "int_div_nearest": "int_div=nearest-f32",
        "int_div_round": "int_div=nearest",
        "int_overflow": "int_overflow=saturate", "float16_sum": "float16_sum=wide"}[sys.argv[2]]
assert d["sut"]["semantics"] == want, d["sut"]
assert d["conforms"] is False, d["verdict"]
EOF
done

# float16 sums: generated gradients rarely add up past 2048, where binary16
# starts to round integers, so one case that does: 1 + 2 + ... + 72 = 2628,
# exact in float16, which rounding after every addition misses.
f16case='broadcast-to op=sum-to-shape dtype=float16 operand=0 [] [2,3,3,4]'
expect 1 '^FAIL value-differential on reference: float16 SUT: element \[\] is [0-9.]+, reference has 2628 ' -- \
  replay --sut reference --manifest "$tmp/float16_sum.json" --property value-differential "$f16case"
expect 0 '^PASS' -- replay --sut reference --property value-differential "$f16case"

# Saturation covers sums too: 24 uint8 terms exactly, then clamped once.
u8sum='onnx-uni op=sum-to-shape dtype=uint8 operand=1 [3,4,2] [] -> [3,4,2]'
expect 1 '^FAIL value-differential on reference: uint8 SUT: element \[\] is [0-9]+, reference has 255 ' -- \
  replay --sut reference --manifest "$tmp/int_overflow.json" --property value-differential "$u8sum"

# Every tier checks the declared semantics: on medium cases (up to 2^20
# elements, the fast engine computing the variant) each one is found and its
# replay line, which names the tier, reproduces.
medium=(run --sut reference --rule numpy --property value-differential --value-tier medium
        --value-cases 300 --jobs 2)
for variant in int_div_floor int_overflow float16_sum; do
  expect 1 'verdict: DIVERGES' -- "${medium[@]}" --manifest "$tmp/$variant.json"
  found_and_replayed "$variant" "--value-tier medium"
done

# The reference's own choices, named: nothing to diverge from.
manifest "$tmp/own.json" '{"int_div": "truncate", "int_overflow": "wrap", "float16_sum": "each"}'
expect 0 'verdict: CONFORMS$' -- "${run[@]}" --manifest "$tmp/own.json"
expect 0 'verdict: CONFORMS$' -- "${medium[@]}" --manifest "$tmp/own.json"
grep -q 'value semantics' "$tmp/out" && fail "the reference's own semantics were reported as a variant"

# Bad choices: exit 2 before any case, naming the field.
manifest "$tmp/bad-key.json" '{"int_division": "floor"}'
expect 2 "semantics: unknown choice 'int_division'" -- "${run[@]}" --manifest "$tmp/bad-key.json"
manifest "$tmp/bad-value.json" '{"int_div": "round"}'
expect 2 'semantics.int_div: expected "truncate", "floor", "nearest-f32" or "nearest"' -- "${run[@]}" --manifest "$tmp/bad-value.json"
manifest "$tmp/bad-type.json" '["floor"]'
expect 2 'semantics: must be an object' -- "${run[@]}" --manifest "$tmp/bad-type.json"
expect 2 "replay: --manifest: .*semantics.int_div" -- replay --sut reference --manifest "$tmp/bad-value.json" --property value-differential 'numpy op=div dtype=int32 [2] [2]'

finish semantics
