#!/usr/bin/env bash
# Builds the libFuzzer targets (the 'fuzz' preset: clang, ASan + UBSan, in
# build/fuzz) and runs each for SECONDS (default 20) on a copy of its seed
# corpus, fuzz/corpus/<target>/; the targets run side by side.  Fails, with
# the crash's log and its reproducer, if any target crashes, leaks or breaks
# an identity it checks.
#   scripts/fuzz.sh [SECONDS]
# Reproduce a crash: build/fuzz/fuzz/<target> build/fuzz/artifacts/<target>/crash-...
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
case $seconds in ''|*[!0-9]*) echo "fuzz.sh: SECONDS must be a whole number, got '$seconds'" >&2; exit 2;; esac

cmake --workflow --preset fuzz >/dev/null

targets=(fuzz_shape_parse fuzz_vector_parse fuzz_pvector_parse fuzz_corpus fuzz_case fuzz_wire)
work=build/fuzz/run
rm -rf "$work"
pids=()
for t in "${targets[@]}"; do
  mkdir -p "$work/$t/corpus" "build/fuzz/artifacts/$t"
  cp fuzz/corpus/"$t"/* "$work/$t/corpus/"
  dict=()
  case $t in fuzz_vector_parse|fuzz_pvector_parse|fuzz_corpus) dict=(-dict=fuzz/vector.dict);; esac
  # Long enough lines for every shape of 64 axes; -timeout catches a hang.
  build/fuzz/fuzz/"$t" "${dict[@]}" -max_total_time="$seconds" -timeout=10 -max_len=16384 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="build/fuzz/artifacts/$t/" \
    "$work/$t/corpus" >"$work/$t.log" 2>&1 &
  pids+=($!)
done

failed=0
for i in "${!targets[@]}"; do
  t=${targets[$i]}
  if wait "${pids[$i]}"; then
    runs=$(grep -m1 -o 'stat::number_of_executed_units: *[0-9]*' "$work/$t.log" | grep -o '[0-9]*$' || echo '?')
    echo "fuzz: $t: ok, $runs runs in ${seconds}s"
  else
    failed=1
    echo "fuzz: $t: FAILED; the end of its log ($work/$t.log):" >&2
    tail -n 40 "$work/$t.log" >&2
    ls build/fuzz/artifacts/"$t"/ >&2 || true
  fi
done
exit $failed
