// 100 and 130 operands through each JavaScript library alone (tf.addN on the
// cpu and wasm backends, ONNX Runtime Sum/Max/Min of opsets 13 and 6 in
// onnxruntime-node and onnxruntime-web, stdlib broadcast-shapes and
// broadcast-arrays, math.add): why the workers declare 128 operands.
// Run from the repository root:
//   NODE_PATH=sut_adapters/js/node_modules node docs/certifications/hand/js_many_operands.js
const tf = require("@tensorflow/tfjs-core");
require("@tensorflow/tfjs-backend-cpu");
require("@tensorflow/tfjs-backend-wasm");
const ortNode = require("onnxruntime-node");
const ortWeb = require("onnxruntime-web");
const math = require("mathjs");
const broadcastShapes = require("@stdlib/ndarray/base/broadcast-shapes");
const broadcastArrays = require("@stdlib/ndarray/broadcast-arrays");
const ndarray = require("@stdlib/ndarray/array");
const { oneNodeModel } = require("../../../sut_adapters/js/onnx_proto");
(async () => {
  for (const backend of ["cpu", "wasm"]) {
    await tf.setBackend(backend);
    for (const n of [100, 130]) {
      const xs = Array.from({ length: n }, (_, i) => tf.tensor([i, 1], [2], "int32"));
      const y = tf.addN(xs);
      console.log(`tfjs ${tf.version_core} ${backend} addN of ${n}:`, y.shape, Array.from(y.dataSync()));
    }
  }
  for (const [name, ort] of [["onnxruntime-node", ortNode], ["onnxruntime-web", ortWeb]]) {
    for (const [op, opset] of [["Sum", 13], ["Max", 13], ["Min", 13], ["Sum", 6]]) {
      for (const n of [100, 130]) {
        const inputs = Array.from({ length: n }, (_, i) => ({ name: "x" + i, dtype: "float32", dims: null }));
        const model = oneNodeModel({ opType: op, opset, inputs, output: { name: "y", dtype: "float32", dims: null } });
        const s = await ort.InferenceSession.create(model);
        const feeds = {};
        // shapes [2] and [1,1] alternate (opset 13 broadcasts); all [2] for opset 6
        inputs.forEach((x, i) => { feeds[x.name] = opset === 6 || i % 2 ? new ort.Tensor("float32", Float32Array.of(i, -i), [2]) : new ort.Tensor("float32", Float32Array.of(i), [1, 1]); });
        const y = (await s.run(feeds)).y;
        console.log(`${name} ${op}-${opset} of ${n}:`, y.dims, Array.from(y.data));
      }
    }
  }
  for (const n of [100, 130]) {
    const shapes = Array.from({ length: n }, (_, i) => (i % 3 ? [2, 1] : [3]));
    console.log(`stdlib broadcastShapes of ${n}:`, broadcastShapes(shapes));
    const arrs = shapes.map((s) => ndarray(new Float64Array(s.reduce((a, b) => a * b, 1)).fill(1), { shape: s }));
    console.log(`stdlib broadcastArrays of ${n}:`, broadcastArrays(arrs).length, broadcastArrays(arrs)[0].shape);
    const ms = Array.from({ length: n }, (_, i) => (i % 3 ? math.matrix([[i], [1]]) : math.matrix([1, 2, 3])));
    console.log(`mathjs ${math.version} add of ${n}:`, math.add(...ms).toJSON().data);
  }
})().catch((e) => { console.error("ERR", e.message); process.exit(1); });
/* Its output (2026-11-27, Node 20.20.2; ORT's opset-6 warnings left out):
 * tfjs 4.22.0 cpu addN of 100: [ 2 ] [ 4950, 100 ]
 * tfjs 4.22.0 cpu addN of 130: [ 2 ] [ 8385, 130 ]
 * tfjs 4.22.0 wasm addN of 100: [ 2 ] [ 4950, 100 ]
 * tfjs 4.22.0 wasm addN of 130: [ 2 ] [ 8385, 130 ]
 * onnxruntime-node Sum-13 of 100: [ 1, 2 ] [ 4950, -50 ]
 * onnxruntime-node Sum-13 of 130: [ 1, 2 ] [ 8385, -65 ]
 * onnxruntime-node Max-13 of 100: [ 1, 2 ] [ 99, 98 ]
 * onnxruntime-node Max-13 of 130: [ 1, 2 ] [ 129, 128 ]
 * onnxruntime-node Min-13 of 100: [ 1, 2 ] [ 0, -99 ]
 * onnxruntime-node Min-13 of 130: [ 1, 2 ] [ 0, -129 ]
 * onnxruntime-node Sum-6 of 100: [ 2 ] [ 4950, -4950 ]
 * onnxruntime-node Sum-6 of 130: [ 2 ] [ 8385, -8385 ]
 * onnxruntime-web Sum-13 of 100: [ 1, 2 ] [ 4950, -50 ]
 * onnxruntime-web Sum-13 of 130: [ 1, 2 ] [ 8385, -65 ]
 * onnxruntime-web Max-13 of 100: [ 1, 2 ] [ 99, 98 ]
 * onnxruntime-web Max-13 of 130: [ 1, 2 ] [ 129, 128 ]
 * onnxruntime-web Min-13 of 100: [ 1, 2 ] [ 0, -99 ]
 * onnxruntime-web Min-13 of 130: [ 1, 2 ] [ 0, -129 ]
 * onnxruntime-web Sum-6 of 100: [ 2 ] [ 4950, -4950 ]
 * onnxruntime-web Sum-6 of 130: [ 2 ] [ 8385, -8385 ]
 * stdlib broadcastShapes of 100: [ 2, 3 ]
 * stdlib broadcastArrays of 100: 100 [ 2, 3 ]
 * mathjs 15.2.0 add of 100: [ [ 3301, 3335, 3369 ], [ 100, 134, 168 ] ]
 * stdlib broadcastShapes of 130: [ 2, 3 ]
 * stdlib broadcastArrays of 130: 130 [ 2, 3 ]
 * mathjs 15.2.0 add of 130: [ [ 5591, 5635, 5679 ], [ 130, 174, 218 ] ]
 */
