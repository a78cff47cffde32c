/*
 * broadcheck adapter for XNNPACK (xnnpack.h, the 2022 operator API).
 *
 * What XNNPACK decides, and what this adapter decides (docs/certifications/
 * xnnpack.md says the same at length):
 *
 * - Elementwise values: one binary ND operator, xnn_create_<op>_nd_<type>
 *   then xnn_setup_<op>_nd_<type>(op, rank1, shape1, rank2, shape2, ...)
 *   and xnn_run_operator.  XNNPACK broadcasts the two shapes itself (NumPy
 *   rule, right-aligned) and refuses incompatible ones in setup.  Ops:
 *   add, subtract, multiply, divide, maximum, minimum on f32; add and
 *   multiply on f16 when this CPU runs them (probed at load); add,
 *   subtract, multiply on qs8/qu8 with the identity quantization (scale 1,
 *   zero point 0) for int8/uint8.  A question XNNPACK has no operator for
 *   (divide on int8, say) is answered "unsupported".
 * - Inputs must be dense: XNNPACK has no strides.  The adapter gathers each
 *   strided view into a dense row-major buffer first, so layout-invariance
 *   tests the adapter's gather, not XNNPACK.
 * - Acceptance (infer_shape): XNNPACK has no shape inference of its own
 *   (setup computes the output shape internally and does not return it).
 *   infer_shape creates an f32 add operator and calls setup with the two
 *   shapes and placeholder pointers (never run): setup's verdict is the
 *   answer.  The dims of an accepted answer are the adapter's statement of
 *   the broadcast shape (per axis the non-1 dim), as the values are
 *   written; so for shapes, XNNPACK is tested on acceptance only.
 * - Dims are size_t in XNNPACK: a negative dim cannot be passed, and the
 *   adapter rejects it as invalid input (negative-dim) itself.
 * - Rank: XNN_MAX_TENSOR_DIMS (6), declared as max_rank; 2 operands.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xnnpack.h>

#include "adapter_util.h"
#include "broadcheck/adapter.h"

/* xnn_initialize is process-wide in XNNPACK itself; broadcheck-worker
 * serves this adapter on one thread, so the flag needs no lock. */
static int initialized; /* 1 ok, -1 failed */

static int setup_library(void)
{
    if (initialized == 0)
        initialized = xnn_initialize(NULL) == xnn_status_success ? 1 : -1;
    return initialized == 1;
}

static const char *status_name(enum xnn_status s)
{
    switch (s) {
    case xnn_status_success: return "success";
    case xnn_status_uninitialized: return "uninitialized";
    case xnn_status_invalid_parameter: return "invalid_parameter";
    case xnn_status_invalid_state: return "invalid_state";
    case xnn_status_unsupported_parameter: return "unsupported_parameter";
    case xnn_status_unsupported_hardware: return "unsupported_hardware";
    case xnn_status_out_of_memory: return "out_of_memory";
    default: return "unknown status";
    }
}

/* ---- the operators, by (op, dtype) ------------------------------------ */

typedef enum xnn_status (*setup_fn)(xnn_operator_t, size_t, const size_t *, size_t,
                                    const size_t *, const void *, const void *, void *,
                                    pthreadpool_t);

/* Wrappers giving every setup function one signature. */
#define SETUP_WRAP(name, T)                                                                   \
    static enum xnn_status wrap_##name(xnn_operator_t op, size_t n1, const size_t *s1,         \
                                       size_t n2, const size_t *s2, const void *x,            \
                                       const void *y, void *out, pthreadpool_t pool)          \
    {                                                                                         \
        return xnn_setup_##name(op, n1, s1, n2, s2, (const T *)x, (const T *)y, (T *)out,     \
                                pool);                                                        \
    }
SETUP_WRAP(add_nd_f32, float)
SETUP_WRAP(subtract_nd_f32, float)
SETUP_WRAP(multiply_nd_f32, float)
SETUP_WRAP(divide_nd_f32, float)
SETUP_WRAP(maximum_nd_f32, float)
SETUP_WRAP(minimum_nd_f32, float)
SETUP_WRAP(add_nd_f16, void)
SETUP_WRAP(multiply_nd_f16, void)
SETUP_WRAP(add_nd_qs8, int8_t)
SETUP_WRAP(subtract_nd_qs8, int8_t)
SETUP_WRAP(multiply_nd_qs8, int8_t)
SETUP_WRAP(add_nd_qu8, uint8_t)
SETUP_WRAP(subtract_nd_qu8, uint8_t)
SETUP_WRAP(multiply_nd_qu8, uint8_t)

/* Creates the operator for (op, dtype); xnn_status_unsupported_parameter
 * with *setup NULL when XNNPACK has none. */
static enum xnn_status create(uint32_t op, uint32_t dtype, xnn_operator_t *o, setup_fn *setup)
{
    const float lo = -INFINITY, hi = INFINITY;
    *setup = NULL;
    *o = NULL;
    switch (dtype) {
    case BC_ADAPTER_DTYPE_FLOAT32:
        switch (op) {
        case BC_ADAPTER_OP_ADD: *setup = wrap_add_nd_f32; return xnn_create_add_nd_f32(lo, hi, 0, o);
        case BC_ADAPTER_OP_SUB:
            *setup = wrap_subtract_nd_f32;
            return xnn_create_subtract_nd_f32(lo, hi, 0, o);
        case BC_ADAPTER_OP_MUL:
            *setup = wrap_multiply_nd_f32;
            return xnn_create_multiply_nd_f32(lo, hi, 0, o);
        case BC_ADAPTER_OP_DIV:
            *setup = wrap_divide_nd_f32;
            return xnn_create_divide_nd_f32(lo, hi, 0, o);
        case BC_ADAPTER_OP_MAX: *setup = wrap_maximum_nd_f32; return xnn_create_maximum_nd_f32(0, o);
        case BC_ADAPTER_OP_MIN: *setup = wrap_minimum_nd_f32; return xnn_create_minimum_nd_f32(0, o);
        default: break;
        }
        break;
    case BC_ADAPTER_DTYPE_FLOAT16:
        switch (op) {
        case BC_ADAPTER_OP_ADD: *setup = wrap_add_nd_f16; return xnn_create_add_nd_f16(lo, hi, 0, o);
        case BC_ADAPTER_OP_MUL:
            *setup = wrap_multiply_nd_f16;
            return xnn_create_multiply_nd_f16(lo, hi, 0, o);
        default: break;
        }
        break;
    case BC_ADAPTER_DTYPE_INT8: /* qs8, identity quantization */
        switch (op) {
        case BC_ADAPTER_OP_ADD:
            *setup = wrap_add_nd_qs8;
            return xnn_create_add_nd_qs8(0, 1.f, 0, 1.f, 0, 1.f, INT8_MIN, INT8_MAX, 0, o);
        case BC_ADAPTER_OP_SUB:
            *setup = wrap_subtract_nd_qs8;
            return xnn_create_subtract_nd_qs8(0, 1.f, 0, 1.f, 0, 1.f, INT8_MIN, INT8_MAX, 0, o);
        case BC_ADAPTER_OP_MUL:
            *setup = wrap_multiply_nd_qs8;
            return xnn_create_multiply_nd_qs8(0, 1.f, 0, 1.f, 0, 1.f, INT8_MIN, INT8_MAX, 0, o);
        default: break;
        }
        break;
    case BC_ADAPTER_DTYPE_UINT8: /* qu8, identity quantization */
        switch (op) {
        case BC_ADAPTER_OP_ADD:
            *setup = wrap_add_nd_qu8;
            return xnn_create_add_nd_qu8(0, 1.f, 0, 1.f, 0, 1.f, 0, UINT8_MAX, 0, o);
        case BC_ADAPTER_OP_SUB:
            *setup = wrap_subtract_nd_qu8;
            return xnn_create_subtract_nd_qu8(0, 1.f, 0, 1.f, 0, 1.f, 0, UINT8_MAX, 0, o);
        case BC_ADAPTER_OP_MUL:
            *setup = wrap_multiply_nd_qu8;
            return xnn_create_multiply_nd_qu8(0, 1.f, 0, 1.f, 0, 1.f, 0, UINT8_MAX, 0, o);
        default: break;
        }
        break;
    default: break;
    }
    return xnn_status_unsupported_parameter;
}

/* ---- shapes --------------------------------------------------------- */

/* size_t dims of s; 0 (and a rejection in a) when a dim is negative. */
static int to_size(const bc_adapter_shape *s, size_t *out, bc_adapter_answer *a)
{
    for (int32_t k = 0; k < s->rank; k++) {
        if (s->dims[k] < 0) {
            bcu_answer(a, BC_ADAPTER_REJECTED, "a negative dim: XNNPACK dims are size_t");
            a->error_kind = BC_ADAPTER_ERR_NEGATIVE_DIM;
            return 0;
        }
        out[k] = (size_t)s->dims[k];
    }
    return 1;
}

/* The broadcast dims as the values are written: per right-aligned axis
 * the dim that is not 1 (XNNPACK accepted the pair before this is used). */
static void result_dims(const bc_adapter_shape *x, const bc_adapter_shape *y, bc_adapter_answer *a)
{
    int32_t rank = x->rank > y->rank ? x->rank : y->rank;
    for (int32_t r = 0; r < rank; r++) {
        int32_t i = r - (rank - x->rank), j = r - (rank - y->rank);
        int64_t dx = i >= 0 ? x->dims[i] : 1, dy = j >= 0 ? y->dims[j] : 1;
        a->dims[r] = dx == 1 ? dy : dx;
    }
    a->status = BC_ADAPTER_OK;
    a->rank = rank;
}

/* XNNPACK's setup on the two shapes: GO, or the answer in a. */
static int check_setup(setup_fn setup, xnn_operator_t o, const bc_adapter_shape *x,
                       const bc_adapter_shape *y, const void *px, const void *py, void *pout,
                       bc_adapter_answer *a)
{
    size_t sx[BC_ADAPTER_MAX_RANK], sy[BC_ADAPTER_MAX_RANK];
    if (!to_size(x, sx, a) || !to_size(y, sy, a))
        return 0;
    enum xnn_status s = setup(o, (size_t)x->rank, sx, (size_t)y->rank, sy, px, py, pout, NULL);
    if (s == xnn_status_invalid_parameter) {
        bcu_answer(a, BC_ADAPTER_REJECTED, "xnn_setup refuses the shapes (invalid_parameter)");
        return 0;
    }
    if (s != xnn_status_success) {
        bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "xnn_setup: %s", status_name(s));
        return 0;
    }
    return 1;
}

static void infer_shape(void *context, const bc_adapter_params *p, int32_t n,
                        const bc_adapter_shape *shapes, bc_adapter_answer *a)
{
    (void)context;
    (void)p;
    if (!setup_library()) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "xnn_initialize failed");
        return;
    }
    if (n != 2) { /* numpy of one shape is valid, but no XNNPACK operator asks it */
        bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "XNNPACK's binary operators take exactly 2 inputs");
        return;
    }
    xnn_operator_t o;
    setup_fn setup;
    enum xnn_status s = create(BC_ADAPTER_OP_ADD, BC_ADAPTER_DTYPE_FLOAT32, &o, &setup);
    if (s != xnn_status_success) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "xnn_create_add_nd_f32: %s", status_name(s));
        return;
    }
    static float placeholder[4]; /* setup only records the pointers; never run */
    if (check_setup(setup, o, &shapes[0], &shapes[1], placeholder, placeholder, placeholder, a))
        result_dims(&shapes[0], &shapes[1], a);
    xnn_delete_operator(o);
}

static void eval(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    (void)context;
    if (!setup_library()) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "xnn_initialize failed");
        return;
    }
    if (req->kind != BC_ADAPTER_VALUE_ELEMENTWISE || req->ninputs != 2) {
        bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "XNNPACK: binary elementwise operators only");
        return;
    }
    const bc_adapter_tensor *x = &req->inputs[0], *y = &req->inputs[1];
    xnn_operator_t o;
    setup_fn setup;
    enum xnn_status s = create(req->op, x->dtype, &o, &setup);
    if (!setup) {
        bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "XNNPACK has no such operator for this dtype");
        return;
    }
    if (s != xnn_status_success) {
        bcu_answer(a, s == xnn_status_unsupported_hardware ? BC_ADAPTER_UNSUPPORTED
                                                           : BC_ADAPTER_INTERNAL_ERROR,
                   "xnn_create: %s", status_name(s));
        return;
    }
    /* Dense copies of the inputs, and an output as large as any shape the
     * operator could write (per axis the larger dim), so that a write
     * past the broadcast shape lands in the adapter's buffer, not past
     * req->out. */
    size_t esize = bcu_dtype_size(x->dtype);
    int64_t nx = bcu_numel(x->rank, x->dims), ny = bcu_numel(y->rank, y->dims);
    int64_t nmax = 1;
    int32_t rank = x->rank > y->rank ? x->rank : y->rank;
    for (int32_t r = 0; r < rank; r++) {
        int32_t i = r - (rank - x->rank), j = r - (rank - y->rank);
        int64_t dx = i >= 0 ? x->dims[i] : 1, dy = j >= 0 ? y->dims[j] : 1;
        int64_t d = dx > dy ? dx : dy;
        nmax = (d == 0 || nmax == 0) ? 0 : nmax * d;
    }
    char *bx = malloc((size_t)(nx > 0 ? nx : 1) * esize);
    char *by = malloc((size_t)(ny > 0 ? ny : 1) * esize);
    char *bo = malloc((size_t)(nmax > 0 ? nmax : 1) * esize + 64);
    if (!bx || !by || !bo) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "out of memory");
    } else {
        bcu_gather(x, bx);
        bcu_gather(y, by);
        bc_adapter_shape sx = {x->rank, x->dims}, sy = {y->rank, y->dims};
        if (check_setup(setup, o, &sx, &sy, bx, by, bo, a)) {
            s = xnn_run_operator(o, NULL);
            if (s != xnn_status_success) {
                bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "xnn_run_operator: %s", status_name(s));
            } else {
                result_dims(&sx, &sy, a);
                int64_t n = bcu_numel(a->rank, a->dims);
                if (n >= 0 && n <= req->out_capacity && n <= nmax)
                    memcpy(req->out, bo, (size_t)n * esize);
            }
        }
    }
    free(bx);
    free(by);
    free(bo);
    xnn_delete_operator(o);
}

static bc_adapter adapter = {
    .struct_size = sizeof(bc_adapter),
    .abi_version = BC_ADAPTER_ABI_VERSION,
    .name = "xnnpack",
    .version = "XNNPACK 0.0~git20220216 (Debian libxnnpack-dev; XNN_MAX_TENSOR_DIMS 6)",
    .description = "XNNPACK binary ND operators (NumPy broadcasting in setup), dense inputs",
    .caps = {
        .features = BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE,
        .rules = 1u << BC_ADAPTER_RULE_NUMPY,
        .profiles = 0,
        .ops = (1u << BC_ADAPTER_OP_ADD) | (1u << BC_ADAPTER_OP_SUB) | (1u << BC_ADAPTER_OP_MUL) |
               (1u << BC_ADAPTER_OP_DIV) | (1u << BC_ADAPTER_OP_MAX) | (1u << BC_ADAPTER_OP_MIN),
        .dtypes = (1u << BC_ADAPTER_DTYPE_INT8) | (1u << BC_ADAPTER_DTYPE_UINT8) |
                  (1u << BC_ADAPTER_DTYPE_FLOAT32),
        .max_rank = XNN_MAX_TENSOR_DIMS,
        .max_operands = 2,
    },
    .context = NULL,
    .infer_shape = infer_shape,
    .eval = eval,
};

/* Does this CPU run XNNPACK's f16 add (create and setup succeed)? */
static int f16_runs(void)
{
    xnn_operator_t o;
    setup_fn setup;
    if (!setup_library() || create(BC_ADAPTER_OP_ADD, BC_ADAPTER_DTYPE_FLOAT16, &o, &setup) !=
                                xnn_status_success)
        return 0;
    uint16_t buf[4] = {0};
    size_t shape[1] = {2};
    int ok = setup(o, 1, shape, 1, shape, buf, buf + 2, buf, NULL) == xnn_status_success &&
             xnn_run_operator(o, NULL) == xnn_status_success;
    xnn_delete_operator(o);
    return ok;
}

BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);

const bc_adapter *bc_adapter_entry_v1(void)
{
    static int done;
    if (!done) {
        done = 1;
        if (f16_runs())
            adapter.caps.dtypes |= 1u << BC_ADAPTER_DTYPE_FLOAT16;
    }
    return &adapter;
}
