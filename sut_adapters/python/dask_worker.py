#!/usr/bin/env python3
"""A broadcheck worker for Dask's shape broadcasting, static and partial.

    broadcheck run --sut 'exec:/usr/bin/python3 sut_adapters/python/dask_worker.py'

Dask arrays whose chunk sizes are not known (after a boolean mask, a
filter, a read of unknown length) have NaN dims, and
dask.array.core.broadcast_shapes broadcasts such shapes: that is Dask's
shape inference on partial shapes (spec/RULES.md §14), with ? written as
NaN.  Dask has no symbols, intervals or shapes of unknown rank.

  numpy   dask.array.core.broadcast_shapes; a ? dim is numpy.nan, a NaN in
          the answer is ?
  others  not declared: Dask's broadcast_to and elementwise operations use
          the same function for their shapes.

Limits (HELLO): rank 64 and the protocol's 136 operands: Dask's
broadcast_shapes loops over any number of shapes (200 checked by hand with
Dask 2022.12.1).

Shape questions only (Dask computes values with NumPy, certified on its
own: docs/certifications/numpy.md).  Known divergences
(docs/certifications/dask.md), declared in dask.manifest.json:
  unknown-rejects   a ? dim against a known dim other than 0 or 1 is
                    rejected, although the ? may be that dim or 1
  unknown-wins      a ? dim against a 0 gives ?, where every case gives 0
  negative-accepted a negative dim is taken as it is
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bcwire as w  # noqa: E402

channel = w.Channel()
try:
    import numpy as np
    import dask
    from dask.array.core import broadcast_shapes
except Exception as e:  # missing or broken: "not available", never a pass
    channel.fatal("dask not available: %s" % e)


def call(shapes):
    """Dask's answer: a tuple of ints and NaNs, or Rejected."""
    try:
        return broadcast_shapes(*[tuple(s) for s in shapes])
    except ValueError as e:
        raise w.Rejected(" ".join(str(e).split()), w.ERR_DIM_MISMATCH)


def check(params, shapes):
    if params.rule != w.RULE_NUMPY or params.has_options():
        raise w.Unsupported("only rule numpy, without options")
    if len(shapes) < 1:
        raise w.Rejected("no shapes", w.ERR_OPERAND_COUNT)


def shape(params, shapes):
    check(params, shapes)
    out = call(shapes)
    if any(d != d for d in out):
        raise RuntimeError("Dask answered an unknown dim for static shapes: %r" % (out,))
    return [int(d) for d in out]


def partial(params, shapes, symbols):
    check(params, shapes)
    # The harness sends only what the HELLO declares: ? and static dims.
    as_dask = [[np.nan if d.is_unknown() else d.lo for d in s] for s in shapes]
    return [w.PDim(0, None) if d != d else w.PDim(int(d), int(d)) for d in call(as_dask)]


def no_values(req):
    raise w.Unsupported("shape questions only")


CAPS = w.Capabilities(
    "dask", dask.__version__,
    "Dask %s dask.array.core.broadcast_shapes (numpy; ? as NaN)" % dask.__version__,
    features=w.FEATURE_SHAPE, rules=w.bits(w.RULE_NUMPY),
    max_rank=w.MAX_RANK, max_operands=w.MAX_OPERANDS, partial=w.PARTIAL_DYNAMIC)

if __name__ == "__main__":
    sys.exit(channel.serve(CAPS, shape, no_values, partial))
