/*
 * Value cases made concrete: generation, tensors laid out and filled from
 * the case's seeds, output buffers with a guard, and comparison.
 *
 * Values are small integers in every dtype, so every sum, product and
 * quotient the properties compare is exact or correctly rounded the same
 * way everywhere; a difference is a wrong element, never rounding noise.
 * With values=0 the elements of operand k are k*97 + 1, k*97 + 2, ... in
 * row-major order, all distinct (where the dtype can hold them), so an
 * element read from the wrong index shows as a wrong value.
 */
#include "value.h"

#include <float.h>
#include <math.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../guard/guard.h"
#include "gen.h"
#include "half.h"

/* ---- the arena --------------------------------------------------------- */

typedef struct arena_block {
    struct arena_block *next;
    size_t size, used;
    alignas(max_align_t) unsigned char data[];
} arena_block;

struct bc_arena {
    arena_block *blocks;
    bc_guard_pool *guards; /* the tensors' memory (guard.h) */
    int half_hardware;     /* bc_half_hardware(), asked once */
    int v2_avx2;           /* bc_value_v2_avx2(), asked once */
};

bc_arena *bc_arena_new(void)
{
    bc_arena *a = calloc(1, sizeof(bc_arena));
    if (a) {
        a->half_hardware = bc_half_hardware();
        a->v2_avx2 = bc_value_v2_avx2();
    }
    if (a && !(a->guards = bc_guard_pool_new())) {
        free(a);
        a = NULL;
    }
    return a;
}

void bc_arena_free(bc_arena *a)
{
    if (!a)
        return;
    for (arena_block *b = a->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    bc_guard_pool_free(a->guards);
    free(a);
}

/* Blocks larger than this are freed at a reset, not kept for the next
 * check: the runner keeps an arena per thread for a whole run, and a huge-
 * tier check's scratch (gigabytes) must not stay beside the next one's. */
#define ARENA_KEEP_BLOCK ((size_t)64 << 20)

void bc_arena_reset(bc_arena *a)
{
    for (arena_block **b = &a->blocks; *b;) {
        if ((*b)->size > ARENA_KEEP_BLOCK) {
            arena_block *big = *b;
            *b = big->next;
            free(big);
            continue;
        }
        (*b)->used = 0;
        b = &(*b)->next;
    }
    bc_guard_pool_reset(a->guards);
}

void bc_arena_trim(bc_arena *a)
{
    bc_arena_reset(a);
    bc_guard_pool_trim(a->guards, 0);
}

void *bc_arena_alloc(bc_arena *a, size_t size)
{
    const size_t align = alignof(max_align_t);
    size = (size + align - 1) / align * align;
    for (arena_block *b = a->blocks; b; b = b->next)
        if (b->size - b->used >= size) {
            void *p = b->data + b->used;
            b->used += size;
            return p;
        }
    size_t block = size > 65536 ? size : 65536;
    arena_block *b = malloc(sizeof *b + block);
    if (!b)
        return NULL;
    b->size = block;
    b->used = size;
    b->next = a->blocks;
    a->blocks = b;
    return b->data;
}

/* ---- elements ------------------------------------------------------------ */

static int is_float(bc_dtype t)
{
    return t == BC_FLOAT32 || t == BC_FLOAT64 || t == BC_FLOAT16;
}

static int64_t get_int(bc_dtype t, const void *p)
{
    switch (t) {
    case BC_BOOL: return *(const uint8_t *)p; /* a bool byte is 0 or 1: a 2 shows */
    case BC_INT8: return *(const int8_t *)p;
    case BC_UINT8: return *(const uint8_t *)p;
    case BC_INT32: return *(const int32_t *)p;
    default: return *(const int64_t *)p;
    }
}

static double get_float(bc_dtype t, const void *p)
{
    switch (t) {
    case BC_FLOAT32: return *(const float *)p;
#if BC_HAVE_FLOAT16
    case BC_FLOAT16: return (double)*(const _Float16 *)p;
#endif
    default: return *(const double *)p;
    }
}

/* The range of an integer dtype. */
static void int_range(bc_dtype t, int64_t *lo, int64_t *hi)
{
    *lo = t == BC_INT8 ? INT8_MIN : t == BC_UINT8 ? 0 : t == BC_INT32 ? INT32_MIN : INT64_MIN;
    *hi = t == BC_INT8    ? INT8_MAX
        : t == BC_UINT8 ? UINT8_MAX
        : t == BC_INT32 ? INT32_MAX
                        : INT64_MAX;
}

/* Stores v, wrapping integers modulo their width (two's complement). */
static void put_int(bc_dtype t, void *p, int64_t v)
{
    uint64_t u = (uint64_t)v;
    switch (t) {
    case BC_BOOL: *(uint8_t *)p = v != 0; break;
    case BC_INT8:
    case BC_UINT8: *(uint8_t *)p = (uint8_t)u; break;
    case BC_INT32: {
        uint32_t w = (uint32_t)u;
        memcpy(p, &w, sizeof w);
        break;
    }
    default: memcpy(p, &u, sizeof u); break;
    }
}

static void put_float(bc_dtype t, void *p, double v)
{
    switch (t) {
    case BC_FLOAT32: *(float *)p = (float)v; break;
#if BC_HAVE_FLOAT16
    case BC_FLOAT16: *(_Float16 *)p = (_Float16)v; break;
#endif
    default: *(double *)p = v; break;
    }
}

static void put(bc_dtype t, void *p, int64_t v)
{
    if (is_float(t))
        put_float(t, p, (double)v);
    else
        put_int(t, p, v);
}

/* The element offset of row-major element `flat` of a view. */
static int64_t offset_of(const bc_tensor *t, int64_t flat)
{
    int64_t off = t->offset;
    for (int k = t->rank - 1; k >= 0; k--) {
        int64_t d = t->dims[k];
        off += (flat % d) * t->strides[k];
        flat /= d;
    }
    return off;
}

static void *element(const bc_tensor *t, int64_t flat)
{
    return (char *)t->data + offset_of(t, flat) * (int64_t)bc_dtype_size(t->dtype);
}

/* Visits a view's elements in row-major order, keeping the element offset
 * of the current one: no division per element, which on the medium and
 * huge tiers' millions of elements is most of a check's time. */
typedef struct walk {
    int64_t idx[BC_MAX_RANK];
    int64_t off;
} walk;

static void walk_start(const bc_tensor *t, walk *w)
{
    memset(w->idx, 0, (size_t)t->rank * sizeof w->idx[0]);
    w->off = t->offset;
}

static void walk_next(const bc_tensor *t, walk *w)
{
    for (int k = t->rank - 1; k >= 0; k--) {
        if (++w->idx[k] < t->dims[k]) {
            w->off += t->strides[k];
            return;
        }
        w->off -= (w->idx[k] - 1) * t->strides[k];
        w->idx[k] = 0;
    }
}

static void *walk_at(const bc_tensor *t, const walk *w)
{
    return (char *)t->data + w->off * (int64_t)bc_dtype_size(t->dtype);
}

/* 1 if a view is row-major contiguous from data (bc_value_output's). */
static int is_row_major(const bc_tensor *t)
{
    int64_t st = 1;
    for (int k = t->rank - 1; k >= 0; k--) {
        if (t->dims[k] != 1 && t->strides[k] != st)
            return 0;
        st *= t->dims[k];
    }
    return t->offset == 0;
}

static int64_t numel_of(const bc_shape *s)
{
    int64_t n;
    return bc_shape_numel(s, &n) == BC_OK ? n : -1;
}

/* ---- generation ---------------------------------------------------------- */

static unsigned kinds_of_rule(bc_rule rule)
{
    switch (rule) {
    case BC_RULE_NONE:
    case BC_RULE_NUMPY:
        return BC_VALUE_KIND(BC_VALUE_ELEMENTWISE) | BC_VALUE_KIND(BC_VALUE_SELECT) |
               BC_VALUE_KIND(BC_VALUE_SUM_TO_SHAPE);
    case BC_RULE_ONNX_UNI:
    case BC_RULE_PDPD:
        return BC_VALUE_KIND(BC_VALUE_ELEMENTWISE) | BC_VALUE_KIND(BC_VALUE_SUM_TO_SHAPE);
    case BC_RULE_MATMUL:
        return BC_VALUE_KIND(BC_VALUE_MATMUL);
    default:
        return BC_VALUE_KIND(BC_VALUE_BROADCAST) | BC_VALUE_KIND(BC_VALUE_SUM_TO_SHAPE);
    }
}

static bc_value_op pick_kind(bc_prng *r, unsigned allowed)
{
    static const int weight[BC_VALUE_OP_COUNT] = {
        [BC_VALUE_ELEMENTWISE] = 60, [BC_VALUE_SELECT] = 15,
        [BC_VALUE_BROADCAST] = 70, [BC_VALUE_SUM_TO_SHAPE] = 25, [BC_VALUE_MATMUL] = 50};
    int total = 0;
    for (int k = 0; k < BC_VALUE_OP_COUNT; k++)
        total += (allowed >> k & 1u) ? weight[k] : 0;
    int x = (int)bc_prng_below(r, (uint64_t)total);
    for (int k = 0; k < BC_VALUE_OP_COUNT; k++) {
        if (!(allowed >> k & 1u))
            continue;
        if (x < weight[k])
            return (bc_value_op)k;
        x -= weight[k];
    }
    return BC_VALUE_ELEMENTWISE; /* not reached */
}

/* A dtype among `allowed` (bit per bc_dtype; 0 or none of the table's:
 * int32), weighted toward the common ones. */
static bc_dtype pick_dtype(bc_prng *r, unsigned allowed)
{
    static const struct {
        bc_dtype t;
        int weight;
    } table[] = {{BC_INT32, 30}, {BC_INT64, 12}, {BC_FLOAT32, 22}, {BC_FLOAT64, 10},
                 {BC_INT8, 6},   {BC_UINT8, 6},  {BC_BOOL, 7},     {BC_FLOAT16, 7}};
    int total = 0;
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if ((allowed >> table[i].t) & 1u && bc_dtype_available(table[i].t))
            total += table[i].weight;
    if (total == 0)
        return BC_INT32;
    int x = (int)bc_prng_below(r, (uint64_t)total);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (!((allowed >> table[i].t) & 1u) || !bc_dtype_available(table[i].t))
            continue;
        if (x < table[i].weight)
            return table[i].t;
        x -= table[i].weight;
    }
    return BC_INT32; /* not reached */
}

/* The dtypes on which some op of `ops` is defined (under semantics s:
 * bool_sub=xor defines sub on bool). */
static unsigned dtypes_for_ops(unsigned ops, const bc_semantics *s)
{
    unsigned d = 0;
    for (int t = 0; t < BC_DTYPE_COUNT; t++)
        for (int op = 0; op < BC_OP_COUNT; op++)
            if ((ops >> op) & 1u && bc_op_takes_dtype_under((bc_op)op, (bc_dtype)t, s))
                d |= 1u << t;
    return d;
}

/* A medium sum-to-shape case whose every output element sums at least 2^16
 * gradient terms (BC_LONG_SUM_TERMS), at most 2^20 in all: a float16 sum of
 * -9 .. 9 that long strays past 2048, where binary16 rounds integers, so
 * float16_sum (docs/ENGINE.md) is seen; the shapes the generator draws
 * spread the result over several output elements and rarely reduce that
 * far.  Out of m (1 to 8) output elements, the gradient is [L] -> [] or
 * [1], [L,m] -> [m] or [1,m], or [m,L] -> [m,1], under the rules whose
 * forward shapes can stretch one to the other (numpy, bidirectional,
 * broadcast-to, onnx-uni); float16 in half of them when the SUT takes it. */
static void long_sum(bc_prng *r, bc_rule rule, const bc_sut_value_caps *caps, unsigned dtypes,
                     bc_value_case *v, bc_vector *c)
{
    const int max_rank = caps->max_rank > 0 ? caps->max_rank : BC_MAX_RANK;
    if (rule != BC_RULE_NUMPY && rule != BC_RULE_BIDIRECTIONAL && rule != BC_RULE_BROADCAST_TO &&
        rule != BC_RULE_ONNX_UNI)
        return;
    const int64_t m = max_rank >= 2 && bc_prng_percent(r, 50) ? bc_prng_range(r, 2, 8) : 1;
    const int64_t most = BC_LONG_SUM_MAX_ELEMENTS / m;
    int bits = (int)bc_prng_range(r, 16, 19), top = 63;
    while (top > 0 && !(most >> top & 1))
        top--;
    bits = bits < top ? bits : top;
    int64_t len = bc_prng_range(r, (int64_t)1 << bits, ((int64_t)2 << bits) - 1);
    len = len < most ? len : most;
    bc_shape grad = {0}, out = {0};
    if (m == 1) {
        grad.rank = 1;
        grad.dims[0] = len;
        out.rank = bc_prng_percent(r, 50) ? 0 : 1;
        out.dims[0] = 1;
    } else if (bc_prng_percent(r, 50)) {
        grad.rank = 2;
        grad.dims[0] = len;
        grad.dims[1] = m;
        out.rank = bc_prng_percent(r, 50) ? 1 : 2;
        out.dims[0] = out.rank == 1 ? m : 1;
        out.dims[1] = m;
    } else {
        grad.rank = out.rank = 2;
        grad.dims[0] = out.dims[0] = m;
        grad.dims[1] = len;
        out.dims[1] = 1;
    }
    if ((dtypes >> BC_FLOAT16 & 1u) && bc_dtype_available(BC_FLOAT16) && bc_prng_percent(r, 50))
        v->dtype = BC_FLOAT16;
    /* the summed operand: the input (0) of broadcast-to and bidirectional,
     * onnx-uni's B (1), numpy's either */
    int first = rule == BC_RULE_ONNX_UNI ? 1 : rule == BC_RULE_NUMPY ? (int)bc_prng_below(r, 2) : 0;
    c->nshapes = 2;
    c->shapes[first] = out;
    c->shapes[1 - first] = grad;
    v->operand = first;
    if (v->values == 0)
        v->values = bc_prng_next(r) | 1u;
}

void bc_value_gen(bc_prng *r, bc_rule rule, unsigned kinds, const bc_sut_value_caps *caps,
                  const bc_semantics *semantics, int strided, bc_vector *c)
{
    bc_value_gen_tier(r, rule, kinds, caps, semantics, strided, 0, c);
}

void bc_value_gen_tier(bc_prng *r, bc_rule rule, unsigned kinds, const bc_sut_value_caps *caps,
                       const bc_semantics *semantics, int strided, int tier, bc_vector *c)
{
    unsigned allowed = kinds & kinds_of_rule(rule);
    if (allowed & caps->kinds)
        allowed &= caps->kinds; /* else ask anyway: it will say "unsupported" */
    bc_value_case v;
    memset(&v, 0, sizeof v);
    v.present = 1;
    v.kind = allowed ? pick_kind(r, allowed) : BC_VALUE_ELEMENTWISE;
    int nary = v.kind == BC_VALUE_ELEMENTWISE &&
               (rule == BC_RULE_NONE || rule == BC_RULE_NUMPY) && bc_prng_percent(r, 12);
    /* max and min take every dtype, so each fallback below has an op for it */
    const unsigned all_ops = (1u << BC_OP_COUNT) - 1,
                   nary_ops = (1u << BC_OP_ADD) | (1u << BC_OP_MUL) | (1u << BC_OP_MAX) |
                              (1u << BC_OP_MIN);
    unsigned ops = nary ? nary_ops : all_ops;
    if (ops & caps->ops)
        ops &= caps->ops;
    unsigned dtypes = caps->dtypes;
    if (v.kind == BC_VALUE_ELEMENTWISE && (dtypes & dtypes_for_ops(ops, semantics)))
        dtypes &= dtypes_for_ops(ops, semantics);
    /* Sums are not defined on bool.  (binary16 sums of these values pass
     * 2048, where the order of the additions changes the result: a library
     * that accumulates in float32 declares float16_sum=wide, and is checked
     * so, docs/ENGINE.md.) */
    if (v.kind == BC_VALUE_SUM_TO_SHAPE || v.kind == BC_VALUE_MATMUL)
        dtypes &= ~(1u << BC_BOOL);
    /* The huge tier's results are past 2^31 elements of one byte each:
     * larger elements would not fit a memory budget a machine has. */
    const unsigned one_byte = (1u << BC_BOOL) | (1u << BC_INT8) | (1u << BC_UINT8);
    if (tier == 2)
        dtypes = dtypes & one_byte ? dtypes & one_byte : 1u << BC_INT8;
    v.dtype = pick_dtype(r, dtypes);
    bc_gen_request req = {.rule = rule, .reject_percent = 10, .value_sized = 1,
                          .max_rank = caps->max_rank, .value_tier = tier};
    if (v.kind == BC_VALUE_BROADCAST || v.kind == BC_VALUE_SUM_TO_SHAPE)
        req.expand_percent = 15;
    if (v.kind == BC_VALUE_ELEMENTWISE) {
        if (!((dtypes_for_ops(ops, semantics) >> v.dtype) & 1u))
            ops = nary ? nary_ops : all_ops; /* nothing declared fits: ask anyway */
        do {
            v.op = (bc_op)bc_prng_below(r, BC_OP_COUNT);
        } while (!((ops >> v.op) & 1u) || !bc_op_takes_dtype_under(v.op, v.dtype, semantics));
        req.min_operands = nary ? 3 : 2;
        req.max_operands = nary ? 4 : 2;
        /* a quarter of the n-ary cases fold 5 to as many operands as the SUT takes */
        if (nary && caps->max_operands >= 5 && bc_prng_percent(r, 25)) {
            req.min_operands = 5;
            req.max_operands = caps->max_operands < BC_MAX_OPERANDS ? caps->max_operands
                                                                     : BC_MAX_OPERANDS;
            /* past the small tier, 8 operands of up to 2^20 elements each
             * stay within one wire frame (256 MiB) */
            if (tier > 0 && req.max_operands > 8)
                req.max_operands = 8;
            /* Past 64 (RULES.md §9.5) only for a SUT that takes more, as
             * for shape cases; a fifth of these folds go there (gen_nary
             * alone would reach it in 1 of 50), at any count up to the
             * SUT's limit. */
            req.sut_max_operands = req.max_operands;
            if (req.max_operands > BC_GEN_OPERANDS_BEFORE && bc_prng_percent(r, 20))
                req.min_operands = (int)bc_prng_range(r, BC_GEN_OPERANDS_BEFORE + 1,
                                                      req.max_operands);
        }
    } else if (v.kind == BC_VALUE_SELECT) {
        req.min_operands = req.max_operands = 3;
    } else {
        req.min_operands = 1; /* sum-to-shape of numpy may have one operand */
        req.max_operands = 3;
    }
    bc_gen_case(r, &req, c);
    if (v.kind == BC_VALUE_SUM_TO_SHAPE && (rule == BC_RULE_NONE || rule == BC_RULE_NUMPY ||
                                             rule == BC_RULE_ONNX_UNI || rule == BC_RULE_PDPD))
        v.operand = (int)bc_prng_below(r, (uint64_t)c->nshapes);
    if (strided || bc_prng_percent(r, 60))
        v.layout = bc_prng_next(r) | 1u;
    if (bc_prng_percent(r, 50))
        v.values = bc_prng_next(r) | 1u;
    /* A large float sum of the distinct values (values=0) passes 2^24 and
     * rounds differently in every summation order; small random integers
     * (|x| <= 9) keep every order exact up to 2^24 / 9 terms: past the
     * medium tier's 2^20. */
    if (tier > 0 && v.kind == BC_VALUE_SUM_TO_SHAPE && v.values == 0)
        v.values = bc_prng_next(r) | 1u;
    /* binary16 products of the distinct values (up to ~200 each) overflow
     * 65504 in a few terms; |x| <= 9 keeps every matmul sum finite */
    if (v.kind == BC_VALUE_MATMUL && v.dtype == BC_FLOAT16 && v.values == 0)
        v.values = bc_prng_next(r) | 1u;
    /* The medium tier's long sums come last, so every other case keeps its
     * shapes, layout and values. */
    if (tier == 1 && v.kind == BC_VALUE_SUM_TO_SHAPE && bc_prng_percent(r, BC_LONG_SUM_PERCENT))
        long_sum(r, rule, caps, dtypes, &v, c);
    v.values_version = v.values != 0 ? bc_values_version_of_tier(tier) : BC_VALUES_V1;
    c->value = v;
}

bc_values_version bc_values_version_of_tier(int tier)
{
    return tier > 0 ? BC_VALUES_V2 : BC_VALUES_V1;
}

bc_evaluator bc_value_oracle(int64_t numel)
{
    return numel > BC_VALUE_NAIVE_MAX_NUMEL ? BC_EVAL_FAST : BC_EVAL_NAIVE;
}

int64_t bc_value_check_bytes(const bc_vector *c, int input_sets, int outputs, int64_t extra,
                             int64_t *question)
{
    const bc_value_case *v = &c->value;
    const int64_t page = 4096, esize = (int64_t)bc_dtype_size(v->dtype);
    bc_shape result;
    int accepted = bc_infer(&c->params, c->nshapes, c->shapes, &result, NULL) == BC_OK;
    int64_t rn = accepted ? numel_of(&result) : 0, in = 0;
    if (rn < 0 || rn > BC_VALUE_MAX_NUMEL)
        return -1;
    /* the tensors made: every operand, the input of a broadcast, the
     * gradient (of the result's shape) of a sum */
    int first = 0, last = c->nshapes;
    if (v->kind == BC_VALUE_BROADCAST)
        last = c->nshapes > 0 ? 1 : 0;
    for (int i = first; i < last && v->kind != BC_VALUE_SUM_TO_SHAPE; i++) {
        int64_t n = numel_of(&c->shapes[i]);
        if (n < 0 || n > BC_VALUE_MAX_NUMEL)
            return -1;
        in += 2 * n * esize + 2 * page;
    }
    int64_t out = rn;
    if (v->kind == BC_VALUE_SUM_TO_SHAPE) {
        in += 2 * rn * esize + 2 * page;
        out = accepted && v->operand < c->nshapes ? numel_of(&c->shapes[v->operand]) : 0;
        if (out < 0 || out > BC_VALUE_MAX_NUMEL)
            return -1;
    }
    *question = in + out * esize;
    return input_sets * in + outputs * (out * esize + page) + extra * rn;
}

/* ---- tensors from seeds -------------------------------------------------- */

#define POISON (-77) /* in the gaps of a strided buffer: reading one shows */
#define GAP_SPAN 4096 /* elements a layout's gaps may spread a tensor over */

/* An element's value under values != 0: small random integers, -9 .. 9
 * (0 .. 18 unsigned), 0 or 1 for bool.  The very draws of
 * bc_prng_range(r, lo, lo + 18) and bc_prng_below(r, 2), which is what
 * every value line was made with, with their divisors made constants. */
static int64_t random_value(bc_prng *r, bc_dtype t)
{
    if (t == BC_BOOL)
        return (int64_t)(bc_prng_next(r) % 2); /* 2 divides 2^64: no rejection */
    const uint64_t n = 19, threshold = (0 - n) % n;
    uint64_t x;
    do
        x = bc_prng_next(r);
    while (x < threshold);
    return (t == BC_UINT8 ? 0 : -9) + (int64_t)(x % n);
}

/* n values of random_value(r, t) in a row, the same draws one by one;
 * the generator's state copied to a local, which the compiler keeps in
 * registers (through r it was stored back at every element, row's
 * int64 stores possibly aliasing it). */
static void random_block(bc_prng *r, bc_dtype t, int64_t *row, int64_t n)
{
    bc_prng g = *r;
    if (t == BC_BOOL)
        for (int64_t i = 0; i < n; i++)
            row[i] = random_value(&g, BC_BOOL);
    else if (t == BC_UINT8)
        for (int64_t i = 0; i < n; i++)
            row[i] = random_value(&g, BC_UINT8);
    else
        for (int64_t i = 0; i < n; i++)
            row[i] = random_value(&g, BC_INT32); /* -9 .. 9, as for every signed dtype */
    *r = g;
}

/* ---- version 2: a counter-based hash per pair of elements ----
 *
 * Element j (row-major) of input k under seed S, with m = j >> 1 its pair:
 *
 *   K      = bc_prng_init(S, stream 0x7a2, index k).s[0]
 *   c      = mix64(K + (m >> 32) * 0x9e3779b97f4a7c15), c0 its low and c1
 *            its high 32 bits
 *   h      = fmix32(fmix32((uint32_t)m * 0x9e3779b1 + c0) ^ c1)
 *   x      = the low 16 bits of h for an even j, the high 16 for an odd one
 *   value  = x >> 15 (bool); x * 19 >> 16 (uint8: 0 .. 18); that minus 9
 *            (every other dtype: -9 .. 9)
 *
 * mix64 is splitmix64's output function and fmix32 MurmurHash3's 32-bit
 * finaliser (Appleby, smhasher, src/MurmurHash3.cpp, fmix32: its shifts
 * and constants), both bijections.  No state runs from one element to the
 * next, so a block is one loop of 32-bit multiplies, shifts and xors, two
 * values a hash, that the compiler turns into vector code (value.c is
 * built with -fopenmp-simd, properties/CMakeLists.txt; an AVX2 copy is
 * picked at run time; tests/CMakeLists.txt's values_vector checks both), where
 * version 1 draws 64 bits from xoshiro256** per element and divides by
 * 19.  The range reduction is a multiply and a shift: each of the 19 values
 * comes from 3,449 or 3,450 of the 65,536 16-bit x, uniform to within
 * 0.03 % (version 1's rejection made it exactly uniform); a divisor's 0
 * becomes 1 as in version 1. */

/* honoured with -fopenmp-simd (no OpenMP runtime), as fast.c's BC_SIMD */
#define BC_VALUES_SIMD _Pragma("omp simd")

static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

static inline uint32_t fmix32(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    return h ^ (h >> 16);
}

#define V2_STREAM 0x7a2u /* version 1's is 0x7a1 */
#define V2_WEYL32 0x9e3779b1u
#define V2_WEYL64 0x9e3779b97f4a7c15u

uint64_t bc_value_v2_key(uint64_t values, int k)
{
    bc_prng r;
    bc_prng_init(&r, values, V2_STREAM, (uint64_t)k);
    return r.s[0];
}

/* element j's value, the definition above one element at a time */
static int64_t v2_one(uint64_t key, bc_dtype t, int64_t j)
{
    const uint64_t m = (uint64_t)j >> 1, c = mix64(key + (m >> 32) * V2_WEYL64);
    const uint32_t h = fmix32(fmix32((uint32_t)m * V2_WEYL32 + (uint32_t)c) ^ (uint32_t)(c >> 32));
    const uint32_t x = j & 1 ? h >> 16 : h & 0xffffu;
    if (t == BC_BOOL)
        return x >> 15;
    return (int64_t)((x * 19u) >> 16) - (t == BC_UINT8 ? 0 : 9);
}

int64_t bc_value_v2(uint64_t values, int k, int64_t j, bc_dtype t)
{
    return v2_one(bc_value_v2_key(values, k), t, j);
}

/* Where a walk of version 2 stores its values: an int64 row (store_row
 * then stores it, with the divisors' 1s and float16's conversion), or
 * straight into the elements of the dtype, for a contiguous row of an
 * operand without divisors (most of the medium tier's elements, where the
 * int64 row between the two loops was written and read again). */
typedef enum { V2_INT64_ROW, V2_OWN_DTYPE } v2_dest;

/* dst[0 .. 2 np - 1] (of type T) = the values of pairs m0 .. m0 + np - 1,
 * within one 2^32-aligned span of pairs (c0 and c1 the same for all), each
 * as store_row stores it: the hot loop, with constant factors and shifts. */
#define V2_LOOP(T, SCALE, SHIFT, BIAS)                                                   \
    do {                                                                                 \
        T *restrict d = dst;                                                             \
        BC_VALUES_SIMD                                                                   \
        for (int64_t i = 0; i < np; i++) {                                               \
            const uint32_t h = fmix32(fmix32((m0 + (uint32_t)i) * V2_WEYL32 + c0) ^ c1); \
            d[2 * i] = (T)((int32_t)(((h & 0xffffu) * (SCALE)) >> (SHIFT)) - (BIAS));    \
            d[2 * i + 1] = (T)((int32_t)(((h >> 16) * (SCALE)) >> (SHIFT)) - (BIAS));    \
        }                                                                                \
    } while (0)
/* The binary16 bits of a small integer v (|v| < 2048, every value version 2
 * makes), from its float's bits: exact in float and a normal half (or 0),
 * so the exponent is rebased from 127 to 15 and the mantissa cut to 10 bits
 * with nothing lost: the bits (_Float16)v has, by integer operations a
 * vector loop takes where bc_half_from_float's conversion ran by the block
 * through an int64 row and a float one. */
static inline uint16_t v2_half_of(int32_t v)
{
    const float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    const uint32_t mag =
        (b & 0x7fffffffu) == 0 ? 0 : (((b >> 23) & 0xffu) - 112u) << 10 | ((b >> 13) & 0x3ffu);
    return (uint16_t)(((b >> 16) & 0x8000u) | mag);
}
#define V2_HALF_LOOP                                                                     \
    do {                                                                                 \
        uint16_t *restrict d = dst;                                                      \
        BC_VALUES_SIMD                                                                   \
        for (int64_t i = 0; i < np; i++) {                                               \
            const uint32_t h = fmix32(fmix32((m0 + (uint32_t)i) * V2_WEYL32 + c0) ^ c1); \
            d[2 * i] = v2_half_of((int32_t)(((h & 0xffffu) * 19u) >> 16) - 9);           \
            d[2 * i + 1] = v2_half_of((int32_t)(((h >> 16) * 19u) >> 16) - 9);           \
        }                                                                                \
    } while (0)
#define V2_ROW_BODY                                                                      \
    switch (t) {                                                                         \
    case BC_BOOL: V2_LOOP(int64_t, 1u, 15, 0); break;                                    \
    case BC_UINT8: V2_LOOP(int64_t, 19u, 16, 0); break;                                  \
    default: V2_LOOP(int64_t, 19u, 16, 9); break;                                        \
    }
#define V2_OWN_BODY                                                                      \
    switch (t) {                                                                         \
    case BC_BOOL: V2_LOOP(uint8_t, 1u, 15, 0); break;                                    \
    case BC_UINT8: V2_LOOP(uint8_t, 19u, 16, 0); break;                                  \
    case BC_INT8: V2_LOOP(int8_t, 19u, 16, 9); break;                                    \
    case BC_INT32: V2_LOOP(int32_t, 19u, 16, 9); break;                                  \
    case BC_INT64: V2_LOOP(int64_t, 19u, 16, 9); break;                                  \
    case BC_FLOAT32: V2_LOOP(float, 19u, 16, 9); break;                                  \
    case BC_FLOAT16: V2_HALF_LOOP; break;                                                \
    default: V2_LOOP(double, 19u, 16, 9); break;                                         \
    }
/* The loops of each destination, portable and (x86-64) an AVX2 copy, apart:
 * tests/CMakeLists.txt's values_vector finds vector code in each by name. */
typedef void (*v2_pairs_fn)(uint32_t c0, uint32_t c1, uint32_t m0, bc_dtype t,
                            void *restrict dst, int64_t np);
#define V2_PAIRS_FN(NAME, BODY, ...)                                                     \
    __VA_ARGS__ static void NAME(uint32_t c0, uint32_t c1, uint32_t m0, bc_dtype t,      \
                                 void *restrict dst, int64_t np)                         \
    {                                                                                    \
        BODY                                                                             \
    }
V2_PAIRS_FN(v2_row, V2_ROW_BODY, __attribute__((noinline)))
V2_PAIRS_FN(v2_own, V2_OWN_BODY, __attribute__((noinline)))
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
V2_PAIRS_FN(v2_row_avx2, V2_ROW_BODY, __attribute__((target("avx2"), noinline)))
V2_PAIRS_FN(v2_own_avx2, V2_OWN_BODY, __attribute__((target("avx2"), noinline)))

int bc_value_v2_avx2(void)
{
    return __builtin_cpu_supports("avx2");
}
#else
int bc_value_v2_avx2(void)
{
    return 0;
}
#endif
#undef V2_PAIRS_FN
#undef V2_OWN_BODY
#undef V2_ROW_BODY
#undef V2_LOOP
#undef V2_HALF_LOOP

/* Version 2's values of row-major elements j0 .. j0 + n - 1, stored at dst
 * as `to` says: a pair at a time, half a pair at either end one element at
 * a time (v2_one), and a new pair key (c) where the pair index m crosses a
 * multiple of 2^32. */
static void v2_walk(uint64_t key, bc_dtype t, v2_dest to, int64_t j0, void *dst, int64_t n,
                    int avx2)
{
    const int64_t es = to == V2_INT64_ROW ? (int64_t)sizeof(int64_t) : (int64_t)bc_dtype_size(t);
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    const v2_pairs_fn pairs = to == V2_INT64_ROW ? (avx2 ? v2_row_avx2 : v2_row)
                                                 : (avx2 ? v2_own_avx2 : v2_own);
#else
    const v2_pairs_fn pairs = to == V2_INT64_ROW ? v2_row : v2_own;
    (void)avx2;
#endif
    char *d = dst;
    while (n > 0) {
        if ((j0 & 1) || n == 1) {
            const int64_t v = v2_one(key, t, j0++);
            if (to == V2_INT64_ROW)
                memcpy(d, &v, sizeof v);
            else
                put(t, d, v);
            d += es;
            n--;
            continue;
        }
        const uint64_t m = (uint64_t)j0 >> 1;
        const int64_t left = ((int64_t)1 << 32) - (uint32_t)m, np = n / 2 < left ? n / 2 : left;
        const uint64_t c = mix64(key + (m >> 32) * V2_WEYL64);
        pairs((uint32_t)c, (uint32_t)(c >> 32), (uint32_t)m, t, d, np);
        d += 2 * np * es;
        j0 += 2 * np;
        n -= 2 * np;
    }
}

void bc_value_v2_block(uint64_t key, bc_dtype t, int64_t j0, int64_t *row, int64_t n, int avx2)
{
    v2_walk(key, t, V2_INT64_ROW, j0, row, n, avx2);
}

#define ROW_BLOCK 1024 /* values made at a time: 8 KiB of int64, in the L1 cache */

/* Stores count values at element offsets off, off + step, ... of data, as
 * put() does one (integers wrapped to their width, bool 0 or 1); with
 * nonzero, a value stored as 0 becomes 1 (a divisor: x / 0 is defined
 * differently by every library and traps in C; checked as stored, after
 * the wrap, for 256 is 0 in int8: xtensor's worker died of SIGFPE on it). */
static void store_row(bc_dtype t, void *data, int64_t off, int64_t step,
                      const int64_t *restrict v, int64_t count, int nonzero, int narrow,
                      void *scratch, int half_hardware)
{
    (void)scratch;
    (void)half_hardware;
    /* the loops apart, so that a contiguous row of a divisor-free operand
     * (the common case) is one plain conversion loop the compiler vectorises
     * (BC_VALUES_SIMD: GCC 12 at -O2 leaves it scalar without); v is the
     * arena's row buffer, never the tensor's memory */
#define STORE_ROW(T, CONVERT)                                   \
    do {                                                        \
        T *p = (T *)data + off;                                 \
        if (nonzero) {                                          \
            for (int64_t i = 0; i < count; i++) {               \
                T x = CONVERT;                                  \
                p[i * step] = x == 0 ? (T)1 : x;                \
            }                                                   \
        } else if (step == 1) {                                 \
            BC_VALUES_SIMD                                      \
            for (int64_t i = 0; i < count; i++)                 \
                p[i] = CONVERT;                                 \
        } else {                                                \
            for (int64_t i = 0; i < count; i++)                 \
                p[i * step] = CONVERT;                          \
        }                                                       \
    } while (0)
    switch (t) {
    case BC_BOOL: STORE_ROW(uint8_t, (uint8_t)(v[i] != 0)); break;
    case BC_INT8:
    case BC_UINT8: STORE_ROW(uint8_t, (uint8_t)(uint64_t)v[i]); break;
    case BC_INT32: STORE_ROW(uint32_t, (uint32_t)(uint64_t)v[i]); break;
    case BC_INT64: STORE_ROW(uint64_t, (uint64_t)v[i]); break;
    /* narrow: every value fits int32, whose conversion to double (exact,
     * as int64's is below 2^53) SSE2 and AVX2 have as vector instructions */
    case BC_FLOAT32:
        if (narrow)
            STORE_ROW(float, (float)(double)(int32_t)v[i]);
        else
            STORE_ROW(float, (float)(double)v[i]);
        break;
#if BC_HAVE_FLOAT16
    case BC_FLOAT16: {
        /* Through float, converted by the row (half.h: F16C when the CPU
         * has it): the same bits as (_Float16)(double)v, for every int64
         * is exact in float below 2^24 and, at or past it, rounds to a
         * float of magnitude at least 2^24, past binary16's largest
         * finite number (65504), so both overflow to the same infinity. */
        float *f = scratch;
        uint16_t *h = (uint16_t *)(void *)(f + count);
        if (narrow) {
            BC_VALUES_SIMD
            for (int64_t i = 0; i < count; i++)
                f[i] = (float)(int32_t)v[i]; /* the one rounding of (float)v[i] */
        } else {
            for (int64_t i = 0; i < count; i++)
                f[i] = (float)v[i];
        }
        bc_half_from_float(h, f, (size_t)count, half_hardware);
        const uint16_t one = 0x3c00; /* 1.0 */
        STORE_ROW(uint16_t, nonzero && (h[i] & 0x7fffu) == 0 ? one : h[i]);
        break;
    }
#endif
    default:
        if (narrow)
            STORE_ROW(double, (double)(int32_t)v[i]);
        else
            STORE_ROW(double, (double)v[i]);
        break;
    }
#undef STORE_ROW
}

/* 1 if the view's elements fill a range of numel elements with nothing
 * between them (its axes in any order, any of them reversed, no gap): the
 * layout's poison then goes only around that range. */
static int is_dense(const bc_tensor *t, int64_t numel)
{
    int64_t s[BC_MAX_RANK], d[BC_MAX_RANK], expect = 1;
    int n = 0;
    for (int k = 0; k < t->rank; k++) {
        if (t->dims[k] == 1)
            continue; /* any stride: it is never stepped */
        const int64_t x = t->strides[k] < 0 ? -t->strides[k] : t->strides[k];
        int j = n++;
        for (; j > 0 && s[j - 1] > x; j--) {
            s[j] = s[j - 1];
            d[j] = d[j - 1];
        }
        s[j] = x;
        d[j] = t->dims[k];
    }
    for (int j = 0; j < n; j++) {
        if (s[j] != expect)
            return 0;
        expect *= d[j];
    }
    return expect == numel;
}

/* Elements [from, to) of data get the layout's poison (POISON, 0 for
 * bool): stores only, where copying the first element over the rest by
 * doubling blocks read every byte it wrote. */
static void fill_poison(bc_dtype t, void *data, int64_t from, int64_t to)
{
    unsigned char one[8];
    put(t, one, t == BC_BOOL ? 0 : POISON);
#define FILL(T)                                           \
    do {                                                  \
        T x, *p = data;                                   \
        memcpy(&x, one, sizeof x);                        \
        BC_VALUES_SIMD                                    \
        for (int64_t i = from; i < to; i++)               \
            p[i] = x;                                     \
    } while (0)
    switch (bc_dtype_size(t)) {
    case 1: memset((char *)data + from, one[0], (size_t)(to - from)); break;
    case 2: FILL(uint16_t); break;
    case 4: FILL(uint32_t); break;
    default: FILL(uint64_t); break;
    }
#undef FILL
}

/* Stores count elements of es bytes from src at element offsets off,
 * off + step, ... of data: a laid-out row of version 2's values, made in
 * their dtype first.  A reversed row (step -1, a negative stride on the
 * last axis, common in layouts) has its own loop, which vectorises; the
 * int64 row and store_row's conversion took every such element one store
 * at a time. */
static void store_strided(int64_t es, void *data, int64_t off, int64_t step,
                          const void *restrict src, int64_t count)
{
#define STRIDED(T)                                  \
    do {                                            \
        T *p = (T *)data + off;                     \
        const T *restrict s = src;                  \
        if (step == -1) {                           \
            BC_VALUES_SIMD                          \
            for (int64_t i = 0; i < count; i++)     \
                p[-i] = s[i];                       \
        } else {                                    \
            for (int64_t i = 0; i < count; i++)     \
                p[i * step] = s[i];                 \
        }                                           \
    } while (0)
    switch (es) {
    case 1: STRIDED(uint8_t); break;
    case 2: STRIDED(uint16_t); break;
    case 4: STRIDED(uint32_t); break;
    default: STRIDED(uint64_t); break;
    }
#undef STRIDED
}

/* Writes the elements of view v (a fresh one: its values only) from
 * `values`, row by row along its last axis (one row of all its elements
 * when flat: v is contiguous), each row by blocks of ROW_BLOCK values made
 * first (as int64, in a buffer that stays in the cache), then stored in
 * the dtype: millions of elements on the large tiers, so no switch or
 * division per element.  Element j in row-major order gets the same value
 * whichever way v is laid out.  0, or -1 out of memory. */
static int fill_values(bc_arena *a, const bc_tensor *v, int flat, int64_t numel, uint64_t values,
                       bc_values_version version, int k, int nonzero)
{
    const bc_dtype t = v->dtype;
    bc_prng r;
    bc_prng_init(&r, values, 0x7a1u, (uint64_t)k);
    const int v2 = values != 0 && version == BC_VALUES_V2;
    const uint64_t key = v2 ? bc_value_v2_key(values, k) : 0;
    const int64_t inner = flat ? numel : v->rank > 0 ? v->dims[v->rank - 1] : 1,
                  step = flat ? 1 : v->rank > 0 ? v->strides[v->rank - 1] : 0;
    int64_t *row = numel > 0 ? bc_arena_alloc(a, ROW_BLOCK * sizeof *row) : NULL;
    /* float16's conversion by the block: a float and a half per element */
    void *scratch = numel > 0 && t == BC_FLOAT16 ? bc_arena_alloc(a, ROW_BLOCK * 6) : NULL;
    if (numel > 0 && (!row || (t == BC_FLOAT16 && !scratch)))
        return -1;
    bc_tensor rows = *v; /* the outer axes: one element per row */
    rows.rank = !flat && v->rank > 0 ? v->rank - 1 : 0;
    walk w;
    walk_start(&rows, &w);
    /* version 2 along a contiguous row without divisors: straight into the dtype */
    const int direct = v2 && !nonzero && step == 1;
    /* along any other row: into the dtype by the block (row's room: at most
     * 8 bytes an element), then stored along the row */
    const int direct_strided = v2 && !nonzero && step != 1;
    const int64_t es = (int64_t)bc_dtype_size(t);
    for (int64_t first = 0; first < numel; first += inner, walk_next(&rows, &w)) {
        if (direct) {
            v2_walk(key, t, V2_OWN_DTYPE, first, (char *)v->data + w.off * es, inner, a->v2_avx2);
            continue;
        }
        for (int64_t done = 0; done < inner; done += ROW_BLOCK) {
            const int64_t n = inner - done < ROW_BLOCK ? inner - done : ROW_BLOCK;
            if (direct_strided) {
                v2_walk(key, t, V2_OWN_DTYPE, first + done, row, n, a->v2_avx2);
                store_strided(es, v->data, w.off + done * step, step, row, n);
                continue;
            }
            if (v2)
                bc_value_v2_block(key, t, first + done, row, n, a->v2_avx2);
            else if (values != 0)
                random_block(&r, t, row, n);
            else if (t == BC_BOOL)
                for (int64_t i = 0; i < n; i++)
                    row[i] = (first + done + i + k) % 3 != 0;
            else { /* k*97 + j + 1 for row-major element j */
                const int64_t base = (int64_t)k * 97 + first + done + 1;
                BC_VALUES_SIMD
                for (int64_t i = 0; i < n; i++)
                    row[i] = base + i;
            }
            /* random values are within -9 .. 18, counting ones below k*97 + numel + 1 */
            const int narrow = values != 0 || (int64_t)k * 97 + first + done + n <= INT32_MAX;
            store_row(t, v->data, w.off + done * step, step, row, n, nonzero, narrow, scratch,
                      a->half_hardware);
        }
    }
    return 0;
}

/* A laid-out tensor of more than GAP_SPAN and at most this many elements
 * is filled through a contiguous copy (make_tensor): the copy's room, one
 * more tensor's worth, is not charged to the memory budget, so the huge
 * tier's tensors never take this way. */
#define VIA_COPY_MAX_NUMEL ((int64_t)1 << 22)

/* A view of shape s laid out by `layout` (0: contiguous) and filled from
 * `values`, in arena memory.  k is the input's index: each input gets its
 * own layout and values stream. */
static int make_tensor(bc_arena *a, const bc_shape *s, bc_dtype t, uint64_t layout,
                       uint64_t values, bc_values_version version, int k, int nonzero,
                       bc_tensor *out)
{
    bc_tensor v;
    memset(&v, 0, sizeof v);
    v.dtype = t;
    v.rank = s->rank;
    memcpy(v.dims, s->dims, (size_t)s->rank * sizeof s->dims[0]);
    int64_t numel = numel_of(s), total, first_element = 0;
    if (layout == 0) {
        int64_t st = 1;
        for (int i = s->rank - 1; i >= 0; i--) {
            v.strides[i] = st;
            st *= s->dims[i] > 0 ? s->dims[i] : 1;
        }
        total = numel > 0 ? numel : 1;
    } else {
        bc_prng r;
        bc_prng_init(&r, layout, 0x1a40u, (uint64_t)k);
        int order[BC_MAX_RANK];
        for (int i = 0; i < s->rank; i++)
            order[i] = i;
        for (int i = s->rank - 1; i > 0; i--) { /* the axes in a random storage order */
            int j = (int)bc_prng_below(&r, (uint64_t)i + 1);
            int tmp = order[i];
            order[i] = order[j];
            order[j] = tmp;
        }
        int64_t running = 1;
        int gaps = 0;
        for (int i = s->rank - 1; i >= 0; i--) {
            int ax = order[i];
            int64_t d = s->dims[ax];
            if (d == 1 && bc_prng_percent(&r, 30)) {
                v.strides[ax] = bc_prng_range(&r, -3, 3); /* any stride is right for 1 */
                continue;
            }
            /* A gap doubles the strides of every axis stored outside this one,
             * so at rank 64 gaps alone made buffers of millions of elements
             * (and questions too slow to send in time): one is left out when
             * the span would pass GAP_SPAN, which no case of rank 6 or less
             * (at most 64 elements, 2 x 4 per axis) reaches, so their layouts
             * are what they always were. */
            int gap = bc_prng_percent(&r, 25);
            int64_t extent = d > 0 ? d : 1;
            /* A tensor of more than GAP_SPAN elements (only the medium and
             * huge tiers make them) gets one gap at most, so its buffer is
             * never more than twice its elements. */
            if (numel > GAP_SPAN && gaps > 0)
                gap = 0;
            gaps += gap && running <= GAP_SPAN / (2 * extent);
            int64_t st = running * (gap && running <= GAP_SPAN / (2 * extent) ? 2 : 1);
            v.strides[ax] = bc_prng_percent(&r, 30) ? -st : st;
            running = st * extent;
        }
        int64_t lo = 0, hi = 0;
        for (int i = 0; i < s->rank && numel > 0; i++) {
            int64_t span = (s->dims[i] - 1) * v.strides[i];
            lo += span < 0 ? span : 0;
            hi += span > 0 ? span : 0;
        }
        v.offset = (int64_t)bc_prng_below(&r, 4) - lo;
        total = v.offset + hi + 1;
        first_element = v.offset + lo;
    }
    /* Guarded (guard.h): its margin of poison after the last element, then
     * nothing readable; the same bytes in every process and every path. */
    size_t esize = bc_dtype_size(t);
    v.data = bc_guard_alloc_filled(a->guards, (size_t)total * esize, BC_GUARD_MARGIN, k);
    if (!v.data)
        return -1;
    /* the layout's poison: around the elements when they are dense (a
     * contiguous tensor has none), else throughout, the elements written
     * over it below */
    if (numel > 0 && is_dense(&v, numel)) {
        fill_poison(t, v.data, 0, first_element);
        fill_poison(t, v.data, first_element + numel, total);
    } else {
        fill_poison(t, v.data, 0, total);
    }
    /* A laid-out tensor whose last axis is not a long run in memory took a
     * store per element a cache line apart, or a call per short row: its
     * values are made in a contiguous copy (the same value for each
     * row-major element j), which the fast engine's broadcast copies into
     * the layout by tiles.  The copy's bytes are the values themselves, so
     * the tensor's bytes are the same either way (tests/test_values.c). */
    const int64_t last = s->rank > 0 ? v.strides[s->rank - 1] : 1,
                  inner = s->rank > 0 ? s->dims[s->rank - 1] : 1;
    if (layout != 0 && numel > GAP_SPAN && numel <= VIA_COPY_MAX_NUMEL &&
        !(last >= -2 && last <= 2 && inner >= 64)) {
        void *buf = bc_arena_alloc(a, (size_t)numel * esize);
        if (!buf)
            return -1;
        bc_tensor c = bc_tensor_contiguous(t, s, buf);
        if (fill_values(a, &c, 1, numel, values, version, k, nonzero) != 0)
            return -1;
        const bc_params to = bc_params_for(BC_RULE_BROADCAST_TO);
        bc_error err;
        if (bc_eval_broadcast(BC_EVAL_FAST, &to, &c, s, &v, &err) == BC_OK) {
            *out = v;
            return 0;
        }
        /* the engine refused the view (it never has): filled directly */
    }
    if (fill_values(a, &v, layout == 0, numel, values, version, k, nonzero) != 0)
        return -1;
    *out = v;
    return 0;
}

int bc_value_request_make(bc_value_request *vr, bc_value_op kind, bc_op op,
                          const bc_params *p, int n, const bc_shape *shapes, int operand,
                          int ninputs, const bc_tensor *inputs, bc_dtype out_dtype,
                          int64_t out_capacity, bc_arena *a)
{
    bc_eval_request *q = &vr->req;
    if (inputs != vr->inputs)
        memcpy(vr->inputs, inputs, (size_t)ninputs * sizeof inputs[0]);
    size_t esize = bc_dtype_size(out_dtype), bytes = (size_t)out_capacity * esize;
    /* poison throughout: an element the SUT leaves unwritten reads the same
     * in every process (guard.h) */
    char *out = bc_guard_alloc(a->guards, bytes, BC_GUARD_OUTPUT_MARGIN, -1);
    if (!out)
        return -1;
    *q = (bc_eval_request){kind, op, p, n, shapes, operand, ninputs, vr->inputs,
                           out_dtype, out, out_capacity};
    return 0;
}

int bc_value_request_expected(const bc_value_request *vr, bc_value_request *copy, bc_arena *a)
{
    const bc_eval_request *q = &vr->req;
    if (q->inputs != copy->inputs)
        memcpy(copy->inputs, q->inputs, (size_t)q->ninputs * sizeof q->inputs[0]);
    const size_t bytes = (size_t)q->out_capacity * bc_dtype_size(q->out_dtype);
    /* Not poisoned: broadcheck's own evaluators write every element of it
     * (tests/test_engine_random.c compares the fast engine's outputs, made
     * over random bytes, with the naive one's), and the SUT's output,
     * poisoned, is what shows an element left unwritten; poisoning this
     * one too was a tenth of a medium run's memory traffic. */
    char *out = bc_guard_alloc_filled(a->guards, bytes, BC_GUARD_OUTPUT_MARGIN, -1);
    if (!out)
        return -1;
    copy->req = *q;
    copy->req.inputs = copy->inputs;
    copy->req.out = out;
    return 0;
}

static int wrote_where(int guard)
{
    return guard == BC_GUARD_WROTE_AFTER    ? BC_VALUE_WROTE_PAST_END
           : guard == BC_GUARD_WROTE_BEFORE ? BC_VALUE_WROTE_BEFORE
                                            : 0;
}

int bc_value_guard_broken(const bc_value_request *vr, const bc_arena *a, int *buffer)
{
    *buffer = -1;
    int where = wrote_where(bc_guard_check(a->guards, vr->req.out));
    /* the inputs too: a write before one stays in its slot (the pool
     * trusts the bytes below a buffer), and failed a later question */
    for (int i = 0; i < vr->req.ninputs && !where; i++)
        if ((where = wrote_where(bc_guard_check(a->guards, vr->req.inputs[i].data))))
            *buffer = i;
    return where;
}

int bc_value_request_build(const bc_vector *c, uint64_t layout, bc_arena *a,
                           bc_value_request *vr, char *why, size_t cap)
{
    const bc_value_case *v = &c->value;
    int n = c->nshapes;
    /* a target with pytorch-expand's -1s is no tensor: the result's size is checked below */
    const int keeps = c->params.rule == BC_RULE_BROADCAST_TO &&
                      bc_params_profile(&c->params) == BC_PROFILE_PYTORCH_EXPAND;
    for (int i = 0; i < n; i++) {
        if (keeps && i == 1)
            continue;
        int64_t numel = numel_of(&c->shapes[i]);
        if (numel < 0 || numel > BC_VALUE_MAX_NUMEL) {
            snprintf(why, cap, "operand %d has %s elements: no tensor to compute on", i,
                     numel < 0 ? "a negative dim or too many" : "too many");
            return -1;
        }
    }
    bc_shape broadcast; /* the rule's result: the gradient's shape for sum-to-shape */
    int accepted = bc_infer(&c->params, n, c->shapes, &broadcast, NULL) == BC_OK;
    if (v->kind == BC_VALUE_SUM_TO_SHAPE && v->operand >= n)
        accepted = 0;
    if (!accepted)
        broadcast.rank = 0; /* a rejected case: still ask, with a scalar gradient */
    const bc_shape *result = v->kind == BC_VALUE_SUM_TO_SHAPE && accepted
                                 ? &c->shapes[v->operand]
                                 : &broadcast;
    int64_t capacity = accepted ? numel_of(result) : 0;
    if (capacity < 0 || capacity > BC_VALUE_MAX_NUMEL || numel_of(&broadcast) > BC_VALUE_MAX_NUMEL) {
        snprintf(why, cap, "the result has too many elements for a value check");
        return -1;
    }
    int ninputs;
    bc_dtype out_dtype = v->dtype;
    int ok = 1;
    switch (v->kind) {
    case BC_VALUE_ELEMENTWISE:
        ninputs = n;
        for (int i = 0; i < n && ok; i++)
            ok = make_tensor(a, &c->shapes[i], v->dtype, layout, v->values, v->values_version,
                             i, v->op == BC_OP_DIV && i > 0, &vr->inputs[i]) == 0;
        out_dtype = bc_op_result_dtype(v->op, v->dtype);
        break;
    case BC_VALUE_SELECT:
        ninputs = n;
        for (int i = 0; i < n && ok; i++)
            ok = make_tensor(a, &c->shapes[i], i == 0 ? BC_BOOL : v->dtype, layout, v->values,
                             v->values_version, i, 0, &vr->inputs[i]) == 0;
        break;
    case BC_VALUE_BROADCAST:
        ninputs = 1;
        ok = n >= 1 &&
             make_tensor(a, &c->shapes[0], v->dtype, layout, v->values, v->values_version, 0, 0,
                         &vr->inputs[0]) == 0;
        break;
    case BC_VALUE_MATMUL:
        ninputs = n;
        for (int i = 0; i < n && ok; i++)
            ok = make_tensor(a, &c->shapes[i], v->dtype, layout, v->values, v->values_version,
                             i, 0, &vr->inputs[i]) == 0;
        break;
    default:
        ninputs = 1;
        ok = make_tensor(a, &broadcast, v->dtype, layout, v->values, v->values_version, 0, 0,
                         &vr->inputs[0]) == 0;
        break;
    }
    if (!ok || bc_value_request_make(vr, v->kind, v->op, &c->params, n, c->shapes, v->operand,
                                     ninputs, vr->inputs, out_dtype, capacity, a) != 0) {
        snprintf(why, cap, "out of memory for the case's tensors");
        return -1;
    }
    return 0;
}

bc_tensor bc_value_output(const bc_value_request *vr, const bc_sut_answer *answer)
{
    return bc_tensor_contiguous(vr->req.out_dtype, &answer->shape, vr->req.out);
}

/* ---- comparing ------------------------------------------------------------- */

static void format_element(const bc_tensor *t, int64_t i, char *buf, size_t cap)
{
    const void *p = element(t, i);
    if (is_float(t->dtype))
        snprintf(buf, cap, "%.17g", get_float(t->dtype, p));
    else
        snprintf(buf, cap, "%lld", (long long)get_int(t->dtype, p));
}

static int same_element(const bc_tensor *a, const bc_tensor *b, int64_t i, double tol)
{
    const void *x = element(a, i), *y = element(b, i);
    if (is_float(a->dtype)) {
        double u = get_float(a->dtype, x), v = get_float(b->dtype, y);
        return u == v || (isnan(u) && isnan(v)) || fabs(u - v) <= tol;
    }
    return get_int(a->dtype, x) == get_int(b->dtype, y);
}

int bc_value_differ(const bc_tensor *got, const char *got_name, const bc_tensor *want,
                    const char *want_name, char *detail, size_t cap)
{
    return bc_value_differ_within(got, got_name, want, want_name, 0, detail, cap);
}

int bc_value_differ_within(const bc_tensor *got, const char *got_name, const bc_tensor *want,
                           const char *want_name, double tol, char *detail, size_t cap)
{
    return bc_value_differ_bounded(got, got_name, want, want_name, tol, NULL, detail, cap);
}

int bc_value_differ_bounded(const bc_tensor *got, const char *got_name, const bc_tensor *want,
                            const char *want_name, double tol, const double *tols, char *detail,
                            size_t cap)
{
    bc_shape s = bc_tensor_shape(want);
    int64_t numel = numel_of(&s), first = -1, count = 0;
    const size_t esize = bc_dtype_size(want->dtype);
    const int flat = is_row_major(got) && is_row_major(want) && got->dtype == want->dtype;
    /* Equal bytes are equal values (a NaN equals itself): the common case,
     * at memory speed, before any element is read as a number. */
    if (flat && numel > 0 && memcmp(got->data, want->data, (size_t)numel * esize) == 0)
        return 0;
    for (int64_t i = 0; i < numel; i++) {
        int same = flat && memcmp((const char *)got->data + (size_t)i * esize,
                                  (const char *)want->data + (size_t)i * esize, esize) == 0;
        if (!same && !same_element(got, want, i, tols ? tols[i] : tol)) {
            first = first < 0 ? i : first;
            count++;
        }
    }
    if (count == 0)
        return 0;
    char where[1400], g[64], w[64];
    int len = snprintf(where, sizeof where, "[");
    for (int k = 0; k < s.rank; k++) {
        int64_t stride = 1;
        for (int j = k + 1; j < s.rank; j++)
            stride *= s.dims[j];
        len += snprintf(where + len, sizeof where - (size_t)len, "%s%lld", k ? "," : "",
                        (long long)(first / stride % s.dims[k]));
        if (len >= (int)sizeof where - 24)
            break;
    }
    snprintf(where + len, sizeof where - (size_t)len, "]");
    format_element(got, first, g, sizeof g);
    format_element(want, first, w, sizeof w);
    char within[48] = "";
    const double first_tol = tols ? tols[first] : tol;
    if (first_tol > 0)
        snprintf(within, sizeof within, " by more than %.9g", first_tol);
    snprintf(detail, cap, "%s %s: element %s is %s, %s has %s (%lld of %lld elements differ%s)",
             bc_dtype_name(want->dtype), got_name, where, g, want_name, w, (long long)count,
             (long long)numel, within);
    return 1;
}

/* The sums of a sum-to-shape question vr computed exactly in a wide dtype
 * (BC_INT64 or BC_FLOAT64): *terms gets the gradient's elements converted
 * (row-major), *sums the naive evaluator's sums of them, of want's shape.
 * 0, or -1 out of memory or when the evaluator refuses. */
static int wide_sums(const bc_value_request *vr, bc_arena *a, const bc_tensor *want, bc_dtype wide,
                     void **terms, int64_t *nterms, void **sums, int64_t *nsums)
{
    const bc_eval_request *q = &vr->req;
    const bc_tensor *g = &vr->inputs[0];
    bc_shape gs = bc_tensor_shape(g), ws = bc_tensor_shape(want);
    int64_t gn = numel_of(&gs), wn = numel_of(&ws);
    if (gn < 0 || wn < 0)
        return -1;
    char *t = bc_arena_alloc(a, (size_t)(gn ? gn : 1) * 8);
    char *s = bc_arena_alloc(a, (size_t)(wn ? wn : 1) * 8);
    if (!t || !s)
        return -1;
    walk w;
    walk_start(g, &w);
    for (int64_t i = 0; i < gn; i++, walk_next(g, &w)) {
        if (wide == BC_FLOAT64)
            ((double *)(void *)t)[i] = get_float(g->dtype, walk_at(g, &w));
        else
            ((int64_t *)(void *)t)[i] = get_int(g->dtype, walk_at(g, &w));
    }
    /* An int64 sum cannot overflow while the magnitudes fit together. */
    uint64_t total = 0;
    for (int64_t i = 0; wide == BC_INT64 && i < gn; i++) {
        int64_t v = ((int64_t *)(void *)t)[i];
        uint64_t m = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
        if (m > (uint64_t)INT64_MAX - total)
            return -1;
        total += m;
    }
    bc_tensor tw = bc_tensor_contiguous(wide, &gs, t), sw = bc_tensor_contiguous(wide, &ws, s);
    bc_error err;
    if (bc_eval_sum_to_shape(bc_value_oracle(gn), q->params, q->n, q->shapes, q->operand, &tw,
                             &sw, &err) != BC_OK)
        return -1;
    *terms = t;
    *nterms = gn;
    *sums = s;
    *nsums = wn;
    return 0;
}

int bc_value_clamped_sum(const bc_value_request *vr, bc_arena *a, const bc_tensor *want)
{
    const bc_dtype t = vr->inputs[0].dtype;
    void *terms, *sums;
    int64_t gn, wn;
    if (is_float(t) || t == BC_BOOL || wide_sums(vr, a, want, BC_INT64, &terms, &gn, &sums, &wn))
        return -1;
    int64_t lo, hi;
    int_range(t, &lo, &hi);
    for (int64_t i = 0; i < wn; i++) {
        int64_t v = ((const int64_t *)sums)[i];
        put_int(want->dtype, element(want, i), v < lo ? lo : v > hi ? hi : v);
    }
    return 0;
}

/* The spacing of binary16 numbers at |x| (its ulp), subnormals included. */
static double ulp16(double x)
{
    int e;
    frexp(fabs(x), &e); /* |x| = m * 2^e, m in [0.5, 1) */
    return e - 1 < -14 ? ldexp(1, -24) : ldexp(1, e - 11);
}

double bc_value_wide_sum(const bc_value_request *vr, bc_arena *a, const bc_tensor *want)
{
    void *tv, *sv;
    int64_t gn, wn;
    if (wide_sums(vr, a, want, BC_FLOAT64, &tv, &gn, &sv, &wn) != 0)
        return -1;
    const double *terms = tv, *sums = sv;
    double total = 0; /* of |term|: bounds every partial sum of every order */
    int integral = 1;
    for (int64_t i = 0; i < gn; i++) {
        if (!isfinite(terms[i]))
            return -1; /* no bound holds past an infinity */
        integral &= terms[i] == floor(terms[i]);
        total += fabs(terms[i]);
    }
    double largest = 0;
    for (int64_t i = 0; i < wn; i++) {
        put_float(want->dtype, element(want, i), sums[i]); /* rounded once */
        largest = fmax(largest, fabs(sums[i]));
    }
    /* Integers whose magnitudes add up to at most 2^24: every partial sum of
     * every order is exact in float32, so the only answer is the exact sum
     * rounded once. */
    if (integral && total <= 16777216.0)
        return 0;
    /* Otherwise any order in float32 errs by at most (n - 1) u32 total, the
     * double sum above by (n - 1) u64 total, and the last rounding by an ulp. */
    double e = (double)gn * total * (ldexp(1.01, -24) + ldexp(1, -52));
    return e + ulp16(largest + e);
}

void bc_value_scale(const bc_tensor *x, int64_t factor, int saturate, const bc_tensor *out)
{
    bc_shape s = bc_tensor_shape(x);
    int64_t numel = numel_of(&s), lo, hi;
    int_range(x->dtype, &lo, &hi);
    walk w;
    walk_start(x, &w);
    for (int64_t i = 0; i < numel; i++, walk_next(x, &w)) {
        const void *p = walk_at(x, &w);
        if (is_float(x->dtype)) {
            put_float(out->dtype, element(out, i), get_float(x->dtype, p) * (double)factor);
            continue;
        }
        int64_t v = get_int(x->dtype, p), r; /* an integer element: read as its dtype */
        if (saturate)
            put_int(out->dtype, element(out, i),
                    __builtin_mul_overflow(v, factor, &r) ? (v < 0 ? lo : hi)
                    : r < lo ? lo : r > hi ? hi : r);
        else
            put_int(out->dtype, element(out, i), (int64_t)((uint64_t)v * (uint64_t)factor));
    }
}

/* The unit roundoff u = 2^-p of a float dtype with p significand bits. */
static double unit_roundoff(bc_dtype t)
{
    return t == BC_FLOAT16 ? 0x1p-11 : t == BC_FLOAT32 ? 0x1p-24 : 0x1p-53;
}

/* gamma_n = n u / (1 - n u) (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., 2002, §3.1 Lemma 3.1); infinity when n u >= 1/2. */
static double gamma_n(int64_t n, double u)
{
    double nu = (double)n * u;
    return nu >= 0.5 ? INFINITY : nu / (1 - nu);
}

int bc_value_matmul_bounds(const bc_value_request *vr, bc_arena *a, double **tols)
{
    const bc_eval_request *q = &vr->req;
    if (q->kind != BC_VALUE_MATMUL || q->ninputs != 2)
        return -1;
    const bc_tensor *x = &q->inputs[0], *y = &q->inputs[1];
    bc_shape result, s[2] = {bc_tensor_shape(x), bc_tensor_shape(y)};
    if (bc_infer_matmul(&s[0], &s[1], &result, NULL) != BC_OK)
        return -1;
    int64_t numel = numel_of(&result);
    double *t = numel >= 0 ? bc_arena_alloc(a, (size_t)(numel ? numel : 1) * sizeof *t) : NULL;
    if (!t || bc_matmul_abs_sums(q->params, x, y, t, NULL) != BC_OK)
        return -1;
    /* Higham (3.5): any order of the K products' sum, each operation
     * rounded with unit roundoff u (or wider, then rounded once), is within
     * gamma_K(u) * sum_k |a_k b_k| of the exact sum.  The reference's own
     * answer is the long double sum (within gamma_K(u_ld) * S of exact)
     * rounded once (u of its magnitude): the three together bound the
     * distance between the two answers. */
    const int64_t k = s[0].dims[s[0].rank - 1];
    const double u = unit_roundoff(x->dtype), uld = LDBL_EPSILON / 2;
    const double factor = gamma_n(k, u) + u * (1 + gamma_n(k, uld)) + gamma_n(k, uld);
    const double top = x->dtype == BC_FLOAT16 ? 65504.0 : x->dtype == BC_FLOAT32 ? FLT_MAX
                                                                                 : DBL_MAX;
    for (int64_t e = 0; e < numel; e++) {
        /* a sum that may round past the largest finite value is inf in
         * some orders and not in others: nothing order-free to compare */
        if (!(t[e] * (1 + factor) < top))
            return -1;
        t[e] *= factor;
    }
    *tols = t;
    return 0;
}
