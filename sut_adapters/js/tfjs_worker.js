'use strict';
/*
 * A broadcheck worker for TensorFlow.js 4.22 (@tensorflow/tfjs-core with the
 * CPU backend, @tensorflow/tfjs-backend-cpu), over the wire protocol:
 *
 *     broadcheck run --sut 'exec:node sut_adapters/js/tfjs_worker.js'
 *
 * What each question calls is in tfjs_sut.js, shared with the wasm backend's
 * worker (tfjs_wasm_worker.js); docs/certifications/tfjs.md has the findings.
 */
const wire = require('./bcwire');
const { tfjsAnswers } = require('./tfjs_sut');

async function load() {
  const tf = require('@tensorflow/tfjs-core');
  require('@tensorflow/tfjs-backend-cpu');
  if (!(await tf.setBackend('cpu'))) throw new Error('the tfjs CPU backend did not initialise');
  tf.env().set('PROD', true); // only silences tfjs's console warnings (the Node.js banner)
  return tfjsAnswers(tf, {
    name: 'tfjs',
    version: `tfjs-core ${tf.version_core}, cpu backend`,
    description: 'TensorFlow.js (tfjs-core + tfjs-backend-cpu): binary ops, tf.where, tf.broadcastTo, tf.addN, tf.matMul',
    // Value questions past the frame limit (the huge tier) come by the shared
    // file (EVAL_SHM, bcwire.js) only with --shared-file: the worker copies
    // the inputs out of the file and tfjs allocates its result, about twice
    // the file in typed arrays, while the harness sends a huge question to a
    // worker whose --memory-mb covers the file once (as NumPy's, which adds
    // in place into it).  Until a huge run has shown how tfjs fares, a worker
    // out of memory must not be reported as a tfjs bug.
    sharedFile: process.argv.includes('--shared-file'),
  });
}

wire.serve('tfjs_worker', load);
