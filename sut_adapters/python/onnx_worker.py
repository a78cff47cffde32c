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
  matmul         MatMul(A, B) ("behaves like numpy.matmul"), partial shapes too
  others         not declared: ONNX has no operator for them.

Answers: an output shape, all dims known: that shape.  An exception from
inference (strict mode turns every inference error into one): rejected, kind
unknown (ONNX does not say which kind).  No output shape, or an unknown
dim, for inputs whose shapes are all static: an internal error, because ONNX
failed to answer a question it has everything for; "unsupported" would hide
that.

Partial shapes (spec/RULES.md §14, protocol 2): the same nodes on inputs
whose value_info has unknown dims (?), dim_params (symbols, without bounds:
ONNX has no intervals) and no shape at all (unknown rank); Expand's target
is the Shape of such an input, read through data propagation
(infer_shapes(..., data_prop=True)).  The answer's dim_params that are the
question's symbols are those symbols; any other is a symbol of ONNX's own.
No output shape is a shape of unknown rank.

Limits (HELLO): ONNX fixes neither a rank nor an operand-count limit
(variadic Sum/Max/Min; spec/RULES.md §9.5), so the protocol's 64 and 136
(shape inference of a 136-input Sum checked by hand with ONNX 1.12).
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
    # ONNX's answer, its known divergences included (onnx.manifest.json):
    # shapes inferred from negative dims, and PRelu, whose inference never
    # checks the slope.
    return onnx_shape(params, shapes)


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
    if params.rule == w.RULE_MATMUL:
        w.check_operand_count(shapes, 2)
        return infer("MatMul", shapes)
    raise w.Unsupported("ONNX has no operator for rule %d" % params.rule)


# ---- partial shapes --------------------------------------------------------------

def onnx_dims(shape, symbols, values):
    """A partial shape as onnx.helper takes it: None for unknown rank, else a
    list of ints, dim_param strings and None (an unknown dim).  values holds
    each symbol's value where its bounds fix one."""
    if shape is None:
        return None
    dims = []
    for d in shape:
        if d.symbol and values.get(d.symbol) is not None:
            dims.append(values[d.symbol])
        elif d.symbol:
            dims.append(symbols[d.symbol - 1])
        elif d.is_static():
            dims.append(d.lo)
        else:
            dims.append(None)  # the harness sends only what CAPS declares: ?, not intervals
    return dims


def symbol_values(shapes):
    """ONNX cannot bound a dim_param: a symbol with bounds is refused, one
    whose bounds fix a value is that value."""
    bounds = {}
    for s in shapes:
        for d in s or ():
            if d.symbol:
                lo, hi = bounds.get(d.symbol, (0, None))
                lo = max(lo, d.lo)
                hi = d.hi if hi is None else (hi if d.hi is None else min(hi, d.hi))
                bounds[d.symbol] = (lo, hi)
    values = {}
    for sym, (lo, hi) in bounds.items():
        if hi is not None and lo > hi:
            raise w.Unsupported("symbol %d has no value: ONNX cannot state it" % sym)
        if lo == hi:
            values[sym] = lo
        elif (lo, hi) != (0, None):
            raise w.Unsupported("ONNX has no bounds for a dim_param")
    return values


def infer_partial_node(op_type, shapes, symbols, target=None):
    """The partial output shape ONNX infers; target: Expand's shape input, a
    partial shape whose Shape the node reads."""
    values = symbol_values(list(shapes) + [target])
    names = ["x%d" % i for i in range(len(shapes))]
    inputs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, onnx_dims(s, symbols, values))
              for n, s in zip(names, shapes)]
    nodes = []
    if op_type == "Expand":
        inputs.append(helper.make_tensor_value_info(
            "t", TensorProto.FLOAT, onnx_dims(target, symbols, values)))
        nodes.append(helper.make_node("Shape", ["t"], ["shape"]))
        names.append("shape")
    nodes.append(helper.make_node(op_type, names, ["y"]))
    graph = helper.make_graph(nodes, "question", inputs,
                              [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    try:
        inferred = shape_inference.infer_shapes(model, check_type=True, strict_mode=True,
                                                data_prop=True)
    except (shape_inference.InferenceError, onnx.checker.ValidationError) as e:
        raise w.Rejected(str(e).strip())
    for v in list(inferred.graph.output) + list(inferred.graph.value_info):
        if v.name != "y":
            continue
        t = v.type.tensor_type
        if not t.HasField("shape"):
            return None
        own = {}  # dim_params ONNX made up: symbols above the question's
        result = []
        for d in t.shape.dim:
            if d.HasField("dim_value"):
                result.append(w.PDim(d.dim_value, d.dim_value))
            elif d.dim_param in symbols:
                result.append(w.PDim(0, None, symbols.index(d.dim_param) + 1))
            elif d.dim_param:
                own.setdefault(d.dim_param, len(symbols) + 1 + len(own))
                result.append(w.PDim(0, None, own[d.dim_param]))
            else:
                result.append(w.PDim(0, None))
        return result
    return None  # no output shape: unknown rank


def partial_shape(params, shapes, symbols):
    if params.has_options():
        raise w.Unsupported("ONNX's broadcasting takes no axis, axes or profile")
    if params.rule == w.RULE_NUMPY:
        op = NUMPY_OP or ("Add" if len(shapes) == 2 else "Sum")
        if op in ("Add", "Where") and len(shapes) != (2 if op == "Add" else 3):
            raise w.Unsupported("--numpy-op %s: not %d operands" % (op, len(shapes)))
        if op == "Where":
            raise w.Unsupported("--numpy-op Where: no partial shapes (a bool condition)")
        return infer_partial_node(op, shapes, symbols)
    if params.rule == w.RULE_ONNX_UNI:
        w.check_operand_count(shapes, 2)
        return infer_partial_node("PRelu", shapes, symbols)
    if params.rule == w.RULE_BIDIRECTIONAL:
        w.check_operand_count(shapes, 2)
        return infer_partial_node("Expand", shapes[:1], symbols, target=shapes[1])
    if params.rule == w.RULE_MATMUL:
        w.check_operand_count(shapes, 2)
        return infer_partial_node("MatMul", shapes, symbols)
    raise w.Unsupported("ONNX has no operator for rule %d" % params.rule)


def no_values(req):
    raise w.Unsupported("ONNX 1.12 has shape inference only")


CAPS = w.Capabilities(
    "onnx" if NUMPY_OP is None else "onnx-" + NUMPY_OP.lower(), onnx.__version__,
    "ONNX %s shape inference, opset %d: numpy by %s, onnx-uni by PRelu, bidirectional "
    "by Expand, matmul by MatMul" % (onnx.__version__, OPSET,
                   NUMPY_OP or "Add (2 operands) and Sum (other counts)"),
    features=w.FEATURE_SHAPE,
    rules=w.bits(w.RULE_NUMPY, w.RULE_ONNX_UNI, w.RULE_BIDIRECTIONAL, w.RULE_MATMUL),
    max_rank=w.MAX_RANK, max_operands=w.MAX_OPERANDS,
    partial=w.PARTIAL_DYNAMIC | w.PARTIAL_SYMBOL | w.PARTIAL_DYNAMIC_RANK)

if __name__ == "__main__":
    sys.exit(channel.serve(CAPS, result_shape, no_values, partial_shape))
