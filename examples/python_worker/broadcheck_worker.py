#!/usr/bin/env python3
"""A broadcheck worker in pure Python (standard library only).

It speaks the wire protocol of wire/PROTOCOL.md on stdin/stdout and
answers like a small tensor library would: shape inference for the
right-aligned rules (none, numpy, onnx-uni, broadcast-to, bidirectional),
written from spec/RULES.md, and elementwise add and mul on int32 and float32
tensors of any strides.  It declares exactly that in its HELLO, so broadcheck
answers every other question "unsupported" without asking.

    broadcheck run --sut 'exec:python3 examples/python_worker/broadcheck_worker.py'

Copy it to wrap a Python library: replace infer_shape() and elementwise().
"""
import struct
import sys

PROTOCOL_VERSION = 3  # inputs with their offsets as laid out; HELLO with a partial field
HELLO, FATAL, SHAPE, EVAL, ANSWER = 0x01, 0x02, 0x10, 0x11, 0x20
OK, REJECTED, UNSUPPORTED, INTERNAL_ERROR = 0, 1, 2, 3

RULE_NONE, RULE_NUMPY, RULE_ONNX_UNI, RULE_PDPD, RULE_BROADCAST_TO, RULE_BIDIRECTIONAL = range(6)
OPT_AXIS, OPT_PROFILE, OPT_AXES, OPT_AXES_MAPPING = 1, 2, 4, 8
INT32, FLOAT32 = 3, 5
OP_ADD, OP_MUL = 0, 2
ELEMENTWISE = 0
# error kinds (spec/RULES.md §12; values as in include/broadcheck/adapter.h)
RANK_MISMATCH, DIM_MISMATCH, RANK_TOO_LARGE = 1, 2, 3
NEGATIVE_DIM, OPERAND_COUNT, BAD_PARAMS = 9, 10, 11

FEATURE_SHAPE, FEATURE_ELEMENTWISE = 1, 2
RULES = (1 << RULE_NONE) | (1 << RULE_NUMPY) | (1 << RULE_ONNX_UNI) | \
    (1 << RULE_BROADCAST_TO) | (1 << RULE_BIDIRECTIONAL)


class Rejected(Exception):
    def __init__(self, kind, message):
        super().__init__(message)
        self.kind = kind


class Unsupported(Exception):
    pass


# ---- the "library": shapes ---------------------------------------------------

def numpy_shape(shapes):
    """§3: right-aligned; per axis the non-1 dims must agree."""
    rank = max(len(s) for s in shapes)
    result = []
    for r in range(rank):
        dim = 1
        for s in shapes:
            k = r - (rank - len(s))
            if k < 0 or s[k] == 1:
                continue
            if dim != 1 and s[k] != dim:
                raise Rejected(DIM_MISMATCH, "dims %d and %d differ at axis %d" % (dim, s[k], r))
            dim = s[k]
        result.append(dim)
    return result


def onto(big, small):
    """§4/§6: small right-aligned onto big; each dim equal or 1."""
    if len(small) > len(big):
        raise Rejected(RANK_TOO_LARGE, "rank %d onto rank %d" % (len(small), len(big)))
    for k, d in enumerate(small):
        a = len(big) - len(small) + k
        if d != big[a] and d != 1:
            raise Rejected(DIM_MISMATCH, "%d does not broadcast onto %d at axis %d" % (d, big[a], a))
    return list(big)


def infer_shape(rule, options, profile, shapes):
    if options & (OPT_AXIS | OPT_AXES | OPT_AXES_MAPPING) or \
            (options & OPT_PROFILE and profile != 0):
        raise Rejected(BAD_PARAMS, "this rule takes no axis, axes or profile")
    binary = rule not in (RULE_NONE, RULE_NUMPY)
    if (binary and len(shapes) != 2) or not 1 <= len(shapes) <= 64:
        raise Rejected(OPERAND_COUNT, "%d shapes" % len(shapes))
    for s in shapes:
        if any(d < 0 for d in s):
            raise Rejected(NEGATIVE_DIM, "a negative dim")
    if rule == RULE_NONE:
        for s in shapes[1:]:
            if len(s) != len(shapes[0]):
                raise Rejected(RANK_MISMATCH, "ranks differ")
            if s != shapes[0]:
                raise Rejected(DIM_MISMATCH, "dims differ")
        return list(shapes[0])
    if rule in (RULE_NUMPY, RULE_BIDIRECTIONAL):
        return numpy_shape(shapes)
    if rule == RULE_ONNX_UNI:
        return onto(shapes[0], shapes[1])
    if rule == RULE_BROADCAST_TO:
        return onto(shapes[1], shapes[0])
    raise Unsupported("rule %d" % rule)


# ---- the "library": values ---------------------------------------------------

def wrap32(x):
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >= 1 << 31 else x


def to_f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def elementwise(op, dtype, shape, inputs):
    """inputs: (dims, strides, offset, data bytes); returns the result bytes."""
    code = "<i" if dtype == INT32 else "<f"
    count = 1
    for d in shape:
        count *= d
    out = bytearray(4 * count)
    idx = [0] * len(shape)
    for e in range(count):
        acc = None
        for dims, strides, offset, data in inputs:
            at = offset
            for k, d in enumerate(dims):
                if d != 1:
                    at += idx[len(shape) - len(dims) + k] * strides[k]
            x = struct.unpack_from(code, data, 4 * at)[0]
            if acc is None:
                acc = x
            elif dtype == INT32:
                acc = wrap32(acc + x if op == OP_ADD else acc * x)
            else:
                acc = to_f32(acc + x if op == OP_ADD else acc * x)
        struct.pack_into(code, out, 4 * e, acc)
        for r in range(len(shape) - 1, -1, -1):  # row-major odometer
            idx[r] += 1
            if idx[r] < shape[r]:
                break
            idx[r] = 0
    return bytes(out)


# ---- the protocol ------------------------------------------------------------

class Reader:
    def __init__(self, payload):
        self.p, self.at = payload, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.p, self.at)
        self.at += struct.calcsize(fmt)
        return v[0] if len(v) == 1 else v

    def ints(self, n):
        v = list(struct.unpack_from("<%dq" % n, self.p, self.at))
        self.at += 8 * n
        return v

    def raw(self, n):
        v = self.p[self.at:self.at + n]
        self.at += n
        return v


def read_params(r):
    rule, options, profile, _axis, naxes = r.take("<IIIqI")
    r.ints(naxes)
    n = r.take("<I")
    shapes = [r.ints(r.take("<I")) for _ in range(n)]
    return rule, options, profile, shapes


def frame(kind, seq, payload):
    return b"bc" + struct.pack("<HII", kind, seq, len(payload)) + payload


def text(s):
    b = s.encode("utf-8", "replace")[:4095]
    return struct.pack("<I", len(b)) + b


def answer(status, kind=0, shape=(), message="", out=b""):
    return (struct.pack("<IIII", status, kind, 0, len(shape)) +
            struct.pack("<%dq" % len(shape), *shape) + text(message) +
            struct.pack("<q", len(out)) + out)


def hello():
    return (struct.pack("<I", PROTOCOL_VERSION) + text("python-example") + text("1.0") +
            text("pure-Python shapes (none, numpy, onnx-uni, broadcast-to, bidirectional), "
                 "add/mul on int32/float32") +
            struct.pack("<IIIIIIII", FEATURE_SHAPE | FEATURE_ELEMENTWISE, RULES, 0,
                        (1 << OP_ADD) | (1 << OP_MUL), (1 << INT32) | (1 << FLOAT32), 64, 64,
                        0))  # partial shapes: none


def eval_question(r):
    kind, op, _operand = r.take("<IIi")
    rule, options, profile, shapes = read_params(r)
    out_dtype, capacity, ninputs = r.take("<IqI")
    inputs = []
    for _ in range(ninputs):
        dtype, rank = r.take("<II")
        dims, strides = r.ints(rank), r.ints(rank)
        offset, nelem = r.take("<qq")
        inputs.append((dims, strides, offset, r.raw(4 * nelem if dtype in (INT32, FLOAT32) else 0)))
        if dtype != out_dtype:
            raise Unsupported("mixed dtypes")
    if kind != ELEMENTWISE or rule not in (RULE_NONE, RULE_NUMPY, RULE_ONNX_UNI):
        raise Unsupported("only elementwise operations under none, numpy and onnx-uni")
    shape = infer_shape(rule, options, profile, shapes)
    count = 1
    for d in shape:
        count *= d
    out = elementwise(op, out_dtype, shape, inputs) if count <= capacity else b""
    return answer(OK, shape=shape, out=out)


def respond(kind, payload):
    r = Reader(payload)
    try:
        if kind == SHAPE:
            return answer(OK, shape=infer_shape(*read_params(r)))
        return eval_question(r)
    except Rejected as e:
        return answer(REJECTED, e.kind, message=str(e))
    except Unsupported as e:
        return answer(UNSUPPORTED, message=str(e))
    except Exception as e:  # the library failed: say how, and carry on
        return answer(INTERNAL_ERROR, message="%s: %s" % (type(e).__name__, e))


def main():
    stream_in, stream_out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print() must not corrupt the stream
    stream_out.write(frame(HELLO, 0, hello()))
    stream_out.flush()
    while True:
        head = stream_in.read(12)
        if not head:
            return 0
        if len(head) < 12 or head[:2] != b"bc":
            stream_out.write(frame(FATAL, 0, text("malformed frame header from the harness")))
            return 2
        kind, seq, length = struct.unpack("<HII", head[2:])
        payload = stream_in.read(length)
        if kind not in (SHAPE, EVAL) or len(payload) != length:
            stream_out.write(frame(FATAL, 0, text("unexpected frame from the harness")))
            return 2
        stream_out.write(frame(ANSWER, seq, respond(kind, payload)))
        stream_out.flush()


if __name__ == "__main__":
    sys.exit(main())
