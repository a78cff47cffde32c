/*
 * broadcheck adapter for xtensor (header-only C++, 0.24).
 *
 * What xtensor decides, and what this adapter decides (docs/certifications/
 * xtensor.md says the same at length):
 *
 * - numpy, shapes: the shape of the lazy expression
 *   xt::zeros<char>(s0) + xt::zeros<char>(s1) (xfunction's own broadcast,
 *   no element is made), folded left over the operands: xtensor's answer
 *   for every operand count.  A shape xtensor refuses throws
 *   xt::broadcast_error: a rejection (no kind: xtensor names none).
 * - numpy, values: the real expressions on xt::adapt views of the inputs
 *   WITH their strides and offsets (xtensor's strided adaptors), so
 *   layout-invariance tests xtensor: a + b, a - b, a * b, a / b,
 *   xt::maximum, xt::minimum, xt::equal, xt::less, a && b, a || b, each
 *   evaluated into an xt::xarray of the result type (n-ary: folded left,
 *   one xarray per step); where: xt::where(cond, a, b).
 * - broadcast-to and bidirectional: xt::broadcast(e, target), one xtensor
 *   function for both rules (xtensor has no second one); the shape
 *   question asks xt::broadcast(xt::zeros<char>(input), target).shape().
 * - sum-to-shape: xt::sum(grad, axes) and a reshape to the operand's
 *   shape.  WHICH axes (the leading ones, and those the operand stretched
 *   from 1) is the adapter's arithmetic: xtensor has no "reduce to shape".
 *   The forward shape comes from xtensor as above.
 * - xtensor's dims are size_t: a negative dim cannot be passed, and the
 *   adapter rejects it as invalid input (negative-dim) itself.
 * - Every exception is caught: xt::broadcast_error is a rejection, any
 *   other an internal error with its text.  None crosses the C ABI.
 */
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

#include <xtensor/xadapt.hpp>
#include <xtensor/xarray.hpp>
#include <xtensor/xbroadcast.hpp>
#include <xtensor/xbuilder.hpp>
#include <xtensor/xexception.hpp>
#include <xtensor/xmath.hpp>
#include <xtensor/xoperation.hpp>
#include <xtensor/xreducer.hpp>
#include <xtensor/xtensor_config.hpp>

#include "adapter_util.h"
#include "broadcheck/adapter.h"

#define BC_STR2(x) #x
#define BC_STR(x) BC_STR2(x)

namespace {

using shape_t = std::vector<std::size_t>;
using strides_t = std::vector<std::ptrdiff_t>;

struct rejected : std::runtime_error {
    uint32_t kind;
    rejected(const char *what, uint32_t k) : std::runtime_error(what), kind(k) {}
};

shape_t to_shape(int32_t rank, const int64_t *dims)
{
    shape_t s(static_cast<std::size_t>(rank));
    for (int32_t k = 0; k < rank; k++) {
        if (dims[k] < 0)
            throw rejected("a negative dim: xtensor dims are size_t", BC_ADAPTER_ERR_NEGATIVE_DIM);
        s[static_cast<std::size_t>(k)] = static_cast<std::size_t>(dims[k]);
    }
    return s;
}

template <class S>
void answer_shape(bc_adapter_answer *a, const S &s)
{
    a->status = BC_ADAPTER_OK;
    a->rank = static_cast<int32_t>(s.size());
    for (std::size_t k = 0; k < s.size(); k++)
        a->dims[k] = static_cast<int64_t>(s[k]);
}

/* numpy: the left fold of xfunction shapes over lazy zeros. */
shape_t numpy_shape(int32_t n, const bc_adapter_shape *shapes)
{
    if (n < 1)
        throw rejected("no operand", BC_ADAPTER_ERR_OPERAND_COUNT);
    shape_t acc = to_shape(shapes[0].rank, shapes[0].dims);
    for (int32_t i = 1; i < n; i++) {
        shape_t s = to_shape(shapes[i].rank, shapes[i].dims);
        auto e = xt::zeros<char>(acc) + xt::zeros<char>(s);
        const auto &r = e.shape();
        acc.assign(r.begin(), r.end());
    }
    return acc;
}

/* broadcast-to / bidirectional: the shape of xt::broadcast(input, target). */
shape_t broadcast_shape(int32_t n, const bc_adapter_shape *shapes)
{
    if (n != 2)
        throw rejected("xt::broadcast takes an expression and a shape", BC_ADAPTER_ERR_OPERAND_COUNT);
    shape_t in = to_shape(shapes[0].rank, shapes[0].dims);
    shape_t target = to_shape(shapes[1].rank, shapes[1].dims);
    auto e = xt::broadcast(xt::zeros<char>(in), target);
    const auto &r = e.shape();
    return shape_t(r.begin(), r.end());
}

shape_t rule_shape(const bc_adapter_params *p, int32_t n, const bc_adapter_shape *shapes)
{
    if (p->rule == BC_ADAPTER_RULE_NUMPY)
        return numpy_shape(n, shapes);
    return broadcast_shape(n, shapes);
}

/* ---- values ---------------------------------------------------------- */

/* An xtensor adaptor of a strided view: element 0 at data + offset, the
 * view's own strides (in elements, any sign). */
template <class T>
auto view(const bc_adapter_tensor &t)
{
    shape_t shape = to_shape(t.rank, t.dims);
    strides_t strides(static_cast<std::size_t>(t.rank));
    for (int32_t k = 0; k < t.rank; k++)
        strides[static_cast<std::size_t>(k)] = static_cast<std::ptrdiff_t>(t.strides[k]);
    const T *base = static_cast<const T *>(t.data) + t.offset;
    int64_t numel = bcu_numel(t.rank, t.dims);
    return xt::adapt(base, static_cast<std::size_t>(numel > 0 ? numel : 0), xt::no_ownership(),
                     shape, strides);
}

/* Writes an evaluated xarray row-major into out (when it fits) and
 * answers its shape. */
template <class R, class A>
void put(const A &res, const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    xt::xarray<R> r = res; /* row-major */
    if (static_cast<int64_t>(r.size()) <= req->out_capacity)
        std::copy(r.begin(), r.end(), static_cast<R *>(req->out));
    answer_shape(a, r.shape());
}

template <class T>
xt::xarray<T> arith(uint32_t op, const xt::xarray<T> &x, const xt::xarray<T> &y)
{
    switch (op) {
    case BC_ADAPTER_OP_ADD: return x + y;
    case BC_ADAPTER_OP_SUB: return x - y;
    case BC_ADAPTER_OP_MUL: return x * y;
    case BC_ADAPTER_OP_DIV: return x / y;
    case BC_ADAPTER_OP_MAX: return xt::maximum(x, y);
    case BC_ADAPTER_OP_MIN: return xt::minimum(x, y);
    default: throw std::logic_error("not an arithmetic op");
    }
}

template <class X, class Y>
xt::xarray<bool> logic(uint32_t op, const X &x, const Y &y)
{
    switch (op) {
    case BC_ADAPTER_OP_EQUAL: return xt::equal(x, y);
    case BC_ADAPTER_OP_LESS: return xt::less(x, y);
    case BC_ADAPTER_OP_AND: return x && y;
    case BC_ADAPTER_OP_OR: return x || y;
    default: throw std::logic_error("not a comparison or logical op");
    }
}

bool is_logic(uint32_t op)
{
    return op == BC_ADAPTER_OP_EQUAL || op == BC_ADAPTER_OP_LESS || op == BC_ADAPTER_OP_AND ||
           op == BC_ADAPTER_OP_OR;
}

template <class T>
void elementwise(const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    /* One operand is the fold of nothing: a copy (bc_eval_nary with n = 1,
     * ONNX Sum of one input).  Only add, mul, max and min take it. */
    if (req->ninputs == 1 && !is_logic(req->op)) {
        xt::xarray<T> copy = view<T>(req->inputs[0]);
        put<T>(copy, req, a);
        return;
    }
    if (req->ninputs < 2)
        throw std::runtime_error("fewer than 2 inputs");
    if (is_logic(req->op)) {
        if (req->ninputs != 2)
            throw std::runtime_error("comparisons take 2 inputs");
        put<bool>(logic(req->op, view<T>(req->inputs[0]), view<T>(req->inputs[1])), req, a);
        return;
    }
    /* The first step on the two strided views; later steps on the xarray. */
    xt::xarray<T> acc;
    {
        auto x = view<T>(req->inputs[0]);
        auto y = view<T>(req->inputs[1]);
        switch (req->op) {
        case BC_ADAPTER_OP_ADD: acc = x + y; break;
        case BC_ADAPTER_OP_SUB: acc = x - y; break;
        case BC_ADAPTER_OP_MUL: acc = x * y; break;
        case BC_ADAPTER_OP_DIV: acc = x / y; break;
        case BC_ADAPTER_OP_MAX: acc = xt::maximum(x, y); break;
        case BC_ADAPTER_OP_MIN: acc = xt::minimum(x, y); break;
        default: throw std::logic_error("op");
        }
    }
    for (int32_t i = 2; i < req->ninputs; i++) {
        xt::xarray<T> next = view<T>(req->inputs[i]);
        acc = arith<T>(req->op, acc, next);
    }
    put<T>(acc, req, a);
}

template <class T>
void select(const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    if (req->ninputs != 3)
        throw std::runtime_error("where takes 3 inputs");
    put<T>(xt::where(view<bool>(req->inputs[0]), view<T>(req->inputs[1]), view<T>(req->inputs[2])),
           req, a);
}

template <class T>
void broadcast(const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    if (req->nshapes != 2)
        throw rejected("xt::broadcast takes an expression and a shape", BC_ADAPTER_ERR_OPERAND_COUNT);
    shape_t target = to_shape(req->shapes[1].rank, req->shapes[1].dims);
    put<T>(xt::broadcast(view<T>(req->inputs[0]), target), req, a);
}

template <class T>
void sum_to_shape(const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    shape_t result = rule_shape(req->params, req->nshapes, req->shapes); /* xtensor's */
    if (req->operand < 0 || req->operand >= req->nshapes)
        throw rejected("no such operand", 0);
    const bc_adapter_shape &o = req->shapes[req->operand];
    shape_t x = to_shape(o.rank, o.dims);
    /* The adapter's part: which result axes the operand was repeated along. */
    std::vector<std::size_t> axes;
    std::size_t lead = result.size() - x.size();
    for (std::size_t r = 0; r < result.size(); r++)
        if (r < lead || (x[r - lead] == 1 && result[r] != 1))
            axes.push_back(r);
    auto g = view<T>(req->inputs[0]);
    xt::xarray<T> s;
    if (axes.empty())
        s = g;
    else
        s = xt::sum(g, axes); /* lazy: the immediate strategy refuses dynamic layouts */
    s.reshape(x);
    put<T>(s, req, a);
}

template <class T>
void dispatch_kind(const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    switch (req->kind) {
    case BC_ADAPTER_VALUE_ELEMENTWISE: elementwise<T>(req, a); return;
    case BC_ADAPTER_VALUE_SELECT: select<T>(req, a); return;
    case BC_ADAPTER_VALUE_BROADCAST: broadcast<T>(req, a); return;
    case BC_ADAPTER_VALUE_SUM_TO_SHAPE: sum_to_shape<T>(req, a); return;
    default: bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "unknown value kind"); return;
    }
}

/* Rejections: what xtensor throws when shapes do not broadcast, and the
 * adapter's negative-dim refusal.  Anything else is an internal error. */
template <class F>
void guarded(bc_adapter_answer *a, F &&f)
{
    try {
        f();
    } catch (const rejected &e) {
        bcu_answer(a, BC_ADAPTER_REJECTED, "%s", e.what());
        a->error_kind = e.kind;
    } catch (const xt::broadcast_error &e) {
        bcu_answer(a, BC_ADAPTER_REJECTED, "xt::broadcast_error: %s", e.what());
        a->error_kind = 0;
    } catch (const std::exception &e) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "exception: %s", e.what());
    } catch (...) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "an exception that is not a std::exception");
    }
}

void infer_shape(void *, const bc_adapter_params *p, int32_t n, const bc_adapter_shape *shapes,
                 bc_adapter_answer *a)
{
    guarded(a, [&] {
        answer_shape(a, rule_shape(p, n, shapes));
    });
}

void eval(void *, const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    guarded(a, [&] {
        /* The value dtype: the inputs' (where: the branches'). */
        uint32_t t = req->inputs[req->kind == BC_ADAPTER_VALUE_SELECT ? 1 : 0].dtype;
        switch (t) {
        case BC_ADAPTER_DTYPE_BOOL: dispatch_kind<bool>(req, a); return;
        case BC_ADAPTER_DTYPE_INT8: dispatch_kind<int8_t>(req, a); return;
        case BC_ADAPTER_DTYPE_UINT8: dispatch_kind<uint8_t>(req, a); return;
        case BC_ADAPTER_DTYPE_INT32: dispatch_kind<int32_t>(req, a); return;
        case BC_ADAPTER_DTYPE_INT64: dispatch_kind<int64_t>(req, a); return;
        case BC_ADAPTER_DTYPE_FLOAT32: dispatch_kind<float>(req, a); return;
        case BC_ADAPTER_DTYPE_FLOAT64: dispatch_kind<double>(req, a); return;
        default: bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "no such dtype in this adapter"); return;
        }
    });
}

bc_adapter make_adapter()
{
    bc_adapter d;
    std::memset(&d, 0, sizeof d);
    d.struct_size = sizeof(bc_adapter);
    d.abi_version = BC_ADAPTER_ABI_VERSION;
    d.name = "xtensor";
    d.version = "xtensor " BC_STR(XTENSOR_VERSION_MAJOR) "." BC_STR(XTENSOR_VERSION_MINOR) "." BC_STR(
        XTENSOR_VERSION_PATCH);
    d.description = "xtensor expressions, xt::where, xt::broadcast, xt::sum on strided adaptors";
    d.caps.features = BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE |
                      BC_ADAPTER_FEATURE_SELECT | BC_ADAPTER_FEATURE_BROADCAST |
                      BC_ADAPTER_FEATURE_SUM_TO_SHAPE;
    d.caps.rules = (1u << BC_ADAPTER_RULE_NUMPY) | (1u << BC_ADAPTER_RULE_BROADCAST_TO) |
                   (1u << BC_ADAPTER_RULE_BIDIRECTIONAL);
    d.caps.profiles = 0;
    d.caps.ops = (1u << 10) - 1; /* all ten */
    d.caps.dtypes = (1u << BC_ADAPTER_DTYPE_BOOL) | (1u << BC_ADAPTER_DTYPE_INT8) |
                    (1u << BC_ADAPTER_DTYPE_UINT8) | (1u << BC_ADAPTER_DTYPE_INT32) |
                    (1u << BC_ADAPTER_DTYPE_INT64) | (1u << BC_ADAPTER_DTYPE_FLOAT32) |
                    (1u << BC_ADAPTER_DTYPE_FLOAT64);
    d.caps.max_rank = BC_ADAPTER_MAX_RANK;
    d.caps.max_operands = 128; /* broadcheck's for numpy (ABI 2); the fold of binary xfunctions has no limit */
    d.context = nullptr;
    d.infer_shape = infer_shape;
    d.eval = eval;
    return d;
}

} // namespace

extern "C" BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);

extern "C" const bc_adapter *bc_adapter_entry_v1(void)
{
    static const bc_adapter d = make_adapter();
    return &d;
}
