#!/usr/bin/env python3
"""A broadcheck worker for NumPy: NumPy's own broadcasting, certified.

    broadcheck run --sut 'exec:/usr/bin/python3 sut_adapters/python/numpy_worker.py'

Every answer is NumPy's: shapes come from numpy.broadcast_shapes and
numpy.broadcast_to, values from ufuncs on numpy.lib.stride_tricks.as_strided
views of the very bytes broadcheck sent (negative strides, gaps and offsets
included).  What each rule and operation maps to, and why, is in
docs/certifications/numpy.md; in short:

  numpy          broadcast_shapes; ufuncs (n operands: a left fold); where;
                 sum-to-shape as a NumPy user reduces a gradient
                 (g.sum(axis=leading and stretched axes).reshape(shape))
  onnx-uni       broadcast_to(B, A) for shapes; ufunc(a, b, out=<A's shape>)
                 for values: NumPy's one-way rule of `a += b`
  broadcast-to   broadcast_to
  bidirectional  broadcast_to(x, broadcast_shapes(x.shape, target)), ONNX
                 Expand's own definition ("numpy.array(input) * numpy.ones(shape)")
  none           only operands of equal shape: NumPy always broadcasts and
                 has no mode that refuses unequal shapes, so those questions
                 are answered "unsupported"
  matmul         numpy.matmul itself (its gufunc signature (n?,k),(k,m?)->(n?,m?)
                 does the 1-D promotion, the contraction check and the batch
                 broadcast) on zero-strided views of one zero byte; NumPy has
                 no shape-only matmul, so it computes the product: cases whose
                 work could pass MATMUL_MAX_WORK multiply-adds are declined
                 ("unsupported", never a pass) unless NumPy refuses them
                 first, which it does before computing anything
  pdpd, explicit not declared: NumPy has no axis-anchored broadcasting.

div on integers is numpy.floor_divide (NumPy's integer division: it floors,
broadcheck truncates, a divergence the certification shows and classifies).

Limits (HELLO): rank 32, NPY_MAXDIMS in numpy/core/include/numpy/
ndarraytypes.h of NumPy 1.x (numpy.broadcast_shapes((1,)*33) raises "maximum
supported dimension for an ndarray is 32"); operands: no NumPy limit
(broadcast_shapes folds 32 at a time past NPY_MAXARGS), so the protocol's 136
(version 4; none and numpy are asked up to 128, RULES.md §9.5).  Profile
numpy-empty-fold of numpy (RULES.md §3.1) is broadcast_shapes' own: no shape
gives ().

Every answer is NumPy's own, divergences included: the known ones are
declared in numpy.manifest.json (docs/MANIFEST.md), which the harness
checks on every run.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bcwire as w  # noqa: E402  (standard library only: works without NumPy)

channel = w.Channel()
try:
    import numpy as np
    from numpy.lib.stride_tricks import as_strided
except Exception as e:  # missing or broken: "not available", never a pass
    channel.fatal("numpy not available: %s" % e)

np.seterr(all="ignore")  # integer wrap and x/0 are answers, not warnings

NP_DTYPES = [np.dtype(t) for t in ("?", "i1", "u1", "<i4", "<i8", "<f4", "<f8", "<f2")]

# NumPy's ValueError texts, to the error kinds they name (spec/RULES.md §12).
ERRORS = (
    ("negative dimensions are not allowed", w.ERR_NEGATIVE_DIM),
    ("broadcast shape must be non-negative", w.ERR_NEGATIVE_DIM),
    ("cannot be broadcast to a single shape", w.ERR_DIM_MISMATCH),
    ("could not be broadcast together", w.ERR_DIM_MISMATCH),
    ("more dimensions than allowed by the axis remapping", w.ERR_RANK_TOO_LARGE),
    ("cannot broadcast a non-scalar to a scalar array", w.ERR_RANK_TOO_LARGE),
    # matmul's gufunc: a scalar operand; the contracted dims
    ("does not have enough dimensions", w.ERR_RANK_MISMATCH),
    ("has a mismatch in its core dimension", w.ERR_DIM_MISMATCH),
    # the element count does not fit in npy_intp: NumPy cannot hold the shape
    ("broadcast dimensions too large", w.ERR_OVERFLOW),
    ("iterator is too large", w.ERR_OVERFLOW),
    ("array is too big", w.ERR_OVERFLOW),
    # "non-broadcastable output operand" (onnx-uni values) is either a rank
    # or a dim problem: NumPy does not say which, so it stays unknown.
)


def numpy_call(fn, *args, **kwargs):
    """Calls NumPy; a ValueError or TypeError is NumPy refusing the input."""
    try:
        return fn(*args, **kwargs)
    except (ValueError, TypeError) as e:
        raise w.Rejected(str(e), w.classify(str(e), ERRORS))


def placeholder(shape):
    """An array of `shape` holding no bytes: what numpy.broadcast_shapes
    itself builds, so shapes with dims up to INT64_MAX can be asked."""
    return np.empty(shape, dtype=[])


# ---- shapes -------------------------------------------------------------------

# The most multiply-adds a matmul question may cost (int8, zero strides: a
# few tens of milliseconds); a larger one is declined.
MATMUL_MAX_WORK = 1 << 22


def zero_strided(shape):
    """An int8 array of `shape` whose every element is one zero byte."""
    return as_strided(np.zeros(1, np.int8), shape=shape, strides=[0] * len(shape),
                      writeable=False)


def bounded_product(dims):
    """The product of dims (0s counted as 1), capped just past MATMUL_MAX_WORK:
    a cost estimate, never an answer."""
    product = 1
    for d in dims:
        product *= max(d, 1)
        if product > MATMUL_MAX_WORK:
            break
    return product


def matmul_shape(a, b):
    """numpy.matmul's own result shape, computed on zero-strided views.

    NumPy has no shape-only matmul: an accepted case is computed, one
    multiply-add per result element and contracted index, and its gufunc
    loop runs once per batch element even when the matrices are empty.  So a
    case whose cost could pass MATMUL_MAX_WORK is asked with no rows in A and
    no columns in B (a 1-D operand, which has neither, as it is): NumPy's
    checks (ranks, contracted dims, batch) read neither, and it refuses before
    it loops.  A refusal there is NumPy's answer; an acceptance is declined
    (its rows and columns are not NumPy's to say).  A batch too large even
    for that is declined unasked."""
    x, y = numpy_call(lambda: (zero_strided(a), zero_strided(b)))
    if not a or not b:  # NumPy refuses a scalar before anything
        return list(numpy_call(np.matmul, x, y).shape)
    contracted = a[-1]
    others = a[:-1] + (b[:-2] + b[-1:] if len(b) >= 2 else [])
    if bounded_product([contracted] + others) <= MATMUL_MAX_WORK:
        return list(numpy_call(np.matmul, x, y).shape)
    batches = a[:-2] + b[:-2]
    if (len(a) >= 2 or len(b) >= 2) and bounded_product(batches) <= MATMUL_MAX_WORK:
        numpy_call(np.matmul, x[..., :0, :] if len(a) >= 2 else x,
                   y[..., :0] if len(b) >= 2 else y)
    raise w.Unsupported("numpy.matmul computes the product, and this one could take more "
                        "than %d steps" % MATMUL_MAX_WORK)


def empty_fold(params):
    """numpy under profile numpy-empty-fold and nothing else: broadcast_shapes()
    of no shape is () (RULES.md §3.1), its answers otherwise numpy's."""
    return (params.rule == w.RULE_NUMPY and params.options == w.OPT_PROFILE and
            params.profile == w.PROFILE_NUMPY_EMPTY_FOLD)


def result_shape(params, shapes):
    """The rule's result shape as NumPy computes it."""
    if empty_fold(params):
        return list(numpy_call(np.broadcast_shapes, *shapes))
    if params.has_options():
        raise w.Unsupported("NumPy's broadcasting takes no axis, axes or profile")
    rule = params.rule
    if rule == w.RULE_NONE:
        w.require_equal_shapes(shapes, "NumPy")
        return list(numpy_call(np.broadcast_shapes, *shapes))
    if rule == w.RULE_NUMPY:
        return list(numpy_call(np.broadcast_shapes, *shapes))
    w.check_operand_count(shapes, 2)
    if rule == w.RULE_ONNX_UNI:  # B onto A, one way: what `a += b` allows
        a, b = shapes
        return list(numpy_call(lambda: np.broadcast_to(placeholder(b), a).shape))
    if rule == w.RULE_BROADCAST_TO:
        x, target = shapes
        return list(numpy_call(lambda: np.broadcast_to(placeholder(x), target).shape))
    if rule == w.RULE_BIDIRECTIONAL:
        return list(numpy_call(np.broadcast_shapes, *shapes))
    if rule == w.RULE_MATMUL:
        return matmul_shape(*shapes)
    raise w.Unsupported("NumPy has no rule %d" % rule)


# ---- values -------------------------------------------------------------------

def to_array(t):
    """The view broadcheck sent, as NumPy sees strided memory: the received
    elements copied once into an aligned buffer, gaps included, and
    as_strided over it with the same (possibly negative) strides."""
    dt = NP_DTYPES[t.dtype]
    if t.numel() == 0 or t.nelem == 0:
        return np.empty(t.dims, dt)
    buf = np.frombuffer(t.data, dt)
    if not t.shared:  # a shared file's inputs are aligned already (and may be huge)
        buf = buf.copy()
    return as_strided(buf[t.offset:], shape=t.dims,
                      strides=[s * dt.itemsize for s in t.strides], writeable=False)


def int_div(a, b, **kwargs):
    return np.floor_divide(a, b, **kwargs)


def ufunc_for(op, dtype):
    if op == w.DIV:
        return np.true_divide if dtype in w.FLOAT_DTYPES else int_div
    return (np.add, np.subtract, np.multiply, None, np.maximum, np.minimum,
            np.equal, np.less, np.logical_and, np.logical_or)[op]


# Ops whose result has the operands' dtype (bool too: or, and, max, min; sub
# on bool raises either way): computed in place into a shared file's output,
# their values are the same as NumPy's own result's.
IN_PLACE_OPS = (w.ADD, w.SUB, w.MUL, w.MAX, w.MIN)


def elementwise(req, arrays):
    f = ufunc_for(req.op, req.inputs[0].dtype)
    if req.shm is not None and req.params.rule == w.RULE_NUMPY and len(arrays) == 2 and \
            req.op in IN_PLACE_OPS:
        # a shared-file question (a huge one): NumPy writes the result into
        # the file, not into an array of its own copied there after
        dt = NP_DTYPES[req.out_dtype]
        shape = list(numpy_call(np.broadcast_shapes, *[a.shape for a in arrays]))
        out = w.shm_output(req, np, shape, dt)
        if out is not None and arrays[0].dtype == dt and arrays[1].dtype == dt:
            numpy_call(f, arrays[0], arrays[1], out=out)
            return w.IN_PLACE
    if req.params.rule == w.RULE_ONNX_UNI:
        # out= fixes the result to A's shape: B (and A) broadcast onto it only.
        w.check_operand_count(req.shapes, 2)
        out = np.empty(req.shapes[0], NP_DTYPES[req.out_dtype])
        return numpy_call(f, arrays[0], arrays[1], out=out)
    if req.params.rule == w.RULE_NONE:
        w.require_equal_shapes(req.shapes, "NumPy")
    return numpy_call(functools.reduce, f, arrays)  # n operands: ((x0 op x1) op x2) ...


def sum_to_shape(req, g):
    """A NumPy user's "unbroadcast": sum the gradient over the leading axes and
    the axes the operand stretched from 1, then give it the operand's shape."""
    forward = result_shape(req.params, req.shapes)
    if list(g.shape) != forward:
        raise RuntimeError("the gradient has shape %s but NumPy's broadcast gives %s"
                           % (list(g.shape), forward))
    shape = req.shapes[req.operand]
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(lead + k for k, d in enumerate(shape)
                                      if d == 1 and g.shape[lead + k] != 1)
    return numpy_call(lambda: np.sum(g, axis=axes).astype(g.dtype).reshape(shape))


def evaluate(req):
    if req.params.has_options():
        raise w.Unsupported("NumPy's broadcasting takes no axis, axes or profile")
    arrays = [to_array(t) for t in req.inputs]
    if req.kind == w.VALUE_ELEMENTWISE:
        r = elementwise(req, arrays)
        if r is w.IN_PLACE:
            return list(np.broadcast_shapes(*[a.shape for a in arrays])), w.IN_PLACE
    elif req.kind == w.VALUE_SELECT:
        if req.params.rule == w.RULE_NONE:
            w.require_equal_shapes(req.shapes, "NumPy")
        r = numpy_call(np.where, *arrays)
    elif req.kind == w.VALUE_BROADCAST:
        target = result_shape(req.params, req.shapes)  # bidirectional: numpy(x, target)
        r = numpy_call(np.broadcast_to, arrays[0], target)
    elif req.kind == w.VALUE_MATMUL:
        r = numpy_call(np.matmul, arrays[0], arrays[1])
    else:
        r = sum_to_shape(req, arrays[0])
    return w.array_answer("NumPy", np.asarray(r), NP_DTYPES[req.out_dtype], req.out_dtype)


CAPS = w.Capabilities(
    "numpy", np.__version__,
    "NumPy %s: broadcast_shapes, broadcast_to, ufuncs, where, sum over broadcast axes, "
    "matmul (rule none: equal shapes only)" % np.__version__,
    features=w.FEATURE_SHAPE | w.FEATURE_ELEMENTWISE | w.FEATURE_SELECT |
    w.FEATURE_BROADCAST | w.FEATURE_SUM_TO_SHAPE | w.FEATURE_MATMUL | w.FEATURE_SHM,
    rules=w.bits(w.RULE_NONE, w.RULE_NUMPY, w.RULE_ONNX_UNI, w.RULE_BROADCAST_TO,
                 w.RULE_BIDIRECTIONAL, w.RULE_MATMUL),
    ops=w.bits(*range(10)), dtypes=w.bits(*range(8)),
    max_rank=32, max_operands=w.MAX_OPERANDS, profiles=w.bits(w.PROFILE_NUMPY_EMPTY_FOLD))

if __name__ == "__main__":
    sys.exit(channel.serve(CAPS, result_shape, evaluate))
