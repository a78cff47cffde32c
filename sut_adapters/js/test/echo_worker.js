'use strict';
/*
 * A worker around no library, for bcwire_test.js: shape questions answer
 * the first shape (no shapes: rejected; three shapes: an exception), value
 * questions echo the first input as bcwire.js gathered it.  ECHO_FAIL_LOAD
 * makes "loading the library" fail; ECHO_WIDE answers float64 values for
 * int32 (wrong bytes, the right count); ECHO_MAX_OPERANDS is what it declares
 * (default 64).  It takes EVAL_SHM questions (FEATURE_SHM).
 */
const wire = require('../bcwire');

wire.serve('echo_worker', async () => {
  if (process.env.ECHO_FAIL_LOAD) throw new Error('the library is missing (a test)');
  return {
    hello: {
      name: 'echo', version: '1', description: 'bcwire.js test worker',
      features: wire.FEATURE.SHAPE | wire.FEATURE.ELEMENTWISE | wire.FEATURE_SHM, rules: wire.bits(['numpy'], wire.RULE),
      ops: wire.bits(['add'], wire.OPS), dtypes: wire.bits(['int32'], wire.DTYPES), maxRank: 64,
      maxOperands: Number(process.env.ECHO_MAX_OPERANDS || 64),
    },
    shape(q) {
      if (q.shapes.length === 0) throw new wire.Rejected(wire.ERR.OPERAND_COUNT, 'no shapes');
      if (q.shapes.length === 3) throw new Error('boom');
      return wire.ok(q.shapes[0]);
    },
    async eval(q) {
      // ECHO_WIDE: the values as float64, eight bytes for each int32 (a worker's bug).
      if (process.env.ECHO_WIDE) return wire.ok(q.inputs[0].dims, Float64Array.from(q.inputs[0].values));
      return wire.ok(q.inputs[0].dims, q.inputs[0].values);
    },
  };
});
