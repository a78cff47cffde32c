// @stdlib/ndarray 0.4.1 alone (no broadcheck, no adapter): the divergence of
// docs/certifications/stdlib.md.  Run from the repository's root:
//   NODE_PATH=sut_adapters/js/node_modules node docs/certifications/hand/stdlib_hand.js
const ndarray = require("@stdlib/ndarray/ctor");
const scalar2ndarray = require("@stdlib/ndarray/from-scalar");
const broadcastArray = require("@stdlib/ndarray/broadcast-array");
const maybeBroadcastArray = require("@stdlib/ndarray/maybe-broadcast-array");
const broadcastArrays = require("@stdlib/ndarray/broadcast-arrays");
const show = (what, f) => {
  try { const y = f(); const ys = Array.isArray(y) ? y : [y]; console.log(`${what} -> ${ys.map((v) => `shape [${v.shape}] strides [${v.strides}]`).join(", ")}`); }
  catch (e) { console.log(`${what} throws ${e.constructor.name}: ${e.message}`); }
};
console.log(`@stdlib/ndarray ${require("@stdlib/ndarray/package.json").version}`);
const x = scalar2ndarray(5.0); // a zero-dimensional ndarray, as stdlib makes one
show("scalar2ndarray(5)", () => x);
show("broadcastArray(x, [])", () => broadcastArray(x, []));
show("broadcastArray(x, [2])", () => broadcastArray(x, [2]));
show("maybeBroadcastArray(x, [])", () => maybeBroadcastArray(x, []));
show("broadcastArrays([x, x])", () => broadcastArrays([x, x]));
show("ndarray('float64', buf, [], [], 0, 'row-major')", () => ndarray("float64", new Float64Array(1), [], [], 0, "row-major"));
show("ndarray('float64', buf, [], [0], 0, 'row-major')", () => ndarray("float64", new Float64Array(1), [], [0], 0, "row-major"));
