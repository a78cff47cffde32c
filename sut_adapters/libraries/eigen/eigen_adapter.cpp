/*
 * broadcheck adapter for Eigen's Tensor module (unsupported/Eigen/CXX11/
 * Tensor, Eigen 3.4).
 *
 * Eigen has NO implicit broadcasting and no shape rule: an elementwise op
 * wants operands of equal dimensions (checked by eigen_assert, which this
 * adapter makes throw), and Tensor::broadcast(m) repeats a tensor m[k]
 * times along axis k (same rank).  So an Eigen user broadcasts by hand,
 * and that is what this adapter does (docs/certifications/eigen.md says
 * the same at length):
 *
 * - It declares NO shape feature: shape inference would be the adapter's,
 *   not Eigen's.  It answers value questions only.
 * - The rank is a template parameter: results of rank 0..6 are dispatched
 *   to Tensor<T, R> code (max_rank 6, declared).
 * - Per rule the adapter pads every operand with leading 1s to the result
 *   rank (reshape) and computes the multipliers: an axis where the operand
 *   has 1 gets the result's dim, every other axis 1.  The result's dim per
 *   axis is the first operand dim that is not 1 (numpy), A's (onnx-uni),
 *   the target's (broadcast-to), the operands' own (none).  A pair of dims
 *   that do not broadcast is NOT looked for by the adapter in elementwise
 *   and where: Eigen's own dimension check (eigen_assert in the binary,
 *   select and assignment evaluators) refuses it, and that refusal is the
 *   rejection.  Ranks are the adapter's: an operand of larger rank than a
 *   one-way rule allows (onnx-uni B, broadcast-to input) and unequal ranks
 *   under none are rejected by the adapter; Eigen cannot even compile them.
 * - sum-to-shape: Eigen sums over a fixed-size list of axes; the adapter
 *   shuffles the summed axes (the leading ones, and those the operand
 *   stretched from 1) to the front, reshapes to 2-D, and sums axis 0: Eigen
 *   shuffle, reshape and sum.  Whether the forward case broadcasts is
 *   checked by the adapter there (no forward tensor exists to let Eigen
 *   check it).
 * - Inputs are gathered from their strided views into dense row-major
 *   buffers first (TensorMap has no strides), so layout-invariance tests
 *   the adapter's gather, not Eigen.
 * - dtypes: bool, int8, uint8, int32, int64, float, double, and float16 as
 *   Eigen::half.  Every exception is caught; none crosses the C ABI.
 */
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace bc_eigen {
struct assertion : std::runtime_error {
    explicit assertion(const char *what) : std::runtime_error(what) {}
};
} // namespace bc_eigen

/* Eigen's own checks (dimensions of operands) throw instead of aborting,
 * in every build type: that is how Eigen refuses shapes here. */
#define eigen_assert(x)                                                                        \
    do {                                                                                       \
        if (!(x))                                                                              \
            throw ::bc_eigen::assertion("eigen_assert(" #x ")");                              \
    } while (false)

#include <unsupported/Eigen/CXX11/Tensor>

#include "adapter_util.h"
#include "broadcheck/adapter.h"

#define BC_STR2(x) #x
#define BC_STR(x) BC_STR2(x)

namespace {

constexpr int kMaxRank = 6;
using Index = Eigen::DenseIndex;

struct rejected : std::runtime_error {
    uint32_t kind;
    rejected(const std::string &what, uint32_t k) : std::runtime_error(what), kind(k) {}
};

using dims_t = std::vector<int64_t>;

dims_t dims_of(const bc_adapter_shape &s)
{
    return dims_t(s.dims, s.dims + s.rank);
}

/* A dense copy of an input view, with its dims padded (leading 1s) to R. */
template <class T>
struct dense {
    std::unique_ptr<T[]> buf; /* not std::vector: vector<bool> has no data() */
    std::array<Index, kMaxRank> dims{};
    const T *data() const { return buf.get(); }
};

template <class T>
dense<T> gather(const bc_adapter_tensor &t, int R)
{
    if (t.rank > R)
        throw rejected("an operand has more axes than the result", BC_ADAPTER_ERR_RANK_TOO_LARGE);
    dense<T> d;
    int64_t n = bcu_numel(t.rank, t.dims);
    d.buf.reset(new T[static_cast<std::size_t>(n > 0 ? n : 1)]());
    bcu_gather(&t, d.buf.get());
    for (int k = 0; k < R; k++) {
        int s = k - (R - t.rank);
        d.dims[static_cast<std::size_t>(k)] = s < 0 ? 1 : static_cast<Index>(t.dims[s]);
    }
    return d;
}

/* Rule none stretches nothing: every multiplier is 1 there. */
bool g_stretch = true;

/* The multipliers taking dims `in` to `result`: result's dim where in has 1,
 * else 1 (a mismatch is left for Eigen's dimension check to refuse). */
template <int R>
Eigen::array<Index, R> multipliers(const std::array<Index, kMaxRank> &in, const dims_t &result)
{
    Eigen::array<Index, R> m;
    for (int k = 0; k < R; k++) {
        std::size_t uk = static_cast<std::size_t>(k);
        m[uk] = g_stretch && in[uk] == 1 ? static_cast<Index>(result[uk]) : 1;
    }
    return m;
}

template <class T, int R>
using Map = Eigen::TensorMap<Eigen::Tensor<T, R, Eigen::RowMajor, Index>>;
template <class T, int R>
using CMap = Eigen::TensorMap<const Eigen::Tensor<T, R, Eigen::RowMajor, Index>>;

template <class T, int R>
CMap<T, R> cmap(const dense<T> &d)
{
    Eigen::array<Index, R> dims;
    for (int k = 0; k < R; k++)
        dims[static_cast<std::size_t>(k)] = d.dims[static_cast<std::size_t>(k)];
    return CMap<T, R>(d.data(), dims);
}

template <int R>
Eigen::array<Index, R> eigen_dims(const dims_t &d)
{
    Eigen::array<Index, R> e;
    for (int k = 0; k < R; k++)
        e[static_cast<std::size_t>(k)] = static_cast<Index>(d[static_cast<std::size_t>(k)]);
    return e;
}

/* An input as Eigen sees it for a result of rank R: the map, broadcast by
 * the adapter's multipliers (rank 0: nothing to broadcast). */
template <class T, int R>
Eigen::Tensor<T, R, Eigen::RowMajor, Index> stretched(const dense<T> &d, const dims_t &result)
{
    if constexpr (R == 0) {
        (void)result;
        return cmap<T, 0>(d);
    } else {
        Eigen::array<Index, R> m = multipliers<R>(d.dims, result);
        bool copy = true;
        for (int k = 0; k < R; k++)
            copy = copy && m[static_cast<std::size_t>(k)] == 1;
        if (copy) /* nothing to stretch: no broadcast() call, as a user would write it */
            return cmap<T, R>(d);
        return cmap<T, R>(d).broadcast(m);
    }
}

/* Evaluates expr into req->out (when it fits) or a scratch buffer, always
 * through a TensorMap of the result dims: assigning to a TensorMap checks
 * the dimensions (eigen_assert), where assigning to a Tensor would resize
 * it to whatever the expression has. */
template <class R_T, int R, class E>
void store(const E &expr, const dims_t &result, const bc_adapter_eval_request *req)
{
    int64_t n = bcu_numel(static_cast<int32_t>(result.size()), result.data());
    std::unique_ptr<R_T[]> scratch;
    R_T *dst = static_cast<R_T *>(req->out);
    if (n < 0 || n > req->out_capacity || n == 0) {
        scratch.reset(new R_T[static_cast<std::size_t>(n > 0 ? n : 1)]());
        dst = scratch.get();
    }
    Map<R_T, R> out(dst, eigen_dims<R>(result));
    out = expr;
}

void answer_dims(bc_adapter_answer *a, const dims_t &d)
{
    a->status = BC_ADAPTER_OK;
    a->rank = static_cast<int32_t>(d.size());
    std::copy(d.begin(), d.end(), a->dims);
}

/* ---- the result shape candidates (see the top comment) ---------------- */

dims_t candidate(const bc_adapter_params *p, int32_t n, const bc_adapter_shape *s)
{
    if (n < 1)
        throw rejected("no operand", BC_ADAPTER_ERR_OPERAND_COUNT);
    switch (p->rule) {
    case BC_ADAPTER_RULE_NONE:
        for (int32_t i = 1; i < n; i++)
            if (s[i].rank != s[0].rank)
                throw rejected("ranks differ (rule none): Eigen tensors of different rank do not combine",
                               BC_ADAPTER_ERR_RANK_MISMATCH);
        return dims_of(s[0]);
    case BC_ADAPTER_RULE_ONNX_UNI:
        if (n != 2)
            throw rejected("onnx-uni takes 2 operands", BC_ADAPTER_ERR_OPERAND_COUNT);
        if (s[1].rank > s[0].rank)
            throw rejected("B has more axes than A", BC_ADAPTER_ERR_RANK_TOO_LARGE);
        return dims_of(s[0]);
    case BC_ADAPTER_RULE_BROADCAST_TO:
        if (n != 2)
            throw rejected("broadcast-to takes 2 operands", BC_ADAPTER_ERR_OPERAND_COUNT);
        if (s[0].rank > s[1].rank)
            throw rejected("the input has more axes than the target", BC_ADAPTER_ERR_RANK_TOO_LARGE);
        return dims_of(s[1]);
    default: { /* numpy */
        int32_t rank = 0;
        for (int32_t i = 0; i < n; i++)
            rank = s[i].rank > rank ? s[i].rank : rank;
        dims_t r(static_cast<std::size_t>(rank), 1);
        for (int32_t k = 0; k < rank; k++)
            for (int32_t i = 0; i < n; i++) {
                int32_t j = k - (rank - s[i].rank);
                if (j >= 0 && s[i].dims[j] != 1 && r[static_cast<std::size_t>(k)] == 1)
                    r[static_cast<std::size_t>(k)] = s[i].dims[j];
            }
        return r;
    }
    }
}

/* The adapter's own check that the forward case broadcasts to `result`
 * (sum-to-shape only, where no forward tensor exists for Eigen to check). */
void check_forward(const bc_adapter_params *p, int32_t n, const bc_adapter_shape *s,
                   const dims_t &result)
{
    for (int32_t i = 0; i < n; i++) {
        if (p->rule == BC_ADAPTER_RULE_BROADCAST_TO && i == 1)
            break; /* the target is the result */
        std::size_t lead = result.size() - static_cast<std::size_t>(s[i].rank);
        for (int32_t k = 0; k < s[i].rank; k++) {
            int64_t d = s[i].dims[k], r = result[lead + static_cast<std::size_t>(k)];
            bool ok = d == r || (d == 1 && p->rule != BC_ADAPTER_RULE_NONE);
            if (!ok)
                throw rejected("the forward operands do not broadcast", BC_ADAPTER_ERR_DIM_MISMATCH);
        }
    }
}

/* ---- the value kinds, for a result of rank R ---------------------------- */

template <class T>
bool is_logic(uint32_t op)
{
    return op == BC_ADAPTER_OP_EQUAL || op == BC_ADAPTER_OP_LESS || op == BC_ADAPTER_OP_AND ||
           op == BC_ADAPTER_OP_OR;
}

template <class T, int R, class X, class Y>
void binary_store(uint32_t op, const X &x, const Y &y, const dims_t &result,
                  const bc_adapter_eval_request *req)
{
    switch (op) {
    case BC_ADAPTER_OP_EQUAL: store<bool, R>(x == y, result, req); return;
    case BC_ADAPTER_OP_LESS: store<bool, R>(x < y, result, req); return;
    /* Eigen's && and || compile on bool tensors only: cast<bool>() first
     * (nonzero is true, as a C++ conversion). */
    case BC_ADAPTER_OP_AND:
        store<bool, R>(x.template cast<bool>() && y.template cast<bool>(), result, req);
        return;
    case BC_ADAPTER_OP_OR:
        store<bool, R>(x.template cast<bool>() || y.template cast<bool>(), result, req);
        return;
    default: throw std::logic_error("not a comparison");
    }
}

template <class T, int R>
Eigen::Tensor<T, R, Eigen::RowMajor, Index> arith(uint32_t op,
                                                  const Eigen::Tensor<T, R, Eigen::RowMajor, Index> &x,
                                                  const Eigen::Tensor<T, R, Eigen::RowMajor, Index> &y)
{
    using Tn = Eigen::Tensor<T, R, Eigen::RowMajor, Index>;
    switch (op) {
    case BC_ADAPTER_OP_ADD: return Tn(x + y);
    case BC_ADAPTER_OP_SUB:
        if constexpr (std::is_same<T, bool>::value)
            throw std::logic_error("sub on bool");
        else
            return Tn(x - y);
    case BC_ADAPTER_OP_MUL: return Tn(x * y);
    case BC_ADAPTER_OP_DIV:
        if constexpr (std::is_same<T, bool>::value)
            throw std::logic_error("div on bool");
        else
            return Tn(x / y);
    case BC_ADAPTER_OP_MAX: return Tn(x.cwiseMax(y));
    case BC_ADAPTER_OP_MIN: return Tn(x.cwiseMin(y));
    default: throw std::logic_error("not arithmetic");
    }
}

template <class T, int R>
void elementwise(const bc_adapter_eval_request *req, const dims_t &result)
{
    if (req->ninputs < 2)
        throw std::runtime_error("fewer than 2 inputs");
    dense<T> x = gather<T>(req->inputs[0], R), y = gather<T>(req->inputs[1], R);
    auto sx = stretched<T, R>(x, result);
    auto sy = stretched<T, R>(y, result);
    if (is_logic<T>(req->op)) {
        binary_store<T, R>(req->op, sx, sy, result, req);
        return;
    }
    Eigen::Tensor<T, R, Eigen::RowMajor, Index> acc = arith<T, R>(req->op, sx, sy);
    for (int32_t i = 2; i < req->ninputs; i++) {
        dense<T> z = gather<T>(req->inputs[i], R);
        acc = arith<T, R>(req->op, acc, stretched<T, R>(z, result));
    }
    store<T, R>(acc, result, req);
}

template <class T, int R>
void select(const bc_adapter_eval_request *req, const dims_t &result)
{
    if (req->ninputs != 3)
        throw std::runtime_error("where takes 3 inputs");
    dense<bool> c = gather<bool>(req->inputs[0], R);
    dense<T> x = gather<T>(req->inputs[1], R), y = gather<T>(req->inputs[2], R);
    auto sc = stretched<bool, R>(c, result);
    auto sx = stretched<T, R>(x, result);
    auto sy = stretched<T, R>(y, result);
    store<T, R>(sc.select(sx, sy), result, req);
}

template <class T, int R>
void broadcast(const bc_adapter_eval_request *req, const dims_t &result)
{
    dense<T> x = gather<T>(req->inputs[0], R);
    store<T, R>(stretched<T, R>(x, result), result, req);
}

/* The gradient (of the result's rank R) summed to the operand's shape. */
template <class T, int R>
void sum_to_shape(const bc_adapter_eval_request *req, const dims_t &result, const dims_t &operand)
{
    dense<T> g = gather<T>(req->inputs[0], R);
    std::size_t lead = result.size() - operand.size();
    Eigen::array<Index, R> order;
    Index summed = 1, kept = 1;
    int at = 0;
    for (int pass = 0; pass < 2; pass++) /* the summed axes first, then the kept ones */
        for (int k = 0; k < R; k++) {
            std::size_t uk = static_cast<std::size_t>(k);
            bool sum = uk < lead || (operand[uk - lead] == 1 && result[uk] != 1);
            if (sum != (pass == 0))
                continue;
            order[static_cast<std::size_t>(at++)] = k;
            (pass == 0 ? summed : kept) *= static_cast<Index>(result[uk]);
        }
    int64_t n = bcu_numel(static_cast<int32_t>(operand.size()), operand.data());
    Eigen::array<Index, 2> flat{{summed, kept}};
    Eigen::array<Index, 1> axis0{{0}};
    Eigen::Tensor<T, 1, Eigen::RowMajor, Index> sums;
    if constexpr (R == 0) {
        (void)order;
        sums = cmap<T, 0>(g).reshape(flat).sum(axis0);
    } else {
        sums = cmap<T, R>(g).shuffle(order).reshape(flat).sum(axis0);
    }
    if (n > 0 && n <= req->out_capacity)
        std::memcpy(req->out, sums.data(), static_cast<std::size_t>(n) * sizeof(T));
}

template <class T, int R>
void run_rank(const bc_adapter_eval_request *req, const dims_t &result, bc_adapter_answer *a)
{
    switch (req->kind) {
    case BC_ADAPTER_VALUE_ELEMENTWISE: elementwise<T, R>(req, result); break;
    case BC_ADAPTER_VALUE_SELECT: select<T, R>(req, result); break;
    case BC_ADAPTER_VALUE_BROADCAST: broadcast<T, R>(req, result); break;
    default: {
        if (req->operand < 0 || req->operand >= req->nshapes)
            throw rejected("no such operand", 0);
        dims_t o = dims_of(req->shapes[req->operand]);
        sum_to_shape<T, R>(req, result, o);
        answer_dims(a, o);
        return;
    }
    }
    answer_dims(a, result);
}

template <class T>
void run_type(const bc_adapter_eval_request *req, const dims_t &result, bc_adapter_answer *a)
{
    switch (result.size()) {
    case 0: run_rank<T, 0>(req, result, a); return;
    case 1: run_rank<T, 1>(req, result, a); return;
    case 2: run_rank<T, 2>(req, result, a); return;
    case 3: run_rank<T, 3>(req, result, a); return;
    case 4: run_rank<T, 4>(req, result, a); return;
    case 5: run_rank<T, 5>(req, result, a); return;
    case 6: run_rank<T, 6>(req, result, a); return;
    default: bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "result rank above %d", kMaxRank); return;
    }
}

void eval(void *, const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    /* Eigen's operators are binary: one operand is not a question for them
     * (declined, never an internal error) */
    if (req->kind == BC_ADAPTER_VALUE_ELEMENTWISE && req->ninputs < 2) {
        bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "Eigen's elementwise operators take 2 operands or more");
        return;
    }
    try {
        dims_t result = candidate(req->params, req->nshapes, req->shapes);
        g_stretch = req->params->rule != BC_ADAPTER_RULE_NONE;
        if (req->kind == BC_ADAPTER_VALUE_SUM_TO_SHAPE)
            check_forward(req->params, req->nshapes, req->shapes, result);
        uint32_t t = req->inputs[req->kind == BC_ADAPTER_VALUE_SELECT ? 1 : 0].dtype;
        switch (t) {
        case BC_ADAPTER_DTYPE_BOOL: run_type<bool>(req, result, a); return;
        case BC_ADAPTER_DTYPE_INT8: run_type<int8_t>(req, result, a); return;
        case BC_ADAPTER_DTYPE_UINT8: run_type<uint8_t>(req, result, a); return;
        case BC_ADAPTER_DTYPE_INT32: run_type<int32_t>(req, result, a); return;
        case BC_ADAPTER_DTYPE_INT64: run_type<int64_t>(req, result, a); return;
        case BC_ADAPTER_DTYPE_FLOAT32: run_type<float>(req, result, a); return;
        case BC_ADAPTER_DTYPE_FLOAT64: run_type<double>(req, result, a); return;
        case BC_ADAPTER_DTYPE_FLOAT16: run_type<Eigen::half>(req, result, a); return;
        default: bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "no such dtype in this adapter"); return;
        }
    } catch (const rejected &e) {
        bcu_answer(a, BC_ADAPTER_REJECTED, "adapter: %s", e.what());
        a->error_kind = e.kind;
    } catch (const bc_eigen::assertion &e) {
        bcu_answer(a, BC_ADAPTER_REJECTED, "Eigen refuses the dimensions: %s", e.what());
        a->error_kind = 0;
    } catch (const std::exception &e) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "exception: %s", e.what());
    } catch (...) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "an exception that is not a std::exception");
    }
}

bc_adapter make_adapter()
{
    bc_adapter d;
    std::memset(&d, 0, sizeof d);
    d.struct_size = sizeof(bc_adapter);
    d.abi_version = BC_ADAPTER_ABI_VERSION;
    d.name = "eigen";
    d.version = "Eigen " BC_STR(EIGEN_WORLD_VERSION) "." BC_STR(EIGEN_MAJOR_VERSION) "." BC_STR(
        EIGEN_MINOR_VERSION) " Tensor module";
    d.description = "Eigen Tensor: reshape + broadcast(multipliers) + elementwise, select, sum";
    d.caps.features = BC_ADAPTER_FEATURE_ELEMENTWISE | BC_ADAPTER_FEATURE_SELECT |
                      BC_ADAPTER_FEATURE_BROADCAST | BC_ADAPTER_FEATURE_SUM_TO_SHAPE;
    d.caps.rules = (1u << BC_ADAPTER_RULE_NONE) | (1u << BC_ADAPTER_RULE_NUMPY) |
                   (1u << BC_ADAPTER_RULE_ONNX_UNI) | (1u << BC_ADAPTER_RULE_BROADCAST_TO);
    d.caps.profiles = 0;
    d.caps.ops = (1u << 10) - 1;
    d.caps.dtypes = (1u << 8) - 1;
    d.caps.max_rank = kMaxRank;
    d.caps.max_operands = 128; /* broadcheck's for none/numpy (ABI 2); the fold of binary Eigen ops has no limit */
    d.context = nullptr;
    d.infer_shape = nullptr;
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
