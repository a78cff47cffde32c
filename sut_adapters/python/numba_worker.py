#!/usr/bin/env python3
"""A broadcheck worker for Numba: broadcasting in nopython mode, certified.

    broadcheck run --sut 'exec:/usr/bin/python3 sut_adapters/python/numba_worker.py'

Every answer comes out of a function compiled by numba.njit: Numba's own
implementations of np.broadcast_shapes, np.broadcast_to, the ufuncs'
broadcasting loop nests (numba/np/npyimpl.py) and np.where
(numba/np/arraymath.py), not NumPy's.  NumPy only carries the bytes in
and out (an as_strided view of what broadcheck sent, a contiguous copy of
what Numba returns).  docs/certifications/numba.md says why each call; in
short:

  numpy          shapes: np.broadcast_shapes(a, b), n shapes folded left;
                 values: ufunc(a, b) (n operands folded left); np.where
  broadcast-to   np.broadcast_to(x, target) (shapes: its .shape, computed
                 inside the compiled function, so no array of the target's
                 size is ever built)
  none           equal shapes only for ufuncs (they always broadcast);
                 np.where as it is: Numba's where takes equal shapes only
  others         not declared (onnx-uni, bidirectional, pdpd, explicit)

Compilation: one function per operation, compiled once per signature
(the argument types numba.typeof gives, as for any caller: dtype, rank and
layout, C for contiguous views, A for strided ones) and kept for the
worker's life; with cache=True Numba also keeps it on disk (NUMBA_CACHE_DIR, by default
$XDG_CACHE_HOME/broadcheck/numba or ~/.cache/broadcheck/numba), so a
second run does not compile again.

Limits (HELLO): dtypes bool, int8, uint8, int32, int64, float32, float64
(Numba types a float16 array but cannot compile arithmetic on it); rank 8: not a Numba limit (its arrays go
to rank 32 with NumPy's) but the worker's, for compile time: every new
signature compiles, np.broadcast_shapes about 6 s for each pair of ranks,
a ufunc's loop nest 0.5 s at rank 8, 3.3 s at rank 16, 24 s at rank 32 on
this machine; operands: the protocol's 136 (pairwise folds: no Numba limit;
136 shapes and a 136-operand np.add fold checked by hand with Numba 0.56.4).  Sum-to-shape
is not declared: Numba's np.sum takes one axis.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bcwire as w  # noqa: E402  (standard library only: works without Numba)

channel = w.Channel()
os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")  # no ANSI in messages
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "broadcheck", "numba")
try:
    import warnings
    import numpy as np
    from numpy.lib.stride_tricks import as_strided
    import numba
    from numba import njit, types
    from numba.core.errors import TypingError, NumbaWarning
    from numba.np.numpy_support import as_dtype
except Exception as e:  # missing or broken: "not available", never a pass
    channel.fatal("numba not available: %s" % e)

warnings.simplefilter("ignore", NumbaWarning)  # isinstance() in broadcast_shapes
np.seterr(all="ignore")

NP_DTYPES = [np.dtype(t) for t in ("?", "i1", "u1", "<i4", "<i8", "<f4", "<f8")]
MAX_RANK = 8

ERRORS = (
    ("negative dimensions are not allowed", w.ERR_NEGATIVE_DIM),
    ("must be non-negative", w.ERR_NEGATIVE_DIM),
    ("cannot be broadcast to a single shape", w.ERR_DIM_MISMATCH),
    ("could not be broadcast together", w.ERR_DIM_MISMATCH),
    ("unable to broadcast argument", w.ERR_DIM_MISMATCH),
    ("all inputs should have the same shape", w.ERR_DIM_MISMATCH),
    ("more dimensions than allowed by the axis remapping", w.ERR_RANK_TOO_LARGE),
)


# ---- the compiled functions -----------------------------------------------------
# Each is a module-level function (cache=True needs one), compiled per
# signature on first use.

@njit(cache=True)
def nb_broadcast_shapes2(a, b):
    return np.broadcast_shapes(a, b)


@njit(cache=True)
def nb_broadcast_shapes1(a):
    return np.broadcast_shapes(a)


@njit(cache=True)
def nb_broadcast_to_shape(x, shape):
    return np.broadcast_to(x, shape).shape


@njit(cache=True)
def nb_broadcast_to(x, shape):
    return np.broadcast_to(x, shape)


@njit(cache=True)
def nb_where(c, x, y):
    return np.where(c, x, y)


@njit(cache=True)
def nb_add(a, b):
    return np.add(a, b)


@njit(cache=True)
def nb_subtract(a, b):
    return np.subtract(a, b)


@njit(cache=True)
def nb_multiply(a, b):
    return np.multiply(a, b)


@njit(cache=True)
def nb_true_divide(a, b):
    return np.true_divide(a, b)


@njit(cache=True)
def nb_floor_divide(a, b):
    return np.floor_divide(a, b)


@njit(cache=True)
def nb_maximum(a, b):
    return np.maximum(a, b)


@njit(cache=True)
def nb_minimum(a, b):
    return np.minimum(a, b)


@njit(cache=True)
def nb_equal(a, b):
    return np.equal(a, b)


@njit(cache=True)
def nb_less(a, b):
    return np.less(a, b)


@njit(cache=True)
def nb_logical_and(a, b):
    return np.logical_and(a, b)


@njit(cache=True)
def nb_logical_or(a, b):
    return np.logical_or(a, b)


UFUNCS = (nb_add, nb_subtract, nb_multiply, None, nb_maximum, nb_minimum,
          nb_equal, nb_less, nb_logical_and, nb_logical_or)

_compiled = {}


def compiled(fn, argtypes):
    """fn compiled for exactly `argtypes` (once per signature): its entry
    point, which takes Python objects, and its return type."""
    key = (fn, argtypes)
    hit = _compiled.get(key)
    if hit is None:
        try:
            entry = fn.compile(argtypes)
        except TypingError as e:  # Numba cannot compile the call: it refuses it
            hit = (None, " ".join(str(e).split())[:400])
        else:
            # An overload loaded from Numba's disk cache is filed under the
            # signature it was saved with, which may print the same and not
            # compare equal (a KeyError here failed a correct Numba on a
            # strided uint8 broadcast_to): find it by its entry point.
            cres = fn.overloads.get(argtypes)
            if cres is None:
                cres = next(c for c in fn.overloads.values() if c.entry_point is entry)
            hit = (cres.entry_point, cres.signature.return_type)
        _compiled[key] = hit
    return hit


def typeof(a):
    """The Numba type of an argument, as a call of the dispatcher would infer it."""
    return numba.typeof(a, numba.core.typing.typeof.Purpose.argument)


def shape_type(shape):
    return types.UniTuple(types.int64, len(shape)) if shape else types.Tuple(())


def call(fn, argtypes, *args):
    """Numba's answer; its ValueError is Numba refusing the input, and a
    call it cannot compile is refused too (a TypingError, at compile time)."""
    entry, ret = compiled(fn, argtypes)
    if entry is None:
        raise w.Rejected("Numba cannot compile it: " + ret)
    try:
        return entry(*args), ret
    except ValueError as e:
        raise w.Rejected(" ".join(str(e).split()), w.classify(str(e), ERRORS))


# ---- shapes -------------------------------------------------------------------

def zero_strided(shape):
    """An array of `shape` over one byte (all strides 0): the input of
    np.broadcast_to for a shape question, whatever its dims."""
    if any(d < 0 for d in shape):
        raise w.Unsupported("a negative dim cannot be an array's")
    try:
        return as_strided(np.zeros(1, np.int8), shape=shape, strides=[0] * len(shape))
    except ValueError as e:
        raise w.Unsupported("NumPy cannot hold an array of this shape (%s)" % e)


def broadcast_shapes(shapes):
    if not shapes:
        raise w.Unsupported("Numba's broadcast_shapes of no shapes is not asked")
    out, _ = call(nb_broadcast_shapes1, (shape_type(shapes[0]),), tuple(shapes[0]))
    for s in shapes[1:]:  # n shapes: a left fold, every step Numba's
        out, _ = call(nb_broadcast_shapes2, (shape_type(out), shape_type(s)),
                      tuple(out), tuple(s))
    return list(out)


def check_params(params):
    if params.has_options():
        raise w.Unsupported("Numba's broadcasting takes no axis, axes or profile")


def result_shape(params, shapes):
    check_params(params)
    if params.rule == w.RULE_NONE:
        w.require_equal_shapes(shapes, "Numba")
        return broadcast_shapes(shapes)
    if params.rule == w.RULE_NUMPY:
        return broadcast_shapes(shapes)
    if params.rule == w.RULE_BROADCAST_TO:
        w.check_operand_count(shapes, 2)
        x, target = shapes
        xa = zero_strided(x)
        out, _ = call(nb_broadcast_to_shape, (typeof(xa), shape_type(target)),
                      xa, tuple(target))
        return list(out)
    raise w.Unsupported("rule %d is not declared" % params.rule)


# ---- values -------------------------------------------------------------------

def to_array(t):
    """The view broadcheck sent: its bytes copied once into an aligned
    buffer (gaps included) and viewed with the same strides and offset."""
    dt = NP_DTYPES[t.dtype]
    if t.numel() == 0 or t.nelem == 0:
        return np.empty(t.dims, dt)
    buf = np.frombuffer(t.data, dt).copy()
    return as_strided(buf[t.offset:], shape=t.dims,
                      strides=[s * dt.itemsize for s in t.strides])


def result_dtype(ret):
    """The dtype Numba's compiled function returns (an array's, or a scalar's
    for rank 0, where a ufunc returns a scalar)."""
    return as_dtype(ret.dtype if isinstance(ret, types.Array) else ret)


def elementwise(req, arrays):
    dtype = req.inputs[0].dtype
    if req.op == w.DIV:
        fn = nb_true_divide if dtype in w.FLOAT_DTYPES else nb_floor_divide
    else:
        fn = UFUNCS[req.op]
    if req.params.rule == w.RULE_NONE:
        w.require_equal_shapes(req.shapes, "Numba")
    acc, ret = arrays[0], typeof(arrays[0])
    for a in arrays[1:]:  # n operands: ((x0 op x1) op x2) ..., every op Numba's
        acc, ret = call(fn, (typeof(acc), typeof(a)), acc, a)
        acc = np.asarray(acc, result_dtype(ret))  # rank 0: Numba returns a scalar
    return acc, ret


def evaluate(req):
    check_params(req.params)
    arrays = [to_array(t) for t in req.inputs]
    if req.kind == w.VALUE_ELEMENTWISE:
        r, ret = elementwise(req, arrays)
    elif req.kind == w.VALUE_SELECT:
        r, ret = call(nb_where, tuple(typeof(a) for a in arrays), *arrays)
    elif req.kind == w.VALUE_BROADCAST:
        if req.params.rule != w.RULE_BROADCAST_TO:
            raise w.Unsupported("broadcast values: rule broadcast-to only")
        w.check_operand_count(req.shapes, 2)
        target = req.shapes[1]
        r, ret = call(nb_broadcast_to,
                      (typeof(arrays[0]), shape_type(target)),
                      arrays[0], tuple(target))
    else:
        raise w.Unsupported("sum-to-shape is not declared")
    if result_dtype(ret) != NP_DTYPES[req.out_dtype]:
        raise RuntimeError("Numba computed %s, the question is for %s"
                           % (result_dtype(ret), w.DTYPE_NAMES[req.out_dtype]))
    r = np.asarray(r, NP_DTYPES[req.out_dtype])
    return list(r.shape), np.ascontiguousarray(r).tobytes()


CAPS = w.Capabilities(
    "numba", numba.__version__,
    "Numba %s nopython: np.broadcast_shapes, np.broadcast_to, ufuncs, np.where "
    "(rule none: equal shapes only for ufuncs; rank <= 8 for compile time)" % numba.__version__,
    features=w.FEATURE_SHAPE | w.FEATURE_ELEMENTWISE | w.FEATURE_SELECT | w.FEATURE_BROADCAST,
    rules=w.bits(w.RULE_NONE, w.RULE_NUMPY, w.RULE_BROADCAST_TO),
    ops=w.bits(*range(10)), dtypes=w.bits(*range(7)),
    max_rank=MAX_RANK, max_operands=w.MAX_OPERANDS)

if __name__ == "__main__":
    sys.exit(channel.serve(CAPS, result_shape, evaluate))
