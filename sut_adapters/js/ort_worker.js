'use strict';
/*
 * A broadcheck worker for ONNX Runtime (onnxruntime-node, CPU execution
 * provider), over the wire protocol:
 *
 *     broadcheck run --sut 'exec:node sut_adapters/js/ort_worker.js'
 *
 * What each question runs is in ort_sut.js, shared with the WebAssembly
 * build's worker (ort_web_worker.js); docs/certifications/onnxruntime.md has
 * the findings.
 */
const wire = require('./bcwire');
const { Unsupported } = wire;
const { ortAnswers } = require('./ort_sut');

async function load() {
  const ort = require('onnxruntime-node');
  return ortAnswers(ort, {
    name: 'onnxruntime',
    version: `onnxruntime-node ${ort.env.versions.node}, CPU execution provider`,
    description: 'ONNX Runtime: one-node models of Add..Or, Sum/Max/Min (opsets 21 and 6), Where, Expand, PRelu, MatMul',
    matmul: true,
    // Value questions run into a 0xA5-filled output (ort_sut.js, runValues):
    // an unwritten element shows on every run (O6).
    poisonOutputs: true,
    // One thread per session: broadcheck runs one worker per question in flight.
    // No memory arena or memory pattern: a session would keep its largest
    // run's memory, and cached sessions would fill broadcheck's address-space limit.
    options: {
      intraOpNumThreads: 1, interOpNumThreads: 1, enableCpuMemArena: false, enableMemPattern: false,
      logSeverityLevel: 4, logVerbosityLevel: 0,
    },
    errors: [
      // onnxruntime-node's binding takes input dims below 2^32 only (ORT itself takes int64)
      [/Tensor\.dims\[\d+\] is invalid/, (m) => new Unsupported(`onnxruntime-node refuses dims of 2^32 and above: ${m}`)],
    ],
  });
}

wire.serve('ort_worker', load);
