/*
 * The TensorFlow.js side of the tfjs workers, shared by every backend:
 * tfjs_worker.js (@tensorflow/tfjs-backend-cpu) and tfjs_wasm_worker.js
 * (@tensorflow/tfjs-backend-wasm).  The backend only supplies the kernels;
 * which tfjs function answers each question is the same for both:
 *
 *   rule numpy    shapes: tf.backend_util.assertAndGetBroadcastShape, the
 *                 function every tfjs binary op (and tf.where) computes its
 *                 output shape with, folded over the operands, after
 *                 tf.util.assertNonNegativeIntegerDimensions, the check a
 *                 tensor of those dims would meet on creation.  No tensor is
 *                 made, so dims up to 2^53 are answered.  (With
 *                 shapesByKernel, as the wasm worker asks: tf.add folded over
 *                 zero-filled tensors, within shapes.js's budget, so that the
 *                 backend's kernel makes the output.)
 *                 values: tf.add/sub/mul/div/maximum/minimum/equal/less/
 *                 logicalAnd/logicalOr (3-4 operands: folded left, as
 *                 broadcheck defines n-ary ops; tfjs has no n-ary
 *                 broadcasting op), and tf.where.
 *   rule none     tf.addN, tfjs's one elementwise op that requires equal
 *                 shapes: shapes (run on zero-filled tensors) and add.
 *                 Every other op broadcasts, so under `none` it is
 *                 unsupported.
 *   broadcast-to  tf.broadcastTo: shapes (run on a zero-filled input) and values.
 *   matmul        tf.matMul (the BatchMatMul kernel, which broadcasts the
 *                 batch dims): shapes (run on zero-filled float32 tensors,
 *                 within shapes.js's budget and 2^22 multiply-adds) and
 *                 matmul values (float32; int32 where the backend has it:
 *                 the wasm backend refuses it, answered unsupported).
 *                 tf.matMul is documented for matrices ("Computes the dot
 *                 product of two matrices, A * B. These must be matrices."):
 *                 a question with an operand of rank 0 or 1 is declined
 *                 before tfjs is called, by its ranks alone.  tfjs's
 *                 refusals of them are accidents of its code (rank 1 fails
 *                 a reshape to [1, NaN, ...] or reads an undefined inner
 *                 dim), not a check; every question whose operands are
 *                 both of rank >= 2, the inputs tf.matMul takes, is asked.
 *                 tf.dot (ranks 1 and 2, no batch) and tf.linalg (no
 *                 product) do not broadcast a batch.
 *
 * Not declared: sum-to-shape.  tfjs computes it as the gradient of a
 * broadcast (tf.grads), but its CommonJS build registers no gradients: they
 * ship only as ESM for bundlers (dist/register_all_gradients.js, imports
 * without extensions), which Node loads only through a module-resolution
 * hook, and the hook's thread does not fit broadcheck's default 1 GB
 * address-space limit for a worker.  The certification checks them by hand.
 *
 * Inputs arrive as strided views; tfjs tensors are dense, so bcwire.js
 * gathers each view into a dense array first: layout-invariance checks that
 * gather, not tfjs.  Results of another dtype than broadcheck's (tf.maximum
 * on bool gives int32) and ops tfjs refuses for a dtype (logicalAnd on
 * int32) are answered unsupported.  tf.div on int32 is tf.floorDiv (floor,
 * not broadcheck's truncation): kept, and classified in the certification.
 */
const wire = require('./bcwire');
const { ok, bits, Rejected, Unsupported, ERR, FEATURE, KIND, TYPED } = wire;
const { toNumbers, numel, broadcastBound, checkBudget, checkNoOptions, ELEMENT_BUDGET } = require('./shapes');

const RULES = ['none', 'numpy', 'broadcast-to', 'matmul'];
const MATMUL_DTYPES = new Set(['int32', 'float32']); // tf.matMul on bool gives sums in a bool tensor
// The most multiply-adds a shape question may cost tf.matMul: 2^22, as the
// NumPy worker's bound (2^26 took 1.5 to 2.4 s of the cpu kernel on a loaded
// machine, and a 300 s run then asked only 167 matmul-batch-is-numpy cases).
const MATMUL_MAX_WORK = 1n << 22n;
const DTYPES = ['bool', 'int32', 'float32']; // tfjs has no int8, uint8, int64, float16 or float64
const MAX_RANK = 64;     // tfjs has no rank limit of its own (tested at 64)
const MAX_OPERANDS = 128; // broadcheck's limit for none/numpy (RULES.md §9.5; protocol 4); tf.addN takes any number (130 run)

// broadcheck's ops -> tfjs ops (bcwire OPS order).
const BINARY = {
  add: 'add', sub: 'sub', mul: 'mul', div: 'div', max: 'maximum', min: 'minimum',
  equal: 'equal', less: 'less', and: 'logicalAnd', or: 'logicalOr',
};

/*
 * tfjs's errors -> answers.  Only messages that certainly mean "not
 * broadcastable" (or "cannot express") are mapped; any other exception is
 * the library failing, and is answered as an internal error by bcwire.
 */
const ERRORS = [
  [/Operands could not be broadcast together/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/broadcastTo\(\): shape\.length=\d+ < input\.rank=/, (m) => new Rejected(ERR.RANK_TOO_LARGE, m)],
  [/broadcastTo\(\): \[.*\] cannot be broadcast to/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/must have the same shape/, (m) => new Rejected(ERR.UNKNOWN, m)], // tf.addN: rank or dim
  [/Must pass at least one tensor to tf\.addN/, (m) => new Rejected(ERR.OPERAND_COUNT, m)],
  [/shape comprised of positive integers/, (m) => new Rejected(ERR.NEGATIVE_DIM, m)],
  [/passed to '\w+' must be \w+ tensor/, (m) => new Unsupported(m)],
  // tf.matMul (tfjs-core src/ops/mat_mul.ts and the backends' BatchMatMul): the contraction, then the batch
  [/Error in matMul: inner shapes \(\d+\) and \(\d+\) of Tensors with shapes/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/BatchMatMul for non non-float32 tensors not yet supported/, (m) => new Unsupported(m)], // wasm on int32
];

/*
 * The worker's answers ({hello, shape, eval}) for `tf`, whose backend is
 * set already.  `about` gives the HELLO's name, version and description;
 * about.shapesByKernel makes numpy shapes run the backend's tf.add.
 */
function tfjsAnswers(tf, about) {
  const tensor = (x) => tf.tensor(x.values, x.dims, x.dtype);
  const zeros = (dims) => tf.zeros(dims, 'float32');

  // Every shape must be a shape a tfjs tensor can have: the library's own check.
  function tfShapes(q) {
    checkNoOptions(q);
    for (const s of q.shapes) {
      if (s.some((d) => d < 0n)) tf.util.assertNonNegativeIntegerDimensions(s.map(Number));
    }
    return q.shapes.map(toNumbers);
  }

  function numpyShape(shapes) {
    if (shapes.length === 0) throw new Unsupported('no tfjs function broadcasts zero shapes');
    if (!about.shapesByKernel) return shapes.reduce((a, b) => tf.backend_util.assertAndGetBroadcastShape(a, b));
    if (shapes.length < 2) throw new Unsupported('tf.add takes two tensors, not one');
    checkBudget(shapes);
    return tf.tidy(() => shapes.map(zeros).reduce((a, b) => tf.add(a, b)).shape);
  }

  // tf.matMul's operands: two, each of rank >= 2 (the matrices it is
  // documented for); anything else is declined by its ranks alone.
  function matmulOperands(shapes) {
    if (shapes.length !== 2) throw new Unsupported(`tf.matMul takes two tensors, not ${shapes.length}`);
    const low = shapes.findIndex((s) => s.length < 2);
    if (low >= 0) {
      throw new Unsupported(`tf.matMul is documented for matrices: operand ${low} has rank ${shapes[low].length}`);
    }
    return shapes;
  }

  // tf.matMul makes its result (not bounded by its operands: a contracted 0
  // makes [n,0] @ [0,m] an [n,m]) and loops over the batch, rows, columns
  // and contraction: bound both before running it.  The batch is bounded
  // with each 0 counted as 1: the cpu kernel walks max(batch of A, batch of
  // B) matrices, whatever the broadcast (tfjs.md).
  function checkMatmulBudget([a, b]) {
    const nonzero = (s) => s.map((d) => (d === 0 ? 1 : d));
    const walked = broadcastBound([nonzero(a.slice(0, -2)), nonzero(b.slice(0, -2))]);
    const rows = BigInt(a[a.length - 2] || 1);
    const cols = BigInt(b[b.length - 1] || 1);
    const k = BigInt(Math.max(a[a.length - 1], b[b.length - 2], 1));
    const need = numel(a) + numel(b) + walked * rows * cols;
    if (need > ELEMENT_BUDGET || walked * rows * cols * k > MATMUL_MAX_WORK) {
      throw new Unsupported(`answering means materialising ${need} elements and ${walked * rows * cols * k} ` +
                            `multiply-adds; this worker's budget is ${ELEMENT_BUDGET} and ${MATMUL_MAX_WORK}`);
    }
  }

  function shape(q) {
    const shapes = tfShapes(q);
    if (q.ruleName === 'numpy') return numpyShape(shapes);
    if (q.ruleName === 'matmul') {
      checkMatmulBudget(matmulOperands(shapes));
      return tf.tidy(() => tf.matMul(zeros(shapes[0]), zeros(shapes[1])).shape);
    }
    if (q.ruleName === 'none') {
      checkBudget(shapes);
      return tf.tidy(() => tf.addN(shapes.map(zeros)).shape);
    }
    if (shapes.length !== 2) throw new Unsupported('tf.broadcastTo takes one tensor and one shape');
    checkBudget(shapes);
    return tf.tidy(() => tf.broadcastTo(zeros(shapes[0]), shapes[1]).shape);
  }

  function compute(q) {
    const shapes = tfShapes(q);
    const ins = q.inputs;
    if (q.kind === KIND.ELEMENTWISE) {
      if (q.ruleName === 'none') {
        if (q.opName !== 'add') {
          throw new Unsupported(`tfjs has no non-broadcasting ${q.opName}: only tf.addN requires equal shapes`);
        }
        return tf.addN(ins.map(tensor));
      }
      if (ins.length < 2) throw new Unsupported(`tf.${BINARY[q.opName]} takes two tensors, not ${ins.length}`);
      const fn = tf[BINARY[q.opName]];
      return ins.map(tensor).reduce((a, b) => fn(a, b));
    }
    if (q.kind === KIND.SELECT) {
      if (q.ruleName !== 'numpy') throw new Unsupported('tf.where always broadcasts');
      if (ins.length !== 3) throw new Unsupported(`tf.where takes three tensors, not ${ins.length}`);
      return tf.where(tensor(ins[0]), tensor(ins[1]), tensor(ins[2]));
    }
    if (q.kind === KIND.BROADCAST) {
      if (shapes.length !== 2) throw new Unsupported('tf.broadcastTo takes one tensor and one shape');
      return tf.broadcastTo(tensor(ins[0]), shapes[1]);
    }
    if (q.kind === KIND.MATMUL && q.ruleName === 'matmul') {
      matmulOperands(shapes);
      if (!MATMUL_DTYPES.has(q.outDtype)) throw new Unsupported(`tf.matMul on ${q.outDtype} is not declared`);
      return tf.matMul(tensor(ins[0]), tensor(ins[1]));
    }
    throw new Unsupported(`${q.kindName} is not declared`); // the harness never asks it
  }

  function evaluate(q) {
    return tf.tidy(() => {
      const y = compute(q);
      if (y.dtype !== q.outDtype) {
        const what = q.kind === KIND.ELEMENTWISE ? q.opName : q.kindName;
        throw new Unsupported(`tfjs gives ${y.dtype}, not ${q.outDtype}, for ${what} on ${q.inputs[0].dtype}`);
      }
      return ok(y.shape, TYPED[q.outDtype].from(y.dataSync()));
    });
  }

  const guard = (fn) => wire.guarded(fn, ERRORS);

  return {
    hello: {
      name: about.name,
      version: about.version,
      description: about.description,
      features: FEATURE.SHAPE | FEATURE.ELEMENTWISE | FEATURE.SELECT | FEATURE.BROADCAST | FEATURE.MATMUL |
        (about.sharedFile ? wire.FEATURE_SHM : 0),
      rules: bits(RULES, wire.RULE),
      ops: bits(Object.keys(BINARY), wire.OPS),
      dtypes: bits(DTYPES, wire.DTYPES),
      maxRank: MAX_RANK,
      maxOperands: MAX_OPERANDS,
    },
    shape: guard((q) => ok(shape(q))),
    eval: guard(evaluate),
  };
}

module.exports = { tfjsAnswers };
