#!/usr/bin/env bash
# Declared value semantics (docs/ENGINE.md "Value semantics", docs/MANIFEST.md
# "semantics") are checked, not excused: the reference SUT, which truncates,
# wraps and rounds float16 sums at every step, must DIVERGE from each variant
# a manifest declares for it; the failure's replay line carries the manifest
# and reproduces; a manifest naming no variant conforms; a bad choice is
# refused naming the field.  (That a SUT with the variant conforms is the
# adapters' certifications: NumPy floors, oneDNN rounds, XNNPACK saturates.)
# The element limit (semantics max_elements, spec/RULES.md §9.4) is a shape
# choice checked the same way: a SUT that declares it must refuse past it
# and answer everything below as the rule does (bc_hostile_worker
# --max-elements N is such a SUT, honest at INT64_MAX, too strict below).
# Subtraction on bool (semantics bool_sub): never asked by default; under
# "xor" it is asked and checked, so the conformant adapter, which computes
# sub on bool as "less" (it was never asked it), diverges there.
#   semantics_test.sh BROADCHECK HOSTILE_WORKER CONFORMANT_ADAPTER
set -u
B=$1
H=$2
C=$3
. "$(dirname "$0")/cli_test_lib.sh"

manifest() { # manifest FILE SEMANTICS-JSON
  printf '{"broadcheck_manifest": 1, "name": "truncating reference", "version": "1",\n "semantics": %s}\n' "$2" >"$1"
}

# replays NAME ARGS [PROPERTY]: the first replay line of $tmp/out (of
# PROPERTY, if given) carries ARGS and reproduces, as printed: exit 1, FAIL.
replays() {
  local replay
  replay=$(sed -n 's/^  replay: *//p' "$tmp/out" | grep -- "${3:-}" | head -1)
  case "$replay" in
    *"$2"*) ;;
    *) fail "$1: the replay line does not carry $2: $replay" ;;
  esac
  eval "\"$B\" ${replay#broadcheck }" >"$tmp/replay.out" 2>&1
  local rc=$?
  [ "$rc" = 1 ] && grep -q '^FAIL' "$tmp/replay.out" || { fail "$1: replay exit $rc: $replay"; cat "$tmp/replay.out"; }
}

# found VARIANT: the run in $tmp/out found a case of VARIANT's ops.
found() {
  grep -qE "minimal: .*${detail[$1]}" "$tmp/out" || fail "$1: the failure is not a ${detail[$1]} case"
}

run=(run --sut reference --rule numpy --property value-differential --value-cases 4000 --jobs 2)
declare -A detail=(
  [int_div_floor]='op=div'
  [int_div_nearest]='op=div'
  [int_div_round]='op=div'
  [int_overflow]='op=(add|sub|mul|sum-to-shape)' # saturation covers sums too (below); the medium tier's long sums reach it first
  [float16_sum]='op=sum-to-shape dtype=float16')
manifest "$tmp/int_div_floor.json" '{"int_div": "floor"}'
manifest "$tmp/int_div_nearest.json" '{"int_div": "nearest-f32"}'
manifest "$tmp/int_div_round.json" '{"int_div": "nearest"}'
manifest "$tmp/int_overflow.json" '{"int_overflow": "saturate"}'
manifest "$tmp/float16_sum.json" '{"float16_sum": "wide"}'
for variant in int_div_floor int_div_nearest int_div_round int_overflow; do
  expect 1 'verdict: DIVERGES' -- "${run[@]}" --manifest "$tmp/$variant.json" --json "$tmp/$variant-report.json"
  found "$variant"
  grep -q 'value semantics: ' "$tmp/out" || fail "$variant: the summary does not name the semantics"
  replays "$variant" "--manifest $tmp/$variant.json"
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
for variant in int_div_floor int_overflow; do
  expect 1 'verdict: DIVERGES' -- "${medium[@]}" --manifest "$tmp/$variant.json"
  found "$variant"
  replays "$variant" "--value-tier medium"
done
# float16 sums on the medium tier, by one case: a generated sum of -9..9
# reaches 2048, where float16 starts to round integers, in about a quarter
# of the [73729] -> [] cases (12 of 40 seeds under version 1 of the values,
# 10 of 40 under version 2).  Before the medium generator drew its long
# sums (BC_LONG_SUM_PERCENT, properties/value.h) 300 cases at seeds 1 to 6,
# and 3,000 at seed 1, found none; the replayed case stays.  It sums to 2358.
f16medium='numpy op=sum-to-shape dtype=float16 operand=0 values=v2:6 [] [73729] -> []'
expect 1 '^FAIL value-differential on reference: float16 SUT: element \[\] is [0-9.]+, reference has 2358 ' -- \
  replay --sut reference --manifest "$tmp/float16_sum.json" --value-tier medium \
  --property value-differential "$f16medium"
expect 0 '^PASS' -- replay --sut reference --value-tier medium --property value-differential "$f16medium"
# ... and generated ones find it: the medium tier's long sums (2^16 terms or
# more per output element, float16 in half of them) make the wide
# accumulation show within the 300 cases of the run above.
expect 1 'verdict: DIVERGES' -- "${medium[@]}" --manifest "$tmp/float16_sum.json"
found float16_sum
replays float16_sum "--value-tier medium"

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

# ---- max_elements: int64 -------------------------------------------------
manifest "$tmp/limit.json" '{"max_elements": "int64"}'
shape_props=shape-differential,commutative,associative,identity,prepend-ones,uni-implies-numpy,bidirectional-is-numpy
limited=(run --property "$shape_props" --cases 20000 --jobs 2 --manifest "$tmp/limit.json")
# The reference SUT holds any count: past the limit it accepts, and diverges.
expect 1 'verdict: DIVERGES' -- "${limited[@]}" --sut reference --rule numpy,broadcast-to
grep -q 'value semantics: max_elements=int64' "$tmp/out" || fail "max_elements: not named in the summary"
grep -qE 'detail: +SUT gives \[[0-9,]*\], reference rejects: overflow: the result' "$tmp/out" ||
  fail "max_elements: the reference SUT's failure is not an acceptance past the limit"
replays max_elements "--manifest $tmp/limit.json" shape-differential
expect 1 '^FAIL shape-differential on reference: SUT gives \[2,4611686018427387904\], reference rejects: overflow' -- \
  replay --sut reference --manifest "$tmp/limit.json" --property shape-differential 'numpy [2,4611686018427387904] [1]'
# Below the limit, and on an empty result, the reference SUT's acceptance is right.
expect 0 '^PASS' -- replay --sut reference --manifest "$tmp/limit.json" --property shape-differential 'numpy [4611686018427387903,2] [1]'
expect 0 '^PASS' -- replay --sut reference --manifest "$tmp/limit.json" --property shape-differential 'numpy [4611686018427387904,2,1] [0]'

# A SUT that refuses exactly past INT64_MAX (whether or not it also refuses
# empty shapes whose other dims multiply past it) conforms, metamorphic properties included ...
limit_sut="exec:$H --max-elements 9223372036854775807"
expect 0 'verdict: CONFORMS$' -- "${limited[@]}" --sut "$limit_sut"
expect 0 'verdict: CONFORMS$' -- "${limited[@]}" --sut "$limit_sut --refuse-empty"
grep -q 'value semantics: max_elements=int64' "$tmp/out" || fail "max_elements: the limited SUT's run does not name it"
expect 0 '^PASS' -- replay --sut "$limit_sut" --manifest "$tmp/limit.json" --property shape-differential 'numpy [2,4611686018427387904] [1]'
# numpy(a,b) is past the limit while a's broadcast with numpy(b,c) is empty:
# under the limit the fold through (a,b) says nothing, and is not compared.
expect 2 'does not support a query this property needs' -- \
  replay --sut "$limit_sut" --manifest "$tmp/limit.json" --property associative 'numpy [4611686018427387904,1] [1,2] [0,1,1]'
# ... and without declaring the limit, the same SUT diverges: refusals are not excused.
expect 1 'verdict: DIVERGES' -- run --property "$shape_props" --cases 20000 --jobs 2 --sut "$limit_sut"
expect 1 '^FAIL shape-differential on .*SUT gives error:overflow, reference gives \[2,4611686018427387904\]' -- \
  replay --sut "$limit_sut" --property shape-differential 'numpy [2,4611686018427387904] [1]'
expect 1 '^FAIL associative on .*numpy\(numpy\(a,b\),c\) gives error:overflow but numpy\(a,numpy\(b,c\)\) gives \[0,4611686018427387904,2\]' -- \
  replay --sut "$limit_sut" --property associative 'numpy [4611686018427387904,1] [1,2] [0,1,1]'
# A limit declared on some rules holds on those only.
manifest "$tmp/limit-uni.json" '{"max_elements": {"limit": "int64", "rules": ["onnx-uni", "broadcast-to"]}}'
expect 1 '^FAIL shape-differential on .*SUT gives \[2,4611686018427387904\], reference rejects: overflow' -- \
  replay --sut reference --manifest "$tmp/limit-uni.json" --property shape-differential 'broadcast-to [] [2,4611686018427387904]'
expect 0 '^PASS' -- replay --sut reference --manifest "$tmp/limit-uni.json" --property shape-differential 'numpy [2,4611686018427387904] [1]'
expect 1 'value semantics: max_elements=int64 on onnx-uni/broadcast-to' -- run --property shape-differential \
  --cases 20000 --jobs 2 --sut reference --rule numpy,broadcast-to --manifest "$tmp/limit-uni.json"
grep -q 'FAIL shape-differential on numpy' "$tmp/out" && fail "max_elements on broadcast-to only: numpy was judged under it"
manifest "$tmp/bad-rules.json" '{"max_elements": {"limit": "int64", "rules": ["nump"]}}'
expect 2 'semantics.max_elements.rules\[0\]: nump is not a rule name' -- "${run[@]}" --manifest "$tmp/bad-rules.json"
# A SUT whose limit is lower than the one it declares (2^62) refuses below it: it diverges.
low_sut="exec:$H --max-elements 4611686018427387904"
expect 1 'verdict: DIVERGES' -- "${limited[@]}" --sut "$low_sut"
expect 1 '^FAIL shape-differential on .*SUT gives error:overflow, reference gives \[3,2305843009213693952\]' -- \
  replay --sut "$low_sut" --manifest "$tmp/limit.json" --property shape-differential 'numpy [3,2305843009213693952] [1]'
# ---- bool_sub: xor --------------------------------------------------------
manifest "$tmp/bool-sub.json" '{"bool_sub": "xor"}'
boolrun=(run --sut "$C" --rule none,numpy --property value-differential --value-cases 6000 --jobs 2)
expect 1 'verdict: DIVERGES' -- "${boolrun[@]}" --manifest "$tmp/bool-sub.json"
grep -qE 'minimal: +(none|numpy) op=sub dtype=bool' "$tmp/out" || fail "bool_sub: the failure is not a sub on bool case"
grep -qE 'detail: +bool SUT: element .* is [01], reference has [01]' "$tmp/out" || fail "bool_sub: the detail"
replays bool_sub "--manifest $tmp/bool-sub.json"
# Without the declaration sub on bool is never asked: the same SUT conforms,
# and a line that asks it is no question (exit 2, saying why).
expect 0 'verdict: CONFORMS$' -- "${boolrun[@]}"
expect 2 'sub on bool is defined only under semantics bool_sub=xor' -- \
  replay --sut "$C" --property value-differential 'numpy op=sub dtype=bool [2] [2]'
# One case by hand: the adapter's sub on bool is not a xor b.
expect 1 'bool SUT: element \[[0-9]\] is [01], reference has [01]' -- \
  replay --sut "$C" --manifest "$tmp/bool-sub.json" --property value-differential 'none op=sub dtype=bool [4] [4]'
# The reference SUT computes no sub on bool (its own semantics refuse it):
# under xor it declines those questions, it does not pass them.
expect 2 'does not support a query' -- \
  replay --sut reference --manifest "$tmp/bool-sub.json" --property value-differential 'none op=sub dtype=bool [4] [4]'
manifest "$tmp/bad-bool.json" '{"bool_sub": "or"}'
expect 2 'semantics.bool_sub: expected "none" or "xor"' -- "${run[@]}" --manifest "$tmp/bad-bool.json"

manifest "$tmp/bad-limit.json" '{"max_elements": "int32"}'
expect 2 'semantics.max_elements: expected "none" or "int64"' -- "${run[@]}" --manifest "$tmp/bad-limit.json"

finish semantics
