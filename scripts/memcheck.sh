#!/usr/bin/env bash
# Valgrind's memcheck on a subset of the default build (build/default, made
# by 'cmake --workflow --preset default'): what ASan cannot see in an
# uninstrumented binary (uninitialised reads, leaks through the libraries).
# The CLI's run on every cell, its shards merged (jansson, libxml2), one
# unit test, and the fast engine's small-call kernels with a held row
# (test_engine_random's test_small_calls), which the sanitize build does not
# compile (BC_FAST_LEAN, reference/fast.c).  Any memcheck error exits 99; so
# does a definite leak.
set -euo pipefail
cd "$(dirname "$0")/.."
b=build/default
out=$b/memcheck
mkdir -p "$out"
vg=(valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite)
"${vg[@]}" "$b/broadcheck" run --cases 200 --quiet
for k in 1 2; do
  "${vg[@]}" "$b/broadcheck" run --cases 200 --jobs 2 --quiet --shard "$k/2" --json "$out/shard$k.json"
done
"${vg[@]}" "$b/broadcheck" merge --quiet --json "$out/merged.json" --junit "$out/merged.xml" \
  --certificate "$out/merged.md" "$out/shard1.json" "$out/shard2.json"
"${vg[@]}" "$b/tests/test_vector_format" >/dev/null
BROADCHECK_ENGINE_TESTS=test_small_calls "${vg[@]}" "$b/tests/test_engine_random" 0 >/dev/null
# an external SUT: the worker pool, its spawner thread and cancel pipe, a
# worker that fails a case, a shrink, a corpus append
rm -f "$out/hostile.corpus"
"${vg[@]}" "$b/broadcheck" run --sut "exec:$b/tests/bc_hostile_worker --on numpy --wrong-rank 3" \
  --rule numpy,none --cases 200 --jobs 2 --quiet --corpus "$out/hostile.corpus" || [ $? -eq 1 ]
echo "memcheck: broadcheck run, run --shard, merge, test_vector_format, test_small_calls, an exec: SUT: no errors"
