// TensorFlow.js tf.matMul alone, on the backend named by the argument (cpu
// or wasm): T5 of docs/certifications/tfjs.md, W6 to W8 of tfjs-wasm.md.
// Run from the repository's root:
//   NODE_PATH=sut_adapters/js/node_modules node docs/certifications/hand/tfjs_matmul_hand.js cpu
//   NODE_PATH=sut_adapters/js/node_modules node docs/certifications/hand/tfjs_matmul_hand.js wasm
const tf = require('@tensorflow/tfjs-core');
require('@tensorflow/tfjs-backend-cpu');
const wasm = require('@tensorflow/tfjs-backend-wasm');
(async () => {
  const backend = process.argv[2] || 'cpu';
  if (backend === 'wasm') wasm.setThreadsCount(1);
  await tf.setBackend(backend);
  tf.env().set('PROD', true);
  const iota = (dims, from = 1) => {
    const n = dims.reduce((x, y) => x * y, 1);
    return tf.tensor(Array.from({ length: n }, (_, i) => from + i), dims);
  };
  const show = (label, f) => {
    try {
      const y = f();
      const data = Array.from(y.dataSync());
      console.log(`${label} -> shape [${y.shape}] (${y.size} elements), data [${data}] (${data.length} values)`);
    } catch (e) { console.log(`${label} throws ${e.message}`); }
  };
  console.log(`tfjs-core ${tf.version_core}, backend ${tf.getBackend()}`);
  show('[1,2] as [2,1,1,1] @ [10,20,30] as [1,3,1,1]',
       () => tf.matMul(tf.tensor([1, 2], [2, 1, 1, 1]), tf.tensor([10, 20, 30], [1, 3, 1, 1])));
  show('[1,2,3,4] as [2,2,1,1] @ [10,20] as [2,1,1,1]',
       () => tf.matMul(iota([2, 2, 1, 1]), tf.tensor([10, 20], [2, 1, 1, 1])));
  show('zeros [0,1,0] @ zeros [0,1]', () => tf.matMul(tf.zeros([0, 1, 0]), tf.zeros([0, 1])));
  show('zeros [0,3,4] @ zeros [1,4,2]', () => tf.matMul(tf.zeros([0, 3, 4]), tf.zeros([1, 4, 2])));
  show('zeros [2,1,0] @ zeros [2,1,0,1]', () => tf.matMul(tf.zeros([2, 1, 0]), tf.zeros([2, 1, 0, 1])));
  show('zeros [1,0] @ zeros [0,1]', () => tf.matMul(tf.zeros([1, 0]), tf.zeros([0, 1])));
  show('zeros [3,0] @ zeros [0,5]', () => tf.matMul(tf.zeros([3, 0]), tf.zeros([0, 5])));
  show('[1,2] (rank 1) @ [1,2] as [2,1]', () => tf.matMul(tf.tensor([1, 2]), tf.tensor([1, 2], [2, 1])));
})();
