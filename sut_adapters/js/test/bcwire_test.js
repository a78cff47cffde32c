'use strict';
/*
 * Tests of bcwire.js (the wire protocol in Node) against echo_worker.js,
 * speaking the harness's side by hand: HELLO, questions split into single
 * bytes and run together, strided tensors, rejections, exceptions, trailing
 * bytes, FATAL, and exit on end of input.  `node test/bcwire_test.js`
 * exits 0 when every check passes.
 */
const assert = require('node:assert/strict');
const { spawn } = require('node:child_process');
const path = require('node:path');

const WORKER = path.join(__dirname, 'echo_worker.js');

function u32(...v) {
  const b = Buffer.alloc(4 * v.length);
  v.forEach((x, i) => b.writeUInt32LE(x, 4 * i));
  return b;
}
const i32 = (v) => { const b = Buffer.alloc(4); b.writeInt32LE(v); return b; };
function i64(...v) {
  const b = Buffer.alloc(8 * v.length);
  v.forEach((x, i) => b.writeBigInt64LE(BigInt(x), 8 * i));
  return b;
}

function frame(type, seq, payload) {
  const h = Buffer.alloc(12);
  h.write('bc', 0, 'latin1');
  h.writeUInt16LE(type, 2);
  h.writeUInt32LE(seq, 4);
  h.writeUInt32LE(payload.length, 8);
  return Buffer.concat([h, payload]);
}

// params (rule numpy, no options) then shapes.
const params = (shapes) => Buffer.concat([
  u32(1, 0, 0), i64(-1), u32(0), u32(shapes.length),
  ...shapes.map((s) => Buffer.concat([u32(s.length), i64(...s)])),
]);
const shapeQuestion = (seq, shapes) => frame(0x10, seq, params(shapes));

// An int32 strided tensor: dims, strides, offset, and the elements that travel.
const tensor = (dims, strides, offset, data) => Buffer.concat([
  u32(3, dims.length), i64(...dims), i64(...strides), i64(offset, data.length),
  Buffer.from(Int32Array.from(data).buffer),
]);
const evalQuestion = (seq, t, dims, capacity) => frame(0x11, seq, Buffer.concat([
  u32(0, 0), i32(0), params([dims]), u32(3), i64(capacity), u32(1), t,
]));

// Reads frames off the worker's stdout.
function startWorker(env = {}) {
  // The broken worker's stderr (its reason, also in the FATAL frame) is not shown.
  const stderr = env.ECHO_FAIL_LOAD ? 'ignore' : 'inherit';
  const child = spawn(process.execPath, [WORKER],
    { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', stderr] });
  let buf = Buffer.alloc(0);
  const waiting = [];
  const frames = [];
  const deliver = () => {
    while (buf.length >= 12 && buf.length >= 12 + buf.readUInt32LE(8)) {
      const len = buf.readUInt32LE(8);
      frames.push({
        magic: buf.toString('latin1', 0, 2), type: buf.readUInt16LE(2), seq: buf.readUInt32LE(4),
        payload: buf.subarray(12, 12 + len),
      });
      buf = buf.subarray(12 + len);
    }
    while (waiting.length && frames.length) waiting.shift()(frames.shift());
  };
  child.stdout.on('data', (c) => { buf = Buffer.concat([buf, c]); deliver(); });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)));
  const next = () => new Promise((resolve) => { waiting.push(resolve); deliver(); });
  return { child, next, exited };
}

function readAnswer(p) {
  let at = 0;
  const u = () => { at += 4; return p.readUInt32LE(at - 4); };
  const status = u(), kind = u(), flags = u(), rank = u();
  const dims = Array.from({ length: rank }, () => { at += 8; return Number(p.readBigInt64LE(at - 8)); });
  const mlen = u();
  const message = p.toString('utf8', at, at + mlen);
  at += mlen;
  const nbytes = Number(p.readBigInt64LE(at));
  at += 8;
  const out = p.subarray(at, at + nbytes);
  assert.equal(at + nbytes, p.length, 'the answer has no trailing bytes');
  return { status, kind, flags, dims, message, out };
}

async function main() {
  const w = startWorker();
  const hello = await w.next();
  assert.equal(hello.magic, 'bc');
  assert.equal(hello.type, 0x01, 'the worker speaks first, with HELLO');
  assert.equal(hello.payload.readUInt32LE(0), 3, 'protocol version 3');

  // A question that arrives one byte at a time.
  for (const byte of shapeQuestion(1, [[2, 0, 9007199254740993n]])) {
    w.child.stdin.write(Buffer.of(byte));
    await new Promise((r) => setImmediate(r));
  }
  let f = await w.next();
  assert.equal(f.type, 0x20);
  assert.equal(f.seq, 1);
  let a = readAnswer(f.payload);
  assert.equal(a.status, 0);
  assert.deepEqual(a.dims, [2, 0, 9007199254740992]); // read back as Number here; the int64 went out exact
  assert.equal(f.payload.readBigInt64LE(16 + 16), 9007199254740993n, 'dims beyond 2^53 travel exactly');

  // Three questions in one write: answered in order; a rejection and an exception.
  w.child.stdin.write(Buffer.concat([
    shapeQuestion(2, []), shapeQuestion(3, [[1], [1], [1]]), shapeQuestion(4, [[]]),
  ]));
  f = await w.next();
  a = readAnswer(f.payload);
  assert.deepEqual([f.seq, a.status, a.kind, a.message], [2, 1, 10, 'no shapes']);
  f = await w.next();
  a = readAnswer(f.payload);
  assert.deepEqual([f.seq, a.status, a.message], [3, 3, 'Error: boom']);
  f = await w.next();
  a = readAnswer(f.payload);
  assert.deepEqual([f.seq, a.status, a.dims], [4, 0, []]);

  // A strided view: dims [2,3], strides [-1,2], offset 1 over data [10..16]:
  // element (i,j) is data[1 - i + 2j].
  const data = [10, 11, 12, 13, 14, 15, 16];
  w.child.stdin.write(evalQuestion(5, tensor([2, 3], [-1, 2], 1, data), [2, 3], 6));
  f = await w.next();
  a = readAnswer(f.payload);
  assert.equal(a.status, 0, a.message);
  assert.deepEqual(a.dims, [2, 3]);
  const want = [];
  for (let i = 0; i < 2; i++) for (let j = 0; j < 3; j++) want.push(data[1 - i + 2 * j]);
  assert.deepEqual(Array.from(new Int32Array(Uint8Array.from(a.out).buffer)), want);

  // Protocol version 3: a one-element view arrives at its offset, after poison
  // and before the margin of poison that follows every input.
  const poison = -1515870811; // 0xA5A5A5A5
  w.child.stdin.write(evalQuestion(5, tensor([1, 1], [4, -1], 3, [poison, poison, poison, 42,
                                                                  poison, poison]), [1, 1], 1));
  a = readAnswer((await w.next()).payload);
  assert.equal(a.status, 0, a.message);
  assert.deepEqual(Array.from(new Int32Array(Uint8Array.from(a.out).buffer)), [42]);

  // No room in the harness's buffer: the shape comes back, the values do not.
  w.child.stdin.write(evalQuestion(6, tensor([2, 3], [-1, 2], 1, data), [2, 3], 5));
  a = readAnswer((await w.next()).payload);
  assert.deepEqual([a.status, a.dims, a.out.length], [0, [2, 3], 0]);

  // A view reaching outside its data is the harness's error: an internal error, not a crash.
  w.child.stdin.write(evalQuestion(7, tensor([3], [3], 0, [1, 2, 3]), [3], 3));
  a = readAnswer((await w.next()).payload);
  assert.equal(a.status, 3);
  assert.match(a.message, /outside the data/);

  // Trailing bytes after the last field.
  w.child.stdin.write(frame(0x10, 8, Buffer.concat([params([[1]]), Buffer.of(0)])));
  a = readAnswer((await w.next()).payload);
  assert.equal(a.status, 3);
  assert.match(a.message, /1 bytes after its last field/);

  // EVAL_SHM (PROTOCOL.md): HELLO sets features bit 6; the input's elements
  // are in a shared file (its own page, poison around), the output goes at
  // out_offset in it, the ANSWER carries no bytes, and nothing else in the
  // file changes.
  const fs = require('node:fs');
  const os = require('node:os');
  const helloFeatures = (p) => {
    let at = 4;
    for (let k = 0; k < 3; k++) at += 4 + p.readUInt32LE(at); // name, version, description
    return p.readUInt32LE(at);
  };
  assert.equal(helloFeatures(hello.payload) & 64, 64, 'HELLO features bit 6: takes EVAL_SHM');
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'bcwire-')), 'shm');
  const shmData = Buffer.alloc(3 * 4096, 0xa5);
  Buffer.from(Int32Array.from(data).buffer).copy(shmData, 4096); // input 0 at 4096
  fs.writeFileSync(file, shmData);
  const shmTensor = (dims, strides, offset, nelem, at) => Buffer.concat([
    u32(3, dims.length), i64(...dims), i64(...strides), i64(offset, nelem), i64(at),
  ]);
  const shmQuestion = (seq, t, dims, capacity, size, outOffset) => frame(0x13, seq, Buffer.concat([
    u32(0, 0), i32(0), params([dims]), u32(3), i64(capacity),
    u32(Buffer.byteLength(file)), Buffer.from(file), i64(size, outOffset, 256), u32(1), t,
  ]));
  w.child.stdin.write(shmQuestion(9, shmTensor([2, 3], [-1, 2], 1, data.length, 4096), [2, 3], 6,
                                  shmData.length, 8192));
  f = await w.next();
  a = readAnswer(f.payload);
  assert.deepEqual([f.seq, a.status, a.dims, a.out.length], [9, 0, [2, 3], 0], a.message);
  const after = fs.readFileSync(file);
  assert.deepEqual(Array.from(new Int32Array(Uint8Array.from(after.subarray(8192, 8192 + 24)).buffer)), want);
  const untouched = Buffer.from(shmData);
  after.copy(untouched, 8192, 8192, 8192 + 24);
  assert.ok(after.equals(untouched), 'only the output changed in the shared file');
  // An input that passes the file's end is the harness's error: an internal error.
  w.child.stdin.write(shmQuestion(10, shmTensor([3], [1], 0, 3, shmData.length - 8), [3], 3,
                                  shmData.length, 8192));
  a = readAnswer((await w.next()).payload);
  assert.equal(a.status, 3);
  assert.match(a.message, /pass the shared file/);
  // A worker answering float64 for int32 (the right count, twice the bytes):
  // an internal error, by the frame and by the file, and the shared file
  // keeps every byte (48 bytes at 8192 would have run into the guard).
  const wide = startWorker({ ECHO_WIDE: '1' });
  await wide.next(); // HELLO
  fs.writeFileSync(file, shmData);
  wide.child.stdin.write(shmQuestion(1, shmTensor([2, 3], [-1, 2], 1, data.length, 4096), [2, 3], 6,
                                     shmData.length, 8192));
  a = readAnswer((await wide.next()).payload);
  assert.deepEqual([a.status, a.out.length], [3, 0]);
  assert.match(a.message, /8 bytes each, the question's int32 4/);
  assert.ok(fs.readFileSync(file).equals(shmData), 'a wrong answer writes nothing in the shared file');
  wide.child.stdin.write(evalQuestion(2, tensor([2, 3], [-1, 2], 1, data), [2, 3], 6));
  a = readAnswer((await wide.next()).payload);
  assert.deepEqual([a.status, a.out.length], [3, 0]);
  assert.match(a.message, /8 bytes each/);
  wide.child.stdin.end();
  assert.equal(await wide.exited, 0);
  fs.rmSync(path.dirname(file), { recursive: true });

  // End of input: the worker exits 0.
  w.child.stdin.end();
  assert.equal(await w.exited, 0);

  // Past 72 operands (RULES.md §9.5): a worker declaring more says version 4
  // and takes questions of up to 136 shapes; one declaring at most 72 says 3,
  // as before, so a harness of version 3 still takes it.
  const wire = require('../bcwire');
  const hello72 = { name: 'x', version: '1', description: '', features: 1, rules: 2, ops: 0, dtypes: 0, maxRank: 64 };
  assert.equal(wire.encodeHello({ ...hello72, maxOperands: 72 }).readUInt32LE(0), 3);
  assert.equal(wire.encodeHello({ ...hello72, maxOperands: 73 }).readUInt32LE(0), 4);
  assert.throws(() => wire.encodeHello({ ...hello72, maxOperands: 137 }), /1 to 136/);
  const many = startWorker({ ECHO_MAX_OPERANDS: '136' });
  const h4 = await many.next();
  assert.equal(h4.payload.readUInt32LE(0), 4, 'protocol version 4 past 72 operands');
  const shapes = Array.from({ length: 136 }, (_, i) => [i, 1]);
  many.child.stdin.write(shapeQuestion(1, shapes));
  f = await many.next();
  a = readAnswer(f.payload);
  assert.deepEqual([f.seq, a.status, a.dims], [1, 0, [0, 1]], '136 shapes arrive');
  many.child.stdin.end();
  assert.equal(await many.exited, 0);

  // A library that cannot be loaded: FATAL instead of HELLO, exit 2.
  const broken = startWorker({ ECHO_FAIL_LOAD: '1' });
  const fatal = await broken.next();
  assert.equal(fatal.type, 0x02);
  const len = fatal.payload.readUInt32LE(0);
  assert.equal(fatal.payload.toString('utf8', 4, 4 + len),
    'echo_worker is not available: the library is missing (a test)');
  assert.equal(await broken.exited, 2);
  console.log('bcwire_test: all checks passed');
}

main().catch((e) => { console.error(e); process.exit(1); });
