// math.js 15.2.0 alone (no broadcheck, no adapter): the divergences of
// docs/certifications/mathjs.md.  Run from the repository's root:
//   NODE_PATH=sut_adapters/js/node_modules node docs/certifications/hand/mathjs_hand.js
const math = require("mathjs");
const Z = (s) => math.zeros(s, "dense");
const show = (what, f) => {
  try { const y = f(); console.log(`${what} -> size [${math.size(y)}] ${math.format(y)}`); }
  catch (e) { console.log(`${what} throws ${e.constructor.name}: ${e.message}`); }
};
console.log(`mathjs ${math.version}`);
// M1: a 1 is not stretched to 0
show("add(zeros([1]), zeros([0]))", () => math.add(Z([1]), Z([0])));
show("add(zeros([2,1]), zeros([2,0]))", () => math.add(Z([2, 1]), Z([2, 0])));
show("add(zeros([2,1]), zeros([2,3]))", () => math.add(Z([2, 1]), Z([2, 3])));
// M2: dims after a 0 are lost
show("add(zeros([0]), zeros([0,0]))", () => math.add(Z([0]), Z([0, 0])));
show("add(zeros([0,2]), zeros([0,1]))", () => math.add(Z([0, 2]), Z([0, 1])));
show("add(zeros([1,0,4,0]), zeros([1,0,1,5]))", () => math.add(Z([1, 0, 4, 0]), Z([1, 0, 1, 5])));
show("add(zeros([0,2]), zeros([0,2]))", () => math.add(Z([0, 2]), Z([0, 2])));
// M3, M4: and() with a falsy scalar
const m = math.matrix([true, true]);
show("and(false, matrix([true, true]))", () => math.and(false, m));
show("and(true, matrix([true, true]))", () => math.and(true, m));
show("and(matrix([true, true]), false)", () => math.and(m, false));
show("and(matrix([true, true]), matrix([false]))", () => math.and(m, math.matrix([false])));
show("or(matrix([true, false]), false)", () => math.or(math.matrix([true, false]), false));
// and's own documented example: "math.and(a, c) // returns [false, false, false]"
show("and([2, 0, 0], 0)", () => math.and([2, 0, 0], 0));
// M5 (the medium value tier): stretching a size-1 axis to n passes n
// arguments to concat; from n = 16379 Node 20 aborts the process (V8's
// "Check failed: size <= kMaxRegularHeapObjectSize"), so it runs last,
// in a child process, and the exit is shown.
const { spawnSync } = require("child_process");
for (const n of [16378, 16379]) {
  const r = spawnSync(process.execPath, ["-e", `
    const math = require(${JSON.stringify(require.resolve("mathjs"))});
    const y = math.equal(math.matrix([true]), math.matrix(new Array(${n}).fill(true)));
    console.log(y.size());`], { encoding: "utf8" });
  const check = (r.stderr.match(/Check failed: [^\n]*/) || [""])[0];
  console.log(`equal(matrix([true]), matrix of ${n} trues): status ${r.status} signal ${r.signal} ${r.stdout.trim()} ${check}`);
}
