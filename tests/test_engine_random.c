/*
 * The fast engine against the oracle: random cases across every job kind,
 * rule, profile, dtype, operation and memory layout (contiguous, permuted,
 * stepped, reversed, stride-0 inputs, offsets, in place), size-0 dims, rank
 * 0 and rank >= 7.  Every case runs both evaluators on identical copies of
 * all buffers, padding included, and the copies must agree bit for bit
 * afterwards: values, NaNs, signed zeros, and every byte outside the output
 * view left untouched.
 *
 * Cases (default 100000) and seed come from argv[1] / argv[2] or the
 * environment (BROADCHECK_RANDOM_CASES, BROADCHECK_RANDOM_SEED); BROADCHECK_RANDOM_ONLY=N runs case N
 * alone.  Each case has its own generator state derived from (seed, N), so a
 * failure names the command that replays exactly that case.
 * BROADCHECK_ENGINE_TESTS=PATTERN runs only the tests whose names match it
 * (cmocka's filter, '*' and '?'): scripts/memcheck.sh runs the kernels that
 * the sanitize build does not compile (BC_FAST_LEAN) under valgrind.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "broadcheck/tensor.h"

static long g_cases = 100000;
static uint64_t g_seed = 0x5eedb0adcafe2024ull;
static long g_only = -1;

/* ---- generator ------------------------------------------------------- */

static uint64_t rng_state;
static uint64_t next_u64(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int rnd(int n) /* 0 .. n-1 */
{
    return (int)(next_u64() % (uint64_t)n);
}
static int chance(int percent)
{
    return rnd(100) < percent;
}

/* ---- a case ---------------------------------------------------------- */

enum { KIND_BINARY, KIND_NARY, KIND_SELECT, KIND_BROADCAST, KIND_SUM, KIND_COUNT };
static const char *const kind_names[] = {"binary", "nary", "select", "broadcast", "sum-to-shape"};

#define MAX_T 8 /* tensors in a case: inputs and output */

typedef struct tcase {
    int kind;
    bc_op op;
    bc_dtype dtype;
    bc_params p;
    int nshapes;
    bc_shape shapes[MAX_T];
    bc_shape result;
    bc_shape target;  /* broadcast */
    int operand;      /* sum */
    int nt;           /* tensors: inputs 0 .. nt-2, output nt-1 */
    bc_tensor t[MAX_T];
    int buf_of[MAX_T]; /* buffer index of each tensor */
    int nbuf;
    size_t buf_bytes[MAX_T];
    int in_place;
} tcase;

static int64_t dim_for(void)
{
    static const int64_t dims[] = {1, 1, 2, 2, 3, 3, 4, 5, 7, 1, 2, 0};
    return dims[rnd(chance(6) ? 12 : 11)]; /* 0 now and then */
}

/* Large results: 1 the tiled path (both inner extents past two tiles now
 * and then), 2 an output of 16384 to 20383 elements, at least the 16 KiB
 * below which the fast engine never streams (its NT_FLOOR_BYTES), laid
 * out as rank 1 to 5 with one long axis anywhere and short odd ones around
 * it (long rows, 2-D blocks of short rows, tails). */
static bc_shape random_result(int big)
{
    bc_shape r;
    if (big == 1) { /* large enough for the tiled path of the fast engine */
        r.rank = 2 + rnd(2);
        for (int k = 0; k < r.rank; k++)
            r.dims[k] = 1;
        r.dims[r.rank - 2] = 64 + rnd(100);
        r.dims[r.rank - 1] = 128 + rnd(80);
        if (chance(50)) { /* either axis may end up inner after the plan's sort */
            int64_t t = r.dims[r.rank - 2];
            r.dims[r.rank - 2] = r.dims[r.rank - 1];
            r.dims[r.rank - 1] = t;
        }
        return r;
    }
    if (big == 2) {
        static const int64_t shorts[] = {1, 2, 3, 5, 7, 8};
        r.rank = 1 + rnd(5);
        int64_t n = 1, target = 16384 + rnd(4000);
        int long_axis = rnd(r.rank);
        for (int k = 0; k < r.rank; k++)
            if (k != long_axis)
                n *= r.dims[k] = shorts[rnd(6)];
        r.dims[long_axis] = (target + n - 1) / n;
        return r;
    }
    static const int ranks[] = {0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 5, 6, 7, 8, 9};
    r.rank = ranks[rnd(16)];
    int64_t n = 1;
    for (int k = 0; k < r.rank; k++) {
        int64_t d = dim_for();
        if (n * (d ? d : 1) > 360)
            d = 1;
        r.dims[k] = d;
        n *= d ? d : 1;
    }
    if (r.rank == 1 && chance(20))
        r.dims[0] = 17 + rnd(300); /* long rows: the vector loops and their tails */
    return r;
}

/* An operand that numpy-broadcasts to r: right-aligned, a suffix of r's axes,
 * each dim r's or 1. */
static bc_shape numpy_operand(const bc_shape *r, int keep_all)
{
    bc_shape s;
    s.rank = keep_all ? r->rank : r->rank - rnd(r->rank + 1);
    for (int k = 0; k < s.rank; k++) {
        int64_t d = r->dims[r->rank - s.rank + k];
        s.dims[k] = chance(35) ? 1 : d;
    }
    return s;
}

static void shuffle_axes(int64_t *v, int n)
{
    for (int i = n - 1; i > 0; i--) {
        int j = rnd(i + 1);
        int64_t t = v[i];
        v[i] = v[j];
        v[j] = t;
    }
}

/* Shapes for rule p (picked here) from result r; 0 if they do not fit. */
static int shapes_for(tcase *c, int nshapes, int elementwise_only)
{
    bc_shape r = random_result(chance(1) ? 1 : chance(1) ? 2 : 0);
    bc_params *p = &c->p;
    int rule;
    if (elementwise_only == 2) /* select, n-ary */
        rule = chance(20) ? BC_RULE_NONE : BC_RULE_NUMPY;
    else if (elementwise_only)
        rule = (int[]){BC_RULE_NONE, BC_RULE_NUMPY, BC_RULE_NUMPY, BC_RULE_ONNX_UNI,
                       BC_RULE_PDPD, BC_RULE_PDPD}[rnd(6)];
    else
        rule = (int[]){BC_RULE_BROADCAST_TO, BC_RULE_BIDIRECTIONAL, BC_RULE_EXPLICIT}[rnd(3)];
    *p = bc_params_for((bc_rule)rule);
    c->nshapes = nshapes;
    switch (rule) {
    case BC_RULE_NONE:
        for (int i = 0; i < nshapes; i++)
            c->shapes[i] = r;
        break;
    case BC_RULE_NUMPY:
        for (int i = 0; i < nshapes; i++)
            c->shapes[i] = numpy_operand(&r, 0);
        if (chance(50))
            c->shapes[rnd(nshapes)] = r;
        break;
    case BC_RULE_ONNX_UNI:
        c->shapes[0] = r;
        c->shapes[1] = numpy_operand(&r, 0);
        break;
    case BC_RULE_PDPD: {
        p->options = BC_OPT_PROFILE;
        p->profile = (bc_profile)(BC_PROFILE_OPENVINO_DOC + rnd(3));
        int len = rnd(r.rank + 1), axis = rnd(r.rank - len + 1);
        bc_shape big = r, small;
        small.rank = len;
        for (int k = 0; k < len; k++)
            small.dims[k] = chance(35) ? 1 : r.dims[axis + k];
        if (p->profile == BC_PROFILE_PADDLE)
            for (int k = 0; k < big.rank; k++)
                if (chance(20))
                    big.dims[k] = 1;
        if (p->profile == BC_PROFILE_OPENVINO_DOC && chance(20) && small.rank < BC_MAX_RANK)
            small.dims[small.rank++] = 1; /* trailing 1s, dropped by this profile */
        if (chance(60) && axis == r.rank - len) {
            p->axis = BC_AXIS_DEFAULT;
        } else {
            p->options |= BC_OPT_AXIS;
            p->axis = axis;
        }
        int swap = p->profile == BC_PROFILE_PADDLE && chance(50);
        c->shapes[swap] = big;
        c->shapes[1 - swap] = small;
        break;
    }
    case BC_RULE_BROADCAST_TO:
        c->shapes[0] = numpy_operand(&r, 0);
        c->shapes[1] = r;
        break;
    case BC_RULE_BIDIRECTIONAL:
        c->shapes[0] = numpy_operand(&r, 0);
        c->shapes[1] = numpy_operand(&r, 0);
        if (chance(50))
            c->shapes[rnd(2)] = r;
        break;
    default: { /* explicit */
        int64_t order[BC_MAX_RANK];
        for (int k = 0; k < r.rank; k++)
            order[k] = k;
        shuffle_axes(order, r.rank);
        int nb = rnd(r.rank + 1); /* axes not in the input */
        unsigned char bcast[BC_MAX_RANK] = {0};
        for (int j = 0; j < nb; j++)
            bcast[order[j]] = 1;
        bc_shape in;
        in.rank = 0;
        p->naxes = 0;
        if (chance(50)) {
            p->options = BC_OPT_AXES;
            for (int j = 0; j < nb; j++)
                p->axes[p->naxes++] = order[j]; /* any order */
            for (int k = 0; k < r.rank; k++)
                if (!bcast[k])
                    in.dims[in.rank++] = r.dims[k];
        } else {
            p->options = BC_OPT_AXES_MAPPING;
            for (int k = 0; k < r.rank; k++)
                if (!bcast[k]) {
                    p->axes[p->naxes++] = k;
                    in.dims[in.rank++] = chance(30) ? 1 : r.dims[k];
                }
        }
        c->shapes[0] = in;
        c->shapes[1] = r;
        break;
    }
    }
    return bc_infer(p, nshapes, c->shapes, &c->result, NULL) == BC_OK;
}

/* ---- layouts and values ------------------------------------------------- */

static const char *const layout_names[] = {"contiguous", "permuted", "stepped", "reversed",
                                           "stride-0", "mixed"};

/* A random view of `s` in a fresh buffer: layout kind, steps, flips, and
 * (inputs only) stride-0 axes. */
static void make_view(tcase *c, int ti, bc_dtype t, const bc_shape *s, int is_input, int *layout)
{
    bc_tensor *v = &c->t[ti];
    int kind = chance(40) ? 0 : 1 + rnd(is_input ? 5 : 4);
    if (!is_input && kind == 4)
        kind = 5;
    *layout = kind;
    int64_t order[BC_MAX_RANK];
    for (int k = 0; k < s->rank; k++)
        order[k] = k;
    if (kind == 1 || kind == 5)
        shuffle_axes(order, s->rank);
    /* lay the axes out innermost first in `order` reversed, with steps */
    int64_t step = 1 + ((kind == 2 || kind == 5) ? rnd(3) : 0), extent = step;
    int64_t strides[BC_MAX_RANK];
    for (int j = s->rank - 1; j >= 0; j--) {
        int k = (int)order[j];
        strides[k] = extent;
        extent *= s->dims[k] > 0 ? s->dims[k] : 1;
        if (kind == 2 || kind == 5)
            extent += rnd(3); /* padding between rows */
    }
    int64_t offset = rnd(4);
    for (int k = 0; k < s->rank; k++) {
        if ((kind == 3 || kind == 5) && chance(50)) { /* walk this axis backwards */
            offset += (s->dims[k] > 0 ? s->dims[k] - 1 : 0) * strides[k];
            strides[k] = -strides[k];
        }
        if (is_input && (kind == 4 || kind == 5) && chance(30))
            strides[k] = 0;
    }
    v->dtype = t;
    v->rank = s->rank;
    for (int k = 0; k < s->rank; k++) {
        v->dims[k] = s->dims[k];
        v->strides[k] = strides[k];
    }
    v->offset = offset;
    v->data = NULL;
    c->buf_of[ti] = c->nbuf;
    c->buf_bytes[c->nbuf++] = (size_t)(offset + extent + 4) * bc_dtype_size(t);
}

static void random_value(bc_dtype t, char *dst)
{
    uint64_t r = next_u64();
    int pick = rnd(16);
    switch (t) {
    case BC_BOOL: *dst = (char)(r & 1); return;
    case BC_INT8: case BC_UINT8: {
        static const int v[] = {0, 1, -1, 127, -128, 2, -2, 100};
        int8_t x = pick < 8 ? (int8_t)v[pick] : (int8_t)r;
        memcpy(dst, &x, 1);
        return;
    }
    case BC_INT32: {
        static const int32_t v[] = {0, 1, -1, INT32_MAX, INT32_MIN, 2, -2, 7};
        int32_t x = pick < 8 ? v[pick] : (int32_t)(pick < 12 ? (int32_t)(r % 21) - 10 : (int32_t)r);
        memcpy(dst, &x, 4);
        return;
    }
    case BC_INT64: {
        static const int64_t v[] = {0, 1, -1, INT64_MAX, INT64_MIN, 2, -2, 7};
        int64_t x = pick < 8 ? v[pick] : (int64_t)(pick < 12 ? (int64_t)(r % 21) - 10 : (int64_t)r);
        memcpy(dst, &x, 8);
        return;
    }
    default: {
        /* The NaN inputs are the platform's default NaN, the one every invalid
         * operation (inf - inf, 0 / 0) produces, so that every NaN in a case has
         * the same bits: which of two different NaN payloads an IEEE add
         * returns depends on operand order, which the compiler may swap. */
        static volatile double zero = 0.0;
        const double v[] = {0.0, -0.0, 1.0, -1.0, zero / zero, (double)INFINITY,
                            -(double)INFINITY, 0.5, 1e30, -3.0, 1e-30};
        double x = pick < 11 ? v[pick] : (double)((int64_t)(r % 2001) - 1000) / 8.0;
        if (pick == 15)
            x = ((double)(r >> 11) / 9007199254740992.0 - 0.5) * 1e6;
        if (t == BC_FLOAT32) {
            float f = (float)x;
            memcpy(dst, &f, 4);
        } else if (t == BC_FLOAT64) {
            memcpy(dst, &x, 8);
        }
#if BC_HAVE_FLOAT16
        else {
            _Float16 h = (_Float16)x;
            memcpy(dst, &h, 2);
        }
#endif
        return;
    }
    }
}

/* ---- building and running a case ------------------------------------------ */

static int build(tcase *c, int *layouts)
{
    memset(c, 0, sizeof *c);
    c->kind = chance(45) ? KIND_BINARY : rnd(KIND_COUNT);
    static const bc_dtype dts[] = {BC_BOOL, BC_INT8, BC_UINT8, BC_INT32, BC_INT64,
                                   BC_FLOAT32, BC_FLOAT64, BC_FLOAT16};
    do
        c->dtype = dts[rnd(8)];
    while (!bc_dtype_available(c->dtype));
    int nin;
    switch (c->kind) {
    case KIND_BINARY:
        do
            c->op = (bc_op)rnd(BC_OP_ENGINE_COUNT);
        while (!bc_op_takes_dtype(c->op, c->dtype));
        nin = 2;
        if (!shapes_for(c, 2, 1))
            return 0;
        break;
    case KIND_NARY:
        c->op = (bc_op[]){BC_OP_ADD, BC_OP_MUL, BC_OP_MAX, BC_OP_MIN, BC_OP_ADD_SATURATE,
                          BC_OP_MUL_SATURATE}[rnd(6)];
        nin = 1 + rnd(5);
        if (!shapes_for(c, nin, 2))
            return 0;
        break;
    case KIND_SELECT:
        nin = 3;
        if (!shapes_for(c, 3, 2))
            return 0;
        break;
    case KIND_BROADCAST:
        nin = 1;
        if (!shapes_for(c, 2, 0))
            return 0;
        c->target = c->shapes[1];
        break;
    default: /* sum */
        if (c->dtype == BC_BOOL)
            c->dtype = BC_INT32;
        nin = 1;
        if (chance(50)) {
            if (!shapes_for(c, 2, 1))
                return 0;
            c->operand = rnd(2);
        } else {
            if (!shapes_for(c, 2, 0))
                return 0;
            c->operand = 0;
        }
        break;
    }
    /* the tensors */
    c->nt = nin + 1;
    bc_dtype out_dtype = c->kind == KIND_BINARY ? bc_op_result_dtype(c->op, c->dtype) : c->dtype;
    if (c->kind == KIND_SUM) {
        make_view(c, 0, c->dtype, &c->result, 1, &layouts[0]);
        make_view(c, 1, c->dtype, &c->shapes[c->operand], 0, &layouts[1]);
    } else {
        for (int i = 0; i < nin; i++) {
            bc_dtype t = c->kind == KIND_SELECT && i == 0 ? BC_BOOL : c->dtype;
            make_view(c, i, t, &c->shapes[i], 1, &layouts[i]);
        }
        /* in place now and then: the output is an input view of the result's shape */
        int cand = -1;
        for (int i = 0; i < nin; i++) {
            bc_shape si = bc_tensor_shape(&c->t[i]);
            int zero_stride = 0;
            for (int k = 0; k < si.rank; k++)
                zero_stride |= c->t[i].dims[k] > 1 && c->t[i].strides[k] == 0;
            if (bc_shape_equal(&si, &c->result) && c->t[i].dtype == out_dtype && !zero_stride)
                cand = i;
        }
        if (cand >= 0 && chance(25)) {
            c->t[nin] = c->t[cand];
            c->buf_of[nin] = c->buf_of[cand];
            layouts[nin] = layouts[cand];
            c->in_place = 1;
        } else {
            make_view(c, nin, out_dtype, &c->result, 0, &layouts[nin]);
        }
    }
    return 1;
}

static bc_error_kind run(const tcase *c, bc_evaluator ev, char **bufs, bc_error *err)
{
    bc_tensor t[MAX_T];
    for (int i = 0; i < c->nt; i++) {
        t[i] = c->t[i];
        t[i].data = bufs[c->buf_of[i]];
    }
    const bc_tensor *out = &t[c->nt - 1];
    switch (c->kind) {
    case KIND_BINARY: return bc_eval_binary(ev, c->op, &c->p, &t[0], &t[1], out, err);
    case KIND_NARY: return bc_eval_nary(ev, c->op, &c->p, c->nt - 1, t, out, err);
    case KIND_SELECT: return bc_eval_select(ev, &c->p, &t[0], &t[1], &t[2], out, err);
    case KIND_BROADCAST: return bc_eval_broadcast(ev, &c->p, &t[0], &c->target, out, err);
    default:
        return bc_eval_sum_to_shape(ev, &c->p, c->nshapes, c->shapes, c->operand, &t[0], out, err);
    }
}

static void describe(const tcase *c, const int *layouts, long index, int stream)
{
    char s[160];
    fprintf(stderr, "case %ld: %s", index, kind_names[c->kind]);
    if (c->kind == KIND_BINARY || c->kind == KIND_NARY)
        fprintf(stderr, " %s", bc_op_name(c->op));
    fprintf(stderr, " %s rule %s", bc_dtype_name(c->dtype), bc_rule_name(c->p.rule));
    if (c->p.options & BC_OPT_PROFILE)
        fprintf(stderr, " profile=%s", bc_profile_name(c->p.profile));
    if (c->p.options & BC_OPT_AXIS)
        fprintf(stderr, " axis=%lld", (long long)c->p.axis);
    if (c->p.options & (BC_OPT_AXES | BC_OPT_AXES_MAPPING)) {
        fprintf(stderr, " %s=", c->p.options & BC_OPT_AXES ? "axes" : "axes-mapping");
        for (int j = 0; j < c->p.naxes; j++)
            fprintf(stderr, "%s%lld", j ? "," : "", (long long)c->p.axes[j]);
    }
    if (c->kind == KIND_SUM)
        fprintf(stderr, " operand %d", c->operand);
    fprintf(stderr, "\n  shapes:");
    for (int i = 0; i < c->nshapes; i++) {
        bc_shape_format(&c->shapes[i], s, sizeof s);
        fprintf(stderr, " %s", s);
    }
    bc_shape_format(&c->result, s, sizeof s);
    fprintf(stderr, " -> %s%s%s%s\n", s, c->in_place ? " (in place)" : "",
            stream ? " (BROADCHECK_NT_MIN_BYTES=0)" : "",
            index % 3 == 0 ? " (BROADCHECK_FAST_PORTABLE=1)" : "");
    for (int i = 0; i < c->nt; i++) {
        const bc_tensor *v = &c->t[i];
        fprintf(stderr, "  %s %d: %s dims [", i == c->nt - 1 ? "output" : "input", i,
                bc_dtype_name(v->dtype));
        for (int k = 0; k < v->rank; k++)
            fprintf(stderr, "%s%lld", k ? "," : "", (long long)v->dims[k]);
        fprintf(stderr, "] strides [");
        for (int k = 0; k < v->rank; k++)
            fprintf(stderr, "%s%lld", k ? "," : "", (long long)v->strides[k]);
        fprintf(stderr, "] offset %lld, %s, buffer %d\n", (long long)v->offset,
                layout_names[layouts[i]], c->buf_of[i]);
    }
}

static int64_t numel_of(const bc_shape *s)
{
    int64_t n = 1;
    for (int k = 0; k < s->rank; k++)
        n *= s->dims[k];
    return n;
}

static int has_zero_dim(const bc_shape *s)
{
    for (int k = 0; k < s->rank; k++)
        if (s->dims[k] == 0)
            return 1;
    return 0;
}

/* A prepared call (bc_eval_plan) of a binary or n-ary case, made on the
 * views at `made_on` and run on `bufs`: laid out alike, other memory. */
static bc_error_kind run_plan(const tcase *c, bc_evaluator ev, char **made_on, char **bufs,
                              bc_error *err)
{
    bc_tensor t[MAX_T];
    for (int i = 0; i < c->nt; i++) {
        t[i] = c->t[i];
        t[i].data = made_on[c->buf_of[i]];
    }
    const bc_tensor *out = &t[c->nt - 1];
    bc_eval_plan *plan;
    bc_error_kind k = c->kind == KIND_BINARY
                          ? bc_eval_plan_binary(ev, c->op, &c->p, &t[0], &t[1], out, &plan, err)
                          : bc_eval_plan_nary(ev, c->op, &c->p, c->nt - 1, t, out, &plan, err);
    if (k)
        return k;
    const void *in[MAX_T];
    for (int i = 0; i + 1 < c->nt; i++)
        in[i] = bufs[c->buf_of[i]];
    k = bc_eval_plan_run(plan, bufs[c->buf_of[c->nt - 1]], in, err);
    bc_eval_plan_free(plan);
    return k;
}

/* Fails, naming the first differing byte, unless every buffer of x and y
 * is identical (values, NaN bits, padding). */
static void same_buffers(const tcase *c, const int *layouts, long index, int stream, char **x,
                         char **y, const char *xname, const char *yname)
{
    for (int b = 0; b < c->nbuf; b++) {
        if (memcmp(x[b], y[b], c->buf_bytes[b]) == 0)
            continue;
        size_t off = 0;
        while (x[b][off] == y[b][off])
            off++;
        describe(c, layouts, index, stream);
        fail_msg("seed 0x%llx case %ld: %s differs from %s in buffer %d at byte %zu "
                 "(%s %02x, %s %02x)\n  rerun: BROADCHECK_RANDOM_SEED=0x%llx "
                 "BROADCHECK_RANDOM_ONLY=%ld",
                 (unsigned long long)g_seed, index, yname, xname, b, off, xname,
                 (unsigned char)x[b][off], yname, (unsigned char)y[b][off],
                 (unsigned long long)g_seed, index);
    }
}

static void test_fast_equals_naive(void **state)
{
    (void)state;
    long checked = 0, skipped = 0, per_kind[KIND_COUNT] = {0}, size0 = 0, high_rank = 0,
         in_place = 0, streamed = 0, planned = 0;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    long first = g_only >= 0 ? g_only : 0, last = g_only >= 0 ? g_only + 1 : g_cases;
    for (long index = first; index < last; index++) {
        rng_state = g_seed ^ ((uint64_t)index * 0xd1b54a32d192ed03ull);
        tcase c;
        int layouts[MAX_T] = {0};
        if (!build(&c, layouts)) {
            skipped++;
            last += g_only < 0; /* keep the count of checked cases */
            continue;
        }
        /* bufs[2]: a prepared call's run (binary, n-ary), made on bufs[3] */
        const int plan = c.kind == KIND_BINARY || c.kind == KIND_NARY;
        char *bufs[4][MAX_T];
        for (int b = 0; b < c.nbuf; b++) {
            for (int k = 0; k < 4; k++)
                bufs[k][b] = malloc(c.buf_bytes[b]);
            /* every element of every buffer random, so reading the wrong place shows */
            size_t es = 8;
            for (int i = 0; i < c.nt; i++)
                if (c.buf_of[i] == b)
                    es = bc_dtype_size(c.t[i].dtype);
            bc_dtype t = c.dtype;
            for (int i = 0; i < c.nt; i++)
                if (c.buf_of[i] == b)
                    t = c.t[i].dtype;
            for (size_t off = 0; off + es <= c.buf_bytes[b]; off += es)
                random_value(t, bufs[0][b] + off);
            memcpy(bufs[1][b], bufs[0][b], c.buf_bytes[b]);
            memcpy(bufs[2][b], bufs[0][b], c.buf_bytes[b]);
            memset(bufs[3][b], 0, c.buf_bytes[b]);
        }
        bc_error e0, e1;
        /* Half the cases lower the fast engine's non-temporal threshold to 0
         * (docs/ENGINE.md): every output of 16 KiB or more is then streamed. */
        int stream = chance(50);
        if (stream)
            setenv("BROADCHECK_NT_MIN_BYTES", "0", 1);
        else
            unsetenv("BROADCHECK_NT_MIN_BYTES");
        /* A third of the cases (by index, so a rerun of one case takes the
         * same path) use the portable kernels where the CPU has AVX2: both
         * sets stay checked on any x86-64 machine (docs/ENGINE.md). */
        const int portable = index % 3 == 0;
        if (portable)
            setenv("BROADCHECK_FAST_PORTABLE", "1", 1);
        else
            unsetenv("BROADCHECK_FAST_PORTABLE");
        bc_error_kind k0 = run(&c, BC_EVAL_NAIVE, bufs[0], &e0);
        bc_error_kind k1 = run(&c, BC_EVAL_FAST, bufs[1], &e1);
        if (k0 != BC_OK || k1 != BC_OK) {
            describe(&c, layouts, index, stream);
            fail_msg("seed 0x%llx case %ld refused (naive: %s, fast: %s)\n  rerun: "
                     "BROADCHECK_RANDOM_SEED=0x%llx BROADCHECK_RANDOM_ONLY=%ld", (unsigned long long)g_seed,
                     index, k0 ? e0.message : "ok", k1 ? e1.message : "ok",
                     (unsigned long long)g_seed, index);
        }
        /* the prepared call, by either evaluator, equals the fresh one */
        bc_evaluator plan_ev = chance(80) ? BC_EVAL_FAST : BC_EVAL_NAIVE;
        bc_error e2;
        bc_error_kind k2 = plan ? run_plan(&c, plan_ev, bufs[3], bufs[2], &e2) : BC_OK;
        if (k2 != BC_OK) {
            describe(&c, layouts, index, stream);
            fail_msg("seed 0x%llx case %ld: the prepared call (%s) refused: %s\n  rerun: "
                     "BROADCHECK_RANDOM_SEED=0x%llx BROADCHECK_RANDOM_ONLY=%ld",
                     (unsigned long long)g_seed, index, bc_evaluator_name(plan_ev), e2.message,
                     (unsigned long long)g_seed, index);
        }
        if (plan) {
            char what[64];
            snprintf(what, sizeof what, "the prepared call (%s)", bc_evaluator_name(plan_ev));
            same_buffers(&c, layouts, index, stream, bufs[1], bufs[2], "fresh", what);
        }
        same_buffers(&c, layouts, index, stream, bufs[0], bufs[1], "naive", "fast");
        for (int b = 0; b < c.nbuf; b++)
            for (int k = 0; k < 4; k++)
                free(bufs[k][b]);
        planned += plan;
        checked++;
        per_kind[c.kind]++;
        size0 += has_zero_dim(&c.result);
        high_rank += c.result.rank >= 7;
        in_place += c.in_place;
        streamed += stream && bc_dtype_size(c.dtype) * (size_t)numel_of(&c.result) >= 16384;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    printf("fast == naive on %ld cases (seed 0x%llx, %.2f s): binary %ld, nary %ld, select %ld, "
           "broadcast %ld, sum-to-shape %ld; %ld with a size-0 result, %ld of rank >= 7, %ld in "
           "place, %ld of 16 KiB or more with streaming on, %ld also as prepared calls made on other "
           "memory; %ld draws redrawn\n", checked,
           (unsigned long long)g_seed, secs, per_kind[KIND_BINARY], per_kind[KIND_NARY],
           per_kind[KIND_SELECT], per_kind[KIND_BROADCAST], per_kind[KIND_SUM], size0, high_rank,
           in_place, streamed, planned, skipped);
}

/* A prepared call checks what depends on the addresses on every run, as
 * the one-shot call does: the same refusals, and the same results where it
 * runs (in place, reversed and stride-0 views, size 0, rank 0), made once
 * and run on several buffers. */
static void test_plan_refusals(void **state)
{
    (void)state;
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    float made[16] = {0}, mem[4][32];
    bc_shape s23 = {2, {2, 3}}, s3 = {1, {3}};
    bc_tensor a = bc_tensor_contiguous(BC_FLOAT32, &s23, made);
    bc_tensor b = bc_tensor_contiguous(BC_FLOAT32, &s3, made + 6);
    bc_tensor out = bc_tensor_contiguous(BC_FLOAT32, &s23, made + 9);
    /* a walks its rows backwards, b is one element read 3 times */
    a.strides[0] = -3;
    a.offset = 3;
    b.strides[0] = 0;
    bc_eval_plan *plan;
    bc_error err;
    for (int ev = 0; ev < BC_EVAL_COUNT; ev++) {
        assert_int_equal(bc_eval_plan_binary((bc_evaluator)ev, BC_OP_SUB, &p, &a, &b, &out, &plan,
                                             &err), BC_OK);
        assert_int_equal(bc_eval_plan_inputs(plan), 2);
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 32; i++)
                mem[0][i] = mem[1][i] = (float)(i * 7 % 11) - 5.5f * (float)round;
            /* distinct buffers; then in place, the output being a itself */
            for (int inpl = 0; inpl < 2; inpl++) {
                float *o0 = inpl ? mem[0] : mem[0] + 16, *o1 = inpl ? mem[1] : mem[1] + 16;
                const void *in[2] = {mem[0], mem[0] + 8};
                bc_tensor A = a, B = b, O = out;
                A.data = mem[1];
                B.data = mem[1] + 8;
                O.data = o1;
                O.strides[0] = inpl ? a.strides[0] : out.strides[0];
                O.offset = inpl ? a.offset : 0;
                if (inpl) { /* an in-place plan: made with out == a */
                    bc_eval_plan *ip;
                    bc_tensor I = a;
                    assert_int_equal(bc_eval_plan_binary((bc_evaluator)ev, BC_OP_SUB, &p, &a,
                                                         &b, &I, &ip, &err), BC_OK);
                    assert_int_equal(bc_eval_plan_run(ip, o0, in, &err), BC_OK);
                    bc_eval_plan_free(ip);
                } else {
                    assert_int_equal(bc_eval_plan_run(plan, o0, in, &err), BC_OK);
                }
                assert_int_equal(bc_eval_binary(BC_EVAL_NAIVE, BC_OP_SUB, &p, &A, &B, &O, &err),
                                 BC_OK);
                assert_memory_equal(mem[0], mem[1], sizeof mem[0]);
            }
        }
        /* refusals, each also the one-shot call's */
        const void *in[2] = {mem[0], mem[0] + 8};
        float before[32];
        memcpy(before, mem[0], sizeof before);
        void *bad_out[] = {mem[0] + 1, mem[0] + 6, (char *)(mem[0] + 16) + 1, NULL};
        for (int k = 0; k < 4; k++) {
            assert_int_equal(bc_eval_plan_run(plan, bad_out[k], in, &err), BC_ERR_BAD_PARAMS);
            bc_tensor A = a, B = b, O = out;
            A.data = mem[0];
            B.data = mem[0] + 8;
            O.data = bad_out[k];
            assert_int_equal(bc_eval_binary(BC_EVAL_FAST, BC_OP_SUB, &p, &A, &B, &O, &err),
                             BC_ERR_BAD_PARAMS);
        }
        const void *bad_in[] = {mem[0], (char *)(mem[0] + 8) + 2};
        assert_int_equal(bc_eval_plan_run(plan, mem[0] + 16, bad_in, &err), BC_ERR_BAD_PARAMS);
        const void *null_in[] = {NULL, mem[0] + 8};
        assert_int_equal(bc_eval_plan_run(plan, mem[0] + 16, null_in, &err), BC_ERR_BAD_PARAMS);
        assert_memory_equal(before, mem[0], sizeof before); /* nothing written */
        bc_eval_plan_free(plan);

        /* size 0: no data anywhere; rank 0: one element */
        bc_shape s03 = {2, {0, 3}}, s0 = {0, {0}};
        bc_tensor z = bc_tensor_contiguous(BC_FLOAT32, &s03, NULL);
        bc_tensor r = bc_tensor_contiguous(BC_FLOAT32, &s3, made);
        assert_int_equal(bc_eval_plan_binary((bc_evaluator)ev, BC_OP_ADD, &p, &z, &r, &z, &plan,
                                             &err), BC_OK);
        const void *zin[2] = {NULL, mem[2]};
        assert_int_equal(bc_eval_plan_run(plan, NULL, zin, &err), BC_OK);
        zin[1] = NULL; /* r has elements: its data is needed, as in the one-shot call */
        assert_int_equal(bc_eval_plan_run(plan, NULL, zin, &err), BC_ERR_BAD_PARAMS);
        bc_eval_plan_free(plan);
        bc_tensor x = bc_tensor_contiguous(BC_FLOAT32, &s0, made);
        assert_int_equal(bc_eval_plan_binary((bc_evaluator)ev, BC_OP_MUL, &p, &x, &x, &x, &plan,
                                             &err), BC_OK);
        mem[2][0] = 3;
        mem[2][1] = 5;
        const void *xin[2] = {mem[2], mem[2] + 1};
        assert_int_equal(bc_eval_plan_run(plan, mem[2] + 2, xin, &err), BC_OK);
        assert_true(mem[2][2] == 15.0f);
        bc_eval_plan_free(plan);
    }
    /* a call the one-shot path refuses makes no plan */
    bc_shape s4 = {1, {4}};
    bc_tensor w = bc_tensor_contiguous(BC_FLOAT32, &s4, made);
    assert_int_equal(bc_eval_plan_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &a, &w, &out, &plan, &err),
                     BC_ERR_DIM_MISMATCH);
    assert_null(plan);
}

/* The fast engine's tiles and blocks at their edges (docs/ENGINE.md "The
 * fast evaluator"): a transposed input over inner extents at, one below and
 * one above multiples of the tile (128 x 64, 64 x 64 for 8-byte elements;
 * the 8 x 8 AVX and 4 x 4 SSE gathers; rows 63-257, columns 127-160),
 * forwards and reversed; and 3-D blocks (three inner axes per
 * call) with planes, rows and columns of 1, 3, 7, 8 and 9 elements, where
 * each operand is broadcast along a different axis (float32, and float16
 * with and without the F16C kernels).  Every case runs with
 * and without the AVX2 kernels and with streaming on and off, into an
 * output 64-byte aligned and one element off it (the tiles' streaming
 * kernel, fast.c's tile_nt, needs 32-byte aligned rows of whole 32 bytes:
 * inner extents of 128, 136 and 160 elements give it full tiles and tails
 * of 8 and 32 columns, the others take the output buffer); the fast
 * result must equal the naive one bit for bit, padding included. */
static void edge_case(bc_dtype t, const bc_shape *ra, const int64_t *a_strides, int64_t a_offset,
                      size_t a_elems, const bc_shape *rb, const bc_shape *r)
{
    const size_t es = bc_dtype_size(t);
    int64_t nb = numel_of(rb), no = numel_of(r);
    const size_t pad = 64; /* bytes after each output that must stay untouched */
    char *a = malloc(a_elems * es), *b = malloc((size_t)nb * es + pad);
    /* 64-byte aligned, and room for the output one element later */
    const size_t obytes = ((size_t)no * es + es + pad + 63) / 64 * 64;
    char *o[2] = {aligned_alloc(64, obytes), aligned_alloc(64, obytes)};
    assert_non_null(a);
    assert_non_null(b);
    for (size_t i = 0; i < a_elems; i++)
        random_value(t, a + i * es);
    for (int64_t i = 0; i < nb; i++)
        random_value(t, b + (size_t)i * es);
    bc_tensor A = bc_tensor_contiguous(t, ra, a), B = bc_tensor_contiguous(t, rb, b);
    for (int k = 0; k < ra->rank; k++)
        A.strides[k] = a_strides[k];
    A.offset = a_offset;
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    static const char *const envs[][2] = {{"0", "0"}, {"1", "0"}, {"0", ""}, {"1", ""}};
    for (int v = 0; v < 8; v++) {
        const size_t shift = v < 4 ? 0 : es; /* the output's start: aligned, then not */
        setenv("BROADCHECK_FAST_PORTABLE", envs[v % 4][0], 1);
        if (*envs[v % 4][1])
            setenv("BROADCHECK_NT_MIN_BYTES", envs[v % 4][1], 1);
        else
            unsetenv("BROADCHECK_NT_MIN_BYTES");
        for (int e = 0; e < 2; e++) {
            memset(o[e], 0x5a, obytes);
            bc_tensor O = bc_tensor_contiguous(t, r, o[e] + shift);
            bc_error err;
            assert_int_equal(bc_eval_binary(e ? BC_EVAL_FAST : BC_EVAL_NAIVE, BC_OP_ADD, &p, &A,
                                            &B, &O, &err),
                             BC_OK);
        }
        if (memcmp(o[0], o[1], obytes) != 0) {
            char sa[128], sr[128];
            bc_shape_format(ra, sa, sizeof sa);
            bc_shape_format(r, sr, sizeof sr);
            fail_msg("%s %s + ... -> %s (a's strides %lld,%lld..., output %zu bytes past "
                     "64-byte alignment): fast != naive with BROADCHECK_FAST_PORTABLE=%s "
                     "BROADCHECK_NT_MIN_BYTES=%s",
                     bc_dtype_name(t), sa, sr, (long long)a_strides[0],
                     (long long)(ra->rank > 1 ? a_strides[1] : 0), shift, envs[v % 4][0],
                     envs[v % 4][1]);
        }
    }
    unsetenv("BROADCHECK_FAST_PORTABLE");
    unsetenv("BROADCHECK_NT_MIN_BYTES");
    free(a);
    free(b);
    free(o[0]);
    free(o[1]);
}

static void test_tile_and_block_edges(void **state)
{
    (void)state;
    rng_state = g_seed;
    /* transposed: result [n1, n0], a[i][j] = mem[j][i] (reversed: mem[n0-1-j][i]) */
    static const int64_t n1s[] = {63, 64, 65, 127, 128, 129, 131, 257}, n0s[] = {127, 128, 129, 135, 136, 160};
    static const bc_dtype types[] = {BC_FLOAT32, BC_INT8, BC_FLOAT64};
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t x = 0; x < sizeof n1s / sizeof n1s[0]; x++)
            for (size_t y = 0; y < sizeof n0s / sizeof n0s[0]; y++)
                for (int rev = 0; rev < 2; rev++) {
                    const int64_t n1 = n1s[x], n0 = n0s[y];
                    bc_shape r = {2, {n1, n0}};
                    int64_t st[2] = {1, rev ? -n1 : n1};
                    edge_case(types[ti], &r, st, rev ? (n0 - 1) * n1 : 0, (size_t)(n1 * n0), &r,
                              &r);
                }
    /* 3-D blocks: a [d3, d2, 1, d0] + b [d2, d1, 1] over a rank-4 result,
     * every inner axis broadcast by one operand */
    static const int64_t ds[] = {1, 3, 7, 8, 9};
    for (size_t i2 = 0; i2 < 5; i2++)
        for (size_t i1 = 0; i1 < 5; i1++)
            for (size_t i0 = 0; i0 < 5; i0++) {
                const int64_t d3 = 33, d2 = ds[i2], d1 = ds[i1], d0 = ds[i0];
                bc_shape ra = {4, {d3, d2, 1, d0}}, rb = {3, {d2, d1, 1}};
                bc_shape r = {4, {d3, d2, d1, d0}};
                int64_t st[4] = {d2 * d0, d0, d0, 1};
                edge_case(BC_FLOAT32, &ra, st, 0, (size_t)(d3 * d2 * d0), &rb, &r);
                /* float16: the F16C kernels' own 3-D kernels (and their AVX2
                 * clones), then the portable ones */
                for (int f16c = 1; f16c >= 0; f16c--) {
                    setenv("BROADCHECK_F16C", f16c ? "1" : "0", 1);
                    edge_case(BC_FLOAT16, &ra, st, 0, (size_t)(d3 * d2 * d0), &rb, &r);
                }
                unsetenv("BROADCHECK_F16C");
            }
    /* a size-0 axis among them: nothing written */
    bc_shape ra = {4, {5, 8, 1, 0}}, rb = {3, {8, 8, 1}}, r = {4, {5, 8, 8, 0}};
    int64_t st[4] = {0, 0, 0, 1};
    edge_case(BC_FLOAT32, &ra, st, 0, 1, &rb, &r);
}

/* The streaming route's kernels that store straight to memory (fast.c's
 * BINARY_NT_KERNEL, docs/ENGINE.md "Seventh pass"): taken only where every
 * output row starts 32-byte aligned and is a whole number of 32 bytes, so
 * the random cases (malloc's 16-byte alignment) reach them by chance.
 * Here every dtype and op, each stride case of the kernel (both inputs
 * along the row, either one stride-0, a strided input), rows of one and of
 * several 32-byte chunks, rank 8's pattern, in place, on a 32-byte aligned
 * output and one element off it (the buffer route), one-shot and prepared;
 * the bytes around the output must stay untouched.  Streaming on
 * (BROADCHECK_NT_MIN_BYTES=0), the AVX2 kernels allowed; float16 with and
 * without the F16C kernels. */
typedef struct nt_layout {
    const char *name;
    bc_shape ra, rb, r;
    int a_step; /* a's inner stride in elements (a strided input), 1 otherwise */
    int in_place; /* the output is a's own view */
} nt_layout;

static void nt_case(bc_op op, bc_dtype t, const nt_layout *l, int misalign, int prepared)
{
    const bc_dtype ot = bc_op_result_dtype(op, t);
    const size_t es = bc_dtype_size(t), os = bc_dtype_size(ot), pad = 64;
    const int64_t na = numel_of(&l->ra) * l->a_step, nb = numel_of(&l->rb), no = numel_of(&l->r);
    const size_t out_bytes = (size_t)no * os + 2 * pad;
    char *mem[2], *a[2], *b = malloc((size_t)nb * es);
    assert_non_null(b);
    for (int64_t i = 0; i < nb; i++)
        random_value(t, b + (size_t)i * es);
    for (int e = 0; e < 2; e++) {
        /* a 64-byte aligned block: pad bytes, the output, pad bytes */
        size_t a_bytes = ((size_t)na * es + 63) / 64 * 64;
        mem[e] = aligned_alloc(64, (out_bytes + 63) / 64 * 64 + (l->in_place ? 0 : a_bytes));
        assert_non_null(mem[e]);
        memset(mem[e], 0x5a, out_bytes);
        a[e] = l->in_place ? mem[e] + pad + (size_t)misalign * os : mem[e] + (out_bytes + 63) / 64 * 64;
        if (e == 0)
            for (int64_t i = 0; i < na; i++)
                random_value(t, a[0] + (size_t)i * es);
        else
            memcpy(a[1], a[0], (size_t)na * es);
    }
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    for (int e = 0; e < 2; e++) {
        bc_tensor A = bc_tensor_contiguous(t, &l->ra, a[e]), B = bc_tensor_contiguous(t, &l->rb, b);
        for (int k = 0; k < A.rank; k++)
            A.strides[k] *= l->a_step;
        bc_tensor O = l->in_place ? A : bc_tensor_contiguous(ot, &l->r, mem[e] + pad + (size_t)misalign * os);
        bc_error err;
        if (e == 1 && prepared) {
            bc_eval_plan *plan;
            assert_int_equal(bc_eval_plan_binary(BC_EVAL_FAST, op, &p, &A, &B, &O, &plan, &err),
                             BC_OK);
            const void *in[2] = {A.data, B.data};
            assert_int_equal(bc_eval_plan_run(plan, O.data, in, &err), BC_OK);
            bc_eval_plan_free(plan);
        } else {
            assert_int_equal(bc_eval_binary(e ? BC_EVAL_FAST : BC_EVAL_NAIVE, op, &p, &A, &B, &O,
                                            &err),
                             BC_OK);
        }
    }
    if (memcmp(mem[0], mem[1], out_bytes) != 0) {
        size_t off = 0;
        while (mem[0][off] == mem[1][off])
            off++;
        fail_msg("%s %s, %s, output %s%s: fast != naive at byte %zu of the output "
                 "(%zu pad bytes before it)",
                 bc_op_name(op), bc_dtype_name(t), l->name, misalign ? "one element off 32 bytes" : "32-byte aligned",
                 prepared ? ", prepared" : "", off - pad, pad);
    }
    free(b);
    free(mem[0]);
    free(mem[1]);
}

static void test_streamed_rows(void **state)
{
    (void)state;
    /* results of 16,384 elements or more (every output at least 16 KiB:
     * streamed);
     * rows of 64 elements (two or more 32-byte chunks for every dtype) and
     * rank 8's rows of 8 (one chunk of float32, none of a bool) */
    static const nt_layout layouts[] = {
        {"a [16,1,64] + b [1,16,64] (both along the row)", {3, {16, 1, 64}}, {3, {1, 16, 64}},
         {3, {16, 16, 64}}, 1, 0},
        {"a [16,16,64] + b [16,16,1] (b stride-0)", {3, {16, 16, 64}}, {3, {16, 16, 1}},
         {3, {16, 16, 64}}, 1, 0},
        {"a [256,1] + b [1,64] (a stride-0)", {2, {256, 1}}, {2, {1, 64}}, {2, {256, 64}}, 1, 0},
        {"a [256,64] every other element + b [64] (strided a)", {2, {256, 64}}, {1, {64}},
         {2, {256, 64}}, 2, 0},
        {"rank 8: [2,1,2,1,8,1,8,1] + [1,1,1,2,1,8,1,8]", {8, {2, 1, 2, 1, 8, 1, 8, 1}},
         {8, {1, 1, 1, 2, 1, 8, 1, 8}}, {8, {2, 1, 2, 2, 8, 8, 8, 8}}, 1, 0},
        {"a [256,64] += b [64] (in place)", {2, {256, 64}}, {1, {64}}, {2, {256, 64}}, 1, 1},
    };
    setenv("BROADCHECK_NT_MIN_BYTES", "0", 1);
    unsetenv("BROADCHECK_FAST_PORTABLE");
    rng_state = g_seed ^ 0x57ea3ull;
    for (int dt = 0; dt < BC_DTYPE_COUNT; dt++) {
        const bc_dtype t = (bc_dtype)dt;
        if (!bc_dtype_available(t))
            continue;
        for (int f16c = 0; f16c < (t == BC_FLOAT16 ? 2 : 1); f16c++) {
            setenv("BROADCHECK_F16C", f16c ? "0" : "1", 1);
            for (int op = 0; op < BC_OP_ENGINE_COUNT; op++) {
                if (!bc_op_takes_dtype((bc_op)op, t))
                    continue;
                for (size_t l = 0; l < sizeof layouts / sizeof layouts[0]; l++) {
                    if (layouts[l].in_place && bc_op_result_dtype((bc_op)op, t) != t)
                        continue;
                    for (int mis = 0; mis < 2; mis++)
                        nt_case((bc_op)op, t, &layouts[l], mis, 0);
                    nt_case((bc_op)op, t, &layouts[l], 0, 1);
                }
            }
        }
    }
    unsetenv("BROADCHECK_F16C");
    unsetenv("BROADCHECK_NT_MIN_BYTES");
}

/* The small-call front end (eval.c's small_binary: one-shot fast binary
 * calls of at most 1,024 output elements) at its edges: each call below
 * runs on both evaluators (the naive one never takes that path) and must
 * give the same error kind and message, or the same bytes everywhere in
 * the buffer.  The variations are the checks the front end must not skip:
 * data, alignment, offsets and strides near the int64 range, the output's
 * shape, dtype and self-overlap, overlap with an input (in place is
 * allowed only as the very view), dims of 0 and 1, rank 0, ranks past the
 * result's under none, the size limit's edge, every dtype. */
typedef struct small_call {
    bc_op op;
    bc_rule rule;
    bc_tensor a, b, out;
} small_call;

static void small_compare(const small_call *c, const char *what)
{
    enum { BYTES = 4096 * 8 + 256 };
    static union { int64_t align; char c[BYTES]; } buf[2];
    char *mem[2] = {buf[0].c, buf[1].c};
    bc_error err[2];
    bc_error_kind k[2];
    rng_state = g_seed ^ 0x51a11ull;
    /* every element random, NaNs all the default one (random_value) */
    const size_t es = bc_dtype_size(c->a.dtype);
    for (size_t off = 0; off + es <= BYTES; off += es)
        random_value(c->a.dtype, mem[0] + off);
    memcpy(mem[1], mem[0], BYTES);
    for (int e = 0; e < 2; e++) {
        small_call v = *c;
        /* data given as offsets into mem; (void *)-1 stands for NULL */
        bc_tensor *t[3] = {&v.a, &v.b, &v.out};
        for (int i = 0; i < 3; i++)
            t[i]->data = t[i]->data == (void *)-1 ? NULL : mem[e] + (uintptr_t)t[i]->data;
        bc_params p = bc_params_for(c->rule);
        memset(&err[e], 0, sizeof err[e]);
        k[e] = bc_eval_binary(e ? BC_EVAL_FAST : BC_EVAL_NAIVE, c->op, &p, &v.a, &v.b, &v.out,
                              &err[e]);
    }
    if (k[0] != k[1] || (k[0] && strcmp(err[0].message, err[1].message) != 0))
        fail_msg("small call '%s' (%s %s): naive %d (%s), fast %d (%s)", what,
                 bc_op_name(c->op), bc_dtype_name(c->a.dtype), (int)k[0],
                 k[0] ? err[0].message : "ok", (int)k[1], k[1] ? err[1].message : "ok");
    if (memcmp(mem[0], mem[1], BYTES) != 0)
    {
        size_t off = 0;
        while (mem[0][off] == mem[1][off])
            off++;
        fail_msg("small call '%s' (%s %s): the fast result differs from the naive one at byte "
                 "%zu (%02x, naive %02x)", what, bc_op_name(c->op), bc_dtype_name(c->a.dtype), off,
                 (unsigned char)mem[1][off], (unsigned char)mem[0][off]);
    }
}

/* Row sums (the output's stride 0) that the fast engine adds by vector
 * lanes when every order gives the same bits (wrapped integers; floats of
 * integer terms whose magnitudes stay below 2^24 or 2^53): equal to the
 * naive evaluator's left-to-right chain bit for bit, forward and reversed,
 * on rows that take that way and on rows just outside it (a fraction, a
 * NaN, an infinity, every term -0, a +0 among -0s, sums at the bound). */
static void test_row_sums_in_any_order(void **state)
{
    (void)state;
    rng_state = g_seed ^ 0x5u;
    static const bc_dtype types[] = {BC_INT8, BC_UINT8, BC_INT32, BC_INT64, BC_FLOAT32,
                                     BC_FLOAT64};
    static const int64_t lens[] = {63, 64, 65, 1000, 4099};
    enum { KINDS = 9 };
    for (size_t ti = 0; ti < sizeof types / sizeof types[0]; ti++)
        for (size_t li = 0; li < sizeof lens / sizeof lens[0]; li++)
            for (int kind = 0; kind < KINDS; kind++)
                for (int rev = 0; rev < 2; rev++) {
                    const bc_dtype t = types[ti];
                    const int64_t n = lens[li], es = (int64_t)bc_dtype_size(t);
                    char *mem = malloc((size_t)(n * es)), *o[2];
                    assert_non_null(mem);
                    for (int64_t j = 0; j < n; j++) {
                        /* 0: small integers; 1: big ones (wrap; near the float bound);
                         * 2: all -0; 3: -0s and one +0; 4: a fraction; 5: a NaN;
                         * 6: an infinity; 7: 2^23 - 1 and such (float32's rounder);
                         * 8: exactly at float32's bound, 2^24 / n each */
                        double v = (double)((int64_t)(next_u64() % 19) - 9);
                        if (kind == 1)
                            v = (double)((int64_t)(next_u64() % 2000001) - 1000000) * 4096.0;
                        if (kind == 2 || (kind == 3 && j != n / 2))
                            v = -0.0;
                        if (kind == 3 && j == n / 2)
                            v = 0.0;
                        if (kind == 4 && j == n - 1)
                            v = 0.5;
                        if (kind == 5 && j == n / 3)
                            v = NAN;
                        if (kind == 6 && j == 7)
                            v = -INFINITY;
                        if (kind == 7)
                            v = j % 2 ? 8388607.0 : -8388607.0;
                        if (kind == 8)
                            v = (double)((int64_t)16777216 / (int64_t)n) * (j % 3 ? 1 : -1); /* floor: n > 0 */
                        char *p = mem + j * es;
                        switch (t) {
                        case BC_INT8: *(int8_t *)p = (int8_t)(int64_t)(isfinite(v) ? v : 3); break;
                        case BC_UINT8: *(uint8_t *)p = (uint8_t)(int64_t)(isfinite(v) ? v : 3); break;
                        case BC_INT32: *(int32_t *)(void *)p = (int32_t)(isfinite(v) ? v : 3); break;
                        case BC_INT64:
                            *(int64_t *)(void *)p = (int64_t)(isfinite(v) ? v : 3) * 1000003;
                            break;
                        case BC_FLOAT32: *(float *)(void *)p = (float)v; break;
                        default: *(double *)(void *)p = v; break;
                        }
                    }
                    bc_shape gs = {1, {n}}, os = {0, {0}}, shapes[2] = {os, gs};
                    bc_tensor g = bc_tensor_contiguous(t, &gs, mem);
                    if (rev) { /* the same terms read from the last */
                        g.strides[0] = -1;
                        g.offset = n - 1;
                    }
                    const bc_params p = bc_params_for(BC_RULE_NUMPY);
                    for (int e = 0; e < 2; e++) {
                        o[e] = malloc(8);
                        assert_non_null(o[e]);
                        memset(o[e], 0x5a, 8);
                        bc_tensor out = bc_tensor_contiguous(t, &os, o[e]);
                        bc_error err;
                        assert_int_equal(bc_eval_sum_to_shape(e ? BC_EVAL_FAST : BC_EVAL_NAIVE, &p,
                                                              2, shapes, 0, &g, &out, &err),
                                         BC_OK);
                    }
                    if (memcmp(o[0], o[1], 8) != 0)
                        fail_msg("%s sum of %lld terms (kind %d%s): fast != naive",
                                 bc_dtype_name(t), (long long)n, kind, rev ? ", reversed" : "");
                    free(mem);
                    free(o[0]);
                    free(o[1]);
                }
}

/* Rank-5 outer products (the bench's rank5-small layout, a's row held over
 * b's column, then the mirror) at the edges of fast.c's held planes
 * (HELD_PLANE): output rows adjacent and the other input's column
 * contiguous, then each stepped otherwise (a column reversed or strided,
 * output rows reversed or apart), n1 of 1, 5 and 6 rows (odd, even: the
 * rows go in pairs), the output one element off 64-byte alignment, size-1
 * axes between (rank 6: the plan's walk, not run_direct5).  Written for a
 * dense held plane that was not merged (docs/ENGINE.md "Eleventh pass"):
 * the layouts it had to leave are the held plane's stride cases. */
static void held_plane_edges(const small_call *base, bc_dtype t, bc_dtype ot, int64_t n0)
{
    static const int64_t rows[] = {1, 5, 6};
    const int64_t os = (int64_t)bc_dtype_size(ot);
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++)
        for (int v = 0; v < 7; v++)
            for (int swap = 0; swap < 2; swap++) {
                const int64_t n1 = rows[r];
                bc_shape ha = {5, {2, 1, 3, 1, n0}}, hb = {5, {1, 5, 1, n1, 1}},
                         ho = {5, {2, 5, 3, n1, n0}}, hp = {5, {2, 5, 3, n1, n0 + 1}};
                if (v == 6) {
                    ha = (bc_shape){6, {2, 1, 3, 1, 1, n0}};
                    hb = (bc_shape){6, {1, 5, 1, n1, 1, 1}};
                    ho = (bc_shape){6, {2, 5, 3, n1, 1, n0}};
                }
                small_call c = *base;
                c.a = bc_tensor_contiguous(t, &ha, (void *)0);
                c.b = bc_tensor_contiguous(t, &hb, (void *)(uintptr_t)1024);
                c.out = bc_tensor_contiguous(ot, &ho, (void *)(uintptr_t)4096);
                static const char *const what[] = {
                    "held plane, dense", "held plane, output off 64-byte alignment",
                    "held plane, column reversed", "held plane, column stride 2",
                    "held plane, output rows reversed", "held plane, output rows apart",
                    "held plane, size-1 axes between"};
                switch (v) {
                case 1:
                    c.out.data = (void *)(uintptr_t)(4096 + os);
                    break;
                case 2:
                    c.b.strides[3] = -1;
                    c.b.offset = n1 - 1;
                    break;
                case 3:
                    c.b.strides[3] = 2;
                    c.b.strides[1] = 2 * n1;
                    break;
                case 4:
                    c.out.strides[3] = -n0;
                    c.out.offset = (n1 - 1) * n0;
                    break;
                case 5:
                    c.out = bc_tensor_contiguous(ot, &hp, (void *)(uintptr_t)4096);
                    c.out.dims[4] = n0;
                    break;
                default:
                    break;
                }
                if (swap) {
                    const bc_tensor x = c.a;
                    c.a = c.b;
                    c.b = x;
                }
                small_compare(&c, what[v]);
            }
}

static void test_small_calls(void **state)
{
    (void)state;
    for (int dt = 0; dt < BC_DTYPE_COUNT; dt++) {
        const bc_dtype t = (bc_dtype)dt;
        if (!bc_dtype_available(t))
            continue;
        const int64_t es = (int64_t)bc_dtype_size(t);
        bc_shape s34 = {2, {3, 4}}, s4 = {1, {4}}, s0 = {0, {0}};
        for (int op = 0; op < BC_OP_ENGINE_COUNT; op++) {
            if (!bc_op_takes_dtype((bc_op)op, t))
                continue;
            const bc_dtype ot = bc_op_result_dtype((bc_op)op, t);
            small_call base = {(bc_op)op, BC_RULE_NUMPY, bc_tensor_contiguous(t, &s34, (void *)0),
                               bc_tensor_contiguous(t, &s4, (void *)(uintptr_t)(16 * es)),
                               bc_tensor_contiguous(ot, &s34, (void *)(uintptr_t)(4096))};
            small_call c = base;
            small_compare(&c, "tiny");
            c.rule = BC_RULE_NONE;
            small_compare(&c, "none: ranks differ");
            c.b = bc_tensor_contiguous(t, &s34, (void *)(uintptr_t)(16 * es));
            small_compare(&c, "none: equal shapes");
            c = base;
            c.a = bc_tensor_contiguous(t, &s0, (void *)0);
            c.b = bc_tensor_contiguous(t, &s0, (void *)(uintptr_t)es);
            c.out = bc_tensor_contiguous(ot, &s0, (void *)(uintptr_t)(4096));
            small_compare(&c, "rank 0");
            c.out.data = (void *)0;
            small_compare(&c, "rank 0 in place");
            c.out.data = (void *)(uintptr_t)(4096 + 1);
            small_compare(&c, "rank 0, output misaligned");
            /* reversed rows, stepped columns, an offset */
            c = base;
            c.a.strides[0] = -8;
            c.a.strides[1] = 2;
            c.a.offset = 16;
            c.b.strides[0] = -1;
            c.b.offset = 3;
            c.out.strides[1] = -1;
            c.out.offset = 3;
            small_compare(&c, "reversed and stepped");
            c.out.strides[0] = 2; /* its rows collide */
            small_compare(&c, "output overlaps itself");
            c.out.strides[0] = 4;
            c.out.strides[1] = 0;
            small_compare(&c, "output stride 0");
            c = base;
            c.out.strides[0] = 1;
            c.out.strides[1] = 3; /* a permuted output: no overlap, out of order */
            small_compare(&c, "permuted output");
            /* in place: the very view, then a shifted one */
            c = base;
            c.out = c.a;
            c.out.dtype = ot;
            small_compare(&c, ot == t ? "in place" : "in place, other dtype");
            c.out.offset = 1;
            small_compare(&c, "output overlaps input 0");
            c = base;
            c.out.data = (void *)(uintptr_t)(16 * es);
            c.out.offset = -8;
            small_compare(&c, "output overlaps input 1");
            /* data and alignment */
            c = base;
            c.b.data = (void *)-1;
            small_compare(&c, "input without data");
            c.b.data = (void *)(uintptr_t)(16 * es + (es > 1));
            small_compare(&c, "input misaligned");
            c = base;
            c.out.data = (void *)-1;
            small_compare(&c, "output without data");
            /* dtypes and shapes */
            c = base;
            c.b.dtype = t == BC_INT8 ? BC_UINT8 : BC_INT8;
            small_compare(&c, "dtypes differ");
            c = base;
            c.out.dtype = ot == BC_BOOL ? t : BC_BOOL;
            small_compare(&c, "output dtype");
            c = base;
            c.out.dims[1] = 5;
            small_compare(&c, "output shape");
            c = base;
            c.out.rank = 3;
            c.out.dims[2] = 1;
            small_compare(&c, "output rank");
            c = base;
            c.b.dims[0] = 3;
            small_compare(&c, "dims mismatch");
            c.b.dims[0] = -1;
            small_compare(&c, "negative dim");
            c = base;
            c.a.dims[0] = c.out.dims[0] = 0;
            small_compare(&c, "size 0");
            c = base;
            c.a.dims[0] = 1; /* a stretched: its stride there is never used */
            c.a.strides[0] = INT64_MAX;
            small_compare(&c, "huge stride on a size-1 axis");
            c = base;
            c.a.strides[0] = INT64_MAX / 2;
            small_compare(&c, "element offsets past int64");
            c.a.strides[0] = INT64_MAX / es / 2 + 1; /* in elements for 1 byte, else in bytes */
            small_compare(&c, "byte offsets past int64");
            if (es > 1) {
                c = base;
                c.a.offset = INT64_MIN / es - 1;
                small_compare(&c, "offset past int64 bytes");
            }
            /* the size limit: 1,024 elements and one past it */
            c = base;
            for (int64_t n = 1023; n <= 1025; n++) {
                c.a.dims[0] = c.out.dims[0] = n;
                c.a.dims[1] = c.out.dims[1] = 1;
                c.b.dims[0] = 1;
                c.a.strides[0] = c.out.strides[0] = 1;
                c.out.data = (void *)(uintptr_t)(2048 * es);
                small_compare(&c, "the size limit");
            }
            /* the contiguous pass (small_binary's first): b the longer
             * input; equal shapes (one row); a single element as b, by
             * rank 0 and by dims of 1; a size-1 axis of the output that
             * both have, with its stride the product and then not (the
             * dense pass then); the output just past input 0 and input 1
             * (accepted) and one element into them (in place); a stride
             * of the shorter input off the product */
            bc_shape s1 = {1, {1}}, s314 = {3, {3, 1, 4}}, s14 = {2, {1, 4}};
            c = base;
            c.a = base.b;
            c.b = base.a;
            small_compare(&c, "contiguous, b the longer");
            c.b.strides[1] = 2;
            small_compare(&c, "contiguous, b the longer and stepped");
            c = base;
            c.b = bc_tensor_contiguous(t, &s34, (void *)(uintptr_t)(16 * es));
            small_compare(&c, "contiguous, equal shapes");
            c.b = bc_tensor_contiguous(t, &s0, (void *)(uintptr_t)(16 * es));
            small_compare(&c, "contiguous, b rank 0");
            c.b = bc_tensor_contiguous(t, &s1, (void *)(uintptr_t)(16 * es));
            small_compare(&c, "contiguous, b one element");
            c.a = bc_tensor_contiguous(t, &s314, (void *)0);
            c.b = bc_tensor_contiguous(t, &s14, (void *)(uintptr_t)(16 * es));
            c.out = bc_tensor_contiguous(ot, &s314, (void *)(uintptr_t)4096);
            small_compare(&c, "contiguous, a size-1 axis");
            c.a.strides[1] = 5;
            small_compare(&c, "contiguous, a size-1 axis's stride");
            c = base;
            c.b.data = (void *)(uintptr_t)(64 * es);
            c.out.data = (void *)(uintptr_t)(12 * es);
            small_compare(&c, "output just past input 0");
            c.out.offset = -1;
            small_compare(&c, "output one element into input 0");
            c = base;
            c.a.data = (void *)(uintptr_t)(256 * es);
            c.out.data = (void *)(uintptr_t)(16 * es);
            c.out.offset = -12 * es / (ot == t ? es : 1);
            small_compare(&c, "output just before input 1");
            c.out.offset++;
            small_compare(&c, "output one element into input 1");
            c = base;
            c.b.strides[0] = -1;
            c.b.offset = 3;
            small_compare(&c, "contiguous but b reversed");
            /* the dense pass (small_dense) and the blocks after it: rank-5
             * small, no axis merged (two 3-D kernel calls); the strides of
             * its size-1 axes, never read; an input's stride and then the
             * output's off the dense one (the strided pass takes them);
             * axes merged where the same inputs walk them (one 2-D block);
             * four axes left (one 3-D kernel call); six (the plan walk) */
            bc_shape r5a = {5, {2, 1, 3, 1, 4}}, r5b = {5, {1, 5, 1, 6, 1}},
                     r5 = {5, {2, 5, 3, 6, 4}};
            c = base;
            c.a = bc_tensor_contiguous(t, &r5a, (void *)0);
            c.b = bc_tensor_contiguous(t, &r5b, (void *)(uintptr_t)(64 * es));
            c.out = bc_tensor_contiguous(ot, &r5, (void *)(uintptr_t)4096);
            small_compare(&c, "rank-5 small");
            c.a.strides[1] = INT64_MAX;
            c.b.strides[4] = -7;
            c.out.dims[1] = c.b.dims[1] = 1;
            c.out.strides[0] = 72; /* dense again: 3 x 6 x 4 inside it */
            c.out.strides[1] = 3;
            small_compare(&c, "rank-5 small, size-1 axes' strides");
            c.out.dims[1] = c.b.dims[1] = 5;
            c.out.strides[0] = 360;
            c.out.strides[1] = 72;
            c.b.strides[4] = 1;
            c.b.strides[3] = 2;
            small_compare(&c, "rank-5 small, an input not dense");
            c.b.strides[3] = 1;
            c.out.strides[0] = 730;
            small_compare(&c, "rank-5 small, the output not dense");
            /* the axes outside the kernel's plane, reordered by extent
             * (fast.c's direct5_order): five and four axes left, the outer
             * extents in every order and equal, each input walking the
             * outermost in turn */
            static const int64_t ext[][3] = {{2, 3, 5}, {2, 5, 3}, {3, 2, 5}, {3, 5, 2},
                                             {5, 2, 3}, {5, 3, 2}, {3, 3, 3}, {1, 5, 2}};
            for (size_t x = 0; x < sizeof ext / sizeof ext[0]; x++)
                for (int swap = 0; swap < 2; swap++) {
                    const int64_t e0 = ext[x][0], e1 = ext[x][1], e2 = ext[x][2];
                    bc_shape oa = {5, {e0, 1, e2, 1, 4}}, ob = {5, {1, e1, 1, 6, 1}},
                             oo = {5, {e0, e1, e2, 6, 4}};
                    c = base;
                    c.a = bc_tensor_contiguous(t, swap ? &ob : &oa, (void *)0);
                    c.b = bc_tensor_contiguous(t, swap ? &oa : &ob, (void *)(uintptr_t)(128 * es));
                    c.out = bc_tensor_contiguous(ot, &oo, (void *)(uintptr_t)4096);
                    small_compare(&c, "outer axes reordered");
                }
            bc_shape m4 = {4, {2, 3, 4, 5}}, m2 = {2, {4, 5}}, m3 = {3, {3, 1, 5}};
            c = base;
            c.a = bc_tensor_contiguous(t, &m4, (void *)0);
            c.b = bc_tensor_contiguous(t, &m2, (void *)(uintptr_t)(128 * es));
            c.out = bc_tensor_contiguous(ot, &m4, (void *)(uintptr_t)4096);
            small_compare(&c, "merged to two axes");
            c.b = bc_tensor_contiguous(t, &m3, (void *)(uintptr_t)(128 * es));
            small_compare(&c, "four axes left");
            bc_shape r6a = {6, {2, 1, 2, 1, 2, 1}}, r6b = {6, {1, 2, 1, 2, 1, 2}},
                     r6 = {6, {2, 2, 2, 2, 2, 2}};
            c.a = bc_tensor_contiguous(t, &r6a, (void *)0);
            c.b = bc_tensor_contiguous(t, &r6b, (void *)(uintptr_t)(16 * es));
            c.out = bc_tensor_contiguous(ot, &r6, (void *)(uintptr_t)4096);
            small_compare(&c, "six axes left");
            /* outer-product planes (fast.c's HELD_ROWS: the row of one input
             * kept over the other's elements), rows of 16 and 32 bytes:
             * a's row held over b's column, then b's over a's */
            for (int64_t w = 16; w <= 32; w += 16) {
                const int64_t n0 = w / es;
                bc_shape hr = {3, {2, 1, n0}}, hc = {3, {1, 3, 1}}, ho = {3, {2, 3, n0}};
                c = base;
                c.a = bc_tensor_contiguous(t, &hr, (void *)0);
                c.b = bc_tensor_contiguous(t, &hc, (void *)(uintptr_t)128);
                c.out = bc_tensor_contiguous(ot, &ho, (void *)(uintptr_t)4096);
                small_compare(&c, "a's row held");
                c.a = bc_tensor_contiguous(t, &hc, (void *)(uintptr_t)128);
                c.b = bc_tensor_contiguous(t, &hr, (void *)0);
                small_compare(&c, "b's row held");
                held_plane_edges(&base, t, ot, n0);
            }
        }
    }
}

int main(int argc, char **argv)
{
    const char *v;
    if ((v = getenv("BROADCHECK_RANDOM_CASES")))
        g_cases = strtol(v, NULL, 0);
    if ((v = getenv("BROADCHECK_RANDOM_SEED")))
        g_seed = strtoull(v, NULL, 0);
    if ((v = getenv("BROADCHECK_RANDOM_ONLY")))
        g_only = strtol(v, NULL, 0);
    if (argc > 1)
        g_cases = strtol(argv[1], NULL, 0);
    if (argc > 2)
        g_seed = strtoull(argv[2], NULL, 0);
    if ((v = getenv("BROADCHECK_ENGINE_TESTS")))
        cmocka_set_test_filter(v);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fast_equals_naive),
        cmocka_unit_test(test_plan_refusals),
        cmocka_unit_test(test_tile_and_block_edges),
        cmocka_unit_test(test_streamed_rows),
        cmocka_unit_test(test_small_calls),
        cmocka_unit_test(test_row_sums_in_any_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
