'use strict';
/*
 * The ONNX Runtime side of the ORT workers, shared by both builds:
 * ort_worker.js (onnxruntime-node, the native CPU execution provider) and
 * ort_web_worker.js (onnxruntime-web, its WebAssembly build).  Each gives
 * its `ort` module, session options and error messages of its own.
 *
 * Every question becomes a model of one ONNX node (onnx_proto.js writes it;
 * its inputs have no declared shape, so the kernel, not ONNX's static shape
 * inference, decides), an InferenceSession is created from its bytes (or
 * taken from a cache keyed by the model) and run, and the output's dims (and
 * values) are the answer.  A shape question
 * runs on zero-filled float32 tensors of its shapes (zero-size dims
 * included), within a memory budget (shapes.js).
 *
 *   rule numpy          shapes: Add (2 operands) or Sum (any other count)
 *                       values: Add Sub Mul Div Max Min Equal Less And Or
 *                       (2 operands), Sum/Max/Min (3-4 operands; ONNX has
 *                       no variadic Mul), Where
 *   rule none           Sum, Max and Min of opset 6, which require equal
 *                       shapes: shapes (Sum) and add/max/min values
 *   rule bidirectional  Expand (opset 13 semantics), its shape input an
 *                       int64 initializer: shapes and broadcast values
 *   rule onnx-uni       PRelu (its slope is specified unidirectional):
 *                       shapes only; no broadcheck op is unidirectional in
 *                       ONNX, so its value questions are unsupported
 *   rule matmul         MatMul ("behaves like numpy.matmul"): shapes and
 *                       matmul values; only for a worker whose `about`
 *                       says matmul: true (each build is certified on it
 *                       separately)
 *
 * dtypes: all eight are declared, because some operator takes each; a
 * (operator, dtype) pair the CPU provider has no kernel for is refused by
 * ORT at session creation ("Type Error", "Could not find an
 * implementation"), and answered unsupported from that message.
 */
const wire = require('./bcwire');
const { ok, bits, Rejected, Unsupported, ERR, FEATURE, KIND, TYPED } = wire;
const { toNumbers, numel, broadcastBound, checkBudget, checkNoOptions, ELEMENT_BUDGET } = require('./shapes');
const { oneNodeModel } = require('./onnx_proto');

const RULES = ['none', 'numpy', 'onnx-uni', 'bidirectional'];
const MAX_RANK = 64;     // ORT's TensorShape has no rank limit (Add, Sum, Where, Expand run at 64)
const MAX_OPERANDS = 128; // broadcheck's limit for none/numpy (RULES.md §9.5; protocol 4); Sum/Max/Min are variadic without one (130 run)
const CACHE_SIZE = 32;   // sessions kept, by model (each holds memory; creating one takes ~1.5 ms)

const BINARY = {
  add: 'Add', sub: 'Sub', mul: 'Mul', div: 'Div', max: 'Max', min: 'Min',
  equal: 'Equal', less: 'Less', and: 'And', or: 'Or',
};
const VARIADIC = { add: 'Sum', max: 'Max', min: 'Min' }; // numpy n-ary, and opset 6 for none
const BOOL_RESULT = new Set(['equal', 'less', 'and', 'or']);

/*
 * ORT's errors -> answers.  Only messages that certainly mean "not
 * broadcastable" or "no kernel for this" are mapped; anything else is the
 * library failing and becomes an internal error (bcwire).
 */
const ERRORS = [
  [/Attempting to broadcast an axis by a dimension other than 1/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/Can broadcast 0 by 0 or 1/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/invalid expand shape/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/All inputs must have the same shape/, (m) => new Rejected(ERR.UNKNOWN, m)], // opset-6 Sum/Max/Min
  [/has input size \d+ not in range/, (m) => new Rejected(ERR.OPERAND_COUNT, m)],
  // MatMul (onnxruntime/core/providers/cpu/math/matmul_helper.h): the contraction, the batch, a scalar
  [/MatMul dimension mismatch/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/(left|right) operand cannot broadcast on dim/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/left_num_dims and right_num_dims must be >= 1/, (m) => new Rejected(ERR.RANK_MISMATCH, m)],
  [/Type Error: Type 'tensor\(\w+\)' of input parameter/, (m) => new Unsupported(m)],
  [/Could not find an implementation for/, (m) => new Unsupported(m)],
];

/*
 * The dims `dims` (arrays of numbers) broadcast to, right-aligned (a 1
 * stretches, to 0 too), or null if they do not.
 */
function broadcastDims(dims) {
  const rank = Math.max(0, ...dims.map((d) => d.length));
  const out = [];
  for (let r = 0; r < rank; r++) {
    let axis = 1;
    for (const d of dims) {
      const v = r - (rank - d.length) >= 0 ? d[r - (rank - d.length)] : 1;
      if (v === 1) continue;
      if (axis !== 1 && axis !== v) return null;
      axis = v;
    }
    out.push(axis);
  }
  return out;
}

/*
 * The output dims a value question's node should give by the ONNX
 * specification (numpy-style broadcasting for the elementwise operators,
 * Where and Expand; numpy.matmul for MatMul), or null: only to preallocate
 * its output (runValues), never an answer.
 */
function predictedDims(spec, tensors) {
  const dims = tensors.map((t) => Array.from(t.dims, Number));
  if (spec.target) return dims.length === 1 ? broadcastDims([dims[0], spec.target.map(Number)]) : null;
  if (spec.op !== 'MatMul') return broadcastDims(dims);
  if (dims.length !== 2 || dims[0].length === 0 || dims[1].length === 0) return null;
  const [a, b] = dims;
  const k = a[a.length - 1];
  if (k !== (b.length === 1 ? b[0] : b[b.length - 2])) return null;
  const batch = broadcastDims([a.slice(0, -2), b.slice(0, -2)]);
  if (!batch) return null;
  return [...batch, ...(a.length >= 2 ? [a[a.length - 2]] : []), ...(b.length >= 2 ? [b[b.length - 1]] : [])];
}

/*
 * The worker's answers ({hello, shape, eval}) for the module `ort`:
 * about.options are its session options, about.errors its own error
 * messages -> answers (before ERRORS), about.name/version/description the
 * HELLO's.
 */
async function ortAnswers(ort, about) {
  const { options } = about;
  const rules = about.matmul ? [...RULES, 'matmul'] : RULES;
  const errors = [...(about.errors || []), ...ERRORS];
  const sessions = new Map(); // model key -> Promise<InferenceSession>

  // A session for this node, cached by everything that goes into its model.
  function session(spec) {
    const key = JSON.stringify(spec, (k, v) => (typeof v === 'bigint' ? v.toString() : v));
    let s = sessions.get(key);
    if (!s) {
      if (sessions.size >= CACHE_SIZE) { // drop the oldest
        const [oldKey, old] = sessions.entries().next().value;
        sessions.delete(oldKey);
        old.then((x) => x.release()).catch(() => {});
      }
      // Inputs of unknown shape (not even a rank): the kernel alone decides,
      // and one session serves every shape of the same dtypes.
      const inputs = spec.dtypes.map((dtype, i) => ({ name: `x${i}`, dtype, dims: null }));
      const initializers = !spec.target ? [] : [{
        name: 'shape', dtype: 'int64', dims: [spec.target.length], values: BigInt64Array.from(spec.target),
      }];
      const output = { name: 'y', dtype: spec.out, dims: null };
      const bytes = oneNodeModel({ opType: spec.op, opset: spec.opset, inputs, initializers, output });
      s = ort.InferenceSession.create(bytes, options);
      sessions.set(key, s);
    }
    return s;
  }

  // Runs one node on `tensors` ({dtype, dims, values}); returns the output
  // tensor, ORT's own or `into` (a preallocated output it writes).
  async function run(spec, tensors, into) {
    const feeds = {};
    tensors.forEach((t, i) => { feeds[`x${i}`] = new ort.Tensor(t.dtype, t.values, t.dims); });
    const s = await session({ ...spec, dtypes: tensors.map((t) => t.dtype) });
    const result = await (into ? s.run(feeds, { y: into }) : s.run(feeds));
    return result.y;
  }

  // The same node run again into an output of the shape ORT gave, every
  // byte 0xA5 first, so that an element the kernel leaves unwritten shows
  // on every run: left to the allocator it showed only when malloc handed
  // back dirty memory, and a known divergence (O6, onnxruntime.md) passed
  // in two of four runs.  The answer is the tensor that run returns, never
  // the buffer itself: where ORT does not write into a preallocated output
  // the returned tensor is its own.  Only for a build whose `about` says
  // poisonOutputs: onnxruntime-web 1.30.0 returned a preallocated output
  // unwritten ([2,3] + [3] in float32 came back all 0xA5), a fault of that
  // feature, not of the kernels the certification asks about.
  async function runPoisoned(spec, tensors, first) {
    if (!about.poisonOutputs || first.data.length === 0) return first;
    const data = new first.data.constructor(first.data.length);
    new Uint8Array(data.buffer, data.byteOffset, data.byteLength).fill(0xa5);
    return run(spec, tensors, new ort.Tensor(first.type, data, first.dims.slice()));
  }

  // A value question's node run once into an output preallocated at the
  // shape it should give, every byte 0xA5 (what runPoisoned does, without
  // first running the node to learn that shape: every value question ran
  // twice).  The shape is only a guess, from broadcasting as the node
  // specifies it (predictedDims): ORT checks a preallocated output against
  // the shape its kernel computes and refuses another, and for any refusal
  // or error the node runs as before, ORT's own output first, so that the
  // answer (a shape that differs, an error) is always ORT's.
  async function runValues(spec, tensors) {
    const into = about.poisonOutputs ? poisonedOutput(spec, tensors) : null;
    if (into) {
      try {
        return await run(spec, tensors, into);
      } catch (e) {
        // not the shape ORT gives, or an error the run below gives again
      }
    }
    return runPoisoned(spec, tensors, await run(spec, tensors));
  }

  // A 0xA5-filled output tensor of the node's predicted dims, or null (no
  // prediction, no element, or no typed array known for its dtype).
  function poisonedOutput(spec, tensors) {
    const dims = predictedDims(spec, tensors);
    if (!dims || dims.reduce((n, d) => n * d, 1) === 0) return null;
    const like = tensors.find((t) => t.dtype === spec.out);
    const Ctor = spec.out === 'bool' ? Uint8Array : like && like.values.constructor;
    if (!Ctor) return null;
    const data = new Ctor(dims.reduce((n, d) => n * d, 1));
    new Uint8Array(data.buffer, data.byteOffset, data.byteLength).fill(0xa5);
    return new ort.Tensor(spec.out, data, dims);
  }

  const zeros = (dims) => ({ dtype: 'float32', dims, values: new Float32Array(Number(numel(dims))) });

  // ORT initialises its environment on the first session (up to a second on
  // a busy machine): do it now, before HELLO, not inside the first question's
  // time limit.  It also proves the native binding works.
  const one = { dtype: 'float32', dims: [1], values: Float32Array.of(1) };
  const warm = await run({ op: 'Add', out: 'float32' }, [one, one]);
  if (warm.data[0] !== 2) throw new Error('ONNX Runtime computed 1 + 1 wrongly');

  // The node that answers shape questions of each rule, and its inputs.
  function shapeNode(q) {
    checkNoOptions(q);
    const n = q.shapes.length;
    switch (q.ruleName) {
      case 'numpy': return { spec: { op: n === 2 ? 'Add' : 'Sum', out: 'float32' }, operands: q.shapes };
      case 'none': return { spec: { op: 'Sum', opset: 6, out: 'float32' }, operands: q.shapes };
      case 'onnx-uni': return { spec: { op: 'PRelu', out: 'float32' }, operands: q.shapes };
      case 'matmul': return { spec: { op: 'MatMul', out: 'float32' }, operands: q.shapes };
      default: // bidirectional: Expand(input, shape)
        if (n !== 2) throw new Unsupported('Expand takes one tensor and one shape');
        return { spec: { op: 'Expand', out: 'float32', target: q.shapes[1] }, operands: [q.shapes[0]] };
    }
  }

  async function shape(q) {
    const { spec, operands } = shapeNode(q);
    // A tensor with a negative dim cannot be made: onnxruntime-common's check
    // (ort.Tensor) refuses it.  Expand's target goes to the kernel as data.
    // Only this refusal is a rejection: the same message about a tensor ORT
    // returns (onnxruntime-web reads output dims as int32) is a failure.
    for (const s of operands) {
      if (s.some((d) => d < 0n)) {
        try {
          new ort.Tensor('float32', new Float32Array(0), s.map((d) => (d < 0n ? Number(d) : 0)));
        } catch (e) {
          throw new Rejected(ERR.NEGATIVE_DIM, e.message);
        }
      }
    }
    const dims = operands.map(toNumbers);
    if (spec.target) toNumbers(spec.target);
    if (spec.op === 'MatMul') checkMatmulBudget(operands);
    else checkBudget(spec.target ? [...dims, spec.target] : dims);
    const y = await run(spec, dims.map(zeros));
    return ok(y.dims.slice());
  }

  // MatMul's result is not bounded by its operands (a contracted 0 makes
  // [n, 0] @ [0, m] an [n, m] of zeros): bound it by the batch parts'
  // broadcast, A's rows and B's columns, before materialising anything.
  function checkMatmulBudget(operands) {
    if (operands.length !== 2) return; // ORT refuses the count itself
    const [a, b] = operands;
    const batch = (s) => (s.length >= 2 ? s.slice(0, -2) : []);
    const rows = a.length >= 2 ? BigInt(a[a.length - 2]) : 1n;
    const cols = b.length >= 2 ? BigInt(b[b.length - 1]) : 1n;
    // ORT walks the batch as if no dim were 0 (an empty result of a large
    // batch ran past 60 s, onnxruntime.md), and its result may be A's batch
    // (O5): bound both by the batch with every 0 counted as 1.
    const nonzero = (s) => s.map((d) => (BigInt(d) === 0n ? 1n : BigInt(d)));
    const walked = broadcastBound([nonzero(batch(a)), nonzero(batch(b))]);
    const need = numel(a) + numel(b) + walked * (rows || 1n) * (cols || 1n);
    if (need > ELEMENT_BUDGET) {
      throw new Unsupported(`answering means materialising ${need} elements; this worker's budget is ${ELEMENT_BUDGET}`);
    }
  }

  // The node computing a value question.
  function valueNode(q) {
    const n = q.inputs.length;
    const op = q.opName;
    if (q.kind === KIND.ELEMENTWISE) {
      if (q.ruleName === 'onnx-uni') {
        throw new Unsupported('no ONNX operator computes broadcheck ops with unidirectional broadcasting');
      }
      if (q.ruleName === 'none') {
        if (!VARIADIC[op]) {
          throw new Unsupported(`ONNX has no non-broadcasting ${op}; opset 6 has only Sum, Max and Min`);
        }
        return { op: VARIADIC[op], opset: 6, out: q.outDtype };
      }
      if (n === 2) return { op: BINARY[op], out: BOOL_RESULT.has(op) ? 'bool' : q.outDtype };
      if (n < 2 || !VARIADIC[op]) throw new Unsupported(`no ONNX operator computes ${op} of ${n} tensors`);
      return { op: VARIADIC[op], out: q.outDtype };
    }
    if (q.kind === KIND.SELECT) {
      if (q.ruleName !== 'numpy' || n !== 3) {
        throw new Unsupported('Where takes three tensors, broadcast numpy-style');
      }
      return { op: 'Where', out: q.outDtype };
    }
    if (q.kind === KIND.MATMUL && q.ruleName === 'matmul') return { op: 'MatMul', out: q.outDtype };
    if (q.kind === KIND.BROADCAST && q.ruleName === 'bidirectional' && q.shapes.length === 2) {
      return { op: 'Expand', out: q.outDtype, target: q.shapes[1] };
    }
    throw new Unsupported(`${q.kindName} under ${q.ruleName} is not an ONNX operator`);
  }

  async function evaluate(q) {
    checkNoOptions(q);
    const spec = valueNode(q);
    if (spec.target) toNumbers(spec.target);
    const y = await runValues(spec, q.inputs);
    if (y.type !== q.outDtype) throw new Unsupported(`ORT gives ${y.type}, not ${q.outDtype}`);
    return ok(y.dims.slice(), TYPED[q.outDtype].from(y.data));
  }

  const guard = (fn) => wire.guarded(fn, errors);

  return {
    hello: {
      name: about.name,
      version: about.version,
      description: about.description,
      features: FEATURE.SHAPE | FEATURE.ELEMENTWISE | FEATURE.SELECT | FEATURE.BROADCAST |
        (about.matmul ? FEATURE.MATMUL : 0),
      rules: bits(rules, wire.RULE),
      ops: bits(Object.keys(BINARY), wire.OPS),
      dtypes: bits(wire.DTYPES, wire.DTYPES),
      maxRank: MAX_RANK,
      maxOperands: MAX_OPERANDS,
    },
    shape: guard(shape),
    eval: guard(evaluate),
  };
}

module.exports = { ortAnswers };
