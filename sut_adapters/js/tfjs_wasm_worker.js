'use strict';
/*
 * A broadcheck worker for TensorFlow.js 4.22 on its WebAssembly backend
 * (@tensorflow/tfjs-backend-wasm: kernels written in C++ on XNNPACK,
 * compiled to wasm; not the JavaScript kernels of tfjs-backend-cpu), over
 * the wire protocol:
 *
 *     broadcheck run --sut 'exec:node sut_adapters/js/tfjs_wasm_worker.js'
 *
 * The questions are the CPU worker's (tfjs_sut.js: the same tfjs functions,
 * run by this backend's kernels), except that numpy shape questions run
 * tf.add on zero-filled tensors (shapesByKernel), so that the wasm backend's
 * binary kernel makes the output, rather than asking tfjs-core's shape
 * function alone (the CPU certification covers that function).  In Node the
 * backend loads its .wasm from node_modules (dist/); one thread, no SIMD
 * threads.  docs/certifications/tfjs-wasm.md has the findings.
 */
const wire = require('./bcwire');
const { tfjsAnswers } = require('./tfjs_sut');

async function load() {
  const tf = require('@tensorflow/tfjs-core');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setThreadsCount(1); // broadcheck runs one worker per question in flight
  if (!(await tf.setBackend('wasm'))) throw new Error('the tfjs wasm backend did not initialise');
  tf.env().set('PROD', true); // only silences tfjs's console warnings (the Node.js banner)
  // Proves the kernels run: the backend's Add, not a JavaScript fallback.
  if (tf.getBackend() !== 'wasm' || tf.add(1, 1).dataSync()[0] !== 2) {
    throw new Error('the tfjs wasm backend computed 1 + 1 wrongly');
  }
  const answers = tfjsAnswers(tf, {
    name: 'tfjs-wasm',
    version: `tfjs-core ${tf.version_core}, tfjs-backend-wasm ${wasm.version_wasm}`,
    description: 'TensorFlow.js on its wasm backend: binary ops, tf.where, tf.broadcastTo, tf.addN, tf.matMul',
    shapesByKernel: true,
  });

  /*
   * The wasm heap is one linear memory that every question shares, and a
   * kernel that writes past its output (tf.where's Select does:
   * docs/certifications/tfjs-wasm.md) corrupts it silently; a later
   * allocation may then trap, and an innocent question would be blamed.  So
   * every question starts from the same heap: a copy of the linear memory
   * and of the stack pointer, taken after start-up when no tensor is alive,
   * is put back after each answer (tf.tidy has disposed the question's
   * tensors; a trap leaves the stack pointer where it was).  Before that, a
   * small computation checks that the heap still works: if it does not, that
   * question is answered as the failure it caused.  Putting 16 MB back costs
   * a few milliseconds per question.
   */
  const heap = tf.backend().wasm;
  const snapshot = heap.HEAPU8.slice();
  const stack = heap.stackSave();
  const canary = () => {
    const y = tf.tidy(() => Array.from(tf.add(tf.tensor([1, 2, 3]), tf.tensor([4, 5, 6])).dataSync()));
    if (y.join() !== '5,7,9') throw new Error(`1,2,3 + 4,5,6 gave ${y}`);
  };
  const restore = () => {
    const now = heap.HEAPU8; // a new view if the memory grew
    now.set(snapshot);
    if (now.length > snapshot.length) now.fill(0, snapshot.length);
    heap.stackRestore(stack);
  };
  const checked = (fn) => (q) => {
    try {
      const answer = fn(q);
      try {
        canary();
      } catch (e) {
        throw new Error(`the wasm heap is broken after this question: ${e.message}` +
                        ` (tfjs answered ${answer.dims ? `[${answer.dims}]` : 'an answer'} first)`);
      }
      return answer;
    } finally {
      restore();
    }
  };
  return { ...answers, shape: checked(answers.shape), eval: checked(answers.eval) };
}

wire.serve('tfjs_wasm_worker', load);
