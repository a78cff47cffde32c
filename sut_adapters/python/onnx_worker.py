#!/usr/bin/env python3
"""A broadcheck worker for ONNX shape inference (no values: ONNX 1.12 has no
runtime).  Each question is a one-node model built with onnx.helper whose
output shape onnx.shape_inference.infer_shapes (strict mode) computes.

    broadcheck run --sut 'exec:/usr/bin/python3 sut_adapters/python/onnx_worker.py'
    ... onnx_worker.py --numpy-op Max  # rule numpy through Max instead of Add/Sum

  numpy          Add for two operands, Sum for any other count (the
                 multidirectional rule); --numpy-op Sum|Max|Min|Mean|Where
                 asks one operator instead (Where: three operands, the first
                 a bool condition; Add: two).  A count the chosen operator
                 cannot take is "unsupported".
  onnx-uni       PRelu(X=A, slope=B): the spec's unidirectional operator
  bidirectional  Expand(input, shape=target), the target a constant
                 initializer so that inference can read it
  others         not declared: ONNX has no operator for them.

Answers: an output shape, all dims known: that shape.  An exception from
inference (strict mode turns every inference error into one): rejected, kind
unknown (ONNX does not say which kind).  No output shape, or an unknown
dim, for inputs whose shapes are all static: an internal error, because ONNX
failed to answer a question it has everything for; "unsupported" would hide
that.

Limits (HELLO): ONNX fixes neither a rank nor an operand-count limit
(variadic Sum/Max/Min; spec/RULES.md §9.5), so the protocol's 64 and 72.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bcwire as w  # noqa: E402  (standard library only: works without ONNX)

channel = w.Channel()
try:
    import onnx
    from onnx import TensorProto, helper, shape_inference
except Exception as e:  # missing or broken: "not available", never a pass
    channel.fatal("onnx not available: %s" % e)

OPSET = onnx.defs.onnx_opset_version()  # the newest this ONNX knows: 17 in 1.12
NUMPY_OPS = ("Add", "Sum", "Max", "Min", "Mean", "Where")


def numpy_op_option():
    """--numpy-op OP; None (the default) is Add for 2 operands, else Sum."""
    args = sys.argv[1:]
    if "--numpy-op" not in args:
        return None
    i = args.index("--numpy-op")
    op = args[i + 1] if i + 1 < len(args) else ""
    if op not in NUMPY_OPS:
        channel.fatal("onnx_worker.py: --numpy-op takes one of %s, not %r"
                      % (", ".join(NUMPY_OPS), op))
    return op


NUMPY_OP = numpy_op_option()


def infer(op_type, shapes, bool_first=False, target=None):
    """The output shape ONNX infers for one node op_type on inputs of `shapes`
    (and a constant INT64 input `target`, for Expand)."""
    names = ["x%d" % i for i in range(len(shapes))]
    inputs = [helper.make_tensor_value_info(
        n, TensorProto.BOOL if bool_first and i == 0 else TensorProto.FLOAT, s)
        for i, (n, s) in enumerate(zip(names, shapes))]
    initializers = []
    if target is not None:
        names.append("shape")
        initializers.append(helper.make_tensor("shape", TensorProto.INT64, [len(target)], target))
    node = helper.make_node(op_type, names, ["y"])
    graph = helper.make_graph([node], "question", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)],
                              initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    try:
        inferred = shape_inference.infer_shapes(model, check_type=True, strict_mode=True)
    except (shape_inference.InferenceError, onnx.checker.ValidationError) as e:
        raise w.Rejected(str(e).strip())  # ONNX names no kind
    for v in list(inferred.graph.output) + list(inferred.graph.value_info):
        if v.name != "y":
            continue
        t = v.type.tensor_type
        if not t.HasField("shape"):
            break
        dims = []
        for k, d in enumerate(t.shape.dim):
            if not d.HasField("dim_value"):
                raise RuntimeError("ONNX inferred an unknown dim at axis %d for static inputs" % k)
            dims.append(d.dim_value)
        return dims
    raise RuntimeError("ONNX inferred no output shape for static inputs")


def numpy_rule(shapes):
    op = NUMPY_OP or ("Add" if len(shapes) == 2 else "Sum")
    if op == "Add" and len(shapes) != 2:
        raise w.Unsupported("--numpy-op Add: Add takes exactly 2 operands, %d given" % len(shapes))
    if op == "Where" and len(shapes) != 3:
        raise w.Unsupported("--numpy-op Where: Where takes exactly 3 operands, %d given"
                            % len(shapes))
    return infer(op, shapes, bool_first=op == "Where")


def result_shape(params, shapes):
    dims = onnx_shape(params, shapes)
    # The known divergences of docs/certifications/onnx.md, named for
    # BROADCHECK_SKIP_KNOWN: accepted shapes with a negative dim, and PRelu,
    # whose inference never checks the slope.
    if any(d < 0 for s in shapes for d in s):
        w.skip_known("negative-dims-accepted", "ONNX inferred %s from negative dims" % dims)
    if params.rule == w.RULE_ONNX_UNI:
        w.skip_known("prelu-slope-unchecked", "PRelu's inference gives X's shape whatever "
                     "the slope")
    return dims


def onnx_shape(params, shapes):
    if params.has_options():
        raise w.Unsupported("ONNX's broadcasting takes no axis, axes or profile")
    if params.rule == w.RULE_NUMPY:
        return numpy_rule(shapes)
    if params.rule == w.RULE_ONNX_UNI:
        return infer("PRelu", shapes)
    if params.rule == w.RULE_BIDIRECTIONAL:
        w.check_operand_count(shapes, 2)  # input and target are the node's two inputs
        return infer("Expand", shapes[:1], target=shapes[1])
    raise w.Unsupported("ONNX has no operator for rule %d" % params.rule)


def no_values(req):
    raise w.Unsupported("ONNX 1.12 has shape inference only")


CAPS = w.Capabilities(
    "onnx" if NUMPY_OP is None else "onnx-" + NUMPY_OP.lower(), onnx.__version__,
    "ONNX %s shape inference, opset %d: numpy by %s, onnx-uni by PRelu, bidirectional "
    "by Expand" % (onnx.__version__, OPSET,
                   NUMPY_OP or "Add (2 operands) and Sum (other counts)"),
    features=w.FEATURE_SHAPE,
    rules=w.bits(w.RULE_NUMPY, w.RULE_ONNX_UNI, w.RULE_BIDIRECTIONAL),
    max_rank=w.MAX_RANK, max_operands=w.MAX_OPERANDS)

if __name__ == "__main__":
    sys.exit(channel.serve(CAPS, result_shape, no_values))
