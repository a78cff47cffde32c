// ONNX Runtime (onnxruntime-node) MatMul alone: O4 to O6 of
// docs/certifications/onnxruntime.md.  onnx_proto.js only serialises the
// one-node model.  Run from the repository's root:
//   NODE_PATH=sut_adapters/js/node_modules node docs/certifications/hand/onnxruntime_matmul_hand.js
const ort = require('onnxruntime-node');
const { oneNodeModel } = require('../../../sut_adapters/js/onnx_proto');
(async () => {
  const inputs = [0, 1].map((i) => ({ name: `x${i}`, dtype: 'float32', dims: null }));
  const model = oneNodeModel({ opType: 'MatMul', inputs, output: { name: 'y', dtype: 'float32', dims: null } });
  const s = await ort.InferenceSession.create(model, { enableCpuMemArena: false });
  const zeros = (d) => new ort.Tensor('float32', new Float32Array(d.reduce((x, y) => x * y, 1)), d);
  for (const [a, b] of [[[0, 0], [0]], [[0, 2], [2]], [[1, 3, 0], [2, 0, 4]], [[2, 0, 0], [0, 0, 0]], [[0], [2, 0, 1]]]) {
    try {
      const { y } = await s.run({ x0: zeros(a), x1: zeros(b) });
      console.log(JSON.stringify(a), '@', JSON.stringify(b), '->', JSON.stringify(y.dims), Array.from(y.data));
    } catch (e) { console.log(JSON.stringify(a), '@', JSON.stringify(b), 'throws', e.message.replace(/.*Status Message: /, '')); }
  }
  console.log('onnxruntime-node', ort.env.versions.node);
})();
