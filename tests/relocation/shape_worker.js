'use strict';
/*
 * An adapter author's worker outside broadcheck's tree: NumPy's broadcasting
 * rule on shapes, in Node.  It requires the wire helper from the installed
 * broadcheck (broadcheck puts its folder on an exec: worker's NODE_PATH),
 * not from beside itself.  Used by tests/relocation_test.sh.
 */
const wire = require('bcwire');

function numpyShape(shapes) {
  const rank = Math.max(0, ...shapes.map((s) => s.length));
  const out = [];
  for (let axis = 0; axis < rank; axis++) {
    let dim = 1n;
    for (const s of shapes) {
      const k = axis - (rank - s.length);
      if (k < 0) continue;
      const d = s[k];
      if (d < 0n) throw new wire.Rejected(wire.ERR.NEGATIVE_DIM, `negative dim ${d}`);
      if (d !== 1n) {
        if (dim !== 1n && dim !== d) throw new wire.Rejected(wire.ERR.DIM_MISMATCH, `dims ${dim} and ${d}`);
        dim = d;
      }
    }
    out.push(dim);
  }
  return out;
}

wire.serve('shape_worker.js', async () => ({
  hello: {
    name: 'shape_worker.js', version: '1', description: "NumPy's rule in Node, for the relocation test",
    features: wire.FEATURE.SHAPE, rules: wire.bits(['numpy'], wire.RULE), ops: 0, dtypes: 0,
    maxRank: 64, maxOperands: 72,
  },
  shape: (q) => wire.ok(numpyShape(q.shapes)),
  eval: () => { throw new wire.Unsupported('shapes only'); },
}));
