'use strict';
/*
 * A broadcheck worker for stdlib's ndarrays (npm @stdlib/ndarray 0.4.1),
 * over the wire protocol:
 *
 *     broadcheck run --sut 'exec:node sut_adapters/js/stdlib_worker.js'
 *
 * What each question calls (docs/certifications/stdlib.md has the findings):
 *
 *   rule numpy    shapes: ndarray/base/broadcast-shapes (null: not
 *                 broadcastable), after stdlib's own check that each shape
 *                 is an array of nonnegative integers
 *                 (assert/is-nonnegative-integer-array).  It only computes,
 *                 so dims up to 2^53 are answered.
 *                 values: ndarray/broadcast-arrays over the operands (zero-
 *                 stride views), then ndarray/base/binary (elementwise) or
 *                 ndarray/base/ternary (where) into a fresh row-major
 *                 ndarray of the result dtype; 3-4 operands are folded
 *                 left, each step in the dtype, as broadcheck defines n-ary
 *                 ops (stdlib has no n-ary elementwise function).
 *   broadcast-to  ndarray/broadcast-array: shapes on an input made with
 *                 ndarray/ctor over one element with zero strides (the
 *                 result is a view: nothing is materialised); values on
 *                 the real input, copied out by ndarray/base/assign.
 *
 * The inputs are handed to stdlib as the harness laid them out: each is an
 * ndarray/ctor view over the question's data with its strides (negative,
 * zero, gaps) and offset, so layout-invariance checks stdlib's strided
 * iteration, not a gather of this worker's.
 *
 * The scalar functions are this worker's (ndarray/base/binary and ternary
 * take a callback by design: stdlib has no elementwise add of two ndarrays
 * of its own in @stdlib/ndarray).  They are JavaScript's operators, the
 * result stored by the output's typed array (so int8, uint8 and int32 wrap,
 * float32 rounds once); int32 mul is Math.imul (exact before wrapping);
 * bool add/max is or, mul/min is and.  What broadcheck checks through them
 * is stdlib's broadcasting and strided iteration.
 *
 * Not declared: rules none, onnx-uni, pdpd, bidirectional and explicit
 * (stdlib has no function that refuses unequal shapes, nor one of those
 * rules), sum-to-shape (no function of @stdlib/ndarray sums a broadcast
 * back to a shape), int64 (stdlib's ndarrays have no int64 dtype) and
 * float16 (stdlib lists it, but on Node 20 zeros([2], {dtype: 'float16'})
 * throws "not implemented": there is no Float16Array to hold it).
 */
const wire = require('./bcwire');
const { ok, bits, Rejected, Unsupported, ERR, FEATURE, KIND, TYPED } = wire;
const { toNumbers, checkNoOptions } = require('./shapes');

const RULES = ['numpy', 'broadcast-to'];
const DTYPES = ['bool', 'int8', 'uint8', 'int32', 'float32', 'float64'];
const OPS = ['add', 'sub', 'mul', 'div', 'max', 'min', 'equal', 'less', 'and', 'or'];
const MAX_RANK = 64;     // no limit of stdlib's own (tested at 64 and beyond)
const MAX_OPERANDS = 128; // broadcheck's for none/numpy (RULES.md §9.5; protocol 4); broadcast-shapes/broadcast-arrays take any number (130 run)

// The callbacks, by op (numbers) and for bool (JavaScript booleans, as
// stdlib's BooleanArray accessors give them).
const NUMERIC = {
  add: (a, b) => a + b,
  sub: (a, b) => a - b,
  mul: (a, b) => a * b,
  div: (a, b) => a / b,
  max: (a, b) => Math.max(a, b),
  min: (a, b) => Math.min(a, b),
  equal: (a, b) => a === b,
  less: (a, b) => a < b,
  and: (a, b) => a !== 0 && b !== 0,
  or: (a, b) => a !== 0 || b !== 0,
};
const BOOLEAN = {
  add: (a, b) => a || b,
  mul: (a, b) => a && b,
  max: (a, b) => a || b,
  min: (a, b) => a && b,
  equal: (a, b) => a === b,
  less: (a, b) => !a && b,
  and: (a, b) => a && b,
  or: (a, b) => a || b,
};
const callback = (op, dtype) => {
  if (dtype === 'bool') return BOOLEAN[op];
  if (dtype === 'int32' && op === 'mul') return Math.imul;
  return NUMERIC[op];
};

/*
 * stdlib's errors -> answers.  Only messages that certainly mean "not
 * broadcastable" (or an invalid shape) are mapped; any other exception is
 * the library failing, and is answered as an internal error by bcwire.
 */
const ERRORS = [
  [/Input arrays must be broadcast compatible/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/are broadcast incompatible/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/Input array cannot be broadcast to the specified shape, as the specified shape has a dimension whose size is less/,
    (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/Cannot broadcast an array to a shape having fewer dimensions/, (m) => new Rejected(ERR.RANK_TOO_LARGE, m)],
  [/must be an array(-like object containing| of) nonnegative integers/, (m) => new Rejected(ERR.NEGATIVE_DIM, m)],
];

async function load() {
  const ndarray = require('@stdlib/ndarray/ctor');
  const broadcastShapes = require('@stdlib/ndarray/base/broadcast-shapes');
  const broadcastArray = require('@stdlib/ndarray/broadcast-array');
  const broadcastArrays = require('@stdlib/ndarray/broadcast-arrays');
  const binary = require('@stdlib/ndarray/base/binary');
  const ternary = require('@stdlib/ndarray/base/ternary');
  const assign = require('@stdlib/ndarray/base/assign');
  const BooleanArray = require('@stdlib/array/bool');
  const isShape = require('@stdlib/assert/is-nonnegative-integer-array');
  const { version } = require('@stdlib/ndarray/package.json');

  // A stdlib buffer of `dtype` over the bytes of a typed array (bool:
  // BooleanArray, whose bytes are 0/1 like the protocol's).
  const buffer = (dtype, typed) => (dtype === 'bool'
    ? new BooleanArray(typed.buffer, typed.byteOffset, typed.length) : typed);

  // stdlib's strides for `strides`: a zero-dimensional ndarray takes [0]
  // (ndarray/ctor's README), not [].
  const stdStrides = (strides) => (strides.length === 0 ? [0] : strides);

  // The harness's strided view as a stdlib ndarray (nothing copied).
  const view = (x) => ndarray(x.dtype, buffer(x.dtype, x.view.data), x.dims,
    stdStrides(x.view.strides.map(Number)), Number(x.view.offset), 'row-major');

  // A fresh row-major ndarray and the typed array holding its elements.
  function output(dtype, dims) {
    const n = dims.reduce((a, d) => a * d, 1);
    const typed = new TYPED[dtype](n);
    const strides = new Array(dims.length);
    for (let k = dims.length - 1, s = 1; k >= 0; k--) { strides[k] = s; s *= Math.max(dims[k], 1); }
    return { typed, nd: ndarray(dtype, buffer(dtype, typed), dims, stdStrides(strides), 0, 'row-major') };
  }

  function checkShapes(q) {
    checkNoOptions(q);
    for (const s of q.shapes) {
      if (s.some((d) => d < 0n)) {
        const dims = s.map(Number);
        if (!isShape(dims)) throw new Rejected(ERR.NEGATIVE_DIM, `[${dims}] is not an array of nonnegative integers`);
      }
    }
    return q.shapes.map(toNumbers);
  }

  function shape(q) {
    const shapes = checkShapes(q);
    if (q.ruleName === 'numpy') {
      const out = broadcastShapes(shapes);
      if (out === null) throw new Rejected(ERR.DIM_MISMATCH, `broadcastShapes(${JSON.stringify(shapes)}) is null`);
      return out;
    }
    if (shapes.length !== 2) throw new Unsupported('broadcastArray takes one array and one shape');
    const [input, target] = shapes;
    const x = ndarray('float64', new Float64Array(1), input, stdStrides(input.map(() => 0)), 0, 'row-major');
    return broadcastArray(x, target).shape;
  }

  function evaluate(q) {
    const shapes = checkShapes(q);
    const ins = q.inputs.map(view);
    if (q.kind === KIND.BROADCAST) {
      if (shapes.length !== 2) throw new Unsupported('broadcastArray takes one array and one shape');
      const y = broadcastArray(ins[0], shapes[1]);
      const out = output(q.outDtype, y.shape);
      assign([y, out.nd]);
      return ok(y.shape, out.typed);
    }
    if (q.kind === KIND.SELECT) {
      if (ins.length !== 3) throw new Unsupported(`where takes three arrays, not ${ins.length}`);
      const [c, a, b] = broadcastArrays(ins);
      const out = output(q.outDtype, c.shape);
      ternary([c, a, b, out.nd], (t, u, v) => (t ? u : v));
      return ok(c.shape, out.typed);
    }
    if (q.kind !== KIND.ELEMENTWISE) throw new Unsupported(`${q.kindName} is not declared`);
    if (ins.length < 2) throw new Unsupported(`${q.opName} takes two arrays, not ${ins.length}`);
    const fn = callback(q.opName, ins[0].dtype);
    if (!fn) throw new Unsupported(`no ${q.opName} on ${ins[0].dtype}`);
    const xs = broadcastArrays(ins);
    let acc = xs[0];
    let typed = null;
    for (let k = 1; k < xs.length; k++) {
      const out = output(q.outDtype, xs[0].shape);
      binary([acc, xs[k], out.nd], fn);
      acc = out.nd;
      typed = out.typed;
    }
    return ok(xs[0].shape, typed);
  }

  const guard = (fn) => wire.guarded(fn, ERRORS);

  return {
    hello: {
      name: 'stdlib',
      version: `@stdlib/ndarray ${version}`,
      description: 'stdlib ndarrays: broadcast-shapes, broadcast-array(s), base/binary, base/ternary, base/assign',
      features: FEATURE.SHAPE | FEATURE.ELEMENTWISE | FEATURE.SELECT | FEATURE.BROADCAST,
      rules: bits(RULES, wire.RULE),
      ops: bits(OPS, wire.OPS),
      dtypes: bits(DTYPES, wire.DTYPES),
      maxRank: MAX_RANK,
      maxOperands: MAX_OPERANDS,
    },
    shape: guard((q) => ok(shape(q))),
    eval: guard(evaluate),
  };
}

wire.serve('stdlib_worker', load);
