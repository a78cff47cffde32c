#!/usr/bin/env python3
"""A broadcheck worker for pydata/sparse: broadcasting over COO storage.

    broadcheck run --sut 'exec:/usr/bin/python3 sut_adapters/python/sparse_worker.py'

pydata/sparse broadcasts with its own code (sparse/_umath.py: the
broadcast shape of n operands, then the matching of their coordinates;
sparse/_coo/core.py: COO.broadcast_to), not NumPy's.  Each operand is
sparse.COO.from_numpy of the view broadcheck sent (zeros are the fill
value and are not stored), every result is densified with .todense() to
answer.  docs/certifications/sparse.md says why each call; in short:

  numpy          shapes: sparse.elemwise(f, *x).shape over COO arrays that
                 store nothing (sparse.COO with no coordinates), so any
                 dims can be asked; values: sparse.elemwise(ufunc, a, b), n
                 operands as one n-ary elemwise whose function folds the
                 ufunc left; sparse.where
  broadcast-to   COO.broadcast_to(target) (shapes on a COO storing nothing)
  none           equal shapes only (sparse always broadcasts); sparse.where
                 and elemwise then as for numpy
  others         not declared (onnx-uni, bidirectional, pdpd, explicit);
                 sum-to-shape not declared.

div on integers is numpy.floor_divide applied by sparse (NumPy's integer
division floors; broadcheck truncates).

Limits (HELLO): rank 31: COO's constructor and elemwise linearise
coordinates with np.ravel_multi_index, which refuses 32 dims ("too many
dimensions passed to ravel_multi_index"); all eight dtypes; operands 8:
sparse.elemwise takes any number, but it matches the operands' coordinates
over every subset of them, so its time doubles with each operand (on this
machine, 8 operands 0.17 s, 12 operands 3.2 s, 15 past any timeout, for
arrays storing nothing); 8 keeps every question well within broadcheck's
timeout.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bcwire as w  # noqa: E402  (standard library only: works without sparse)

channel = w.Channel()
try:
    import numpy as np
    from numpy.lib.stride_tricks import as_strided
    import sparse
    from sparse._umath import _get_broadcast_shape
except Exception as e:  # missing or broken: "not available", never a pass
    channel.fatal("sparse not available: %s" % e)

np.seterr(all="ignore")
import warnings  # noqa: E402
warnings.simplefilter("ignore", RuntimeWarning)  # x/0 in fill values is an answer

NP_DTYPES = [np.dtype(t) for t in ("?", "i1", "u1", "<i4", "<i8", "<f4", "<f8", "<f2")]
MAX_OPERANDS = 8  # elemwise is exponential in its operands (above)

ERRORS = (
    ("negative dimensions are not allowed", w.ERR_NEGATIVE_DIM),
    ("could not be broadcast together", w.ERR_DIM_MISMATCH),
    ("cannot be broadcast", w.ERR_DIM_MISMATCH),
    # COO's constructor linearises coordinates with np.ravel_multi_index,
    # which cannot index more than 2**63 - 1 elements
    ("array size defined by dims is larger than the maximum possible size", w.ERR_OVERFLOW),
)
# Coordinates COO.broadcast_to may build for a question (below).
MATERIALISE_BUDGET = 1 << 22


def sparse_call(fn, *args, **kwargs):
    """Calls sparse; a ValueError is sparse refusing the input; a
    MemoryError is a question sparse cannot hold (declined)."""
    try:
        return fn(*args, **kwargs)
    except MemoryError as e:
        raise w.Unsupported("sparse ran out of memory: %s" % e)
    except ValueError as e:
        raise w.Rejected(" ".join(str(e).split()), w.classify(str(e), ERRORS))


def empty_coo(shape):
    """A COO array of `shape` that stores nothing (every element is the fill
    value 0): sparse holds any shape this way, with no dense memory."""
    return sparse_call(sparse.COO, np.zeros((len(shape), 0), np.int64),
                       np.zeros(0, np.int8), shape=tuple(shape))


def fold(ufunc):
    def f(*xs):  # n operands: ((x0 op x1) op x2) ..., applied by sparse to the data
        return functools.reduce(ufunc, xs)
    return f


def check(params, shapes):
    if params.has_options():
        raise w.Unsupported("sparse's broadcasting takes no axis, axes or profile")
    if params.rule == w.RULE_NONE:
        w.require_equal_shapes(shapes, "sparse")
    elif params.rule not in (w.RULE_NUMPY, w.RULE_BROADCAST_TO):
        raise w.Unsupported("rule %d is not declared" % params.rule)


def result_shape(params, shapes):
    check(params, shapes)
    if params.rule == w.RULE_BROADCAST_TO:
        w.check_operand_count(shapes, 2)
        x, target = shapes
        # COO.broadcast_to (_get_expanded_coords_data in sparse/_umath.py)
        # builds np.arange of every dim it stretches or adds, and their
        # Cartesian product with the stored elements (all of it when the
        # array keeps no axis), even when it stores nothing: memory in the
        # target's dims (docs/certifications/sparse.md, "declined"). Past the
        # budget it fails (MemoryError, "array is too big") or the worker is
        # killed for its memory, so the question is declined.
        lead = len(target) - len(x)
        stretched = [d for k, d in enumerate(target)
                     if k < lead or x[k - lead] != d]
        kept = len(stretched) < len(target)
        if max(stretched, default=0) > MATERIALISE_BUDGET or \
                (not kept and w.numel(stretched) > MATERIALISE_BUDGET):
            # broadcast_to's own first step, its check of the shapes, still
            # answers a target it refuses
            sparse_call(_get_broadcast_shape, tuple(x), tuple(target), is_result=True)
            raise w.Unsupported("COO.broadcast_to would build the coordinates of %s" % target)
        return list(sparse_call(empty_coo(x).broadcast_to, tuple(target)).shape)
    if not shapes:
        raise w.Unsupported("sparse.elemwise of no arrays is not asked")
    return list(sparse_call(sparse.elemwise, fold(np.add),
                            *[empty_coo(s) for s in shapes]).shape)


def to_array(t):
    """The view broadcheck sent, as NumPy sees strided memory (as_strided
    over an aligned copy of the bytes, same strides and offset)."""
    dt = NP_DTYPES[t.dtype]
    if t.numel() == 0 or t.nelem == 0:
        return np.empty(t.dims, dt)
    buf = np.frombuffer(t.data, dt).copy()
    return as_strided(buf[t.offset:], shape=t.dims,
                      strides=[s * dt.itemsize for s in t.strides], writeable=False)


def ufunc_for(op, dtype):
    if op == w.DIV:
        return np.true_divide if dtype in w.FLOAT_DTYPES else np.floor_divide
    return (np.add, np.subtract, np.multiply, None, np.maximum, np.minimum,
            np.equal, np.less, np.logical_and, np.logical_or)[op]


def evaluate(req):
    check(req.params, req.shapes)
    coos = [sparse_call(sparse.COO.from_numpy, to_array(t)) for t in req.inputs]
    if req.kind == w.VALUE_ELEMENTWISE:
        f = ufunc_for(req.op, req.inputs[0].dtype)
        try:
            r = sparse_call(sparse.elemwise, f if len(coos) == 2 else fold(f), *coos)
        except TypeError as e:  # NumPy's ufunc refuses the dtype (bool sub)
            raise w.Rejected(str(e))
    elif req.kind == w.VALUE_SELECT:
        r = sparse_call(sparse.where, *coos)
    elif req.kind == w.VALUE_BROADCAST:
        if req.params.rule != w.RULE_BROADCAST_TO:
            raise w.Unsupported("broadcast values: rule broadcast-to only")
        w.check_operand_count(req.shapes, 2)
        r = sparse_call(coos[0].broadcast_to, tuple(req.shapes[1]))
    else:
        raise w.Unsupported("sum-to-shape is not declared")
    if not isinstance(r, sparse.SparseArray):
        raise RuntimeError("sparse answered a %s, not a sparse array" % type(r).__name__)
    return w.array_answer("sparse", np.asarray(r.todense()), NP_DTYPES[req.out_dtype],
                          req.out_dtype)


CAPS = w.Capabilities(
    "sparse", sparse.__version__,
    "pydata/sparse %s COO: elemwise (n-ary), where, COO.broadcast_to, densified "
    "(rule none: equal shapes only)" % sparse.__version__,
    features=w.FEATURE_SHAPE | w.FEATURE_ELEMENTWISE | w.FEATURE_SELECT | w.FEATURE_BROADCAST,
    rules=w.bits(w.RULE_NONE, w.RULE_NUMPY, w.RULE_BROADCAST_TO),
    ops=w.bits(*range(10)), dtypes=w.bits(*range(8)),
    max_rank=31, max_operands=MAX_OPERANDS)

if __name__ == "__main__":
    sys.exit(channel.serve(CAPS, result_shape, evaluate))
