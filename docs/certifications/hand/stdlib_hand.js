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

// S2: a broadcast view taken as contiguous.  x is [[1],[2],[3]] laid out with
// gaps (strides [4,2], offset 2, the gaps holding -77); broadcastArray gives
// the view [3,3] with strides [4,0], whose buffer span (elements 2..10) has 9
// elements, as many as the view.
const assign = require("@stdlib/ndarray/base/assign");
const binary = require("@stdlib/ndarray/base/binary");
const zeros = require("@stdlib/ndarray/zeros");
const toArray = require("@stdlib/ndarray/to-array");
const isContiguous = require("@stdlib/ndarray/base/assert/is-contiguous");
const buf = new Int32Array([-77, -77, 1, -77, -77, -77, 2, -77, -77, -77, 3]);
const xs = ndarray("int32", buf, [3, 1], [4, 2], 2, "row-major");
const y = broadcastArray(xs, [3, 3]);
console.log(`y = broadcastArray(x, [3,3]): strides [${y.strides}], offset ${y.offset}, elements ${JSON.stringify(toArray(y))}`);
console.log(`isContiguous(y.shape, y.strides, y.offset): ${isContiguous(y.shape, y.strides, y.offset)}`);
const out = zeros([3, 3], { dtype: "int32" });
assign([y, out]);
console.log(`assign([y, out]): ${JSON.stringify(toArray(out))}`);
const sum = zeros([3, 3], { dtype: "int32" });
binary([y, zeros([3, 3], { dtype: "int32" }), sum], (a, b) => a + b);
console.log(`binary([y, zeros, out], add): ${JSON.stringify(toArray(sum))}`);

// S2 reading other elements, not only gaps: [[[1],[2]],[[3],[4]],[[5],[6]]] stored with
// strides [8,1,-4], offset 3, broadcast to [3,2,3] (strides [8,1,0]): a span
// of 18 elements for 18, copied linearly.
const buf2 = new Int32Array([-77, -77, -77, 1, 2, -77, -77, -77, -77, -77, -77, 3, 4, -77, -77, -77, -77, -77, -77, 5, 6]);
const y2 = broadcastArray(ndarray("int32", buf2, [3, 2, 1], [8, 1, -4], 3, "row-major"), [3, 2, 3]);
const out2 = zeros([3, 2, 3], { dtype: "int32" });
assign([y2, out2]);
console.log(`y2 strides [${y2.strides}], elements ${JSON.stringify(toArray(y2))}`);
console.log(`assign([y2, out]): ${JSON.stringify(toArray(out2))}`);
