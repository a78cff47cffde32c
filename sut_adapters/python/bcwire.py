"""The worker side of broadcheck's wire protocol (wire/PROTOCOL.md).

Standard library only: the three workers beside this file (numpy, torch,
onnx) import it before they try to import their library, so that a missing
library can still be reported with a FATAL frame.

A worker does:

    channel = bcwire.Channel()          # first: takes stdout for the protocol
    try:
        import numpy
    except Exception as e:              # missing or broken: "not available"
        channel.fatal("numpy not available: %s" % e)
    channel.serve(caps, shape_fn, eval_fn)

shape_fn(params, shapes) returns the result shape (a list of ints);
eval_fn(request) returns (shape, bytes of the result row-major);
partial_fn(params, shapes, symbols), optional, answers a partial-shape
question (spec/RULES.md §14; protocol 2): each shape is None (unknown rank)
or a list of PDim(lo, hi, symbol), hi None for no upper bound, symbol 0 or
an index into `symbols` (1-based); it returns a shape of the same kind (a
symbol it makes up is a number above len(symbols)).  Each raises Rejected (not broadcastable, with an error kind if the library names
one), Unsupported (the library cannot answer this one), or anything else (the
library failed: answered as an internal error with the exception's text).
"""
import mmap
import os
import struct
import sys

# Version 3: EVAL inputs arrive with their offsets as the harness laid them out
# (Tensor handles any offset); its HELLO has version 2's partial field.
# Version 4 only lets max_operands pass 72: a worker declaring at most 72 says
# 3, byte for byte as before, so an older harness still takes it (PROTOCOL.md,
# Versioning).
# Version 5 only lets a PSHAPE carry an axes_mapping of unknown values (option
# OPT_AXES_UNKNOWN), to a worker declaring PARTIAL_AXES_UNKNOWN: only such a
# worker says 5.
PROTOCOL_VERSION = 5
PROTOCOL_MANY_OPERANDS = 4
PROTOCOL_AXES_UNKNOWN = 5
HELLO, FATAL, SHAPE, EVAL, PSHAPE, ANSWER = 0x01, 0x02, 0x10, 0x11, 0x12, 0x20
EVAL_SHM = 0x13  # a value question in a shared file: only to a worker declaring FEATURE_SHM
MAX_PAYLOAD = 256 << 20

# ---- enum values, fixed by include/broadcheck/adapter.h --------------------

RULE_NONE, RULE_NUMPY, RULE_ONNX_UNI, RULE_PDPD, RULE_BROADCAST_TO, \
    RULE_BIDIRECTIONAL, RULE_EXPLICIT, RULE_MATMUL = range(8)
PROFILE_DEFAULT = 0
PROFILE_PYTORCH_EXPAND = 4  # broadcast-to: a -1 target dim keeps the input's (RULES.md §6.1)
PROFILE_NUMPY_EMPTY_FOLD = 10  # numpy: no shape gives [] (RULES.md §3.1), shapes only
OPT_AXIS, OPT_PROFILE, OPT_AXES, OPT_AXES_MAPPING = 1, 2, 4, 8
# PSHAPE only (protocol 5): with OPT_AXES_MAPPING, the mapping's values are
# unknown (spec/RULES.md §14.9); Params.axes is then None and Params.naxes its
# length, None if that is unknown too.
OPT_AXES_UNKNOWN = 16
NAXES_UNKNOWN = 0xFFFFFFFF

BOOL, INT8, UINT8, INT32, INT64, FLOAT32, FLOAT64, FLOAT16 = range(8)
DTYPE_NAMES = ("bool", "int8", "uint8", "int32", "int64", "float32", "float64", "float16")
DTYPE_SIZE = (1, 1, 1, 4, 8, 4, 8, 2)
FLOAT_DTYPES = (FLOAT32, FLOAT64, FLOAT16)

ADD, SUB, MUL, DIV, MAX, MIN, EQUAL, LESS, AND, OR = range(10)
OP_NAMES = ("add", "sub", "mul", "div", "max", "min", "equal", "less", "and", "or")

VALUE_ELEMENTWISE, VALUE_SELECT, VALUE_BROADCAST, VALUE_SUM_TO_SHAPE, VALUE_MATMUL = range(5)

FEATURE_SHAPE, FEATURE_ELEMENTWISE, FEATURE_SELECT, FEATURE_BROADCAST, \
    FEATURE_SUM_TO_SHAPE = 1, 2, 4, 8, 16
FEATURE_MATMUL = 32  # appended to protocol 3, like rule 7: an older harness refuses the bit
# Takes EVAL_SHM questions (PROTOCOL.md, "EVAL_SHM"): a transport feature, which
# serve() implements for any eval_fn; appended the same way as FEATURE_MATMUL.
# Declare it only with --memory-mb room for the mapping (the worker maps the
# whole file: a huge question's inputs and output).
FEATURE_SHM = 64

OK, REJECTED, UNSUPPORTED, INTERNAL_ERROR = range(4)

ERR_UNKNOWN, ERR_RANK_MISMATCH, ERR_DIM_MISMATCH, ERR_RANK_TOO_LARGE, \
    ERR_AXIS_OUT_OF_RANGE, ERR_WINDOW_OUT_OF_RANGE, ERR_AXES_DUPLICATE, \
    ERR_AXES_UNSORTED, ERR_AXES_COUNT, ERR_NEGATIVE_DIM, ERR_OPERAND_COUNT, \
    ERR_BAD_PARAMS, ERR_OVERFLOW = range(13)

MAX_RANK = 64       # the protocol's limits (PROTOCOL.md, HELLO)
MAX_OPERANDS = 136  # version 4's; none and numpy take up to 128 (RULES.md §9.5)
V3_MAX_OPERANDS = 72  # versions 1 to 3's, and the default a worker declares
UNBOUNDED = (1 << 63) - 1  # hi of a dim with no upper bound, on the wire

# Partial shapes a worker takes (Capabilities.partial, protocol 2).
PARTIAL_DYNAMIC, PARTIAL_INTERVAL, PARTIAL_SYMBOL, PARTIAL_DYNAMIC_RANK = 1, 2, 4, 8
PARTIAL_AXES_UNKNOWN = 16  # explicit's axes_mapping of unknown values (protocol 5)


def bits(*values):
    """The mask with bit `1 << v` for each v: rules, ops, dtypes."""
    mask = 0
    for v in values:
        mask |= 1 << v
    return mask


class Rejected(Exception):
    """The library refused the question: not broadcastable or invalid input."""

    def __init__(self, message, kind=ERR_UNKNOWN):
        super().__init__(message)
        self.kind = kind


class Unsupported(Exception):
    """The library cannot answer this question (never counted as a pass)."""


# ---- what a question carries -------------------------------------------------

class Params:
    """A rule and its options, as in the SHAPE payload."""

    def __init__(self, rule, options, profile, axis, axes, naxes=None):
        self.rule, self.options, self.profile = rule, options, profile
        self.axis, self.axes = axis, axes
        self.naxes = len(axes) if axes is not None else naxes

    def has_options(self):
        """Any option beyond the rule's defaults (an axis, axes, a profile)."""
        return bool(self.options & (OPT_AXIS | OPT_AXES | OPT_AXES_MAPPING)) or \
            bool(self.options & OPT_PROFILE and self.profile != PROFILE_DEFAULT)


class Tensor:
    """A strided view over the elements that came with it (PROTOCOL.md).

    Element (i0, ...) is element number offset + sum(i_k * strides[k]) of
    `data`; strides may be negative, 0 or leave gaps."""

    def __init__(self, dtype, dims, strides, offset, nelem, data, shared=False):
        self.dtype, self.dims, self.strides = dtype, dims, strides
        self.offset, self.nelem, self.data = offset, nelem, data
        # shared: data is a read-only view of the harness's shared file (EVAL_SHM),
        # its first element at a multiple of 4096 bytes: aligned, no copy needed
        self.shared = shared

    def numel(self):
        n = 1
        for d in self.dims:
            n *= d
        return n

    def positive_strides(self):
        """The same view with no negative stride, for libraries that have none
        (torch): returns (strides, offset, flipped axes).  An axis walked
        backwards starts at its last element instead and is listed in
        `flipped`, so the caller reverses it (a copy in torch); a negative
        stride on an axis of size <= 1 is never used, so it is just dropped."""
        strides, offset, flipped = list(self.strides), self.offset, []
        for k, (d, s) in enumerate(zip(self.dims, self.strides)):
            if s >= 0:
                continue
            if d > 1:
                offset += (d - 1) * s
                flipped.append(k)
            strides[k] = -s
        return strides, offset, flipped


class PDim:
    """A partial dim: any value in lo..hi (hi None: no upper bound), and a
    symbol (0: none; k: the question's k-th symbol, or the worker's own above
    them)."""

    __slots__ = ("lo", "hi", "symbol")

    def __init__(self, lo, hi, symbol=0):
        self.lo, self.hi, self.symbol = lo, hi, symbol

    def is_static(self):
        return self.hi == self.lo

    def is_unknown(self):
        return self.lo == 0 and self.hi is None

    def __repr__(self):
        return "PDim(%r, %r, %r)" % (self.lo, self.hi, self.symbol)


class EvalRequest:
    def __init__(self, kind, op, operand, params, shapes, out_dtype, capacity, inputs):
        self.kind, self.op, self.operand = kind, op, operand
        self.params, self.shapes = params, shapes
        self.out_dtype, self.capacity, self.inputs = out_dtype, capacity, inputs
        # EVAL_SHM: the mapped file (an mmap) and where the output goes in it
        self.shm, self.out_offset = None, 0


class Capabilities:
    """What the HELLO declares.  Declare only what the library really does:
    the harness answers everything else "unsupported" without asking."""

    def __init__(self, name, version, description, features, rules, ops=0, dtypes=0,
                 max_rank=MAX_RANK, max_operands=V3_MAX_OPERANDS, profiles=0, partial=0):
        if not 1 <= max_operands <= MAX_OPERANDS:
            raise ValueError("max_operands %d: the protocol carries 1 to %d"
                             % (max_operands, MAX_OPERANDS))
        self.name, self.version, self.description = name, version, description
        self.features, self.rules, self.profiles = features, rules, profiles
        self.partial = partial  # PARTIAL_* taken (0: none)
        self.ops, self.dtypes = ops, dtypes
        self.max_rank, self.max_operands = max_rank, max_operands


# ---- decoding ------------------------------------------------------------------

class _Reader:
    def __init__(self, payload):
        self.p, self.at = payload, 0

    def take(self, fmt):
        size = struct.calcsize(fmt)
        if self.at + size > len(self.p):
            raise ValueError("truncated question: %d bytes needed at offset %d, %d left"
                             % (size, self.at, len(self.p) - self.at))
        v = struct.unpack_from(fmt, self.p, self.at)
        self.at += size
        return v[0] if len(v) == 1 else v

    def ints(self, n):
        return list(self.take("<%dq" % n)) if n > 1 else ([self.take("<q")] if n else [])

    def raw(self, n):
        if n < 0 or self.at + n > len(self.p):
            raise ValueError("truncated question: %d data bytes at offset %d" % (n, self.at))
        v = self.p[self.at:self.at + n]
        self.at += n
        return v

    def done(self):
        if self.at != len(self.p):
            raise ValueError("%d unexpected bytes after the question" % (len(self.p) - self.at))


def _read_params(r):
    rule, options, profile, axis, naxes = r.take("<IIIqI")
    axes = r.ints(naxes)
    n = r.take("<I")
    shapes = [r.ints(r.take("<I")) for _ in range(n)]
    return Params(rule, options, profile, axis, axes), shapes


def _read_tensor(r):
    dtype, rank = r.take("<II")
    if dtype >= len(DTYPE_SIZE) or rank > MAX_RANK:
        raise ValueError("bad tensor header: dtype %d, rank %d" % (dtype, rank))
    dims, strides = r.ints(rank), r.ints(rank)
    offset, nelem = r.take("<qq")
    data = r.raw(nelem * DTYPE_SIZE[dtype])
    return Tensor(dtype, dims, strides, offset, nelem, data)


def decode_shape(payload):
    r = _Reader(payload)
    params, shapes = _read_params(r)
    r.done()
    return params, shapes


def _read_pshape(r, nsymbols):
    rank = r.take("<i")
    if rank < -1 or rank > MAX_RANK:
        raise ValueError("bad partial shape: rank %d" % rank)
    if rank < 0:
        return None
    dims = []
    for _ in range(rank):
        lo, hi, symbol = r.take("<qqI")
        if lo > hi or symbol > nsymbols:
            raise ValueError("bad partial dim %d..%d, symbol %d" % (lo, hi, symbol))
        dims.append(PDim(lo, None if hi == UNBOUNDED else hi, symbol))
    return dims


def decode_pshape(payload):
    """A PSHAPE payload: (params, shapes, symbol names)."""
    r = _Reader(payload)
    rule, options, profile, axis, naxes = r.take("<IIIqI")
    if options & ~(OPT_AXIS | OPT_PROFILE | OPT_AXES | OPT_AXES_MAPPING | OPT_AXES_UNKNOWN):
        raise ValueError("unknown option bits 0x%x" % options)
    if options & OPT_AXES_UNKNOWN:
        # protocol 5: the mapping's length alone (all ones: unknown too), no entries
        if options & (OPT_AXES | OPT_AXES_MAPPING) != OPT_AXES_MAPPING:
            raise ValueError("option 16 (an axes_mapping of unknown values) needs 8, not 4")
        if naxes != NAXES_UNKNOWN and naxes > MAX_RANK:
            raise ValueError("an axes_mapping of %d unknown entries" % naxes)
        axes, naxes = None, (None if naxes == NAXES_UNKNOWN else naxes)
    else:
        axes = r.ints(naxes)
    symbols = [bytes(r.raw(r.take("<I"))).decode("utf-8") for _ in range(r.take("<I"))]
    shapes = [_read_pshape(r, len(symbols)) for _ in range(r.take("<I"))]
    r.done()
    return Params(rule, options, profile, axis, axes, naxes), shapes, symbols


def decode_eval(payload):
    r = _Reader(payload)
    kind, op, operand = r.take("<IIi")
    params, shapes = _read_params(r)
    out_dtype, capacity, ninputs = r.take("<IqI")
    inputs = [_read_tensor(r) for _ in range(ninputs)]
    r.done()
    return EvalRequest(kind, op, operand, params, shapes, out_dtype, capacity, inputs)


def decode_eval_shm(payload):
    """An EVAL_SHM payload, its file mapped: each input's data is a read-only
    memoryview of the file; the output goes at req.out_offset of req.shm."""
    r = _Reader(payload)
    kind, op, operand = r.take("<IIi")
    params, shapes = _read_params(r)
    out_dtype, capacity = r.take("<Iq")
    path = bytes(r.raw(r.take("<I"))).decode("utf-8")
    size, out_offset, guard, ninputs = r.take("<qqqI")
    if out_dtype >= len(DTYPE_SIZE) or size <= 0 or out_offset < 0 or guard < 0 or \
            out_offset + capacity * DTYPE_SIZE[out_dtype] + guard > size:
        raise ValueError("bad shared file: %d bytes, output at %d" % (size, out_offset))
    headers = []
    for _ in range(ninputs):
        dtype, rank = r.take("<II")
        if dtype >= len(DTYPE_SIZE) or rank > MAX_RANK:
            raise ValueError("bad tensor header: dtype %d, rank %d" % (dtype, rank))
        dims, strides = r.ints(rank), r.ints(rank)
        offset, nelem, at = r.take("<qqq")
        if nelem < 0 or at < 0 or at + nelem * DTYPE_SIZE[dtype] > size:
            raise ValueError("input of %d elements at byte %d of %d" % (nelem, at, size))
        headers.append((dtype, dims, strides, offset, nelem, at))
    r.done()
    try:
        with open(path, "r+b") as f:  # the mapping keeps the file
            shm = mmap.mmap(f.fileno(), size)
    except (OSError, ValueError) as e:  # no room to map it: not the library's doing
        raise Unsupported("cannot map the shared file of %d bytes: %s" % (size, e))
    view = memoryview(shm).toreadonly()
    inputs = [Tensor(dtype, dims, strides, offset, nelem,
                     view[at:at + nelem * DTYPE_SIZE[dtype]], shared=True)
              for dtype, dims, strides, offset, nelem, at in headers]
    req = EvalRequest(kind, op, operand, params, shapes, out_dtype, capacity, inputs)
    req.shm, req.out_offset = shm, out_offset
    req.input_offsets = [h[5] for h in headers]
    return req


# ---- encoding ------------------------------------------------------------------

def _text(s, limit):
    b = s.encode("utf-8", "replace").replace(b"\0", b" ")[:limit]
    return struct.pack("<I", len(b)) + b


def _frame(kind, seq, payload):
    return b"bc" + struct.pack("<HII", kind, seq, len(payload)) + payload


def hello_version(c):
    """The version the HELLO says: 5 only for a worker taking an axes_mapping
    of unknown values, 4 only where it is needed (more than 72 operands), so
    that an older harness still takes every other worker."""
    if getattr(c, "partial", 0) & PARTIAL_AXES_UNKNOWN:
        return PROTOCOL_AXES_UNKNOWN
    return PROTOCOL_MANY_OPERANDS if c.max_operands > V3_MAX_OPERANDS else 3


def encode_hello(c):
    description = c.description
    return (struct.pack("<I", hello_version(c)) +
            _text(c.name, 255) + _text(c.version, 255) + _text(description, 1023) +
            struct.pack("<8I", c.features, c.rules, c.profiles, c.ops, c.dtypes,
                        c.max_rank, c.max_operands, getattr(c, "partial", 0)))


def encode_answer(status, kind=0, shape=(), message="", out=b""):
    shape = [int(d) for d in shape]
    return (struct.pack("<4I", status, kind, 0, len(shape)) +
            struct.pack("<%dq" % len(shape), *shape) + _text(message, 4095) +
            struct.pack("<q", len(out)) + out)


def encode_panswer(status, kind=0, shape=(), message=""):
    """The ANSWER to a PSHAPE: shape None is of unknown rank."""
    if shape is None:
        dims = struct.pack("<i", -1)
    else:
        dims = struct.pack("<i", len(shape)) + b"".join(
            struct.pack("<qqI", int(d.lo), UNBOUNDED if d.hi is None else int(d.hi),
                        int(d.symbol)) for d in shape)
    return struct.pack("<3I", status, kind, 0) + dims + _text(message, 4095)


def _one_line(e):
    text = " ".join(str(e).split())
    return "%s: %s" % (type(e).__name__, text) if text else type(e).__name__


# ---- the channel -----------------------------------------------------------------

class Channel:
    """Owns the protocol stream.  Created first thing: it moves the real
    stdout aside and points file descriptor 1 at stderr, so that nothing the
    library prints (from Python or from C) can corrupt the stream."""

    def __init__(self):
        out_fd = os.dup(1)
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        self.out = os.fdopen(out_fd, "wb")
        self.inp = sys.stdin.buffer

    def _send(self, kind, seq, payload):
        self.out.write(_frame(kind, seq, payload))
        self.out.flush()

    def fatal(self, message):
        """Cannot serve (instead of HELLO): broadcheck reports the message as
        "not available" and exits 2.  Does not return."""
        self._send(FATAL, 0, _text(message, 4095))
        sys.exit(1)

    def _read_exact(self, n):
        chunks, left = [], n
        while left > 0:
            b = self.inp.read(left)
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        return b"".join(chunks)

    def serve(self, caps, shape_fn, eval_fn, partial_fn=None):
        """HELLO, then one answer per question until the harness closes stdin.
        partial_fn answers PSHAPE questions; give it with caps.partial."""
        self._send(HELLO, 0, encode_hello(caps))
        while True:
            head = self._read_exact(12)
            if not head:
                return 0  # the harness is done
            if len(head) < 12 or head[:2] != b"bc":
                sys.stderr.write("bcwire: malformed frame header from the harness\n")
                return 2
            kind, seq, length = struct.unpack("<HII", head[2:])
            payload = self._read_exact(length) if length <= MAX_PAYLOAD else b""
            if kind not in (SHAPE, EVAL, PSHAPE, EVAL_SHM) or len(payload) != length:
                sys.stderr.write("bcwire: unexpected frame 0x%x of %d bytes\n" % (kind, length))
                return 2
            if kind == PSHAPE:
                self._send(ANSWER, seq, _respond_partial(payload, partial_fn,
                                                         getattr(caps, "partial", 0)))
            else:
                self._send(ANSWER, seq, _respond(kind, payload, shape_fn, eval_fn))


def _respond(kind, payload, shape_fn, eval_fn):
    req = None
    try:
        if kind == SHAPE:
            return encode_answer(OK, shape=shape_fn(*decode_shape(payload)))
        req = decode_eval_shm(payload) if kind == EVAL_SHM else decode_eval(payload)
        shape, out = eval_fn(req)
        count = 1
        for d in shape:
            count *= d
        # The harness has room for the reference's result only; a larger
        # answer is caught by its shape, so its values are not sent.
        if out is IN_PLACE:  # computed into shm_output's array
            if req.shm is None or count > req.capacity:
                raise RuntimeError("an answer said to be in place for a question without room")
            out = b""
        elif count > req.capacity:
            out = b""
        elif req.shm is not None:  # the output goes into the shared file
            if len(out) != count * DTYPE_SIZE[req.out_dtype]:
                raise RuntimeError("the worker computed %d output bytes for %d elements"
                                   % (len(out), count))
            req.shm[req.out_offset:req.out_offset + len(out)] = out
            out = b""
        return encode_answer(OK, shape=shape, out=out)
    except Rejected as e:
        return encode_answer(REJECTED, e.kind, message=" ".join(str(e).split()))
    except Unsupported as e:
        return encode_answer(UNSUPPORTED, message=str(e))
    except MemoryError as e:
        if req is None or req.shm is None:
            return encode_answer(INTERNAL_ERROR, message=_one_line(e))
        # a huge question past the worker's memory limit: the limit's doing,
        # not the library's (never a pass either)
        return encode_answer(UNSUPPORTED, message="not examined: the worker ran out of memory "
                             "on a shared-file question (--memory-mb covers the file and the "
                             "library's own arrays): " + _one_line(e))
    except Exception as e:  # the library (or this adapter) failed: say how, carry on
        return encode_answer(INTERNAL_ERROR, message=_one_line(e))
    finally:
        _unmap(req)


# What eval_fn returns instead of the output's bytes when it computed them in
# place, into shm_output's array (an EVAL_SHM question only).
IN_PLACE = object()


def shm_output(req, numpy, shape, dtype):
    """For an EVAL_SHM question: the output's room in the shared file as a
    writable NumPy array of `shape` and `dtype` (the question's out_dtype), for
    a library that computes in place (numpy's ufuncs with out=: a huge result
    is then not held twice); eval_fn returns (shape, IN_PLACE).  None for a
    question that came in a frame, or a shape past the harness's room."""
    count = numel(shape)
    if req.shm is None or count > req.capacity or dtype.itemsize != DTYPE_SIZE[req.out_dtype]:
        return None
    return numpy.frombuffer(req.shm, dtype, count, req.out_offset).reshape(shape)


def _unmap(req):
    """Lets go of an EVAL_SHM question's file: closed now, or (while a view
    of it is still alive) when the last one goes."""
    if req is None or req.shm is None:
        return
    shm, req.shm, req.inputs = req.shm, None, []
    try:
        shm.close()
    except BufferError:
        pass


def _respond_partial(payload, partial_fn, partial=0):
    try:
        if partial_fn is None:
            raise Unsupported("this worker takes no partial shapes")
        params, shapes, symbols = decode_pshape(payload)
        if params.options & OPT_AXES_UNKNOWN and not partial & PARTIAL_AXES_UNKNOWN:
            raise Unsupported("this worker takes no axes_mapping of unknown values")
        return encode_panswer(OK, shape=partial_fn(params, shapes, symbols))
    except Rejected as e:
        return encode_panswer(REJECTED, e.kind, message=" ".join(str(e).split()))
    except Unsupported as e:
        return encode_panswer(UNSUPPORTED, message=str(e))
    except Exception as e:
        return encode_panswer(INTERNAL_ERROR, message=_one_line(e))


def classify(message, table):
    """The error kind for a library's exception text: the first (substring,
    kind) of `table` found in it, else ERR_UNKNOWN."""
    for needle, kind in table:
        if needle in message:
            return kind
    return ERR_UNKNOWN


def check_operand_count(shapes, count):
    """The library call takes exactly `count` tensors (its signature)."""
    if len(shapes) != count:
        raise Rejected("the call takes %d operands, %d given" % (count, len(shapes)),
                       ERR_OPERAND_COUNT)


def require_equal_shapes(shapes, library):
    """Rule none for a library whose operations always broadcast: only equal
    shapes can be asked, anything else is a question it cannot express."""
    if any(s != shapes[0] for s in shapes):
        raise Unsupported("rule none: %s broadcasts unequal shapes; it has no operation "
                          "that refuses them" % library)


def array_answer(library, a, dtype, out_dtype):
    """A value answer from a NumPy array a, which must have the question's
    dtype (dtype, the NumPy dtype of out_dtype): (shape, row-major bytes)."""
    if a.dtype != dtype:
        raise RuntimeError("%s computed %s, the question is for %s"
                           % (library, a.dtype, DTYPE_NAMES[out_dtype]))
    # the bytes as a view of a C-contiguous array (a copy only if a is not
    # one): a huge result is not held twice
    import numpy  # the caller has it: a is a NumPy array
    c = numpy.ascontiguousarray(a)
    return list(a.shape), c.reshape(-1).view(numpy.uint8).data


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n
