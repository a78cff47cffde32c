'use strict';
/*
 * A broadcheck worker for ONNX Runtime Web (onnxruntime-web) on its
 * WebAssembly execution provider, run in Node, over the wire protocol:
 *
 *     broadcheck run --sut 'exec:node sut_adapters/js/ort_web_worker.js'
 *
 * onnxruntime-web is ONNX Runtime's C++ (its CPU kernels among it) compiled
 * by Emscripten to wasm32, with its own JavaScript glue to it (tensors are
 * copied into the wasm heap, their dims passed as 32-bit pointers' worth);
 * in Node it loads ort-wasm-simd-threaded.wasm from node_modules/.../dist.
 * What each question runs is in ort_sut.js, shared with the native build's
 * worker (ort_worker.js).  docs/certifications/ort-web.md has the findings.
 */
const wire = require('./bcwire');
const { ortAnswers } = require('./ort_sut');

async function load() {
  const ort = require('onnxruntime-web');
  // No worker threads (one worker per question in flight), no proxy worker.
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.logLevel = 'fatal';
  return ortAnswers(ort, {
    name: 'ort-web',
    version: `onnxruntime-web ${ort.env.versions.web}, wasm execution provider`,
    description: 'ONNX Runtime Web (wasm): one-node models of Add..Or, Sum/Max/Min (opsets 21 and 6), Where, Expand, PRelu, MatMul',
    matmul: true,
    // No memory arena or memory pattern, as for the native build.
    options: {
      executionProviders: ['wasm'], enableCpuMemArena: false, enableMemPattern: false,
      logSeverityLevel: 4, logVerbosityLevel: 0,
    },
  });
}

wire.serve('ort_web_worker', load);
