/*
 * Matrix multiplication values (spec/RULES.md §15.5): the oracle.
 *
 * Deliberately naive: one output element at a time, its batch coordinate
 * mapped to each operand's batch coordinate by the numpy rule (a size-1
 * batch axis reads index 0, a missing leading axis is not read), then a
 * dot product over the contracted axis in increasing k.  No tiling, no
 * reordering: the loop is the definition.  The fast engine has no matmul
 * kernel; both evaluators run this code.
 *
 * Integers: the sum of products modulo 2^bits of the dtype (two's
 * complement), computed in uint64_t, where wrapping is defined; since
 * reduction modulo 2^bits is a ring homomorphism, this is the one result
 * of every summation order and accumulator width, so it is compared
 * bit-exactly.
 * Floats: the products and their sum in long double, rounded once to the
 * dtype; the property compares a SUT within a bound (docs/PROPERTIES.md
 * "matmul-values") that bc_matmul_abs_sums supplies the scale of.
 */
#include <stdio.h>
#include <string.h>

#include "broadcheck/tensor.h"

#include "engine.h"

#define BAD(...) bc_engine_fail(err, BC_ERR_BAD_PARAMS, BC_RULE_MATMUL, __VA_ARGS__)

/* Where operand x's element for result batch coordinate rb (of rank
 * rbatch), matrix row i (A) or column j (B), contracted index k lives. */
static int64_t operand_offset(const bc_tensor *x, int is_b, const int64_t *rb, int rbatch,
                              int64_t ij, int64_t k)
{
    int64_t off = x->offset;
    const int mat = x->rank >= 2 ? 2 : 1, xbatch = x->rank - mat;
    for (int t = 0; t < xbatch; t++) {
        /* right-aligned against the result's batch; a stretched 1 reads 0 */
        int64_t c = rb[rbatch - xbatch + t];
        off += (x->dims[t] == 1 ? 0 : c) * x->strides[t];
    }
    if (x->rank == 1)
        return off + k * x->strides[0];
    /* A: [.., i, k]; B: [.., k, j] */
    return is_b ? off + k * x->strides[x->rank - 2] + ij * x->strides[x->rank - 1]
                : off + ij * x->strides[x->rank - 2] + k * x->strides[x->rank - 1];
}

static uint64_t load_u64(const bc_tensor *t, int64_t off)
{
    const char *p = (const char *)t->data;
    switch (t->dtype) {
    case BC_INT8: return (uint64_t)(int64_t)((const int8_t *)p)[off];
    case BC_UINT8: return (uint64_t)((const uint8_t *)p)[off];
    case BC_INT32: return (uint64_t)(int64_t)((const int32_t *)p)[off];
    default: return (uint64_t)((const int64_t *)p)[off];
    }
}

static long double load_ld(const bc_tensor *t, int64_t off)
{
    const char *p = (const char *)t->data;
    switch (t->dtype) {
    case BC_FLOAT32: return ((const float *)p)[off];
#if BC_HAVE_FLOAT16
    case BC_FLOAT16: return (long double)((const _Float16 *)p)[off];
#endif
    default: return ((const double *)p)[off];
    }
}

/* Stores an integer modulo 2^bits: the conversion of a uint64_t to a
 * narrower unsigned type is defined (modulo), then reinterpreted. */
static void store_u64(bc_dtype t, void *p, uint64_t v)
{
    switch (t) {
    case BC_INT8: {
        uint8_t u = (uint8_t)v;
        memcpy(p, &u, 1);
        break;
    }
    case BC_UINT8: *(uint8_t *)p = (uint8_t)v; break;
    case BC_INT32: {
        uint32_t u = (uint32_t)v;
        memcpy(p, &u, 4);
        break;
    }
    default: memcpy(p, &v, 8); break;
    }
}

static void store_ld(bc_dtype t, void *p, long double v)
{
    switch (t) {
    case BC_FLOAT32: *(float *)p = (float)v; break;
#if BC_HAVE_FLOAT16
    case BC_FLOAT16: *(_Float16 *)p = (_Float16)v; break;
#endif
    default: *(double *)p = (double)v; break;
    }
}

static int is_float_dtype(bc_dtype t)
{
    return t == BC_FLOAT32 || t == BC_FLOAT64 || t == BC_FLOAT16;
}

/* The byte range [lo, hi) a view reaches; 0 if it has no elements. */
static int bytes_of(const bc_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    int64_t a, b;
    if (!bc_tensor_extent(t, &a, &b))
        return 0;
    const int64_t es = (int64_t)bc_dtype_size(t->dtype);
    *lo = (uintptr_t)t->data + (uintptr_t)(a * es);
    *hi = (uintptr_t)t->data + (uintptr_t)((b + 1) * es);
    return 1;
}

/* Checks a call; on success *result is the result shape and *numel its
 * element count. */
static bc_error_kind check(const bc_params *p, const bc_tensor *a, const bc_tensor *b,
                           const bc_tensor *out, bc_dtype out_dtype, bc_shape *result,
                           bc_error *err)
{
    if (p->rule != BC_RULE_MATMUL)
        return BAD(-1, "matmul computes under rule matmul only, not %s", bc_rule_name(p->rule));
    const bc_tensor *views[3] = {a, b, out};
    static const char *const names[3] = {"operand 0", "operand 1", "output"};
    for (int i = 0; i < 3; i++) {
        bc_error local;
        bc_error_kind k = bc_tensor_check(views[i], NULL, &local);
        if (k)
            return bc_engine_fail(err, k, BC_RULE_MATMUL, i < 2 ? i : -1, "%s: %s", names[i],
                                  local.message);
    }
    if (a->dtype != b->dtype)
        return BAD(1, "the operands are %s and %s; matmul takes one dtype",
                   bc_dtype_name(a->dtype), bc_dtype_name(b->dtype));
    if (a->dtype == BC_BOOL)
        return BAD(0, "matmul is not defined on bool here (no sum on bool, ENGINE.md)");
    bc_shape s[2] = {bc_tensor_shape(a), bc_tensor_shape(b)};
    bc_error_kind k = bc_infer_matmul(&s[0], &s[1], result, err);
    if (k)
        return k;
    if (out->dtype != out_dtype)
        return BAD(-1, "the output is %s, matmul gives %s", bc_dtype_name(out->dtype),
                   bc_dtype_name(out_dtype));
    bc_shape os = bc_tensor_shape(out);
    if (!bc_shape_equal(&os, result)) {
        char x[96], y[96];
        bc_shape_format(&os, x, sizeof x);
        bc_shape_format(result, y, sizeof y);
        return BAD(-1, "the output view has shape %s, the result is %s", x, y);
    }
    uintptr_t olo, ohi, ilo, ihi;
    if (bytes_of(out, &olo, &ohi))
        for (int i = 0; i < 2; i++)
            if (bytes_of(views[i], &ilo, &ihi) && ilo < ohi && olo < ihi)
                return BAD(i, "the output overlaps operand %d; matmul writes no input in place",
                           i);
    return BC_OK;
}

/* Empties the x87 register stack the long double sums below run on.  The
 * x86 ABIs require it empty at every call, but an MMX instruction left
 * without its EMMS fills it, and every long double load after that gives
 * the x87's "indefinite" -nan: a correct SUT's element reported against a
 * reference -nan, or the reference's own -nan reported as the SUT's.  GCC
 * 12 at -O3 once vectorised 8-byte pointer copies in fast.c through %mm0
 * with no EMMS (docs/ENGINE.md "The x87 stack"); numpy/x86-simd-sort#183
 * added EMMS for GCC 9 doing the same; so could any library loaded into
 * this process (none is today: adapters run in workers).  EMMS leaves an
 * empty stack as it is. */
static __attribute__((noinline)) void x87_stack_empty(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ volatile("emms" ::: "memory");
#endif
}

/* The shared walk: for each result element, either its value (sums == NULL)
 * or, into sums (row-major, one double an element), sum_k |a_k * b_k|. */
static void walk(const bc_tensor *a, const bc_tensor *b, const bc_tensor *out,
                 const bc_shape *result, double *sums)
{
    x87_stack_empty();
    const int rows_axis = a->rank >= 2, cols_axis = b->rank >= 2;
    const int rbatch = result->rank - rows_axis - cols_axis;
    const int64_t n = rows_axis ? a->dims[a->rank - 2] : 1;
    const int64_t m = cols_axis ? b->dims[b->rank - 1] : 1;
    const int64_t kdim = a->dims[a->rank - 1];
    const size_t es = out ? bc_dtype_size(out->dtype) : 0;
    const int fl = is_float_dtype(a->dtype);
    int64_t rb[BC_MAX_RANK] = {0};
    int64_t numel;
    if (bc_shape_numel(result, &numel) != BC_OK || numel == 0)
        return;
    for (int64_t flat = 0; flat < numel; flat++) {
        /* the result's coordinate of element flat, row-major */
        int64_t rem = flat, j = 0, i = 0;
        if (cols_axis) {
            j = rem % m;
            rem /= m;
        }
        if (rows_axis) {
            i = rem % n;
            rem /= n;
        }
        for (int t = rbatch - 1; t >= 0; t--) {
            rb[t] = rem % result->dims[t];
            rem /= result->dims[t];
        }
        uint64_t isum = 0;
        long double fsum = 0, abs_sum = 0;
        for (int64_t k = 0; k < kdim; k++) {
            int64_t ao = operand_offset(a, 0, rb, rbatch, i, k);
            int64_t bo = operand_offset(b, 1, rb, rbatch, j, k);
            if (fl) {
                long double prod = load_ld(a, ao) * load_ld(b, bo);
                fsum += prod;
                abs_sum += prod < 0 ? -prod : prod;
            } else {
                isum += load_u64(a, ao) * load_u64(b, bo); /* modulo 2^64 */
            }
        }
        if (sums) {
            sums[flat] = (double)abs_sum;
            continue;
        }
        /* the output's own coordinate of flat (any strides) */
        int64_t off = out->offset, r2 = flat;
        for (int t = out->rank - 1; t >= 0; t--) {
            off += (r2 % out->dims[t]) * out->strides[t];
            r2 /= out->dims[t];
        }
        void *dst = (char *)out->data + off * (int64_t)es;
        if (fl)
            store_ld(out->dtype, dst, fsum);
        else
            store_u64(out->dtype, dst, isum);
    }
}

bc_error_kind bc_eval_matmul(bc_evaluator ev, const bc_params *p, const bc_tensor *a,
                             const bc_tensor *b, const bc_tensor *out, bc_error *err)
{
    if ((unsigned)ev >= BC_EVAL_COUNT)
        return BAD(-1, "unknown evaluator %d", (int)ev);
    bc_shape result;
    bc_error_kind k = check(p, a, b, out, a->dtype, &result, err);
    if (k)
        return k;
    walk(a, b, out, &result, NULL);
    return BC_OK;
}

bc_error_kind bc_matmul_abs_sums(const bc_params *p, const bc_tensor *a, const bc_tensor *b,
                                 double *sums, bc_error *err)
{
    bc_shape result;
    bc_error_kind k;
    if (p->rule != BC_RULE_MATMUL)
        return BAD(-1, "matmul computes under rule matmul only, not %s", bc_rule_name(p->rule));
    bc_shape s[2] = {bc_tensor_shape(a), bc_tensor_shape(b)};
    if ((k = bc_tensor_check(a, NULL, err)) || (k = bc_tensor_check(b, NULL, err)) ||
        (k = bc_infer_matmul(&s[0], &s[1], &result, err)))
        return k;
    if (!is_float_dtype(a->dtype) || a->dtype != b->dtype)
        return BAD(-1, "bounds are for float operands of one dtype");
    walk(a, b, NULL, &result, sums);
    return BC_OK;
}
