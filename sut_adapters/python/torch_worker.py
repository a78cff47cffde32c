#!/usr/bin/env python3
"""A broadcheck worker for PyTorch (CPU): PyTorch's own broadcasting, certified.

    broadcheck run --sut 'exec:/usr/bin/python3 sut_adapters/python/torch_worker.py'
    ... torch_worker.py --expand     # rule broadcast-to through Tensor.expand

Every answer is PyTorch's.  What each rule and operation maps to, and why,
is in docs/certifications/pytorch.md; in short:

  numpy          torch.broadcast_shapes; binary ops (n operands: a left fold);
                 torch.where; Tensor.sum_to_size (sum-to-shape)
  onnx-uni       in-place ops (a.add_(b), ...): PyTorch's one-way rule, "the
                 in-place tensor does not change shape"; shapes on 'meta'
                 tensors.  max and min have no in-place form: unsupported.
  broadcast-to   torch.broadcast_to, or Tensor.expand with --expand (both read
                 a target dim of -1 as "keep this dim": RULES.md §10.2)
  bidirectional  broadcast_to(x, broadcast_shapes(x.shape, target)), what
                 ONNX Expand means in PyTorch terms
  none           only operands of equal shape: PyTorch always broadcasts, so
                 unequal shapes are answered "unsupported"
  matmul         torch.matmul on 'meta' tensors: PyTorch's own shape logic
                 (1-D promotion, contraction check, batch broadcast), no memory
  pdpd, explicit not declared: PyTorch has no axis-anchored broadcasting.

div: true division on floats; on integers torch.div(rounding_mode='trunc'),
PyTorch's truncating division (the same as broadcheck's).

Strides: every input is a torch.as_strided view of the bytes broadcheck sent.
PyTorch has no negative strides ("as_strided: Negative strides are not
supported"), so an axis walked backwards is viewed forwards from its last
element and then torch.flip'ped, which copies: those inputs reach PyTorch
contiguous.  Gaps, offsets, permuted axes and stride-0 axes stay real views.

Limits (HELLO): rank 64, the protocol's limit and PyTorch's own for
reductions (dim_bitset_size = 64 in ATen/WrapDimUtilsMulti.h: sum_to_size on
65 dims raises "only tensors with up to 64 dims are supported"); operands:
no PyTorch limit (broadcast_shapes takes any number: 136 shapes of rank
64 checked by hand with PyTorch 1.13; the binary ops are folded), so the
protocol's 136.
"""
import functools
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bcwire as w  # noqa: E402  (standard library only: works without PyTorch)

channel = w.Channel()
try:
    import torch
except Exception as e:  # missing or broken: "not available", never a pass
    channel.fatal("torch not available: %s" % e)

import warnings  # noqa: E402

warnings.simplefilter("ignore")  # e.g. the resize warnings: stderr is for faults
torch.set_num_threads(1)  # one question at a time, and broadcheck runs --jobs workers

EXPAND = "--expand" in sys.argv[1:]

DTYPES = (torch.bool, torch.int8, torch.uint8, torch.int32, torch.int64,
          torch.float32, torch.float64, torch.float16)

# PyTorch's RuntimeError texts that refuse the input, to the kinds they name
# (spec/RULES.md §12).  Any other exception is an internal error: it shows.
REFUSALS = (
    ("negative dimension", w.ERR_NEGATIVE_DIM),
    ("isn't allowed in a leading, non-existing dimension", w.ERR_NEGATIVE_DIM),
    ("objects cannot be broadcast to a single shape", w.ERR_DIM_MISMATCH),
    ("must match the size of tensor", w.ERR_DIM_MISMATCH),
    ("must match the existing size", w.ERR_DIM_MISMATCH),
    ("must be greater or equal to the number of dimensions", w.ERR_RANK_TOO_LARGE),
    # torch.matmul: a 0-D operand; the contracted dims, as each of the kernels
    # it dispatches to (dot, mv, mm, bmm) words them
    ("both arguments to matmul need to be at least 1D", w.ERR_RANK_MISMATCH),
    ("inconsistent tensor size", w.ERR_DIM_MISMATCH),
    ("size mismatch, got", w.ERR_DIM_MISMATCH),
    ("mat1 and mat2 shapes cannot be multiplied", w.ERR_DIM_MISMATCH),
    ("Expected size for first two dimensions of batch2 tensor", w.ERR_DIM_MISMATCH),
    # in place: a rank or a dim problem, PyTorch does not say which
    ("doesn't match the broadcast shape", w.ERR_UNKNOWN),
    ("is not expandable to size", w.ERR_UNKNOWN),
    # dims below -2**62 are reserved for symbolic sizes (c10::SymInt): the
    # argument parser refuses them with a TypeError
    ("must be tuple of SymInts", w.ERR_UNKNOWN),
    # the element count does not fit in int64: PyTorch cannot hold the shape
    ("integer multiplication overflow", w.ERR_OVERFLOW),
    ("Storage size calculation overflowed", w.ERR_OVERFLOW),
)

# What PyTorch says when an int64 it computed, or a dim it was given, falls in
# the range c10::SymInt reserves for symbolic sizes (below -2**62): asked()
# tells a refused dim from an overflowed stride.
SYMINT_FAULTS = ("cannot be represented as a SymInt", "is_symbolic()",
                 "Negative strides are not supported")


def torch_call(fn, *args, **kwargs):
    """Calls PyTorch; an exception naming a refusal is a rejection."""
    try:
        return fn(*args, **kwargs)
    except (RuntimeError, ValueError, TypeError) as e:
        text = str(e)
        for needle, kind in REFUSALS:
            if needle in text:
                raise w.Rejected(text.split("\n")[0], kind)
        raise


def asked(fn, params, shapes):
    """fn(): PyTorch's answer to a question about `shapes`, its known
    divergences (docs/certifications/pytorch.md, torch.manifest.json)
    included."""
    # a -1 target dim of profile pytorch-expand is "keep", not a negative dim
    keep = expand_profile(params)
    negative = any(d < 0 and not (keep and i == 1 and d == -1)
                   for i, s in enumerate(shapes) for d in s)
    try:
        r = fn()
    except (w.Rejected, RuntimeError) as e:
        if any(m in str(e) for m in SYMINT_FAULTS):
            if negative:  # a dim below -2**62: refused, if oddly worded
                raise w.Rejected(str(e).split("\n")[0])
            # No dim was negative: a stride PyTorch computed overflowed (into
            # the SymInt range) for a zero-size tensor with huge dims.
            raise RuntimeError(str(e).split("\n")[0])
        raise
    return r


def meta(shape):
    """A tensor of `shape` with no storage: shape questions about dims up to
    INT64_MAX are answered by PyTorch's own shape logic, allocating nothing."""
    return torch.empty(shape, dtype=torch.uint8, device="meta")


def broadcast_to(x, target):
    """Rule broadcast-to: torch.broadcast_to, or Tensor.expand (--expand)."""
    return x.expand(target) if EXPAND else torch.broadcast_to(x, target)


def expand_profile(params):
    """A broadcast-to question under profile pytorch-expand (RULES.md 6.1)."""
    return (params.rule == w.RULE_BROADCAST_TO and params.options == w.OPT_PROFILE
            and params.profile == w.PROFILE_PYTORCH_EXPAND)


def check_params(params, shapes):
    """PyTorch takes no axis or axes; its broadcast_to and expand follow
    profile pytorch-expand (RULES.md section 6.1), so the default broadcast-to
    cannot be asked of a -1 target dim: PyTorch would read it as 'keep'."""
    if params.has_options() and not expand_profile(params):
        raise w.Unsupported("PyTorch's broadcasting takes no axis, axes or other profile")
    if params.rule == w.RULE_BROADCAST_TO and not expand_profile(params) and len(shapes) == 2 \
            and -1 in shapes[1]:
        raise w.Unsupported("PyTorch reads a -1 target dim as 'keep' (profile pytorch-expand)")


# ---- shapes -------------------------------------------------------------------

def result_shape(params, shapes):
    """The rule's result shape as PyTorch computes it."""
    return asked(lambda: torch_shape(params, shapes), params, shapes)


def torch_shape(params, shapes):
    check_params(params, shapes)
    rule = params.rule
    if rule == w.RULE_NONE:
        w.require_equal_shapes(shapes, "PyTorch")
        return list(torch_call(torch.broadcast_shapes, *shapes))
    if rule == w.RULE_NUMPY:
        return list(torch_call(torch.broadcast_shapes, *shapes))
    w.check_operand_count(shapes, 2)
    if rule == w.RULE_ONNX_UNI:  # a.add_(b): B onto A, A keeps its shape
        return list(torch_call(lambda: meta(shapes[0]).add_(meta(shapes[1])).shape))
    if rule == w.RULE_BROADCAST_TO:
        return list(torch_call(lambda: broadcast_to(meta(shapes[0]), shapes[1]).shape))
    if rule == w.RULE_BIDIRECTIONAL:
        return list(torch_call(torch.broadcast_shapes, *shapes))
    if rule == w.RULE_MATMUL:
        return list(torch_call(lambda: torch.matmul(meta(shapes[0]), meta(shapes[1])).shape))
    raise w.Unsupported("PyTorch has no rule %d" % rule)


# ---- values -------------------------------------------------------------------

def to_tensor(t):
    """The view broadcheck sent, as a torch.as_strided view of its bytes."""
    dt = DTYPES[t.dtype]
    if t.numel() == 0 or t.nelem == 0:
        return torch.empty(t.dims, dtype=dt)
    buf = torch.frombuffer(bytearray(t.data), dtype=dt)
    strides, offset, flipped = t.positive_strides()
    view = torch.as_strided(buf, t.dims, strides, offset)
    return torch.flip(view, flipped) if flipped else view


def binary(op, dtype):
    """The PyTorch function for op on dtype, out of place."""
    if op == w.DIV:
        if dtype in w.FLOAT_DTYPES:
            return torch.div
        return functools.partial(torch.div, rounding_mode="trunc")
    return (torch.add, torch.sub, torch.mul, None, torch.maximum, torch.minimum,
            torch.eq, torch.lt, torch.logical_and, torch.logical_or)[op]


def in_place(op, a, b, dtype):
    """a op= b on a copy of a: PyTorch's unidirectional broadcasting.  The
    comparisons and logical ops write 0/1 in a's dtype; made bool after."""
    a = a.clone()
    if op == w.DIV:
        return a.div_(b) if dtype in w.FLOAT_DTYPES else a.div_(b, rounding_mode="trunc")
    if op in (w.MAX, w.MIN):
        raise w.Unsupported("PyTorch has no in-place maximum/minimum (no Tensor.%s_)"
                            % ("maximum" if op == w.MAX else "minimum"))
    method = ("add_", "sub_", "mul_", None, None, None, "eq_", "lt_",
              "logical_and_", "logical_or_")[op]
    r = getattr(a, method)(b)
    return r.to(torch.bool) if op >= w.EQUAL else r


def elementwise(req, xs):
    dtype = req.inputs[0].dtype
    if req.params.rule == w.RULE_ONNX_UNI:
        w.check_operand_count(req.shapes, 2)
        return torch_call(in_place, req.op, xs[0], xs[1], dtype)
    if req.params.rule == w.RULE_NONE:
        w.require_equal_shapes(req.shapes, "PyTorch")
    return torch_call(functools.reduce, binary(req.op, dtype), xs)  # ((x0 op x1) op x2) ...


def sum_to_shape(req, g):
    forward = result_shape(req.params, req.shapes)
    if list(g.shape) != forward:
        raise RuntimeError("the gradient has shape %s but PyTorch's broadcast gives %s"
                           % (list(g.shape), forward))
    # sum_to_size sums integers in int64 (torch.sum's promotion); the cast
    # back to the gradient's dtype is exact modulo 2**bits, i.e. it wraps.
    return torch_call(g.sum_to_size, req.shapes[req.operand]).to(g.dtype)


def evaluate(req):
    """A value question: (shape, bytes) of PyTorch's result."""
    return asked(lambda: torch_value(req), req.params, req.shapes)


def torch_value(req):
    check_params(req.params, req.shapes)
    xs = [to_tensor(t) for t in req.inputs]
    if req.kind == w.VALUE_ELEMENTWISE:
        r = elementwise(req, xs)
    elif req.kind == w.VALUE_SELECT:
        if req.params.rule == w.RULE_NONE:
            w.require_equal_shapes(req.shapes, "PyTorch")
        r = torch_call(torch.where, *xs)
    elif req.kind == w.VALUE_BROADCAST:
        if req.params.rule == w.RULE_BROADCAST_TO:
            w.check_operand_count(req.shapes, 2)
            r = torch_call(broadcast_to, xs[0], req.shapes[1])
        else:  # bidirectional: to numpy(x, target)
            r = torch_call(torch.broadcast_to, xs[0], result_shape(req.params, req.shapes))
    elif req.kind == w.VALUE_MATMUL:
        if w.DTYPE_NAMES[req.out_dtype] == "float16":
            # torch 1.13's CPU kernels: "addmm_impl_cpu_" / "dot" not implemented for 'Half'
            raise w.Unsupported("PyTorch's CPU matmul is not implemented for float16")
        r = torch_call(torch.matmul, xs[0], xs[1])
    else:
        r = sum_to_shape(req, xs[0])
    if r.dtype != DTYPES[req.out_dtype]:
        raise RuntimeError("PyTorch computed %s, the question is for %s"
                           % (r.dtype, w.DTYPE_NAMES[req.out_dtype]))
    flat = torch.empty(r.numel(), dtype=r.dtype)  # row-major, stride 1 for sure
    flat.copy_(r.reshape(-1))
    return list(r.shape), bytes(flat.view(torch.uint8).tolist())


CAPS = w.Capabilities(
    "torch-expand" if EXPAND else "torch", torch.__version__,
    "PyTorch %s (CPU): broadcast_shapes, %s, binary ops (in place for onnx-uni), where, "
    "sum_to_size, matmul (rule none: equal shapes only)"
    % (torch.__version__, "Tensor.expand" if EXPAND else "broadcast_to"),
    features=w.FEATURE_SHAPE | w.FEATURE_ELEMENTWISE | w.FEATURE_SELECT |
    w.FEATURE_BROADCAST | w.FEATURE_SUM_TO_SHAPE | w.FEATURE_MATMUL,
    rules=w.bits(w.RULE_NONE, w.RULE_NUMPY, w.RULE_ONNX_UNI, w.RULE_BROADCAST_TO,
                 w.RULE_BIDIRECTIONAL, w.RULE_MATMUL),
    profiles=w.bits(w.PROFILE_PYTORCH_EXPAND),
    ops=w.bits(*range(10)), dtypes=w.bits(*range(8)),
    max_rank=w.MAX_RANK, max_operands=w.MAX_OPERANDS)

if __name__ == "__main__":
    sys.exit(channel.serve(CAPS, result_shape, evaluate))
