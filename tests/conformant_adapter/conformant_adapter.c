/*
 * A conformant adapter, written as an outside author would write one: from
 * include/broadcheck/adapter.h, spec/RULES.md and docs/ENGINE.md only, with
 * nothing of broadcheck's own code (it includes adapter.h and libc, and
 * links nothing).  It answers every question broadcheck asks: every rule and
 * profile, shape inference with the error kinds of RULES.md §1.4 and §12
 * (matmul, §15, included: shapes only, as broadcheck asks it), and every
 * value kind, op and dtype on arbitrary strided views.
 *
 * It is the test of broadcheck's verdicts, not of a library: a correct SUT
 * that broadcheck reports failing is a false failure (tests/CMakeLists.txt
 * certifies it on several seeds, and tests/test_replay.c checks that every
 * minimal case of every built-in mutant passes on it).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcheck/adapter.h"

#if defined(__FLT16_MAX__)
#define HAVE_FLOAT16 1
#else
#define HAVE_FLOAT16 0
#endif

#define MAX_RANK BC_ADAPTER_MAX_RANK

/* ---- answers ------------------------------------------------------------ */

static void say(bc_adapter_answer *a, uint32_t status, uint32_t kind, const char *fmt, ...)
{
    a->status = status;
    a->error_kind = kind;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(a->message, sizeof a->message, fmt, ap);
    va_end(ap);
}

#define REJECT(a, kind, ...) (say((a), BC_ADAPTER_REJECTED, (kind), __VA_ARGS__), 0)

static void accept(bc_adapter_answer *a, const int64_t *dims, int rank)
{
    a->status = BC_ADAPTER_OK;
    a->rank = rank;
    memcpy(a->dims, dims, sizeof(int64_t) * (size_t)rank);
}

/* ---- shapes: RULES.md §1.4 and §2 to §8 -------------------------------- */

/* Where each operand's axes sit in the result frame, for value questions
 * (RULES.md §11.1): frame[i][k] is the result axis operand i's axis k is
 * read at, -1 if it is always read at 0 (a trimmed pdpd 1). */
typedef struct layout {
    int rank; /* of the result */
    int64_t dims[MAX_RANK];
    int frame[BC_ADAPTER_MAX_OPERANDS][MAX_RANK];
} layout;

static const char *rule_names[] = {"none",          "numpy",    "onnx-uni", "pdpd", "broadcast-to",
                                   "bidirectional", "explicit", "matmul"};

/* Step 1: parameters.  Returns 1 if fine. */
static int check_params(const bc_adapter_params *p, bc_adapter_answer *a)
{
    uint32_t allowed = BC_ADAPTER_OPT_PROFILE;
    if (p->rule == BC_ADAPTER_RULE_PDPD)
        allowed |= BC_ADAPTER_OPT_AXIS;
    if (p->rule == BC_ADAPTER_RULE_EXPLICIT)
        allowed |= BC_ADAPTER_OPT_AXES | BC_ADAPTER_OPT_AXES_MAPPING;
    if (p->rule > BC_ADAPTER_RULE_MATMUL)
        return REJECT(a, BC_ADAPTER_ERR_BAD_PARAMS, "unknown rule %u", p->rule);
    if (p->options & ~allowed)
        return REJECT(a, BC_ADAPTER_ERR_BAD_PARAMS, "%s takes no option 0x%x",
                      rule_names[p->rule], p->options & ~allowed);
    if ((p->options & BC_ADAPTER_OPT_PROFILE) && p->profile != BC_ADAPTER_PROFILE_DEFAULT &&
        (p->rule != BC_ADAPTER_RULE_PDPD || p->profile > BC_ADAPTER_PROFILE_PADDLE))
        return REJECT(a, BC_ADAPTER_ERR_BAD_PARAMS, "%s has no profile %u", rule_names[p->rule],
                      p->profile);
    if (p->rule == BC_ADAPTER_RULE_EXPLICIT) {
        uint32_t form = p->options & (BC_ADAPTER_OPT_AXES | BC_ADAPTER_OPT_AXES_MAPPING);
        if (form != BC_ADAPTER_OPT_AXES && form != BC_ADAPTER_OPT_AXES_MAPPING)
            return REJECT(a, BC_ADAPTER_ERR_BAD_PARAMS, "explicit takes axes or axes-mapping");
        if (p->naxes < 0 || p->naxes > MAX_RANK)
            return REJECT(a, BC_ADAPTER_ERR_BAD_PARAMS, "%d axes", p->naxes);
    }
    return 1;
}

/* Steps 2 and 3: the operand count and the dims. */
static int check_operands(const bc_adapter_params *p, int32_t n, const bc_adapter_shape *s,
                          bc_adapter_answer *a)
{
    int many = p->rule == BC_ADAPTER_RULE_NONE || p->rule == BC_ADAPTER_RULE_NUMPY;
    if (many ? n < 1 || n > 128 : n != 2) /* RULES.md §1.3 */
        return REJECT(a, BC_ADAPTER_ERR_OPERAND_COUNT, "%s takes %s shapes, got %d",
                      rule_names[p->rule], many ? "1 to 128" : "2", n);
    for (int32_t i = 0; i < n; i++) {
        if (s[i].rank < 0 || s[i].rank > MAX_RANK)
            return REJECT(a, BC_ADAPTER_ERR_BAD_PARAMS, "operand %d has rank %d", i, s[i].rank);
        for (int k = 0; k < s[i].rank; k++)
            if (s[i].dims[k] < 0)
                return REJECT(a, BC_ADAPTER_ERR_NEGATIVE_DIM, "operand %d axis %d is %lld", i, k,
                              (long long)s[i].dims[k]);
    }
    return 1;
}

static int infer_none(int32_t n, const bc_adapter_shape *s, layout *L, bc_adapter_answer *a)
{
    for (int32_t i = 1; i < n; i++) {
        if (s[i].rank != s[0].rank)
            return REJECT(a, BC_ADAPTER_ERR_RANK_MISMATCH, "operand %d has rank %d, operand 0 %d",
                          i, s[i].rank, s[0].rank);
        for (int k = 0; k < s[0].rank; k++)
            if (s[i].dims[k] != s[0].dims[k])
                return REJECT(a, BC_ADAPTER_ERR_DIM_MISMATCH, "operand %d axis %d", i, k);
    }
    L->rank = s[0].rank;
    memcpy(L->dims, s[0].dims, sizeof(int64_t) * (size_t)L->rank);
    return 1;
}

/* numpy over shapes s[0..n-1] (bidirectional is its two-operand case). */
static int infer_numpy(int32_t n, const bc_adapter_shape *s, layout *L, bc_adapter_answer *a)
{
    int rank = 0;
    for (int32_t i = 0; i < n; i++)
        rank = s[i].rank > rank ? s[i].rank : rank;
    for (int r = 0; r < rank; r++) {
        int64_t dim = 1;
        for (int32_t i = 0; i < n; i++) {
            int k = r - (rank - s[i].rank);
            if (k < 0 || s[i].dims[k] == 1)
                continue;
            if (dim == 1)
                dim = s[i].dims[k];
            else if (s[i].dims[k] != dim)
                return REJECT(a, BC_ADAPTER_ERR_DIM_MISMATCH, "result axis %d: %lld and %lld", r,
                              (long long)dim, (long long)s[i].dims[k]);
        }
        L->dims[r] = dim;
    }
    L->rank = rank;
    return 1;
}

/* B right-aligned onto A (onnx-uni; broadcast-to is the same with the
 * operands in the other order).  small/big are operand indices. */
static int infer_onto(const bc_adapter_shape *small, const bc_adapter_shape *big, layout *L,
                      bc_adapter_answer *a)
{
    if (small->rank > big->rank)
        return REJECT(a, BC_ADAPTER_ERR_RANK_TOO_LARGE, "rank %d onto rank %d", small->rank,
                      big->rank);
    for (int k = 0; k < small->rank; k++) {
        int64_t d = small->dims[k], to = big->dims[big->rank - small->rank + k];
        if (d != to && d != 1)
            return REJECT(a, BC_ADAPTER_ERR_DIM_MISMATCH, "%lld onto %lld", (long long)d,
                          (long long)to);
    }
    L->rank = big->rank;
    memcpy(L->dims, big->dims, sizeof(int64_t) * (size_t)L->rank);
    return 1;
}

static int infer_pdpd(const bc_adapter_params *p, const bc_adapter_shape *A,
                      const bc_adapter_shape *B, layout *L, bc_adapter_answer *a)
{
    uint32_t profile = (p->options & BC_ADAPTER_OPT_PROFILE) ? p->profile : 0;
    if (profile == BC_ADAPTER_PROFILE_DEFAULT)
        profile = BC_ADAPTER_PROFILE_OPENVINO_DOC; /* RULES.md §5 */
    int64_t axis = (p->options & BC_ADAPTER_OPT_AXIS) ? p->axis : -1;
    if (axis < -1)
        return REJECT(a, BC_ADAPTER_ERR_AXIS_OUT_OF_RANGE, "axis %lld", (long long)axis);
    if (profile == BC_ADAPTER_PROFILE_PADDLE) {
        int small_is_a = A->rank <= B->rank; /* §5.3: X inside Y unless X's rank is larger */
        const bc_adapter_shape *small = small_is_a ? A : B, *large = small_is_a ? B : A;
        if (axis == -1)
            axis = large->rank - small->rank;
        if (axis > large->rank)
            return REJECT(a, BC_ADAPTER_ERR_AXIS_OUT_OF_RANGE, "axis %lld", (long long)axis);
        if (axis + small->rank > large->rank)
            return REJECT(a, BC_ADAPTER_ERR_WINDOW_OUT_OF_RANGE, "window past the end");
        for (int r = 0; r < large->rank; r++) {
            int64_t l = large->dims[r];
            int64_t sd = r >= axis && r < axis + small->rank ? small->dims[r - axis] : 1;
            if (l != sd && l != 1 && sd != 1)
                return REJECT(a, BC_ADAPTER_ERR_DIM_MISMATCH, "axis %d: %lld and %lld", r,
                              (long long)sd, (long long)l);
            L->dims[r] = l == 1 ? sd : l;
        }
        L->rank = large->rank;
        int si = small_is_a ? 0 : 1;
        for (int k = 0; k < large->rank; k++)
            L->frame[1 - si][k] = k;
        for (int k = 0; k < small->rank; k++)
            L->frame[si][k] = (int)axis + k;
        return 1;
    }
    if (B->rank > A->rank)
        return REJECT(a, BC_ADAPTER_ERR_RANK_TOO_LARGE, "B's rank %d, A's %d", B->rank, A->rank);
    if (axis == -1)
        axis = A->rank - B->rank; /* B's rank as given */
    if (axis > A->rank)
        return REJECT(a, BC_ADAPTER_ERR_AXIS_OUT_OF_RANGE, "axis %lld", (long long)axis);
    int len = B->rank;
    if (profile == BC_ADAPTER_PROFILE_OPENVINO_DOC)
        while (len > 0 && B->dims[len - 1] == 1)
            len--;
    if (axis + len > A->rank)
        return REJECT(a, BC_ADAPTER_ERR_WINDOW_OUT_OF_RANGE, "window past the end");
    for (int i = 0; i < len; i++) {
        int64_t b = B->dims[i], d = A->dims[axis + i];
        int ok = profile == BC_ADAPTER_PROFILE_OPENVINO_SHAPE_INFERENCE ? b == d || (b == 1 && d >= 1)
                                                                         : b == d || b == 1;
        if (!ok)
            return REJECT(a, BC_ADAPTER_ERR_DIM_MISMATCH, "A axis %lld", (long long)(axis + i));
    }
    L->rank = A->rank;
    memcpy(L->dims, A->dims, sizeof(int64_t) * (size_t)L->rank);
    for (int k = 0; k < A->rank; k++)
        L->frame[0][k] = k;
    for (int k = 0; k < B->rank; k++)
        L->frame[1][k] = k < len ? (int)axis + k : -1;
    return 1;
}

static int infer_explicit(const bc_adapter_params *p, const bc_adapter_shape *in,
                          const bc_adapter_shape *target, layout *L, bc_adapter_answer *a)
{
    int rank = target->rank, n = p->naxes;
    if (in->rank > rank)
        return REJECT(a, BC_ADAPTER_ERR_RANK_TOO_LARGE, "input rank %d, target %d", in->rank,
                      rank);
    if (p->options & BC_ADAPTER_OPT_AXES) {
        int named[MAX_RANK] = {0};
        for (int j = 0; j < n; j++)
            if (p->axes[j] < 0 || p->axes[j] >= rank)
                return REJECT(a, BC_ADAPTER_ERR_AXIS_OUT_OF_RANGE, "axis %lld",
                              (long long)p->axes[j]);
        for (int j = 0; j < n; j++) {
            if (named[p->axes[j]])
                return REJECT(a, BC_ADAPTER_ERR_AXES_DUPLICATE, "axis %lld twice",
                              (long long)p->axes[j]);
            named[p->axes[j]] = 1;
        }
        if (in->rank != rank - n)
            return REJECT(a, BC_ADAPTER_ERR_AXES_COUNT, "%d axes", n);
        for (int t = 0, k = 0; t < rank; t++) {
            if (named[t])
                continue;
            if (in->dims[k] != target->dims[t])
                return REJECT(a, BC_ADAPTER_ERR_DIM_MISMATCH, "target axis %d", t);
            L->frame[0][k++] = t;
        }
    } else {
        if (n != in->rank)
            return REJECT(a, BC_ADAPTER_ERR_AXES_COUNT, "%d entries for rank %d", n, in->rank);
        for (int j = 0; j < n; j++)
            if (p->axes[j] < 0 || p->axes[j] >= rank)
                return REJECT(a, BC_ADAPTER_ERR_AXIS_OUT_OF_RANGE, "axis %lld",
                              (long long)p->axes[j]);
        for (int j = 1; j < n; j++) {
            if (p->axes[j] == p->axes[j - 1])
                return REJECT(a, BC_ADAPTER_ERR_AXES_DUPLICATE, "entry %d repeated", j);
            if (p->axes[j] < p->axes[j - 1])
                return REJECT(a, BC_ADAPTER_ERR_AXES_UNSORTED, "entry %d", j);
        }
        for (int k = 0; k < n; k++) {
            int64_t d = in->dims[k], to = target->dims[p->axes[k]];
            if (d != to && d != 1)
                return REJECT(a, BC_ADAPTER_ERR_DIM_MISMATCH, "target axis %lld",
                              (long long)p->axes[k]);
            L->frame[0][k] = (int)p->axes[k];
        }
    }
    L->rank = rank;
    memcpy(L->dims, target->dims, sizeof(int64_t) * (size_t)rank);
    return 1;
}

/* RULES.md §15, as NumPy's documentation says it: a 1-D A is the row [1,k],
 * a 1-D B the column [k,1]; the last two axes multiply, the axes before
 * them broadcast as numpy; the promoted 1s do not reach the result. */
static int infer_matmul(const bc_adapter_shape *A, const bc_adapter_shape *B, layout *L,
                        bc_adapter_answer *a)
{
    if (A->rank == 0 || B->rank == 0)
        return REJECT(a, BC_ADAPTER_ERR_RANK_MISMATCH, "matmul of a scalar");
    int64_t x[MAX_RANK + 1], y[MAX_RANK + 1];
    int rx = A->rank, ry = B->rank;
    memcpy(x, A->dims, sizeof(int64_t) * (size_t)rx);
    memcpy(y, B->dims, sizeof(int64_t) * (size_t)ry);
    if (rx == 1) {
        x[1] = x[0];
        x[0] = 1;
        rx = 2;
    }
    if (ry == 1) {
        y[1] = 1;
        ry = 2;
    }
    if (x[rx - 1] != y[ry - 2])
        return REJECT(a, BC_ADAPTER_ERR_DIM_MISMATCH, "contracted %lld against %lld",
                      (long long)x[rx - 1], (long long)y[ry - 2]);
    bc_adapter_shape batch[2] = {{rx - 2, x}, {ry - 2, y}};
    if (!infer_numpy(2, batch, L, a))
        return 0;
    if (A->rank >= 2)
        L->dims[L->rank++] = x[rx - 2];
    if (B->rank >= 2)
        L->dims[L->rank++] = y[ry - 1];
    return 1;
}

/* The result of the question's shapes, with where operands 0..2 sit in it
 * (right-aligned unless the rule placed them).  Returns 1, or 0 with the
 * rejection in *a. */
static int infer(const bc_adapter_params *p, int32_t n, const bc_adapter_shape *s, layout *L,
                 bc_adapter_answer *a)
{
    if (!check_params(p, a) || !check_operands(p, n, s, a))
        return 0;
    int placed = 0, ok;
    switch (p->rule) {
    case BC_ADAPTER_RULE_NONE: ok = infer_none(n, s, L, a); break;
    case BC_ADAPTER_RULE_NUMPY:
    case BC_ADAPTER_RULE_BIDIRECTIONAL: ok = infer_numpy(n, s, L, a); break;
    case BC_ADAPTER_RULE_ONNX_UNI: ok = infer_onto(&s[1], &s[0], L, a); break;
    case BC_ADAPTER_RULE_BROADCAST_TO: ok = infer_onto(&s[0], &s[1], L, a); break;
    case BC_ADAPTER_RULE_PDPD:
        ok = infer_pdpd(p, &s[0], &s[1], L, a);
        placed = 1;
        break;
    case BC_ADAPTER_RULE_MATMUL: /* matmul_values places its operands itself */
        ok = infer_matmul(&s[0], &s[1], L, a);
        placed = 1;
        break;
    default:
        ok = infer_explicit(p, &s[0], &s[1], L, a);
        placed = 1;
        break;
    }
    if (ok && !placed)
        for (int i = 0; i < n; i++)
            for (int k = 0; k < s[i].rank; k++)
                L->frame[i][k] = L->rank - s[i].rank + k;
    if (ok)
        accept(a, L->dims, L->rank);
    return ok;
}

static void conformant_infer(void *context, const bc_adapter_params *p, int32_t n,
                             const bc_adapter_shape *shapes, bc_adapter_answer *answer)
{
    (void)context;
    layout L;
    infer(p, n, shapes, &L, answer);
}

/* ---- values: docs/ENGINE.md ------------------------------------------- */

typedef union value {
    int64_t i; /* bool and the integers */
    double f;  /* the floats, exactly (binary16 and 32 fit a double) */
} value;

static int is_float(uint32_t t)
{
    return t == BC_ADAPTER_DTYPE_FLOAT32 || t == BC_ADAPTER_DTYPE_FLOAT64 ||
           t == BC_ADAPTER_DTYPE_FLOAT16;
}

static size_t size_of(uint32_t t)
{
    static const size_t sizes[] = {1, 1, 1, 4, 8, 4, 8, 2};
    return sizes[t];
}

static value load(uint32_t t, const void *p)
{
    value v;
    switch (t) {
    case BC_ADAPTER_DTYPE_BOOL: v.i = *(const uint8_t *)p != 0; break;
    case BC_ADAPTER_DTYPE_INT8: v.i = *(const int8_t *)p; break;
    case BC_ADAPTER_DTYPE_UINT8: v.i = *(const uint8_t *)p; break;
    case BC_ADAPTER_DTYPE_INT32: { int32_t x; memcpy(&x, p, 4); v.i = x; break; }
    case BC_ADAPTER_DTYPE_INT64: memcpy(&v.i, p, 8); break;
    case BC_ADAPTER_DTYPE_FLOAT32: { float x; memcpy(&x, p, 4); v.f = x; break; }
#if HAVE_FLOAT16
    case BC_ADAPTER_DTYPE_FLOAT16: { _Float16 x; memcpy(&x, p, 2); v.f = (double)x; break; }
#endif
    default: memcpy(&v.f, p, 8); break;
    }
    return v;
}

/* Stores v in dtype t: integers wrap, floats round once. */
static void store(uint32_t t, void *p, value v)
{
    switch (t) {
    case BC_ADAPTER_DTYPE_BOOL: *(uint8_t *)p = v.i != 0; break;
    case BC_ADAPTER_DTYPE_INT8:
    case BC_ADAPTER_DTYPE_UINT8: *(uint8_t *)p = (uint8_t)(uint64_t)v.i; break;
    case BC_ADAPTER_DTYPE_INT32: { uint32_t x = (uint32_t)(uint64_t)v.i; memcpy(p, &x, 4); break; }
    case BC_ADAPTER_DTYPE_INT64: memcpy(p, &v.i, 8); break;
    case BC_ADAPTER_DTYPE_FLOAT32: { float x = (float)v.f; memcpy(p, &x, 4); break; }
#if HAVE_FLOAT16
    case BC_ADAPTER_DTYPE_FLOAT16: { _Float16 x = (_Float16)v.f; memcpy(p, &x, 2); break; }
#endif
    default: memcpy(p, &v.f, 8); break;
    }
}

/* v as dtype t holds it (the wrap or rounding a store would make). */
static value in_dtype(uint32_t t, value v)
{
    unsigned char buf[8];
    store(t, buf, v);
    return load(t, buf);
}

static int truth(uint32_t t, value v)
{
    return is_float(t) ? v.f != 0 : v.i != 0;
}

/* a op b for inputs of dtype t; the result in the op's dtype (bool for
 * comparisons and logical ops).  ENGINE.md "Binary ops". */
static value apply(uint32_t op, uint32_t t, value a, value b)
{
    value r;
    if (op == BC_ADAPTER_OP_AND || op == BC_ADAPTER_OP_OR) {
        r.i = op == BC_ADAPTER_OP_AND ? truth(t, a) && truth(t, b) : truth(t, a) || truth(t, b);
        return r;
    }
    if (t == BC_ADAPTER_DTYPE_BOOL) {
        switch (op) {
        case BC_ADAPTER_OP_ADD:
        case BC_ADAPTER_OP_MAX: r.i = a.i || b.i; break;
        case BC_ADAPTER_OP_MUL:
        case BC_ADAPTER_OP_MIN: r.i = a.i && b.i; break;
        case BC_ADAPTER_OP_EQUAL: r.i = a.i == b.i; break;
        default: r.i = !a.i && b.i; break; /* less */
        }
        return r;
    }
    if (is_float(t)) {
        double x = a.f, y = b.f;
        float fx = (float)x, fy = (float)y;
        int single = t != BC_ADAPTER_DTYPE_FLOAT64; /* binary16: in float, rounded once after */
        switch (op) {
        case BC_ADAPTER_OP_ADD: r.f = single ? (double)(fx + fy) : x + y; break;
        case BC_ADAPTER_OP_SUB: r.f = single ? (double)(fx - fy) : x - y; break;
        case BC_ADAPTER_OP_MUL: r.f = single ? (double)(fx * fy) : x * y; break;
        case BC_ADAPTER_OP_DIV: r.f = single ? (double)(fx / fy) : x / y; break;
        case BC_ADAPTER_OP_MAX:
        case BC_ADAPTER_OP_MIN: {
            int max = op == BC_ADAPTER_OP_MAX;
            if (isnan(x) || isnan(y))
                r.f = isnan(x) ? x : y;
            else if (x == y) /* +0 and -0: max takes +0, min -0 */
                r.f = (signbit(x) != 0) == max ? y : x;
            else
                r.f = (x > y) == max ? x : y;
            break;
        }
        case BC_ADAPTER_OP_EQUAL: r.i = x == y; return r;
        default: r.i = x < y; return r; /* less */
        }
        return in_dtype(t, r);
    }
    uint64_t ua = (uint64_t)a.i, ub = (uint64_t)b.i;
    switch (op) {
    case BC_ADAPTER_OP_ADD: r.i = (int64_t)(ua + ub); break;
    case BC_ADAPTER_OP_SUB: r.i = (int64_t)(ua - ub); break;
    case BC_ADAPTER_OP_MUL: r.i = (int64_t)(ua * ub); break;
    case BC_ADAPTER_OP_DIV:
        if (b.i == 0)
            r.i = 0;
        else if (b.i == -1)
            r.i = (int64_t)(0 - ua); /* MIN / -1 wraps to MIN */
        else
            r.i = a.i / b.i; /* C truncates toward zero */
        break;
    case BC_ADAPTER_OP_MAX: r.i = a.i > b.i ? a.i : b.i; break;
    case BC_ADAPTER_OP_MIN: r.i = a.i < b.i ? a.i : b.i; break;
    case BC_ADAPTER_OP_EQUAL: r.i = a.i == b.i; return r;
    default: r.i = a.i < b.i; return r;
    }
    return in_dtype(t, r);
}

/* The element of input x that result coordinate c reads: each axis of x at
 * the coordinate of the result axis it sits on, or at 0 where x has a 1
 * (RULES.md §11.1). */
static const void *element(const bc_adapter_tensor *x, const int *frame, const int64_t *c)
{
    int64_t at = x->offset;
    for (int k = 0; k < x->rank; k++)
        if (x->dims[k] != 1 && frame[k] >= 0)
            at += c[frame[k]] * x->strides[k];
    return (const char *)x->data + at * (int64_t)size_of(x->dtype);
}

/* Advances a row-major coordinate; 0 after the last one. */
static int next(int64_t *c, const int64_t *dims, int rank)
{
    for (int k = rank - 1; k >= 0; k--) {
        if (++c[k] < dims[k])
            return 1;
        c[k] = 0;
    }
    return 0;
}

static int64_t count(const int64_t *dims, int rank)
{
    int64_t n = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] == 0)
            return 0;
        n = dims[k] > INT64_MAX / n ? -1 : n * dims[k];
        if (n < 0)
            return -1;
    }
    return n;
}

/* The row-major index, in shape x, of the element result coordinate c
 * reaches (as element() does, for a contiguous x). */
static int64_t flat_index(const bc_adapter_shape *x, const int *frame, const int64_t *c)
{
    int64_t at = 0;
    for (int k = 0; k < x->rank; k++)
        at = at * x->dims[k] + (x->dims[k] != 1 && frame[k] >= 0 ? c[frame[k]] : 0);
    return at;
}

/* sum-to-shape: each element of the operand's shape gets -0 (floats) plus
 * its terms of the gradient in row-major order of the result, or +0 if it
 * has none (ENGINE.md, "sum-to-shape"). */
static void sum_to_shape(const bc_adapter_eval_request *req, const layout *L,
                         bc_adapter_answer *a)
{
    const bc_adapter_shape *x = &req->shapes[req->operand];
    const bc_adapter_tensor *grad = &req->inputs[0];
    const uint32_t t = req->out_dtype;
    const size_t size = size_of(t);
    int64_t n = count(x->dims, x->rank), total = count(L->dims, L->rank);
    if (n < 0 || n > req->out_capacity || total < 0)
        return;
    unsigned char *seen = calloc((size_t)(n > 0 ? n : 1), 1);
    if (!seen) {
        say(a, BC_ADAPTER_INTERNAL_ERROR, 0, "out of memory");
        return;
    }
    int identity[MAX_RANK];
    for (int k = 0; k < MAX_RANK; k++)
        identity[k] = k;
    int64_t c[MAX_RANK] = {0};
    for (int64_t j = 0; j < total; j++, next(c, L->dims, L->rank)) {
        int64_t i = flat_index(x, L->frame[req->operand], c);
        char *slot = (char *)req->out + i * (int64_t)size;
        value sum = load(t, slot), g = load(grad->dtype, element(grad, identity, c));
        if (!seen[i]) {
            sum.i = 0;
            if (is_float(t))
                sum.f = -0.0;
            seen[i] = 1;
        }
        store(t, slot, apply(BC_ADAPTER_OP_ADD, t, sum, g));
    }
    for (int64_t i = 0; i < n; i++)
        if (!seen[i]) {
            value zero;
            zero.i = 0;
            if (is_float(t))
                zero.f = 0.0;
            store(t, (char *)req->out + i * (int64_t)size, zero);
        }
    free(seen);
}

/* Elementwise, where and broadcast: each result element from the inputs'
 * elements it reads, in row-major order into out. */
static void compute(const bc_adapter_eval_request *req, const layout *L)
{
    const bc_adapter_tensor *in = req->inputs;
    const size_t size = size_of(req->out_dtype);
    int64_t c[MAX_RANK] = {0}, total = count(L->dims, L->rank);
    if (total < 0 || total > req->out_capacity)
        return; /* the shape is the answer: the harness has no room for more */
    for (int64_t j = 0; j < total; j++, next(c, L->dims, L->rank)) {
        value r;
        if (req->kind == BC_ADAPTER_VALUE_SELECT) {
            int pick = load(in[0].dtype, element(&in[0], L->frame[0], c)).i ? 1 : 2;
            r = load(in[pick].dtype, element(&in[pick], L->frame[pick], c));
        } else {
            /* broadcast: the input's element; elementwise: ((x0 op x1) op x2) ...,
             * each step in the dtype */
            r = load(in[0].dtype, element(&in[0], L->frame[0], c));
            for (int32_t i = 1; req->kind == BC_ADAPTER_VALUE_ELEMENTWISE && i < req->ninputs; i++)
                r = apply(req->op, in[0].dtype, r, load(in[i].dtype, element(&in[i], L->frame[i], c)));
        }
        store(req->out_dtype, (char *)req->out + j * (int64_t)size, r);
    }
}

/* matmul (RULES.md §15.5): result element (batch, i, j) is the dot product
 * of A's row i and B's column j at the batch coordinate, each operand's
 * batch right-aligned against the result's, a 1 reading index 0.  Integers
 * wrap (uint64_t, then the store's truncation); floats sum in double. */
static void matmul_values(const bc_adapter_eval_request *req, const layout *L)
{
    const bc_adapter_tensor *a = &req->inputs[0], *b = &req->inputs[1];
    const uint32_t t = req->out_dtype;
    int64_t c[MAX_RANK] = {0}, total = count(L->dims, L->rank);
    if (total < 0 || total > req->out_capacity)
        return;
    const int arow = a->rank >= 2, bcol = b->rank >= 2, batch = L->rank - arow - bcol;
    const int abatch = a->rank - 1 - arow, bbatch = b->rank - 1 - bcol;
    const int64_t kdim = a->dims[a->rank - 1];
    const int64_t astep = a->strides[a->rank - 1], bstep = b->strides[b->rank - 1 - bcol];
    for (int64_t j = 0; j < total; j++, next(c, L->dims, L->rank)) {
        int64_t ao = a->offset, bo = b->offset;
        for (int k = 0; k < abatch; k++)
            ao += a->dims[k] == 1 ? 0 : c[batch - abatch + k] * a->strides[k];
        for (int k = 0; k < bbatch; k++)
            bo += b->dims[k] == 1 ? 0 : c[batch - bbatch + k] * b->strides[k];
        if (arow)
            ao += c[batch] * a->strides[a->rank - 2];
        if (bcol)
            bo += c[L->rank - 1] * b->strides[b->rank - 1];
        value sum;
        uint64_t wrap = 0;
        double fsum = 0.0;
        for (int64_t k = 0; k < kdim; k++) {
            value x = load(t, (const char *)a->data + (ao + k * astep) * (int64_t)size_of(t));
            value y = load(t, (const char *)b->data + (bo + k * bstep) * (int64_t)size_of(t));
            if (is_float(t))
                fsum += x.f * y.f;
            else
                wrap += (uint64_t)x.i * (uint64_t)y.i;
        }
        if (is_float(t))
            sum.f = fsum;
        else
            sum.i = (int64_t)wrap;
        store(t, (char *)req->out + j * (int64_t)size_of(t), sum);
    }
}

static void conformant_eval(void *context, const bc_adapter_eval_request *req,
                            bc_adapter_answer *answer)
{
    (void)context;
    layout L;
    memset(&L, 0, sizeof L);
    if (!infer(req->params, req->nshapes, req->shapes, &L, answer))
        return;
    if (req->kind == BC_ADAPTER_VALUE_SUM_TO_SHAPE) {
        const bc_adapter_shape *x = &req->shapes[req->operand];
        accept(answer, x->dims, x->rank);
        sum_to_shape(req, &L, answer);
    } else if (req->kind == BC_ADAPTER_VALUE_MATMUL) {
        matmul_values(req, &L);
    } else {
        compute(req, &L);
    }
}

static const bc_adapter conformant = {
    sizeof(bc_adapter),
    BC_ADAPTER_ABI_VERSION,
    "conformant",
    "1",
    "a conformant adapter written from adapter.h and spec/RULES.md alone (tests/)",
    {(1u << 6) - 1, (1u << 8) - 1,
     (1u << BC_ADAPTER_PROFILE_OPENVINO_DOC) | (1u << BC_ADAPTER_PROFILE_OPENVINO_SHAPE_INFERENCE) |
         (1u << BC_ADAPTER_PROFILE_PADDLE),
     (1u << 10) - 1, HAVE_FLOAT16 ? (1u << 8) - 1 : (1u << 7) - 1, BC_ADAPTER_MAX_RANK,
     BC_ADAPTER_MAX_OPERANDS},
    NULL,
    conformant_infer,
    conformant_eval,
    0,    /* partial shapes: none (RULES.md §14 is not this adapter's) */
    NULL,
};

BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);
const bc_adapter *bc_adapter_entry_v1(void)
{
    return &conformant;
}
