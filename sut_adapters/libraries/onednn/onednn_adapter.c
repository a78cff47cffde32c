/*
 * broadcheck adapter for oneDNN (C API, dnnl.h), CPU engine.
 *
 * What oneDNN decides, and what this adapter decides (docs/certifications/
 * onednn.md says the same at length):
 *
 * - Elementwise values: one dnnl_binary primitive (add, sub, mul, div, max,
 *   min, eq, lt) with src0 = A, src1 = B, dst = A's dims.  oneDNN's own
 *   broadcasting rule is one-way: src1 dims equal to src0's or 1, same
 *   number of dims.  That is ONNX unidirectional broadcasting (rule
 *   onnx-uni) once B has been given A's rank, and giving it is the
 *   adapter's job: ONNX says B "can be prepended with 1s", oneDNN wants
 *   equal ndims, so B of lower rank is padded with leading 1s.  B of HIGHER
 *   rank is passed as it is, and oneDNN refuses the unequal ndims.  Rank 0
 *   has no oneDNN memory descriptor; a scalar is passed as [1] (one
 *   element, the same memory).
 * - Acceptance (infer_shape): oneDNN has no shape inference; the "shape"
 *   of a binary primitive is the dst the caller gives.  So infer_shape asks
 *   whether a binary (add, f32) primitive descriptor can be created with
 *   src0 = A, src1 = B (padded as above) and dst = A, and answers A when it
 *   can, a rejection when dnnl_binary_desc_init refuses.  If a memory
 *   descriptor cannot even be made from the dims (a negative dim) that is
 *   a rejection too; oneDNN names no error kind, so none is given.
 * - Strided inputs go to oneDNN as they are
 *   (dnnl_memory_desc_init_by_strides, the data handle at the view's first
 *   element), so layout-invariance tests oneDNN.  oneDNN refuses negative
 *   strides (invalid_arguments): such a question is answered "unsupported",
 *   never computed another way.  The stride of an axis of size 1 is never
 *   used to address anything; the adapter passes 0 for it (oneDNN takes 0).
 * - Sum-to-shape: dnnl_reduction (sum) from the gradient (strided, as
 *   given) to the operand's dims padded to the gradient's rank.  oneDNN's
 *   reduction refuses a reduction that reduces nothing (src dims == dst
 *   dims); there the adapter copies with a dnnl_reorder, as a oneDNN user
 *   would.  The forward case is first checked by the binary primitive, so
 *   a case oneDNN does not broadcast is rejected here too.
 * - dtypes: s8, u8, s32, f32, and f16 when this CPU engine implements a
 *   binary f16 primitive (probed when the library is loaded).  Comparisons
 *   write u8 0/1, which is broadcheck's bool; bool is declared for that
 *   output only: oneDNN has no bool input type, so a question with bool
 *   inputs is answered "unsupported".
 */
#include <dnnl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapter_util.h"
#include "broadcheck/adapter.h"

/* One engine and stream per process, made on first use: broadcheck-worker
 * serves one adapter on one thread, and making an engine per question would
 * cost more than the question.  Process state, like the library's own. */
static dnnl_engine_t engine;
static dnnl_stream_t stream;
static int ready; /* 1: engine and stream made; -1: failed */

static int setup(void)
{
    if (ready == 0) {
        ready = dnnl_engine_create(&engine, dnnl_cpu, 0) == dnnl_success &&
                        dnnl_stream_create(&stream, engine, dnnl_stream_default_flags) ==
                            dnnl_success
                    ? 1
                    : -1;
    }
    return ready == 1;
}

static const char *status_name(dnnl_status_t s)
{
    switch (s) {
    case dnnl_success: return "success";
    case dnnl_out_of_memory: return "out_of_memory";
    case dnnl_invalid_arguments: return "invalid_arguments";
    case dnnl_unimplemented: return "unimplemented";
    case dnnl_iterator_ends: return "iterator_ends";
    case dnnl_runtime_error: return "runtime_error";
    case dnnl_not_required: return "not_required";
    default: return "unknown status";
    }
}

static int dnnl_type(uint32_t dtype, dnnl_data_type_t *t)
{
    switch (dtype) {
    case BC_ADAPTER_DTYPE_INT8: *t = dnnl_s8; return 1;
    case BC_ADAPTER_DTYPE_UINT8:
    case BC_ADAPTER_DTYPE_BOOL: *t = dnnl_u8; return 1;
    case BC_ADAPTER_DTYPE_INT32: *t = dnnl_s32; return 1;
    case BC_ADAPTER_DTYPE_FLOAT32: *t = dnnl_f32; return 1;
    case BC_ADAPTER_DTYPE_FLOAT16: *t = dnnl_f16; return 1;
    default: return 0;
    }
}

static int dnnl_alg(uint32_t op, dnnl_alg_kind_t *alg)
{
    switch (op) {
    case BC_ADAPTER_OP_ADD: *alg = dnnl_binary_add; return 1;
    case BC_ADAPTER_OP_SUB: *alg = dnnl_binary_sub; return 1;
    case BC_ADAPTER_OP_MUL: *alg = dnnl_binary_mul; return 1;
    case BC_ADAPTER_OP_DIV: *alg = dnnl_binary_div; return 1;
    case BC_ADAPTER_OP_MAX: *alg = dnnl_binary_max; return 1;
    case BC_ADAPTER_OP_MIN: *alg = dnnl_binary_min; return 1;
    case BC_ADAPTER_OP_EQUAL: *alg = dnnl_binary_eq; return 1;
    case BC_ADAPTER_OP_LESS: *alg = dnnl_binary_lt; return 1;
    default: return 0;
    }
}

/* A shape given to oneDNN: rank r of `dims`, padded with leading 1s to
 * `rank` (rank 0 -> [1]); strides likewise (0 on the padded and size-1
 * axes).  dims/strides are full dnnl_dims_t arrays. */
typedef struct padded {
    int ndims;
    dnnl_dims_t dims;
    dnnl_dims_t strides;
} padded;

static void pad(int32_t rank, const int64_t *dims, const int64_t *strides, int to, padded *p)
{
    memset(p, 0, sizeof *p);
    if (to < rank)
        to = rank; /* never drop axes: oneDNN then sees the unequal ndims */
    if (to == 0)
        to = 1; /* the scalar as [1] */
    p->ndims = to;
    int lead = to - rank;
    for (int k = 0; k < to; k++) {
        int s = k - lead;
        p->dims[k] = s < 0 ? 1 : dims[s];
        p->strides[k] = (s < 0 || dims[s] <= 1 || !strides) ? 0 : strides[s];
    }
    if (!strides || bcu_numel(rank, dims) == 0) { /* dense row-major; or no element addressed */
        /* Only a view with no element uses these (make_md with strides);
         * the plain-layout descriptors use a format tag.  The product stops
         * growing before it overflows (dims reach INT64_MAX in shape cases). */
        int64_t st = 1;
        for (int k = to - 1; k >= 0; k--) {
            p->strides[k] = st;
            if (p->dims[k] > 1 && st <= INT64_MAX / p->dims[k])
                st *= p->dims[k];
        }
    }
}

/* The dense row-major format tag of ndims (a, ab, abc, ...). */
static dnnl_format_tag_t plain_tag(int ndims)
{
    static const dnnl_format_tag_t tags[] = {dnnl_a,     dnnl_ab,     dnnl_abc,     dnnl_abcd,
                                             dnnl_abcde, dnnl_abcdef, dnnl_abcdefg, dnnl_abcdefgh,
                                             dnnl_abcdefghi, dnnl_abcdefghij, dnnl_abcdefghijk,
                                             dnnl_abcdefghijkl};
    return tags[ndims - 1];
}

static int any_negative(int32_t rank, const int64_t *dims)
{
    for (int32_t k = 0; k < rank; k++)
        if (dims[k] < 0)
            return 1;
    return 0;
}

/* How a question went before any value was computed. */
enum { GO, STOP };

/* Memory descriptor of p (strided when `strided`, else the plain tag).
 * A failure is a rejection when a dim is negative, else "unsupported". */
static int make_md(dnnl_memory_desc_t *md, const padded *p, dnnl_data_type_t t, int strided,
                   const char *what, bc_adapter_answer *a)
{
    dnnl_status_t s = strided ? dnnl_memory_desc_init_by_strides(md, p->ndims, p->dims, t,
                                                                 p->strides)
                              : dnnl_memory_desc_init_by_tag(md, p->ndims, p->dims, t,
                                                             plain_tag(p->ndims));
    if (s == dnnl_success)
        return GO;
    int neg = any_negative(p->ndims, p->dims);
    int negstride = 0;
    for (int k = 0; strided && k < p->ndims; k++)
        negstride |= p->strides[k] < 0;
    bcu_answer(a, neg ? BC_ADAPTER_REJECTED : BC_ADAPTER_UNSUPPORTED,
               "oneDNN refuses the memory descriptor of %s (%s)%s", what, status_name(s),
               neg ? ": a negative dim"
                   : negstride ? ": oneDNN memory descriptors take no negative strides" : "");
    return STOP;
}

/* The binary primitive descriptor for src0 = A, src1 = B, dst = A (dims of
 * the padded shapes; dst dense of dtype dt).  On STOP, a holds the answer. */
static int binary_pd(dnnl_alg_kind_t alg, const padded *a0, const padded *b0, int strided,
                     dnnl_data_type_t t, dnnl_data_type_t dt, dnnl_primitive_desc_t *pd,
                     dnnl_memory_desc_t *mds, bc_adapter_answer *a)
{
    padded d;
    pad(a0->ndims, a0->dims, NULL, a0->ndims, &d);
    if (make_md(&mds[0], a0, t, strided, "src0 (A)", a) != GO ||
        make_md(&mds[1], b0, t, strided, "src1 (B)", a) != GO ||
        make_md(&mds[2], &d, dt, 0, "dst", a) != GO)
        return STOP;
    dnnl_binary_desc_t bd;
    dnnl_status_t s = dnnl_binary_desc_init(&bd, alg, &mds[0], &mds[1], &mds[2]);
    if (s != dnnl_success) {
        bcu_answer(a, BC_ADAPTER_REJECTED, "dnnl_binary_desc_init refuses src0 = A, src1 = B (%s)",
                   status_name(s));
        return STOP;
    }
    s = dnnl_primitive_desc_create(pd, &bd, NULL, engine, NULL);
    if (s != dnnl_success) {
        bcu_answer(a, s == dnnl_invalid_arguments ? BC_ADAPTER_REJECTED : BC_ADAPTER_UNSUPPORTED,
                   "dnnl_primitive_desc_create (binary): %s", status_name(s));
        return STOP;
    }
    return GO;
}

static void answer_shape(bc_adapter_answer *a, int32_t rank, const int64_t *dims)
{
    a->status = BC_ADAPTER_OK;
    a->rank = rank;
    memcpy(a->dims, dims, (size_t)rank * sizeof dims[0]);
}

static void infer_shape(void *context, const bc_adapter_params *p, int32_t n,
                        const bc_adapter_shape *shapes, bc_adapter_answer *a)
{
    (void)context;
    (void)p; /* onnx-uni takes no option; the harness asks nothing else */
    if (!setup()) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "dnnl_engine_create (cpu) failed");
        return;
    }
    if (n != 2) {
        bcu_answer(a, BC_ADAPTER_REJECTED, "a binary primitive takes exactly 2 sources");
        a->error_kind = BC_ADAPTER_ERR_OPERAND_COUNT;
        return;
    }
    padded A, B;
    pad(shapes[0].rank, shapes[0].dims, NULL, shapes[0].rank, &A);
    pad(shapes[1].rank, shapes[1].dims, NULL, A.ndims, &B);
    dnnl_primitive_desc_t pd;
    dnnl_memory_desc_t mds[3];
    if (binary_pd(dnnl_binary_add, &A, &B, 0, dnnl_f32, dnnl_f32, &pd, mds, a) != GO)
        return;
    dnnl_primitive_desc_destroy(pd);
    answer_shape(a, shapes[0].rank, shapes[0].dims);
}

/* Runs primitive desc pd with the given (arg, md, handle) triples. */
static int run(dnnl_primitive_desc_t pd, int nargs, const int *args, const dnnl_memory_desc_t *mds,
               void *const *handles, bc_adapter_answer *a)
{
    dnnl_primitive_t prim = NULL;
    dnnl_memory_t mem[3] = {NULL, NULL, NULL};
    dnnl_exec_arg_t ex[3];
    dnnl_status_t s = dnnl_primitive_create(&prim, pd);
    int i = 0;
    for (; s == dnnl_success && i < nargs; i++) {
        s = dnnl_memory_create(&mem[i], &mds[i], engine, handles[i]);
        ex[i].arg = args[i];
        ex[i].memory = mem[i];
    }
    if (s == dnnl_success)
        s = dnnl_primitive_execute(prim, stream, nargs, ex);
    if (s == dnnl_success)
        s = dnnl_stream_wait(stream);
    for (int j = 0; j < 3; j++)
        if (mem[j])
            dnnl_memory_destroy(mem[j]);
    if (prim)
        dnnl_primitive_destroy(prim);
    if (s != dnnl_success) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "oneDNN execution failed: %s", status_name(s));
        return STOP;
    }
    return GO;
}

/* The address of a view's element 0 (all strides given to oneDNN are >= 0;
 * a negative one was refused by make_md before this is used). */
static void *first(const bc_adapter_tensor *t)
{
    static char dummy[16];
    if (bcu_numel(t->rank, t->dims) == 0)
        return dummy; /* nothing is read; oneDNN wants a handle */
    return (char *)(uintptr_t)t->data + t->offset * (int64_t)bcu_dtype_size(t->dtype);
}

static void eval_elementwise(const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    dnnl_alg_kind_t alg;
    dnnl_data_type_t t, dt;
    if (!dnnl_alg(req->op, &alg) || !dnnl_type(req->inputs[0].dtype, &t) ||
        !dnnl_type(req->out_dtype, &dt)) {
        bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "no oneDNN binary algorithm or data type for this");
        return;
    }
    const bc_adapter_tensor *x = &req->inputs[0], *y = &req->inputs[1];
    padded A, B;
    pad(x->rank, x->dims, x->strides, x->rank, &A);
    pad(y->rank, y->dims, y->strides, A.ndims, &B);
    dnnl_primitive_desc_t pd;
    dnnl_memory_desc_t mds[3];
    if (binary_pd(alg, &A, &B, 1, t, dt, &pd, mds, a) != GO)
        return;
    int64_t numel = bcu_numel(x->rank, x->dims);
    int ok = GO;
    static char dummy[16];
    if (numel <= req->out_capacity) {
        static const int args[3] = {DNNL_ARG_SRC_0, DNNL_ARG_SRC_1, DNNL_ARG_DST};
        void *handles[3] = {first(x), first(y), numel > 0 ? req->out : dummy};
        ok = run(pd, 3, args, mds, handles, a);
    }
    dnnl_primitive_desc_destroy(pd);
    if (ok == GO)
        answer_shape(a, x->rank, x->dims);
}

static void eval_sum_to_shape(const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    dnnl_data_type_t t;
    if (!dnnl_type(req->out_dtype, &t)) {
        bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "no oneDNN data type for this");
        return;
    }
    if (req->nshapes != 2 || req->operand < 0 || req->operand > 1) {
        bcu_answer(a, BC_ADAPTER_REJECTED, "a binary primitive takes exactly 2 sources");
        return;
    }
    /* Is the forward case one oneDNN broadcasts? */
    padded A, B, G, O;
    pad(req->shapes[0].rank, req->shapes[0].dims, NULL, req->shapes[0].rank, &A);
    pad(req->shapes[1].rank, req->shapes[1].dims, NULL, A.ndims, &B);
    dnnl_primitive_desc_t pd;
    dnnl_memory_desc_t mds[3];
    if (binary_pd(dnnl_binary_add, &A, &B, 0, dnnl_f32, dnnl_f32, &pd, mds, a) != GO)
        return;
    dnnl_primitive_desc_destroy(pd);
    /* The gradient has A's shape; the operand's dims padded to its rank. */
    const bc_adapter_tensor *g = &req->inputs[0];
    const bc_adapter_shape *o = &req->shapes[req->operand];
    pad(g->rank, g->dims, g->strides, g->rank, &G);
    pad(o->rank, o->dims, NULL, G.ndims, &O);
    if (make_md(&mds[0], &G, t, 1, "the gradient", a) != GO ||
        make_md(&mds[1], &O, t, 0, "the result", a) != GO)
        return;
    int same = 1;
    for (int k = 0; k < G.ndims; k++)
        same &= G.dims[k] == O.dims[k];
    dnnl_status_t s;
    const char *what;
    if (same) { /* nothing to reduce: oneDNN's reduction refuses it, a reorder copies */
        what = "dnnl_reorder_primitive_desc_create";
        s = dnnl_reorder_primitive_desc_create(&pd, &mds[0], engine, &mds[1], engine, NULL);
    } else {
        dnnl_reduction_desc_t rd;
        what = "dnnl_reduction_desc_init (sum)";
        s = dnnl_reduction_desc_init(&rd, dnnl_reduction_sum, &mds[0], &mds[1], 0.f, 0.f);
        if (s == dnnl_success) {
            what = "dnnl_primitive_desc_create (reduction)";
            s = dnnl_primitive_desc_create(&pd, &rd, NULL, engine, NULL);
        }
    }
    if (s != dnnl_success) {
        bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "%s: %s", what, status_name(s));
        return;
    }
    int64_t numel = bcu_numel(o->rank, o->dims);
    int ok = GO;
    static char dummy[16];
    if (numel <= req->out_capacity) {
        static const int args[2] = {DNNL_ARG_SRC, DNNL_ARG_DST};
        void *handles[2] = {first(g), numel > 0 ? req->out : dummy};
        ok = run(pd, 2, args, mds, handles, a);
    }
    dnnl_primitive_desc_destroy(pd);
    if (ok == GO)
        answer_shape(a, o->rank, o->dims);
}

static void eval(void *context, const bc_adapter_eval_request *req, bc_adapter_answer *a)
{
    (void)context;
    if (!setup()) {
        bcu_answer(a, BC_ADAPTER_INTERNAL_ERROR, "dnnl_engine_create (cpu) failed");
        return;
    }
    for (int32_t i = 0; i < req->ninputs; i++)
        if (req->inputs[i].dtype == BC_ADAPTER_DTYPE_BOOL) {
            bcu_answer(a, BC_ADAPTER_UNSUPPORTED,
                       "oneDNN has no bool data type (bool is declared for comparison results)");
            return;
        }
    if (req->kind == BC_ADAPTER_VALUE_ELEMENTWISE && req->ninputs == 2)
        eval_elementwise(req, a);
    else if (req->kind == BC_ADAPTER_VALUE_SUM_TO_SHAPE)
        eval_sum_to_shape(req, a);
    else
        bcu_answer(a, BC_ADAPTER_UNSUPPORTED, "not a oneDNN binary or reduction question");
}

static bc_adapter adapter = {
    .struct_size = sizeof(bc_adapter),
    .abi_version = BC_ADAPTER_ABI_VERSION,
    .name = "onednn",
    .version = "",
    .description = "oneDNN binary primitive (onnx-uni: src1 onto src0) and sum reduction, CPU",
    .caps = {
        .features = BC_ADAPTER_FEATURE_SHAPE | BC_ADAPTER_FEATURE_ELEMENTWISE |
                    BC_ADAPTER_FEATURE_SUM_TO_SHAPE,
        .rules = 1u << BC_ADAPTER_RULE_ONNX_UNI,
        .profiles = 0,
        .ops = (1u << BC_ADAPTER_OP_ADD) | (1u << BC_ADAPTER_OP_SUB) | (1u << BC_ADAPTER_OP_MUL) |
               (1u << BC_ADAPTER_OP_DIV) | (1u << BC_ADAPTER_OP_MAX) | (1u << BC_ADAPTER_OP_MIN) |
               (1u << BC_ADAPTER_OP_EQUAL) | (1u << BC_ADAPTER_OP_LESS),
        .dtypes = (1u << BC_ADAPTER_DTYPE_BOOL) | (1u << BC_ADAPTER_DTYPE_INT8) |
                  (1u << BC_ADAPTER_DTYPE_UINT8) | (1u << BC_ADAPTER_DTYPE_INT32) |
                  (1u << BC_ADAPTER_DTYPE_FLOAT32),
        .max_rank = DNNL_MAX_NDIMS,
        .max_operands = 2,
    },
    .context = NULL,
    .infer_shape = infer_shape,
    .eval = eval,
};

/* Does this CPU engine implement an f16 binary primitive? */
static int f16_implemented(void)
{
    if (!setup())
        return 0;
    dnnl_dims_t d = {2, 3};
    dnnl_memory_desc_t md;
    dnnl_binary_desc_t bd;
    dnnl_primitive_desc_t pd;
    if (dnnl_memory_desc_init_by_tag(&md, 2, d, dnnl_f16, dnnl_ab) != dnnl_success ||
        dnnl_binary_desc_init(&bd, dnnl_binary_add, &md, &md, &md) != dnnl_success ||
        dnnl_primitive_desc_create(&pd, &bd, NULL, engine, NULL) != dnnl_success)
        return 0;
    dnnl_primitive_desc_destroy(pd);
    return 1;
}

BC_ADAPTER_EXPORT const bc_adapter *bc_adapter_entry_v1(void);

const bc_adapter *bc_adapter_entry_v1(void)
{
    static char version[64];
    if (!version[0]) {
        const dnnl_version_t *v = dnnl_version();
        snprintf(version, sizeof version, "oneDNN %d.%d.%d (%s)", v->major, v->minor, v->patch,
                 v->hash ? v->hash : "");
        adapter.version = version;
        if (f16_implemented())
            adapter.caps.dtypes |= 1u << BC_ADAPTER_DTYPE_FLOAT16;
    }
    return &adapter;
}
