'use strict';
/*
 * A broadcheck worker for math.js (npm mathjs 15.2.0), over the wire
 * protocol:
 *
 *     broadcheck run --sut 'exec:node sut_adapters/js/mathjs_worker.js'
 *
 * math.js broadcasts matrices in its elementwise functions since 11.6.0
 * (HISTORY.md: "Implement broadcasting for ... add, dotDivide, dotMultiply,
 * ... subtract, ... and, or, ... equal, larger, largerEq, smaller, ...";
 * the code is broadcastSizes / checkBroadcastingRules / broadcastTo in
 * lib/cjs/utils/array.js, called from type/matrix/utils/broadcast.js).
 * What each question calls (docs/certifications/mathjs.md has the
 * findings):
 *
 *   rule numpy    shapes: math.add over zero-filled operands (math.zeros(dims,
 *                 'dense'); rank 0 is the number 0, math.js's scalar), the
 *                 result's math.size: math.js has no shape-only function.
 *                 Within a budget of elements (below); larger questions are
 *                 unsupported.  math.add is variadic, so any number of
 *                 operands from 2 is asked as one call.
 *                 values: math.add (variadic), math.subtract,
 *                 math.dotMultiply (3-4 operands folded left, as broadcheck
 *                 defines n-ary ops), math.dotDivide, math.equal,
 *                 math.smaller, math.and, math.or, on math.matrix values
 *                 (dense; a rank-0 operand is a plain number or boolean).
 *
 * dtypes: float64 (math.js's number) and bool (JavaScript booleans, for
 * equal, less, and, or: math.js answers numbers for arithmetic on
 * booleans, answered unsupported).  math.js has no integer, float32 or
 * float16 type of fixed width (BigNumber is decimal, bigint unbounded).
 * Not declared: max and min (math.max and math.min are reductions: two
 * matrices give "Scalar values expected"), where (no such function),
 * broadcast-to (math.js has no public broadcastTo), sum-to-shape, and the
 * rules other than numpy (math.js has one broadcasting rule; it has no
 * elementwise function that refuses unequal shapes).
 *
 * Inputs arrive as strided views; math.js matrices are nested arrays, so
 * bcwire.js gathers each view first: layout-invariance checks that
 * gather, not math.js.  A result is read back with valueOf() and checked
 * to hold exactly math.size's count of elements of the expected type.
 */
const wire = require('./bcwire');
const { ok, bits, Rejected, Unsupported, ERR, FEATURE, KIND, TYPED } = wire;
const { toNumbers, checkNoOptions } = require('./shapes');

const RULES = ['numpy'];
const DTYPES = ['bool', 'float64'];
const MAX_RANK = 64;     // no limit of math.js's own (tested at 64)
const MAX_OPERANDS = 128; // broadcheck's for none/numpy (RULES.md §9.5; protocol 4); math.add is variadic (130 run)

// Elements a shape question may materialise (math.js matrices are nested
// JavaScript arrays, and its broadcasting copies by concatenation: 2^16
// elements keep every question far inside broadcheck's 2 s limit).
const BUDGET = 1n << 16n;

/*
 * The JavaScript values a math.js matrix of `dims` holds as nested arrays:
 * its elements and every inner array, down to the first 0 dim (math.zeros
 * of [5,143,0] still builds 5 * 143 empty arrays).
 */
function nestedSize(dims) {
  let total = 0n;
  let p = 1n;
  for (const d of dims) {
    p *= BigInt(d);
    total += p;
    if (p === 0n) break;
  }
  return total;
}

// A shape at least as large, per axis, as anything the operands broadcast to
// (right-aligned; the largest dim of each axis, 0s aside).
function axisMax(shapes) {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = new Array(rank).fill(1);
  for (const s of shapes) s.forEach((d, k) => { const at = rank - s.length + k; out[at] = Math.max(out[at], d); });
  return out;
}

// broadcheck's ops -> math.js functions (bcwire OPS order); max and min have none.
const FUNCTIONS = {
  add: 'add', sub: 'subtract', mul: 'dotMultiply', div: 'dotDivide',
  equal: 'equal', less: 'smaller', and: 'and', or: 'or',
};
const ON_BOOL = new Set(['equal', 'less', 'and', 'or']); // the others give numbers

/*
 * math.js's errors -> answers.  Only messages that certainly mean "not
 * broadcastable" are mapped; any other exception is the library failing,
 * and is answered as an internal error by bcwire.
 */
const ERRORS = [
  [/^shape mismatch: mismatch is found in arg with shape/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/^Dimension mismatch/, (m) => new Rejected(ERR.DIM_MISMATCH, m)],
  [/^Parameters in function zeros must be positive integers/, (m) => new Rejected(ERR.NEGATIVE_DIM, m)],
];

async function load() {
  const math = require('mathjs');

  // Nested arrays of `dims` from row-major values.
  function nest(values, dims, at = 0, k = 0) {
    if (k === dims.length) return values[at];
    const stride = dims.slice(k + 1).reduce((a, d) => a * d, 1);
    const out = new Array(dims[k]);
    for (let i = 0; i < dims[k]; i++) out[i] = nest(values, dims, at + i * stride, k + 1);
    return out;
  }

  // An operand as math.js takes it: a number or boolean at rank 0, else a
  // dense matrix (math.zeros when it has no elements: nested arrays cannot
  // say [0,3]).
  function operand(x) {
    const cast = x.dtype === 'bool' ? (v) => v !== 0 : Number;
    if (x.dims.length === 0) return cast(x.values[0]);
    if (x.values.length === 0) return math.zeros(x.dims, 'dense');
    return math.matrix(nest(Array.from(x.values, cast), x.dims));
  }

  // A math.js result as a shape and row-major values of `dtype`.
  function result(y, dtype) {
    const isMatrix = math.isMatrix(y);
    const dims = isMatrix ? y.size() : [];
    const flat = isMatrix ? y.valueOf().flat(Infinity) : [y];
    const count = dims.reduce((a, d) => a * d, 1);
    if (flat.length !== count) {
      throw new Error(`math.js answered size [${dims}] holding ${flat.length} elements`);
    }
    const want = dtype === 'bool' ? 'boolean' : 'number';
    // Every op asked gives numbers on numbers and booleans (comparisons,
    // and, or) on anything, so another type is the library failing.
    const bad = flat.find((v) => typeof v !== want);
    if (bad !== undefined) throw new Error(`math.js gives ${math.typeOf(bad)} elements (${bad}), not ${want}s`);
    return ok(dims, TYPED[dtype].from(flat, (v) => (dtype === 'bool' ? (v ? 1 : 0) : v)));
  }

  function shape(q) {
    checkNoOptions(q);
    const shapes = q.shapes.map(toNumbers);
    if (shapes.length < 2) throw new Unsupported(`math.add takes two or more operands, not ${shapes.length}`);
    // A negative dim: math.zeros's own check rejects it (ERRORS), before any allocation.
    for (const s of shapes) if (s.some((d) => d < 0)) math.zeros(s, 'dense');
    const need = shapes.reduce((n, s) => n + nestedSize(s), 0n) + nestedSize(axisMax(shapes));
    if (need > BUDGET) {
      throw new Unsupported(`answering means materialising ${need} elements; this worker's budget is ${BUDGET}`);
    }
    const y = math.add(...shapes.map((s) => (s.length === 0 ? 0 : math.zeros(s, 'dense'))));
    return math.isMatrix(y) ? y.size() : [];
  }

  function evaluate(q) {
    checkNoOptions(q);
    if (q.kind !== KIND.ELEMENTWISE) throw new Unsupported(`${q.kindName} is not declared`);
    const dtype = q.inputs[0].dtype;
    if (dtype === 'bool' && !ON_BOOL.has(q.opName)) {
      throw new Unsupported(`math.${FUNCTIONS[q.opName]} on booleans gives numbers`);
    }
    const xs = q.inputs.map(operand);
    if (xs.length < 2) throw new Unsupported(`math.${FUNCTIONS[q.opName]} takes two operands, not ${xs.length}`);
    const fn = math[FUNCTIONS[q.opName]];
    const y = q.opName === 'add' ? math.add(...xs) : xs.reduce((a, b) => fn(a, b));
    return result(y, q.outDtype);
  }

  const guard = (fn) => wire.guarded(fn, ERRORS);

  return {
    hello: {
      name: 'mathjs',
      version: `mathjs ${math.version}`,
      description: 'math.js: broadcasting of dense matrices in add, subtract, dotMultiply, dotDivide, equal, smaller, and, or',
      features: FEATURE.SHAPE | FEATURE.ELEMENTWISE,
      rules: bits(RULES, wire.RULE),
      ops: bits(Object.keys(FUNCTIONS), wire.OPS),
      dtypes: bits(DTYPES, wire.DTYPES),
      maxRank: MAX_RANK,
      maxOperands: MAX_OPERANDS,
    },
    shape: guard((q) => ok(shape(q))),
    eval: guard(evaluate),
  };
}

wire.serve('mathjs_worker', load);
