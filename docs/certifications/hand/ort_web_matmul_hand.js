// ONNX Runtime Web (onnxruntime-web, wasm) MatMul alone: R5 to R7 of
// docs/certifications/ort-web.md (O4 to O6 of the native build, whose hand
// check is onnxruntime_matmul_hand.js).  onnx_proto.js only serialises the
// one-node model.  Run from the repository's root:
//   NODE_PATH=sut_adapters/js/node_modules node docs/certifications/hand/ort_web_matmul_hand.js
const ort = require('onnxruntime-web');
const { oneNodeModel } = require('../../../sut_adapters/js/onnx_proto');
(async () => {
  ort.env.wasm.numThreads = 1;
  ort.env.logLevel = 'fatal';
  const inputs = [0, 1].map((i) => ({ name: `x${i}`, dtype: 'float32', dims: null }));
  const model = oneNodeModel({ opType: 'MatMul', inputs, output: { name: 'y', dtype: 'float32', dims: null } });
  const s = await ort.InferenceSession.create(model, { executionProviders: ['wasm'], enableCpuMemArena: false, logSeverityLevel: 4 });
  const fill = (d, v) => new ort.Tensor('float32', new Float32Array(d.reduce((x, y) => x * y, 1)).fill(v), d);
  // O6's cases first, on a fresh heap (the worker's runs see them so), then again.
  for (const [a, b] of [[[0], [2, 0, 1]], [[2, 0], [0]], [[2, 0], [3, 0, 4]], [[0], [2, 0, 1]], [[0, 0], [0]], [[0, 2], [2]], [[1, 3, 0], [2, 0, 4]], [[2, 0, 0], [0, 0, 0]]]) {
    try {
      const { y } = await s.run({ x0: fill(a, 0), x1: fill(b, 0) });
      console.log(JSON.stringify(a), '@', JSON.stringify(b), '->', JSON.stringify(y.dims), Array.from(y.data));
    } catch (e) { console.log(JSON.stringify(a), '@', JSON.stringify(b), 'throws', e.message.replace(/.*Status Message: /, '')); }
  }
  console.log('onnxruntime-web', ort.env.versions.web);
})();
