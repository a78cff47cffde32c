/*
 * Tensor views and dtypes: names, sizes, the checks every view passes
 * before an evaluator sees it, and the error helper of the engine.
 */
#include "broadcheck/tensor.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine.h"

static const char *const dtype_names[BC_DTYPE_COUNT] = {
    [BC_BOOL] = "bool",       [BC_INT8] = "int8",       [BC_UINT8] = "uint8",
    [BC_INT32] = "int32",     [BC_INT64] = "int64",     [BC_FLOAT32] = "float32",
    [BC_FLOAT64] = "float64", [BC_FLOAT16] = "float16",
};
static const unsigned char dtype_sizes[BC_DTYPE_COUNT] = {
    [BC_BOOL] = 1,  [BC_INT8] = 1,    [BC_UINT8] = 1,   [BC_INT32] = 4,
    [BC_INT64] = 8, [BC_FLOAT32] = 4, [BC_FLOAT64] = 8, [BC_FLOAT16] = 2,
};
static const char *const op_names[BC_OP_ENGINE_COUNT] = {
    [BC_OP_ADD] = "add",     [BC_OP_SUB] = "sub",   [BC_OP_MUL] = "mul",
    [BC_OP_DIV] = "div",     [BC_OP_MAX] = "max",   [BC_OP_MIN] = "min",
    [BC_OP_EQUAL] = "equal", [BC_OP_LESS] = "less", [BC_OP_AND] = "and",
    [BC_OP_OR] = "or",
    /* the semantic variants: not names a vector line takes (bc_op_from_name) */
    [BC_OP_DIV_FLOOR] = "div(floor)",           [BC_OP_DIV_NEAREST_F32] = "div(nearest-f32)",
    [BC_OP_DIV_NEAREST] = "div(nearest)",
    [BC_OP_ADD_SATURATE] = "add(saturate)",     [BC_OP_SUB_SATURATE] = "sub(saturate)",
    [BC_OP_MUL_SATURATE] = "mul(saturate)",     [BC_OP_SUB_XOR] = "sub(xor)",
};

/* Each semantic variant's op, so it is refused and typed as that op is. */
static bc_op base_op(bc_op op)
{
    switch ((int)op) {
    case BC_OP_DIV_FLOOR:
    case BC_OP_DIV_NEAREST_F32:
    case BC_OP_DIV_NEAREST: return BC_OP_DIV;
    case BC_OP_ADD_SATURATE: return BC_OP_ADD;
    case BC_OP_SUB_SATURATE:
    case BC_OP_SUB_XOR: return BC_OP_SUB;
    case BC_OP_MUL_SATURATE: return BC_OP_MUL;
    default: return op;
    }
}

static const char *const int_div_names[BC_INT_DIV_COUNT] = {"truncate", "floor", "nearest-f32",
                                                             "nearest"};
static const char *const int_overflow_names[BC_INT_OVERFLOW_COUNT] = {"wrap", "saturate"};
static const char *const float16_sum_names[BC_FLOAT16_SUM_COUNT] = {"each", "wide"};
static const char *const max_elements_names[BC_MAX_ELEMENTS_COUNT] = {"none", "int64"};
static const char *const bool_sub_names[BC_BOOL_SUB_COUNT] = {"none", "xor"};

static int choice(const char *const *names, int count, const char *value)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], value) == 0)
            return i;
    return -1;
}

int bc_semantics_set(bc_semantics *s, const char *key, const char *value)
{
    int v;
    if (strcmp(key, "int_div") == 0) {
        if ((v = choice(int_div_names, BC_INT_DIV_COUNT, value)) < 0)
            return -2;
        s->int_div = (bc_int_div)v;
    } else if (strcmp(key, "int_overflow") == 0) {
        if ((v = choice(int_overflow_names, BC_INT_OVERFLOW_COUNT, value)) < 0)
            return -2;
        s->int_overflow = (bc_int_overflow)v;
    } else if (strcmp(key, "float16_sum") == 0) {
        if ((v = choice(float16_sum_names, BC_FLOAT16_SUM_COUNT, value)) < 0)
            return -2;
        s->float16_sum = (bc_float16_sum)v;
    } else if (strcmp(key, "max_elements") == 0) {
        if ((v = choice(max_elements_names, BC_MAX_ELEMENTS_COUNT, value)) < 0)
            return -2;
        s->max_elements = (bc_max_elements)v;
    } else if (strcmp(key, "bool_sub") == 0) {
        if ((v = choice(bool_sub_names, BC_BOOL_SUB_COUNT, value)) < 0)
            return -2;
        s->bool_sub = (bc_bool_sub)v;
    } else {
        return -1;
    }
    return 0;
}

int bc_semantics_format(const bc_semantics *s, char *buf, size_t cap)
{
    const char *keys[5] = {"int_div", "int_overflow", "float16_sum", "max_elements", "bool_sub"};
    const char *values[5] = {
        (unsigned)s->int_div < BC_INT_DIV_COUNT ? int_div_names[s->int_div] : "?",
        (unsigned)s->int_overflow < BC_INT_OVERFLOW_COUNT ? int_overflow_names[s->int_overflow]
                                                          : "?",
        (unsigned)s->float16_sum < BC_FLOAT16_SUM_COUNT ? float16_sum_names[s->float16_sum]
                                                        : "?",
        (unsigned)s->max_elements < BC_MAX_ELEMENTS_COUNT ? max_elements_names[s->max_elements]
                                                          : "?",
        (unsigned)s->bool_sub < BC_BOOL_SUB_COUNT ? bool_sub_names[s->bool_sub] : "?"};
    const int chosen[5] = {s->int_div != 0, s->int_overflow != 0, s->float16_sum != 0,
                           s->max_elements != 0, s->bool_sub != 0};
    int len = 0;
    if (cap)
        buf[0] = '\0';
    for (int i = 0; i < 5; i++) {
        if (!chosen[i])
            continue;
        int n = snprintf(buf + (len < (int)cap ? len : 0), len < (int)cap ? cap - (size_t)len : 0,
                         "%s%s=%s", len ? "," : "", keys[i], values[i]);
        len += n;
        for (int r = 0; i == 3 && r < BC_RULE_COUNT; r++) {
            if (!(s->max_elements_rules & (1u << r)))
                continue;
            int first = (s->max_elements_rules & ((1u << r) - 1)) == 0;
            n = snprintf(buf + (len < (int)cap ? len : 0), len < (int)cap ? cap - (size_t)len : 0,
                         "%s%s", first ? " on " : "/", bc_rule_name((bc_rule)r));
            len += n;
        }
    }
    return len;
}

static int is_integer(bc_dtype t)
{
    return t == BC_INT8 || t == BC_UINT8 || t == BC_INT32 || t == BC_INT64;
}

bc_op bc_op_under(bc_op op, bc_dtype t, const bc_semantics *s)
{
    if (s && t == BC_BOOL && op == BC_OP_SUB && s->bool_sub == BC_BOOL_SUB_XOR)
        return BC_OP_SUB_XOR;
    if (!s || !is_integer(t))
        return op;
    if (op == BC_OP_DIV)
        return s->int_div == BC_INT_DIV_FLOOR         ? BC_OP_DIV_FLOOR
             : s->int_div == BC_INT_DIV_NEAREST_F32 ? BC_OP_DIV_NEAREST_F32
             : s->int_div == BC_INT_DIV_NEAREST     ? BC_OP_DIV_NEAREST
                                                      : op;
    if (s->int_overflow != BC_INT_OVERFLOW_SATURATE)
        return op;
    return op == BC_OP_ADD   ? BC_OP_ADD_SATURATE
         : op == BC_OP_SUB ? BC_OP_SUB_SATURATE
         : op == BC_OP_MUL ? BC_OP_MUL_SATURATE
                           : op;
}

bc_error_kind bc_engine_fail(bc_error *err, bc_error_kind kind, bc_rule rule, int operand,
                             const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    bc_error_vset(err, kind, rule, operand, -1, -1, 0, 0, fmt, ap);
    va_end(ap);
    return kind;
}

size_t bc_dtype_size(bc_dtype t)
{
    return (unsigned)t < BC_DTYPE_COUNT ? dtype_sizes[t] : 0;
}

const char *bc_dtype_name(bc_dtype t)
{
    return (unsigned)t < BC_DTYPE_COUNT ? dtype_names[t] : "?";
}

int bc_dtype_from_name(const char *name, bc_dtype *out)
{
    for (int i = 0; i < BC_DTYPE_COUNT; i++)
        if (strcmp(dtype_names[i], name) == 0) {
            *out = (bc_dtype)i;
            return 0;
        }
    return -1;
}

int bc_dtype_available(bc_dtype t)
{
    if ((unsigned)t >= BC_DTYPE_COUNT)
        return 0;
    return t != BC_FLOAT16 || BC_HAVE_FLOAT16;
}

const char *bc_op_name(bc_op op)
{
    return (unsigned)op < BC_OP_ENGINE_COUNT ? op_names[op] : "?";
}

int bc_op_from_name(const char *name, bc_op *out)
{
    for (int i = 0; i < BC_OP_COUNT; i++)
        if (strcmp(op_names[i], name) == 0) {
            *out = (bc_op)i;
            return 0;
        }
    return -1;
}

const char *bc_evaluator_name(bc_evaluator ev)
{
    return ev == BC_EVAL_NAIVE ? "naive" : ev == BC_EVAL_FAST ? "fast" : "?";
}

bc_dtype bc_op_result_dtype(bc_op op, bc_dtype t)
{
    op = base_op(op);
    return op >= BC_OP_EQUAL ? BC_BOOL : t;
}

int bc_op_takes_dtype(bc_op op, bc_dtype t)
{
    if ((unsigned)op >= BC_OP_ENGINE_COUNT || !bc_dtype_available(t))
        return 0;
    if (op == BC_OP_SUB_XOR)
        return 1;
    op = base_op(op);
    return !(t == BC_BOOL && (op == BC_OP_SUB || op == BC_OP_DIV));
}

int bc_op_types(bc_op op, bc_dtype t, bc_dtype *result, int64_t *size)
{
    if (!bc_op_takes_dtype(op, t))
        return 0;
    *result = bc_op_result_dtype(op, t);
    *size = dtype_sizes[t];
    return 1;
}

int bc_op_takes_dtype_under(bc_op op, bc_dtype t, const bc_semantics *s)
{
    return bc_op_takes_dtype(op, t) || (s && s->bool_sub == BC_BOOL_SUB_XOR &&
                                        op == BC_OP_SUB && t == BC_BOOL &&
                                        bc_dtype_available(t));
}

/* ---- views ----------------------------------------------------------- */

bc_tensor bc_tensor_contiguous(bc_dtype t, const bc_shape *shape, void *data)
{
    bc_tensor v;
    memset(&v, 0, sizeof v);
    v.dtype = t;
    v.rank = shape->rank;
    v.data = data;
    v.offset = 0;
    int64_t step = 1;
    for (int k = shape->rank - 1; k >= 0; k--) {
        v.dims[k] = shape->dims[k];
        v.strides[k] = step;
        /* Past INT64_MAX the view is refused by bc_tensor_check anyway. */
        if (__builtin_mul_overflow(step, shape->dims[k] > 1 ? shape->dims[k] : 1, &step))
            step = INT64_MAX;
    }
    return v;
}

bc_shape bc_tensor_shape(const bc_tensor *t)
{
    bc_shape s;
    s.rank = t->rank;
    for (int k = 0; k < t->rank; k++)
        s.dims[k] = t->dims[k];
    return s;
}

int bc_tensor_extent(const bc_tensor *t, int64_t *lo, int64_t *hi)
{
    int64_t l = t->offset, h = t->offset;
    for (int k = 0; k < t->rank; k++) {
        if (t->dims[k] == 0) {
            *lo = *hi = 0;
            return 0;
        }
        int64_t span = (t->dims[k] - 1) * t->strides[k]; /* checked by bc_tensor_check */
        if (span < 0)
            l += span;
        else
            h += span;
    }
    *lo = l;
    *hi = h;
    return 1;
}

bc_error_kind bc_tensor_check(const bc_tensor *t, int64_t *numel, bc_error *err)
{
    const bc_rule r = BC_RULE_COUNT; /* not a rule's error */
    if (!bc_dtype_available(t->dtype))
        return bc_engine_fail(err, BC_ERR_BAD_PARAMS, r, -1, "dtype %d (%s) is not available%s",
                              (int)t->dtype, bc_dtype_name(t->dtype),
                              t->dtype == BC_FLOAT16 ? ": the compiler has no _Float16" : "");
    if (t->rank < 0 || t->rank > BC_MAX_RANK)
        return bc_engine_fail(err, BC_ERR_BAD_PARAMS, r, -1, "view rank %d is outside 0..%d",
                              t->rank, BC_MAX_RANK);
    int64_t n = 1;
    int empty = 0;
    for (int k = 0; k < t->rank; k++) {
        if (t->dims[k] < 0)
            return bc_engine_fail(err, BC_ERR_NEGATIVE_DIM, r, -1,
                                  "view dim %lld at axis %d; dims must be >= 0",
                                  (long long)t->dims[k], k);
        if (t->dims[k] == 0)
            empty = 1;
        else if (!empty && __builtin_mul_overflow(n, t->dims[k], &n))
            return bc_engine_fail(err, BC_ERR_OVERFLOW, r, -1,
                                  "the view's element count passes INT64_MAX at axis %d", k);
    }
    if (empty)
        n = 0;
    int64_t size = (int64_t)bc_dtype_size(t->dtype), bytes;
    if (__builtin_mul_overflow(n, size, &bytes))
        return bc_engine_fail(err, BC_ERR_OVERFLOW, r, -1,
                              "the view's %lld elements of %lld bytes pass INT64_MAX bytes",
                              (long long)n, (long long)size);
    if (n > 0) {
        if (!t->data)
            return bc_engine_fail(err, BC_ERR_BAD_PARAMS, r, -1,
                                  "the view has %lld elements but no data", (long long)n);
        if ((uintptr_t)t->data % (uintptr_t)size)
            return bc_engine_fail(err, BC_ERR_BAD_PARAMS, r, -1,
                                  "data is not aligned to its %lld-byte elements",
                                  (long long)size);
        int64_t lo = t->offset, hi = t->offset, span, b;
        for (int k = 0; k < t->rank; k++) {
            if (__builtin_mul_overflow(t->dims[k] - 1, t->strides[k], &span) ||
                (span < 0 ? __builtin_add_overflow(lo, span, &lo)
                          : __builtin_add_overflow(hi, span, &hi)))
                return bc_engine_fail(err, BC_ERR_OVERFLOW, r, -1,
                                      "the view's element offsets pass the int64 range at "
                                      "axis %d (dim %lld, stride %lld)", k,
                                      (long long)t->dims[k], (long long)t->strides[k]);
        }
        if (__builtin_mul_overflow(lo, size, &b) || __builtin_mul_overflow(hi, size, &b))
            return bc_engine_fail(err, BC_ERR_OVERFLOW, r, -1,
                                  "the view's byte offsets pass the int64 range");
    }
    if (numel)
        *numel = n;
    return BC_OK;
}
