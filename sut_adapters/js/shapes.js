'use strict';
/*
 * Shape helpers shared by the workers.  None of them decides whether shapes
 * broadcast (that is the library's answer); they only turn the harness's
 * int64 dims into what a JavaScript library can take, and bound how much
 * memory running a question would need.
 */
const { Unsupported, OPT } = require('./bcwire');

// Elements a worker may materialise to answer a shape question by running
// the library (zero-filled operands plus the result): 2^22 float32 elements
// is 16 MB, far inside broadcheck's default 1 GB limit per worker.
const ELEMENT_BUDGET = 1n << 22n;

// Both libraries take dims as JavaScript numbers, exact only up to 2^53.
function toNumbers(shape) {
  return shape.map((d) => {
    if (d > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new Unsupported(`dim ${d} is beyond 2^53: JavaScript numbers cannot hold it exactly`);
    }
    return Number(d);
  });
}

const numel = (shape) => shape.reduce((n, d) => n * BigInt(d), 1n);

/*
 * An upper bound on the element count of any broadcast of `shapes`
 * (right-aligned): per axis 0 if some operand has 0 there (the result is
 * then 0 or an error), else the largest dim.
 */
function broadcastBound(shapes) {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  let bound = 1n;
  for (let r = 0; r < rank; r++) {
    let axis = 1n;
    for (const s of shapes) {
      const k = r - (rank - s.length);
      if (k < 0) continue;
      const d = BigInt(s[k]);
      if (d === 0n) { axis = 0n; break; }
      if (d > axis) axis = d;
    }
    bound *= axis;
  }
  return bound;
}

// Refuses (as unsupported) a question the library would need too much memory for.
function checkBudget(shapes) {
  const need = shapes.reduce((n, s) => n + numel(s), 0n) + broadcastBound(shapes);
  if (need > ELEMENT_BUDGET) {
    throw new Unsupported(
      `answering means materialising ${need} elements; this worker's budget is ${ELEMENT_BUDGET}`);
  }
}

// The libraries' broadcasting APIs take no axis, axes or profile.
function checkNoOptions(q) {
  const extra = q.options & (OPT.AXIS | OPT.AXES | OPT.AXES_MAPPING);
  if (extra || ((q.options & OPT.PROFILE) && q.profile !== 0)) {
    throw new Unsupported('this library takes no axis, axes or profile for this rule');
  }
}

module.exports = { toNumbers, numel, broadcastBound, checkBudget, checkNoOptions, ELEMENT_BUDGET };
