#!/usr/bin/env bash
# Certifies the real libraries (docs/CERTIFICATIONS.md), one long run each,
# with the commands of their pages in docs/certifications/.
#
#   scripts/certify-libraries.sh [--time SECONDS] [--out DIR] [--build DIR] [--no-setup] [NAME...]
#
# NAME is any of: numpy pytorch onnx dask numba sparse octave onnxruntime
# tfjs tfjs-wasm ort-web stdlib mathjs onednn xnnpack xtensor eigen (default: all seventeen).  Each runs the shipped adapter with its
# manifest (--sut NAME, docs/MANIFEST.md) and writes DIR/NAME.json and
# DIR/NAME-certificate.md (default DIR: certifications-out); then
# 'broadcheck summarize' makes DIR/summary.md and DIR/summary.html of them.
# It first runs scripts/setup.sh, which installs the libraries (Debian
# packages, npm) and builds build/default (--no-setup
# skips that, for a build of your own given with --build).  A library whose
# adapter is missing is "not available", never a pass.  While a library
# runs, broadcheck's status line shows every 30 s (--progress-interval).
#
# Exit codes: 0 every library ran (conforming or not: the verdicts are in the
# summary; a library that is not available is said so, and left out); 2 bad
# usage, broadcheck not built, or the summary could not be written.
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
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "certify-libraries: unknown option '$1'" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
[ ${#names[@]} -gt 0 ] || names=(numpy pytorch onnx dask numba sparse octave onnxruntime tfjs tfjs-wasm ort-web stdlib mathjs onednn xnnpack xtensor eigen)
case "$seconds" in ''|*[!0-9]*|0) echo "certify-libraries: --time: expected whole seconds > 0, got '$seconds'" >&2; exit 2 ;; esac

B="$build/broadcheck"
if [ "$setup" = 1 ]; then
  echo "certify-libraries: scripts/setup.sh (the libraries, then build/default)"
  scripts/setup.sh || { echo "certify-libraries: scripts/setup.sh failed" >&2; exit 2; }
fi
if [ ! -x "$B" ]; then
  echo "certify-libraries: $B not found: run scripts/setup.sh (or cmake --workflow --preset default) first" >&2
  exit 2
fi

# NAME -> the SUT (a shipped adapter, run with its manifest of known
# divergences: docs/MANIFEST.md) and the rules its page certifies (the rules
# a worker declares; a run restricted to them spends no time on refusals).
sut_of() {
  case "$1" in
    numpy|onnx|dask|numba|sparse|octave|tfjs|tfjs-wasm|ort-web|stdlib|mathjs|onednn|xnnpack|xtensor|eigen) echo "$1" ;;
    pytorch) echo "torch" ;;
    onnxruntime) echo "ort" ;;
    *) return 1 ;;
  esac
}
rules_of() {
  case "$1" in
    numpy|pytorch) echo "none,numpy,onnx-uni,broadcast-to,bidirectional,matmul" ;;
    onnx) echo "numpy,onnx-uni,bidirectional,matmul" ;;
    dask) echo "numpy" ;;
    numba|sparse) echo "none,numpy,broadcast-to" ;;
    octave) echo "none,numpy" ;;
    onnxruntime) echo "none,numpy,onnx-uni,bidirectional,matmul" ;;
    ort-web) echo "none,numpy,onnx-uni,bidirectional,matmul" ;;
    tfjs|tfjs-wasm) echo "none,numpy,broadcast-to,matmul" ;;
    stdlib) echo "numpy,broadcast-to" ;;
    mathjs) echo "numpy" ;;
    onednn) echo "onnx-uni" ;;
    xnnpack) echo "numpy" ;;
    xtensor) echo "numpy,broadcast-to,bidirectional" ;;
    eigen) echo "none,numpy,onnx-uni,broadcast-to" ;;
  esac
}

for n in "${names[@]}"; do
  sut_of "$n" >/dev/null || { echo "certify-libraries: unknown library '$n' (numpy pytorch onnx dask numba sparse octave onnxruntime tfjs tfjs-wasm ort-web stdlib mathjs onednn xnnpack xtensor eigen)" >&2; exit 2; }
done

mkdir -p "$out"
reports=()
for n in "${names[@]}"; do
  sut=$(sut_of "$n")
  args=(run --sut "$sut" --rule "$(rules_of "$n")" --jobs 2 --time "$seconds"
        --max-shrink-calls 20000 --json "$out/$n.json" --certificate "$out/$n-certificate.md")
  # A question's time: Numba compiles a function per new signature, seconds
  # each (numba.md), and importing sparse imports Numba; the wasm builds,
  # math.js and Octave answer large questions in seconds on a loaded
  # machine.  The others get 10 s, not run's 2 s: a timeout is a failure, and
  # on a shared machine NumPy's matmul once took longer than 2 s on a case it
  # answers correctly (numpy.md).
  case $n in
    numba|sparse) args+=(--timeout-ms 60000) ;;
    tfjs-wasm|ort-web|mathjs|stdlib|octave) args+=(--timeout-ms 20000) ;;
    *) args+=(--timeout-ms 10000) ;;
  esac
  echo "certify-libraries: $n: $B ${args[*]}"
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
    0|1|3) reports+=("$out/$n.json") # conforms, diverges, not certified: a report each
         echo "certify-libraries: $n: $(grep -m1 '^verdict: ' "$out/$n.log") ($took s)" ;;
    *) echo "certify-libraries: $n: not available or error, exit $rc: $(grep -m1 -v '^$' "$out/$n.log" | cut -c1-200)" ;;
  esac
done
# One table and one page across the libraries, from their JSON reports
# alone (broadcheck summarize): docs/CERTIFICATIONS.md is this table.
if [ ${#reports[@]} -gt 0 ]; then
  "$B" summarize --title "Certifications of real libraries" --markdown "$out/summary.md" \
    --html "$out/summary.html" "${reports[@]}"
  [ $? -le 1 ] || { echo "certify-libraries: summarize failed" >&2; exit 2; }
  cat "$out/summary.md"
fi
