"""An adapter author's worker outside broadcheck's tree: NumPy's broadcasting
rule on shapes, in plain Python.  It imports the wire helper from the
installed broadcheck (broadcheck puts its folder on an exec: worker's
PYTHONPATH), not from beside itself.  Used by tests/relocation_test.sh."""
import bcwire as w

RULES = w.bits(w.RULE_NUMPY)


def numpy_shape(params, shapes):
    rank = max((len(s) for s in shapes), default=0)
    out = []
    for axis in range(rank):
        dim = 1
        for s in shapes:
            k = axis - (rank - len(s))
            if k < 0:
                continue
            d = s[k]
            if d < 0:
                raise w.Rejected("negative dim %d" % d, w.ERR_NEGATIVE_DIM)
            if d != 1:
                if dim != 1 and dim != d:
                    raise w.Rejected("dims %d and %d at axis %d" % (dim, d, axis),
                                     w.ERR_DIM_MISMATCH)
                dim = d
        out.append(dim)
    return out


def no_values(request):
    raise w.Unsupported("shapes only")


channel = w.Channel()
channel.serve(w.Capabilities("shape_worker.py", "1", "NumPy's rule in Python, for the relocation test",
                             features=w.FEATURE_SHAPE, rules=RULES),
              numpy_shape, no_values)
