'use strict';
/*
 * The broadcheck wire protocol, version 3 (wire/PROTOCOL.md), for
 * workers written in Node: framing on stdin/stdout, HELLO / FATAL, decoding
 * SHAPE and EVAL questions (strided tensors gathered into dense row-major
 * arrays), encoding ANSWERs.  A worker calls
 *
 *     serve(name, async () => ({ hello, shape(q), eval(q) }))
 *
 * where the function loads the wrapped library.  If it throws, the worker
 * sends FATAL (broadcheck then reports the SUT "not available" and exits 2)
 * instead of HELLO.  shape(q) and eval(q) return an answer (ok(...)) or
 * throw: Rejected and Unsupported become those statuses, anything else an
 * INTERNAL_ERROR answer carrying the exception's message.
 */

// Version 3: EVAL inputs arrive with their offsets as the harness laid them
// out (readTensor handles any offset); the HELLO has version 2's partial field.
// Version 4 only lets maxOperands pass 72: a worker declaring at most 72 says
// 3, byte for byte as before, so an older harness still takes it
// (wire/PROTOCOL.md, Versioning).
const PROTOCOL_VERSION = 4;
const MAX_OPERANDS = 136; // version 4's; none and numpy take up to 128 (RULES.md §9.5)
const V3_MAX_OPERANDS = 72; // versions 1 to 3's
const MAGIC = 0x6362; // the bytes 'b' 'c', little-endian
const HEADER = 12;
const MAX_PAYLOAD = 256 * 1024 * 1024;
const MSG = { HELLO: 0x01, FATAL: 0x02, SHAPE: 0x10, EVAL: 0x11, EVAL_SHM: 0x13, ANSWER: 0x20 };
const STATUS = { OK: 0, REJECTED: 1, UNSUPPORTED: 2, INTERNAL_ERROR: 3 };

// The fixed enums of include/broadcheck/adapter.h.
const RULE = { none: 0, numpy: 1, 'onnx-uni': 2, pdpd: 3, 'broadcast-to': 4, bidirectional: 5, explicit: 6, matmul: 7 };
const RULE_NAME = Object.fromEntries(Object.entries(RULE).map(([k, v]) => [v, k]));
const OPT = { AXIS: 1, PROFILE: 2, AXES: 4, AXES_MAPPING: 8 };
const DTYPES = ['bool', 'int8', 'uint8', 'int32', 'int64', 'float32', 'float64', 'float16'];
const DTYPE_SIZE = { bool: 1, int8: 1, uint8: 1, int32: 4, int64: 8, float32: 4, float64: 8, float16: 2 };
const OPS = ['add', 'sub', 'mul', 'div', 'max', 'min', 'equal', 'less', 'and', 'or'];
const KIND = { ELEMENTWISE: 0, SELECT: 1, BROADCAST: 2, SUM_TO_SHAPE: 3, MATMUL: 4 };
const KIND_NAME = ['elementwise', 'select', 'broadcast', 'sum-to-shape', 'matmul'];
// MATMUL (bit 5): appended to protocol 3, like rule 7 (wire/PROTOCOL.md, Versioning)
const FEATURE = { SHAPE: 1, ELEMENTWISE: 2, SELECT: 4, BROADCAST: 8, SUM_TO_SHAPE: 16, MATMUL: 32 };
// Bit 6, EVAL_SHM (PROTOCOL.md "EVAL_SHM", appended like bit 5): bcwire.js
// takes such questions for a worker that adds FEATURE_SHM to its features
// (as bcwire.py's workers do): a question past the frame limit then reaches
// the library, so a worker declares it only where its library can hold it.
const FEATURE_SHM = 64;
const ERR = {
  UNKNOWN: 0, RANK_MISMATCH: 1, DIM_MISMATCH: 2, RANK_TOO_LARGE: 3, AXIS_OUT_OF_RANGE: 4,
  WINDOW_OUT_OF_RANGE: 5, AXES_DUPLICATE: 6, AXES_UNSORTED: 7, AXES_COUNT: 8, NEGATIVE_DIM: 9,
  OPERAND_COUNT: 10, BAD_PARAMS: 11, OVERFLOW: 12,
};

// Typed arrays holding each dtype's elements as the libraries want them
// (float16: the raw IEEE binary16 bits; bool: bytes 0/1).
const TYPED = {
  bool: Uint8Array, int8: Int8Array, uint8: Uint8Array, int32: Int32Array,
  int64: BigInt64Array, float32: Float32Array, float64: Float64Array, float16: Uint16Array,
};

class Rejected extends Error {
  constructor(kind, message) { super(message); this.kind = kind; }
}
class Unsupported extends Error {}

// Bit masks for HELLO from lists of names.
const bits = (names, table) => names.reduce((m, n) => {
  const i = Array.isArray(table) ? table.indexOf(n) : table[n];
  if (i === undefined || i < 0) throw new Error(`unknown capability name ${n}`);
  return m | (1 << i);
}, 0) >>> 0;

/* ---- decoding ----------------------------------------------------------- */

class Reader {
  constructor(buf) { this.buf = buf; this.at = 0; }
  need(n, what) {
    if (this.at + n > this.buf.length) {
      throw new Error(`bad question from the harness: ${what} needs ${n} bytes at offset ${this.at}`);
    }
  }
  u32(what) { this.need(4, what); const v = this.buf.readUInt32LE(this.at); this.at += 4; return v; }
  i32(what) { this.need(4, what); const v = this.buf.readInt32LE(this.at); this.at += 4; return v; }
  i64(what) { this.need(8, what); const v = this.buf.readBigInt64LE(this.at); this.at += 8; return v; }
  i64s(n, what) { return Array.from({ length: n }, () => this.i64(what)); }
  bytes(n, what) { this.need(n, what); const v = this.buf.subarray(this.at, this.at + n); this.at += n; return v; }
  end() {
    if (this.at !== this.buf.length) {
      throw new Error(`bad question from the harness: ${this.buf.length - this.at} bytes after its last field`);
    }
  }
}

// params then shapes (PROTOCOL.md "SHAPE"); dims stay BigInt: they reach INT64_MAX.
function readParams(r) {
  const rule = r.u32('rule');
  const options = r.u32('options');
  const profile = r.u32('profile');
  const axis = r.i64('axis');
  const naxes = r.u32('naxes');
  if (naxes > 64) throw new Error(`bad question from the harness: ${naxes} axes`);
  const axes = r.i64s(naxes, 'axes');
  const n = r.u32('shape count');
  if (n > MAX_OPERANDS) throw new Error(`bad question from the harness: ${n} shapes`);
  const shapes = [];
  for (let i = 0; i < n; i++) {
    const rank = r.u32('rank');
    if (rank > 64) throw new Error(`bad question from the harness: rank ${rank}`);
    shapes.push(r.i64s(rank, 'dims'));
  }
  return { rule, ruleName: RULE_NAME[rule], options, profile, axis, axes, shapes };
}

/*
 * A strided tensor gathered into a dense row-major typed array.  Element
 * (i0..ik) is data element offset + sum(i_j * strides[j]) (PROTOCOL.md);
 * the libraries wrapped here take only dense arrays, so the worker walks
 * the view itself.  (Layout-invariance therefore checks this gather, not
 * the library's own strided kernels.)
 */
function readTensor(r, shm = null) {
  const dtype = DTYPES[r.u32('dtype')];
  if (!dtype) throw new Error('bad question from the harness: unknown dtype');
  const rank = r.u32('tensor rank');
  if (rank > 64) throw new Error(`bad question from the harness: tensor rank ${rank}`);
  const dims = r.i64s(rank, 'tensor dims');
  const strides = r.i64s(rank, 'tensor strides');
  const offset = r.i64('offset');
  const nelem = r.i64('nelem');
  const size = DTYPE_SIZE[dtype];
  let raw;
  if (shm) { // EVAL_SHM: the elements are in the shared file, at file_offset
    const at = r.i64('file_offset');
    if (nelem < 0n || at < 0n || at + nelem * BigInt(size) > shm.size) {
      throw new Error(`bad question from the harness: ${nelem} elements of ${dtype} at ${at} pass the shared file's ${shm.size} bytes`);
    }
    raw = new Uint8Array(Number(nelem) * size);
    const fs = require('node:fs');
    for (let done = 0; done < raw.length;) {
      const n = fs.readSync(shm.fd, raw, done, raw.length - done, Number(at) + done);
      if (n <= 0) throw new Error(`the shared file ended at ${Number(at) + done} bytes`);
      done += n;
    }
  } else {
    if (nelem < 0n || nelem * BigInt(size) > BigInt(r.buf.length - r.at)) {
      throw new Error(`bad question from the harness: ${nelem} elements of ${dtype} do not follow`);
    }
    // Copy to an aligned buffer: the data is not aligned inside the frame.
    raw = new Uint8Array(r.bytes(Number(nelem) * size, 'tensor data'));
  }
  const src = new TYPED[dtype](raw.buffer, 0, Number(nelem));
  let count = 1n;
  let reach = offset < 0n ? -offset : offset; // a bound on any |element number|
  for (let k = 0; k < rank; k++) {
    count *= dims[k];
    reach += dims[k] * (strides[k] < 0n ? -strides[k] : strides[k]);
  }
  if (count > BigInt(MAX_PAYLOAD)) throw new Error(`bad question from the harness: ${count} elements`);
  // Numbers are exact below 2^53, and faster than BigInt: walk with them when the bound allows.
  const N = reach < 2n ** 53n ? Number : BigInt;
  const dimsN = dims.map(N), stridesN = strides.map(N), zero = N(0), one = N(1), total = N(nelem);
  const out = new TYPED[dtype](Number(count));
  const idx = new Array(rank).fill(zero);
  for (let e = 0; e < out.length; e++) {
    let at = N(offset);
    for (let k = 0; k < rank; k++) at += idx[k] * stridesN[k];
    if (at < zero || at >= total) throw new Error(`bad question from the harness: element ${at} outside the data`);
    out[e] = src[Number(at)];
    for (let k = rank - 1; k >= 0; k--) { // row-major odometer
      idx[k] += one;
      if (idx[k] < dimsN[k]) break;
      idx[k] = zero;
    }
  }
  // `view`: the view as the harness laid it out (its data, strides and
  // offset), for a library that takes strided arrays itself.
  return { dtype, dims: dims.map(Number), values: out, view: { data: src, strides, offset } };
}

function readShapeQuestion(payload) {
  const r = new Reader(payload);
  const q = readParams(r);
  r.end();
  return q;
}

/*
 * An EVAL question, or with `shared` an EVAL_SHM one (PROTOCOL.md
 * "EVAL_SHM"): the same fields up to out_capacity, then the shared file's
 * path, size, the output's offset and guard, and each input's elements at
 * a file offset instead of in the frame.  The file is opened read-write
 * (`q.shm`: its fd, size and the output's offset; closeShared lets go of
 * it); the inputs are read from it with pread, not mapped (Node has no
 * mmap), and the result is written back at the output's offset (writeShared).
 */
function readEvalQuestion(payload, shared = false) {
  const r = new Reader(payload);
  const kind = r.u32('kind');
  const op = r.u32('op');
  const operand = r.i32('operand');
  const q = readParams(r);
  const outDtype = DTYPES[r.u32('out_dtype')];
  const outCapacity = r.i64('out_capacity');
  let shm = null;
  if (shared) {
    const len = r.u32('path length');
    if (len > 4095) throw new Error(`bad question from the harness: a path of ${len} bytes`);
    const file = r.bytes(len, 'path').toString('utf8');
    const size = r.i64('size');
    const outOffset = r.i64('out_offset');
    const outGuard = r.i64('out_guard');
    const room = outCapacity * BigInt(DTYPE_SIZE[outDtype] || 1);
    if (!outDtype || size <= 0n || outOffset < 0n || outGuard < 0n || outCapacity < 0n ||
        outOffset + room + outGuard > size) {
      throw new Error(`bad question from the harness: an output of ${outCapacity} elements at ${outOffset} (guard ${outGuard}) in a file of ${size} bytes`);
    }
    shm = { fd: require('node:fs').openSync(file, 'r+'), size, outOffset };
  }
  try {
    const ninputs = r.u32('ninputs');
    if (ninputs > MAX_OPERANDS) throw new Error(`bad question from the harness: ${ninputs} inputs`);
    const inputs = [];
    for (let i = 0; i < ninputs; i++) inputs.push(readTensor(r, shm));
    r.end();
    return Object.assign(q, {
      kind, kindName: KIND_NAME[kind], op, opName: OPS[op], operand, outDtype, outCapacity, inputs, shm,
    });
  } catch (e) {
    closeShared({ shm });
    throw e;
  }
}

// The output of an EVAL_SHM answer, row-major at the output's offset.
function writeShared(q, values) {
  const fs = require('node:fs');
  const b = new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
  // encodeAnswer checked the count and the element size; this is the last
  // line before bytes land in a file the harness reads back.
  const room = q.outCapacity * BigInt(DTYPE_SIZE[q.outDtype]);
  if (BigInt(b.length) > room) {
    throw new Error(`an output of ${b.length} bytes for a room of ${room} in the shared file`);
  }
  for (let done = 0; done < b.length;) {
    done += fs.writeSync(q.shm.fd, b, done, b.length - done, Number(q.shm.outOffset) + done);
  }
}

function closeShared(q) {
  if (q && q.shm) {
    require('node:fs').closeSync(q.shm.fd);
    q.shm = null;
  }
}

/* ---- encoding ----------------------------------------------------------- */

// A protocol string: UTF-8, one line, no NUL, cut to at most `max` bytes
// at a character boundary.
function str(s, max) {
  let text = String(s).replace(/\0/g, ' ').replace(/\s*\n\s*/g, ' ').trim();
  while (Buffer.byteLength(text, 'utf8') > max) text = text.slice(0, Math.max(0, text.length - 64));
  const b = Buffer.from(text, 'utf8');
  const len = Buffer.alloc(4);
  len.writeUInt32LE(b.length);
  return Buffer.concat([len, b]);
}

function u32s(...v) {
  const b = Buffer.alloc(4 * v.length);
  v.forEach((x, i) => b.writeUInt32LE(x >>> 0, 4 * i));
  return b;
}
function i64s(v) {
  const b = Buffer.alloc(8 * v.length);
  v.forEach((x, i) => b.writeBigInt64LE(BigInt(x), 8 * i));
  return b;
}

function frame(type, seq, payload) {
  const h = Buffer.alloc(HEADER);
  h.writeUInt16LE(MAGIC, 0);
  h.writeUInt16LE(type, 2);
  h.writeUInt32LE(seq, 4);
  h.writeUInt32LE(payload.length, 8);
  return Buffer.concat([h, payload]);
}

// The version a HELLO says: 4 only where it is needed (more than 72 operands).
function helloVersion(h) {
  if (!(h.maxOperands >= 1 && h.maxOperands <= MAX_OPERANDS)) {
    throw new Error(`maxOperands ${h.maxOperands}: the protocol carries 1 to ${MAX_OPERANDS}`);
  }
  return h.maxOperands > V3_MAX_OPERANDS ? PROTOCOL_VERSION : 3;
}

function encodeHello(h) {
  return Buffer.concat([
    u32s(helloVersion(h)), str(h.name, 255), str(h.version, 255), str(h.description, 1023),
    u32s(h.features, h.rules, h.profiles || 0, h.ops, h.dtypes, h.maxRank, h.maxOperands),
    u32s(0), // partial shapes: none
  ]);
}

/*
 * The answer to one question.  For an OK answer to EVAL, `values` (a typed
 * array of the question's out_dtype, row-major) is sent when the shape has
 * at most out_capacity elements (PROTOCOL.md "ANSWER").
 */
function encodeAnswer({ status, kind = 0, dims = [], message = '', values = null }, capacity, q = null) {
  let out = Buffer.alloc(0);
  if (status === STATUS.OK && values) {
    const count = dims.reduce((a, d) => a * BigInt(d), 1n);
    if (BigInt(values.length) !== count) {
      throw new Error(`the result has ${values.length} elements, its shape [${dims}] ${count}`);
    }
    // A typed array of another dtype (a Float64Array for a float32 output)
    // has the right length and the wrong bytes: in a shared file they would
    // run past the output's room into its guard and beyond.
    const size = q && DTYPE_SIZE[q.outDtype];
    if (size && values.byteLength !== values.length * size) {
      throw new Error(`the result's elements are ${values.byteLength / values.length} bytes each, ` +
        `the question's ${q.outDtype} ${size}`);
    }
    if (q && q.shm) { // EVAL_SHM: the output goes in the file, the ANSWER carries no bytes
      if (count <= capacity) writeShared(q, values);
    } else if (count <= capacity) {
      out = Buffer.from(values.buffer, values.byteOffset, values.byteLength);
    }
  }
  if (status !== STATUS.OK) dims = [];
  return Buffer.concat([
    u32s(status, kind, 0, dims.length), i64s(dims), str(message, 4095), i64s([out.length]), out,
  ]);
}

const ok = (dims, values = null) => ({ status: STATUS.OK, dims, values });

// An exception as an answer: the library's rejection, an unsupported
// question, or its failure (an internal error with the exception's text).
function answerFor(e) {
  if (e instanceof Rejected) return { status: STATUS.REJECTED, kind: e.kind, message: e.message };
  if (e instanceof Unsupported) return { status: STATUS.UNSUPPORTED, message: e.message };
  const text = e && e.message !== undefined ? `${e.name || 'Error'}: ${e.message}` : String(e);
  return { status: STATUS.INTERNAL_ERROR, message: text };
}

// A library's exception mapped through a worker's table of [regex, make]
// pairs: the first pattern its message matches makes a Rejected or an
// Unsupported; Rejected and Unsupported pass as they are, and any other
// exception stays itself (answerFor makes it an internal error).
function translateError(e, table) {
  if (e instanceof Rejected || e instanceof Unsupported) return e;
  const message = e && e.message ? e.message : String(e);
  for (const [re, make] of table) if (re.test(message)) return make(message);
  return e;
}

// A worker's question function with its exceptions passed through
// translateError, whether it returns an answer or a promise of one.
function guarded(fn, table) {
  return (q) => {
    let r;
    try {
      r = fn(q);
    } catch (e) {
      throw translateError(e, table);
    }
    return r && typeof r.then === 'function'
      ? r.catch((e) => { throw translateError(e, table); })
      : r;
  };
}

/* ---- the address space --------------------------------------------------- */

/*
 * (History: broadcheck's RLIMIT_AS for exec: workers is now relative to
 * their address space after the HELLO; this still keeps the workers small.)
 * broadcheck gave an exec: worker an absolute RLIMIT_AS (--memory-mb,
 * default 1024 MB).  Node reserves about 700 MB of address space at start,
 * and glibc gives each thread that allocates (V8's platform threads) a
 * malloc arena that reserves 64 MB heaps, so a worker would run out of
 * address space (std::bad_alloc in ORT, "heap out of memory" in V8) while
 * using under 100 MB.  One arena (MALLOC_ARENA_MAX=1) keeps it near 700 MB.
 * glibc reads that variable only at start, so the worker runs itself again
 * with it set; the child inherits stdin, stdout, stderr and the limits, and
 * its exit status (or killing signal) is passed on.  (The harness's
 * resident-memory watchdog then watches this small parent; RLIMIT_AS still
 * binds the child.)
 */
function rerunWithOneArena() {
  if (process.env.MALLOC_ARENA_MAX) return;
  const { spawnSync } = require('node:child_process');
  const r = spawnSync(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, MALLOC_ARENA_MAX: '1' },
  });
  if (r.error) {
    process.stderr.write(`cannot start node again with MALLOC_ARENA_MAX=1: ${r.error.message}\n`);
    process.exit(2);
  }
  if (r.signal) process.kill(process.pid, r.signal); // die the same way, for the harness's report
  process.exit(r.status === null ? 128 + require('node:os').constants.signals[r.signal] : r.status);
}

/* ---- tracing (debugging a worker) ---------------------------------------- */

// BROADCHECK_JS_TRACE=FILE appends one line per question: pid, milliseconds,
// the question in short, and the answer's status and message.
const TRACE = process.env.BROADCHECK_JS_TRACE;
function describe(q) {
  if (!q) return 'undecodable';
  const what = q.kindName ? `${q.kind === KIND.ELEMENTWISE ? q.opName : q.kindName}/${q.outDtype} ` : '';
  return `${q.ruleName} ${what}${q.shapes.map((s) => `[${s.join(',')}]`).join(' ')}`;
}
function trace(q, answer, ms) {
  if (!TRACE) return;
  const fs = require('node:fs');
  const result = answer.status === STATUS.OK
    ? `ok [${answer.dims}]` : `status ${answer.status} ${answer.message || ''}`;
  const vm = fs.readFileSync('/proc/self/status', 'utf8').match(/VmSize:\s*(\d+)/);
  const space = vm ? `${vm[1] >> 10}MB` : '?';
  fs.appendFileSync(TRACE, `${process.pid} ${ms.toFixed(1)}ms vm=${space} ${describe(q)} -> ${result}\n`);
}

/* ---- the loop ----------------------------------------------------------- */

function serve(name, load) {
  rerunWithOneArena();
  // stdout carries frames only: anything the libraries print goes to stderr.
  const rawWrite = process.stdout.write.bind(process.stdout);
  process.stdout.write = (chunk, ...rest) => process.stderr.write(chunk, ...rest);
  console.log = console.info = console.debug = console.error;

  // Frames to the harness, written in order; when the pipe is full, write()
  // queues the frame and returns false: wait for 'drain' before the next one.
  let writing = Promise.resolve();
  const send = (buf) => {
    writing = writing.then(() => new Promise((resolve) => {
      if (rawWrite(buf)) resolve(); else process.stdout.once('drain', resolve);
    }));
    return writing;
  };

  let worker;
  const chunks = [];
  let buffered = 0;
  let busy = false;
  let ended = false;

  // Takes `n` bytes off the front of the received chunks.
  const take = (n) => {
    const whole = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    chunks.length = 0;
    if (whole.length > n) chunks.push(whole.subarray(n));
    buffered -= n;
    return whole.subarray(0, n);
  };
  const peekHeader = () => (chunks[0].length >= HEADER ? chunks[0] : Buffer.concat(chunks)).subarray(0, HEADER);
  const die = (why) => {
    process.stderr.write(`${name}: ${why}\n`);
    process.exit(2);
  };

  // One question at a time, strictly in order (the harness waits for each answer).
  async function pump() {
    if (busy || !worker) return;
    busy = true;
    try {
      while (buffered >= HEADER) {
        const h = peekHeader();
        if (h.readUInt16LE(0) !== MAGIC) die('malformed frame from the harness (no "bc" magic)');
        const type = h.readUInt16LE(2);
        const seq = h.readUInt32LE(4);
        const len = h.readUInt32LE(8);
        if (len > MAX_PAYLOAD) die(`frame of ${len} bytes from the harness`);
        if (buffered < HEADER + len) break; // the rest of the frame has not arrived yet
        const payload = take(HEADER + len).subarray(HEADER);
        if (type !== MSG.SHAPE && type !== MSG.EVAL && type !== MSG.EVAL_SHM) {
          die(`unexpected frame type 0x${type.toString(16)} from the harness`);
        }
        const started = performance.now();
        let q = null;
        let answer;
        try {
          q = type === MSG.SHAPE ? readShapeQuestion(payload) : readEvalQuestion(payload, type === MSG.EVAL_SHM);
          if (TRACE) require('node:fs').appendFileSync(TRACE, `${process.pid} asked ${describe(q)}\n`);
          answer = await (type === MSG.SHAPE ? worker.shape(q) : worker.eval(q));
        } catch (e) {
          answer = answerFor(e);
        }
        const capacity = q && q.outCapacity ? q.outCapacity : 0n;
        let bytes;
        try {
          bytes = encodeAnswer(answer, capacity, q);
        } catch (e) { // e.g. values that do not match the shape
          answer = answerFor(e);
          bytes = encodeAnswer(answer, capacity, q);
        } finally {
          closeShared(q); // after the output is written, before the ANSWER goes
        }
        trace(q, answer, performance.now() - started);
        await send(frame(MSG.ANSWER, seq, bytes));
      }
    } finally {
      busy = false;
    }
    if (ended && buffered === 0) writing.then(() => process.exit(0));
    if (ended && buffered > 0 && !busy) die('stdin closed in the middle of a frame');
  }

  process.stdin.on('data', (chunk) => {
    chunks.push(chunk);
    buffered += chunk.length;
    pump().catch((e) => die(`internal error: ${e.stack || e}`));
  });
  process.stdin.on('end', () => {
    ended = true;
    pump().catch((e) => die(`internal error: ${e.stack || e}`));
  });
  process.stdin.pause(); // until HELLO is out

  (async () => {
    try {
      worker = await load();
    } catch (e) {
      // The library is not there (or broken): FATAL, never HELLO, so that
      // broadcheck reports the SUT not available (exit 2) and counts no pass.
      const why = `${name} is not available: ${e && e.message ? e.message.split('\n')[0] : e}`;
      await send(frame(MSG.FATAL, 0, str(why, 4095)));
      process.stderr.write(`${why}\n`);
      process.exit(2);
    }
    await send(frame(MSG.HELLO, 0, encodeHello(worker.hello)));
    process.stdin.resume();
  })();
}

module.exports = {
  serve, ok, bits, encodeHello, helloVersion, MAX_OPERANDS, V3_MAX_OPERANDS, Rejected, Unsupported, translateError, guarded, STATUS, RULE, OPT, DTYPES, OPS, KIND, FEATURE, ERR, TYPED,
  DTYPE_SIZE, FEATURE_SHM,
};
