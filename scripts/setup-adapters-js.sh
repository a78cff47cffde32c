#!/usr/bin/env bash
# Installs the JavaScript adapters' libraries (sut_adapters/js/): TensorFlow.js
# (tfjs-core + tfjs-backend-cpu, and tfjs-backend-wasm), ONNX Runtime
# (onnxruntime-node, and onnxruntime-web), stdlib's ndarrays (@stdlib/ndarray)
# and math.js (mathjs), exactly as package-lock.json pins them.  Idempotent:
# does nothing when
# node_modules/ already matches the lock file.
#   scripts/setup-adapters-js.sh
#
# Node.js and npm come from Debian's packages when missing (apt-get, as root
# or through sudo).  The packages are installed with --ignore-scripts:
# onnxruntime-node's install script downloads from GitHub, which is not
# needed on Linux x64 (its native binding ships inside the npm package) and
# not reachable everywhere; the check at the end proves the binding loads.
set -euo pipefail
scripts_dir="$(cd "$(dirname "$0")" && pwd)"
cd "$scripts_dir/../sut_adapters/js"

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  if ! command -v apt-get >/dev/null; then
    echo "setup-adapters-js: node and npm are missing and there is no apt-get to install them;" \
         "install Node.js (>= 18) and npm, then run this again" >&2
    exit 1
  fi
  "$scripts_dir/apt-install-missing.sh" --with-recommends setup-adapters-js nodejs npm
fi
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "setup-adapters-js: $tool is still missing" >&2; exit 1; }
done

# npm keeps a copy of the lock file it installed from in node_modules/;
# when it equals ours, the tree is already what the lock file pins.
if [ -f node_modules/.package-lock.json ] &&
   node -e '
     const a = require("./package-lock.json").packages, b = require("./node_modules/.package-lock.json").packages;
     const v = (p) => Object.fromEntries(Object.entries(p).filter(([k]) => k).map(([k, x]) => [k, x.version]));
     process.exit(JSON.stringify(v(a)) === JSON.stringify(v(b)) ? 0 : 1);' 2>/dev/null; then
  echo "setup-adapters-js: node_modules already matches package-lock.json"
else
  npm ci --ignore-scripts --no-audit --no-fund
fi

# Every library must load and compute: ONNX Runtime's native binding and
# wasm build, tfjs on both backends (the wasm one loads its .wasm from
# node_modules), math.js and stdlib.
node -e '
  const ortNode = require("onnxruntime-node");
  const ortWeb = require("onnxruntime-web");
  const tf = require("@tensorflow/tfjs-core");
  require("@tensorflow/tfjs-backend-cpu");
  require("@tensorflow/tfjs-backend-wasm");
  const { oneNodeModel } = require("./onnx_proto");
  const x = { name: "x0", dtype: "float32", dims: ["n"] };
  const model = oneNodeModel({ opType: "Add",
    inputs: [x, { ...x, name: "x1" }], output: { name: "y", dtype: "float32", dims: null } });
  const onePlusOne = async (ort, options) => {
    const s = await ort.InferenceSession.create(model, options);
    const one = new ort.Tensor("float32", Float32Array.of(1), [1]);
    return (await s.run({ x0: one, x1: one })).y.data[0];
  };
  (async () => {
    tf.env().set("PROD", true); // no Node.js banner
    ortWeb.env.wasm.numThreads = 1;
    const ys = [await onePlusOne(ortNode, {}), await onePlusOne(ortWeb, { executionProviders: ["wasm"] })];
    for (const backend of ["cpu", "wasm"]) {
      if (!(await tf.setBackend(backend))) throw new Error(`the tfjs ${backend} backend does not start`);
      ys.push(tf.add(1, 1).dataSync()[0]);
    }
    if (ys.some((y) => y !== 2)) throw new Error(`1 + 1 is not 2: ${ys}`);
    console.log(`setup-adapters-js: onnxruntime-node ${ortNode.env.versions.node}, onnxruntime-web ${ortWeb.env.versions.web}` +
                ` and tfjs-core ${tf.version_core} (cpu and wasm backends) load and compute`);
    const math = require("mathjs");
    const shape = require("@stdlib/ndarray/base/broadcast-shapes")([[2, 1], [3]]);
    if (math.add(math.matrix([[1], [2]]), math.matrix([1, 1, 1])).size().join() !== "2,3" || shape.join() !== "2,3") {
      throw new Error("[2,1] and [3] do not broadcast to [2,3]");
    }
    console.log(`setup-adapters-js: mathjs ${math.version} and @stdlib/ndarray ${require("@stdlib/ndarray/package.json").version} load and broadcast`);
  })().catch((e) => { console.error(`setup-adapters-js: ${e.message}`); process.exit(1); });'
