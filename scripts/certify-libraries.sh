#!/usr/bin/env bash
# Certifies the real libraries (docs/CERTIFICATIONS.md), one long run each,
# with the commands of their pages in docs/certifications/.
#
#   scripts/certify-libraries.sh [--time SECONDS] [--out DIR] [--build DIR] [--no-setup] [NAME...]
#
# NAME is any of: numpy pytorch onnx onnxruntime tfjs onednn xnnpack xtensor
# eigen (default: all nine).  Each run writes DIR/NAME.json and
# DIR/NAME-certificate.md (default DIR: certifications-out) and the summary
# DIR/summary.md.  It first runs scripts/setup.sh, which installs the
# libraries (Debian packages, npm) and builds build/default (--no-setup
# skips that, for a build of your own given with --build).  A library whose
# adapter is missing is "not available", never a pass.  While a library
# runs, broadcheck's status line shows every 30 s (--progress-interval).
#
# Exit codes: 0 every library ran (certified or not: the verdicts are in the
# summary); 2 bad usage or broadcheck not built.
set -uo pipefail

cd "$(dirname "$0")/.."
seconds=300
out=certifications-out
build=build/default
setup=1
names=()
while [ $# -gt 0 ]; do
  case "$1" in
    --time) seconds="${2:?--time needs seconds}"; shift 2 ;;
    --out) out="${2:?--out needs a directory}"; shift 2 ;;
    --build) build="${2:?--build needs a directory}"; shift 2 ;;
    --no-setup) setup=0; shift ;;
    -h|--help) sed -n '2,19p' "$0"; exit 0 ;;
    -*) echo "certify-libraries: unknown option '$1'" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=(numpy pytorch onnx onnxruntime tfjs onednn xnnpack xtensor eigen)
case "$seconds" in ''|*[!0-9]*|0) echo "certify-libraries: --time: expected whole seconds > 0, got '$seconds'" >&2; exit 2 ;; esac

B="$build/broadcheck"
L="$build/sut_adapters/libraries"
if [ "$setup" = 1 ]; then
  echo "certify-libraries: scripts/setup.sh (the libraries, then build/default)"
  scripts/setup.sh || { echo "certify-libraries: scripts/setup.sh failed" >&2; exit 2; }
fi
if [ ! -x "$B" ]; then
  echo "certify-libraries: $B not found: run scripts/setup.sh (or cmake --workflow --preset default) first" >&2
  exit 2
fi

# NAME -> the SUT and the rules its page certifies (the rules a worker
# declares; a run restricted to them spends no time on refusals).
sut_of() {
  case "$1" in
    numpy) echo "exec:/usr/bin/python3 sut_adapters/python/numpy_worker.py" ;;
    pytorch) echo "exec:/usr/bin/python3 sut_adapters/python/torch_worker.py" ;;
    onnx) echo "exec:/usr/bin/python3 sut_adapters/python/onnx_worker.py" ;;
    onnxruntime) echo "exec:node sut_adapters/js/ort_worker.js" ;;
    tfjs) echo "exec:node sut_adapters/js/tfjs_worker.js" ;;
    onednn|xnnpack|xtensor|eigen) echo "$L/$1/libbc_$1_adapter.so" ;;
    *) return 1 ;;
  esac
}
rules_of() {
  case "$1" in
    onnx) echo "numpy,onnx-uni,bidirectional" ;;
    onnxruntime) echo "none,numpy,onnx-uni,bidirectional" ;;
    tfjs) echo "none,numpy,broadcast-to" ;;
    *) echo "" ;;
  esac
}

for n in "${names[@]}"; do
  sut_of "$n" >/dev/null || { echo "certify-libraries: unknown library '$n' (numpy pytorch onnx onnxruntime tfjs onednn xnnpack xtensor eigen)" >&2; exit 2; }
done

mkdir -p "$out"
summary="$out/summary.md.tmp"
{
  echo "# Certification runs ($(date -u +%Y-%m-%dT%H:%MZ), --time $seconds, broadcheck $(git describe --always --dirty 2>/dev/null || echo unknown))"
  echo
  echo "| library | verdict | passed | failed | unsupported | seconds |"
  echo "|---|---|---:|---:|---:|---:|"
} > "$summary"

for n in "${names[@]}"; do
  sut=$(sut_of "$n")
  rules=$(rules_of "$n")
  args=(run --sut "$sut" --jobs 2 --time "$seconds" --max-shrink-calls 20000
        --json "$out/$n.json" --certificate "$out/$n-certificate.md")
  [ -n "$rules" ] && args+=(--rule "$rules")
  echo "certify-libraries: $n: $B ${args[*]}"
  if [[ "$sut" == *.so && ! -f "$sut" ]]; then
    verdict="not available (adapter not built: see $build/sut_adapters/libraries/availability.txt)"
    echo "| $n | $verdict | | | | |" >> "$summary"
    echo "certify-libraries: $n: $verdict"
    continue
  fi
  start=$(date +%s)
  # the summary to the log; stderr (the status line every 30 s, errors) to
  # the log and the terminal
  : > "$out/$n.log"
  exec 3>> "$out/$n.log"
  "$B" "${args[@]}" --progress-interval 30 2>&1 >&3 | tee -a "$out/$n.log" >&2
  rc=${PIPESTATUS[0]}
  exec 3>&-
  took=$(( $(date +%s) - start ))
  case $rc in
    0) verdict="certified" ;;
    1) verdict="divergences (see $n-certificate.md)" ;;
    *) verdict="not available or error, exit $rc: $(grep -m1 -v '^$' "$out/$n.log" | cut -c1-160)" ;;
  esac
  totals=$(grep -m1 -o 'Totals: [0-9]* passed, [0-9]* failed, [0-9]* unsupported' "$out/$n-certificate.md" 2>/dev/null |
           sed 's/Totals: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) unsupported/\1 | \2 | \3/')
  [ -n "$totals" ] || totals=" | | "
  echo "| $n | $verdict | $totals | $took |" >> "$summary"
  echo "certify-libraries: $n: $verdict ($took s)"
done
mv "$summary" "$out/summary.md"
cat "$out/summary.md"
