/*
 * Shrinking: greedy descent over a fixed list of simplifications, each of
 * which makes the case strictly simpler (fewer operands, axes or options,
 * smaller dims, a negative dim closer to -1), so it always ends.  After a
 * simplification that still fails, the list starts again from the top, so
 * the big steps (dropping whole operands and axes) come first.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void remove_dim(bc_shape *s, int k)
{
    memmove(&s->dims[k], &s->dims[k + 1], (size_t)(s->rank - k - 1) * sizeof s->dims[0]);
    s->rank--;
}

/* Blocks of operands step 1 drops: halves, quarters, ... down to 1/64. */
#define BLOCK_CANDIDATES ((2L << 6) - 2)

#define LOWER_DIM_CANDIDATES BC_SHRINK_LOWER_DIM_CANDIDATES

/* The candidate values a dim may be lowered to, simplest first: 0, 1, 2,
 * half, then d - 2^k for k from 61 down to 0.  The last ones bisect toward
 * a threshold: a case failing from some huge T on (an element count past
 * 2^63) reaches T in O(log^2 d) calls, where "one less" alone would take
 * d - T calls. */
int bc_shrink_lower_dim(int64_t d, int which, int64_t *out)
{
    if (d < 0) {
        static const int64_t from_negative[] = {0, 1, 2, -1};
        if (which >= 4 || (which == 3 && d == -1))
            return 0;
        *out = from_negative[which];
        return 1;
    }
    if (which >= LOWER_DIM_CANDIDATES)
        return 0;
    int64_t v;
    if (which < 3) {
        v = which;
    } else if (which == 3) {
        v = d / 2;
    } else {
        v = d - ((int64_t)1 << (LOWER_DIM_CANDIDATES - 1 - which));
        if (v == d / 2)
            return 0; /* already a candidate */
    }
    if (v >= d || v < 0 || (which >= 3 && v <= 2))
        return 0;
    *out = v;
    return 1;
}

/* Drops frame axis t from every operand lined up with it (align.c). */
static int drop_frame_axis(const bc_vector *c, int t, bc_vector *out)
{
    int axis_of[BC_MAX_RANK], changed = 0;
    *out = *c;
    for (int i = 0; i < c->nshapes; i++) {
        bc_align(c, i, axis_of);
        for (int k = c->shapes[i].rank - 1; k >= 0; k--)
            if (axis_of[k] == t) {
                remove_dim(&out->shapes[i], k);
                if (c->params.rule == BC_RULE_EXPLICIT && i == 0 &&
                    (c->params.options & BC_OPT_AXES_MAPPING))
                    out->params.axes[k] = -1; /* its entry goes below */
                changed = 1;
            }
    }
    bc_params *p = &out->params;
    if (c->params.rule == BC_RULE_EXPLICIT && !(p->options & BC_OPT_AXES_UNKNOWN)) {
        int kept = 0;
        for (int j = 0; j < p->naxes; j++) {
            int64_t a = p->axes[j];
            int gone = (p->options & BC_OPT_AXES_MAPPING) ? a == -1 && c->params.axes[j] != -1
                                                          : a == t;
            if (gone) {
                changed = 1;
                continue;
            }
            p->axes[kept++] = a > t ? a - 1 : a;
            changed |= a > t;
        }
        p->naxes = kept;
    } else if (c->params.rule == BC_RULE_PDPD && (p->options & BC_OPT_AXIS) && p->axis > t) {
        p->axis--; /* the placed operand's window starts after t: one axis earlier now */
        changed = 1;
    }
    return changed;
}

/* explicit axes-mapping: drops input axis k with its entry k (the entry
 * of an unknown mapping whose length is known), the target untouched, so
 * that the entries after it still name the target axes they did.  Either
 * alone changes the failure into a count mismatch. */
static int drop_mapped_input_axis(const bc_vector *c, int k, bc_vector *out)
{
    const bc_params *p = &c->params;
    if (p->rule != BC_RULE_EXPLICIT || c->nshapes != 2 || !(p->options & BC_OPT_AXES_MAPPING) ||
        k >= c->shapes[0].rank || k >= p->naxes)
        return 0;
    *out = *c;
    remove_dim(&out->shapes[0], k);
    if (!(p->options & BC_OPT_AXES_UNKNOWN))
        memmove(&out->params.axes[k], &out->params.axes[k + 1],
                (size_t)(p->naxes - k - 1) * sizeof p->axes[0]);
    out->params.naxes--;
    return 1;
}

/* The frame's rank (align.c): the largest an operand lines up with. */
static int frame_rank(const bc_vector *c)
{
    int axis_of[BC_MAX_RANK], rank = 0;
    for (int i = 0; i < c->nshapes; i++) {
        int r = bc_align(c, i, axis_of);
        rank = r > rank ? r : rank;
    }
    return rank;
}

/* Drops the idx-th block of frame axes (halves, then quarters, ... down to
 * 1/64 of the frame, blocks of at least two axes), the last axis first so
 * that the others keep their numbers. */
static int drop_frame_block(const bc_vector *c, long idx, bc_vector *out)
{
    int level = 1;
    while (idx >= (1L << level)) {
        idx -= 1L << level;
        level++;
    }
    int rank = frame_rank(c), size = (rank + (1 << level) - 1) >> level;
    int from = (int)idx * size, to = from + size < rank ? from + size : rank;
    if (size < 2 || to - from < 2)
        return 0;
    bc_vector *step = malloc(sizeof *step);
    if (!step)
        return 0;
    *out = *c;
    int changed = 0;
    for (int t = to - 1; t >= from; t--)
        if (drop_frame_axis(out, t, step)) {
            *out = *step;
            changed = 1;
        }
    free(step);
    return changed;
}

/* Lowers frame axis t's dim to its which-th candidate (lower_dim) in every
 * operand lined up with t that has the first such operand's dim there, when
 * two or more do. */
static int lower_shared_dim(const bc_vector *c, int t, int which, bc_vector *out)
{
    int axis_of[BC_MAX_RANK], at[BC_VECTOR_MAX_SHAPES], holders = 0;
    int64_t d = 0, value;
    for (int i = 0; i < c->nshapes; i++) {
        at[i] = -1;
        bc_align(c, i, axis_of);
        for (int k = 0; k < c->shapes[i].rank; k++)
            if (axis_of[k] == t) {
                int64_t di = c->shapes[i].dims[k];
                if (holders == 0)
                    d = di;
                if (di == d) {
                    at[i] = k;
                    holders++;
                }
                break;
            }
    }
    if (holders < 2 || !bc_shrink_lower_dim(d, which, &value))
        return 0;
    *out = *c;
    for (int i = 0; i < c->nshapes; i++)
        if (at[i] >= 0)
            out->shapes[i].dims[at[i]] = value;
    return 1;
}

_Static_assert(BC_SHRINK_AXES_STEPS == BLOCK_CANDIDATES + 2L * BC_MAX_RANK,
               "bc_shrink_axes_candidate's steps");

int bc_shrink_axes_candidate(const bc_vector *c, long idx, bc_vector *out)
{
    if (idx < BLOCK_CANDIDATES)
        return drop_frame_block(c, idx, out);
    idx -= BLOCK_CANDIDATES;
    if (idx < BC_MAX_RANK)
        return drop_frame_axis(c, (int)idx, out);
    idx -= BC_MAX_RANK;
    if (idx < BC_MAX_RANK)
        return drop_mapped_input_axis(c, (int)idx, out);
    return -1;
}

/* The idx-th simplification, before the check that a value case stays
 * one broadcheck computes. */
static int candidate(const bc_vector *c, long idx, bc_vector *out)
{
    const int n = c->nshapes;
    const bc_rule rule = c->params.rule;
    /* 1. drop a block of operands, halves first, then quarters, ... (a case
     * of 40 operands needs a few steps, not 40) */
    if (idx < BLOCK_CANDIDATES) {
        int level = 1;
        while (idx >= (1L << level)) {
            idx -= 1L << level;
            level++;
        }
        int size = (n + (1 << level) - 1) >> level, from = (int)idx * size;
        int to = from + size < n ? from + size : n;
        if (!(rule == BC_RULE_NONE || rule == BC_RULE_NUMPY) || size < 2 || to - from < 2 ||
            to - from >= n)
            return 0;
        *out = *c;
        memmove(&out->shapes[from], &out->shapes[to], (size_t)(n - to) * sizeof out->shapes[0]);
        out->nshapes -= to - from;
        if (out->value.operand >= to) /* sum-to-shape: still the same operand */
            out->value.operand -= to - from;
        else if (out->value.operand >= from)
            return 0; /* its operand would go */
        return 1;
    }
    idx -= BLOCK_CANDIDATES;
    /* 2. drop a block of frame axes, halves first (step 7 below, many at once:
     * a rank-60 case needs a few steps, not 60): bc_shrink_axes_candidate's
     * first steps, as the partial shrinker takes them */
    if (idx < BLOCK_CANDIDATES)
        return bc_shrink_axes_candidate(c, idx, out);
    idx -= BLOCK_CANDIDATES;
    /* 3. drop an operand (n-ary rules keep at least one) */
    if (idx < n) {
        if (!(rule == BC_RULE_NONE || rule == BC_RULE_NUMPY) || n <= 1)
            return 0;
        *out = *c;
        memmove(&out->shapes[idx], &out->shapes[idx + 1],
                (size_t)(n - idx - 1) * sizeof out->shapes[0]);
        out->nshapes--;
        if (out->value.operand > idx) /* sum-to-shape: still the same operand */
            out->value.operand--;
        return 1;
    }
    idx -= n;
    /* 4. simplify a value case: contiguous inputs, counting values, int32,
     * add, an earlier operand */
    if (idx < 5) {
        const bc_value_case *v = &c->value;
        if (!v->present)
            return 0;
        *out = *c;
        bc_value_case *w = &out->value;
        switch (idx) {
        case 0: w->layout = 0; return v->layout != 0;
        case 1: /* counting values, the same in every version */
            w->values = 0;
            w->values_version = BC_VALUES_V1;
            return v->values != 0;
        case 2:
            w->dtype = BC_INT32;
            return v->dtype != BC_INT32 &&
                   (v->kind != BC_VALUE_ELEMENTWISE || bc_op_takes_dtype(v->op, BC_INT32));
        case 3:
            w->op = BC_OP_ADD;
            return v->kind == BC_VALUE_ELEMENTWISE && v->op != BC_OP_ADD &&
                   bc_op_takes_dtype(BC_OP_ADD, v->dtype);
        default:
            w->operand = v->operand - 1;
            return v->kind == BC_VALUE_SUM_TO_SHAPE && v->operand > 0;
        }
    }
    idx -= 5;
    /* 5. drop an option */
    static const unsigned droppable[] = {BC_OPT_PROFILE, BC_OPT_AXIS};
    if (idx < 2) {
        if (!(c->params.options & droppable[idx]))
            return 0;
        *out = *c;
        out->params.options &= ~droppable[idx];
        if (droppable[idx] == BC_OPT_AXIS)
            out->params.axis = BC_AXIS_DEFAULT;
        else
            out->params.profile = BC_PROFILE_DEFAULT;
        return 1;
    }
    idx -= 2;
    /* 6. drop an explicit axes entry */
    if (idx < BC_MAX_RANK) {
        if (idx >= c->params.naxes)
            return 0;
        *out = *c;
        memmove(&out->params.axes[idx], &out->params.axes[idx + 1],
                (size_t)(c->params.naxes - idx - 1) * sizeof out->params.axes[0]);
        out->params.naxes--;
        return 1;
    }
    idx -= BC_MAX_RANK;
    /* 7. drop one axis of the frame: from every operand lined up with it
     * (spec/RULES.md's alignment of the rule), renumbering explicit's axes
     * list and pdpd's axis so that the others stay lined up as they were;
     * 7b. explicit axes-mapping: drop an input axis with its entry, the
     * target kept (step 7 drops the target axis too): the rest of
     * bc_shrink_axes_candidate's steps, after the simpler ones above */
    if (idx < 2L * BC_MAX_RANK)
        return bc_shrink_axes_candidate(c, BLOCK_CANDIDATES + idx, out);
    idx -= 2L * BC_MAX_RANK;
    /* 8. drop one axis of one operand */
    if (idx < (long)n * BC_MAX_RANK) {
        int i = (int)(idx / BC_MAX_RANK), k = (int)(idx % BC_MAX_RANK);
        if (k >= c->shapes[i].rank)
            return 0;
        *out = *c;
        remove_dim(&out->shapes[i], k);
        return 1;
    }
    idx -= (long)n * BC_MAX_RANK;
    /* 9. lower an axis-like option value toward 0 */
    if (idx < 2) {
        if (!(c->params.options & BC_OPT_AXIS) || c->params.axis <= 0)
            return 0;
        *out = *c;
        out->params.axis = idx == 0 ? 0 : c->params.axis - 1;
        return out->params.axis != c->params.axis;
    }
    idx -= 2;
    /* 10. lower an explicit axes entry toward 0 */
    if (idx < BC_MAX_RANK) {
        if (idx >= c->params.naxes || c->params.axes[idx] <= 0)
            return 0;
        *out = *c;
        out->params.axes[idx] = c->params.axes[idx] - 1;
        return 1;
    }
    idx -= BC_MAX_RANK;
    /* 11. lower a frame axis's dim in every operand lined up with it where
     * it has the first such operand's value, when two or more do: equal
     * shapes (rule none, an elementwise pair) stay equal while they shrink */
    if (idx < (long)BC_MAX_RANK * LOWER_DIM_CANDIDATES)
        return lower_shared_dim(c, (int)(idx / LOWER_DIM_CANDIDATES),
                                (int)(idx % LOWER_DIM_CANDIDATES), out);
    idx -= (long)BC_MAX_RANK * LOWER_DIM_CANDIDATES;
    /* 12. lower one dim */
    if (idx < (long)n * BC_MAX_RANK * LOWER_DIM_CANDIDATES) {
        int which = (int)(idx % LOWER_DIM_CANDIDATES);
        long pos = idx / LOWER_DIM_CANDIDATES;
        int i = (int)(pos / BC_MAX_RANK), k = (int)(pos % BC_MAX_RANK);
        int64_t value;
        if (k >= c->shapes[i].rank || !bc_shrink_lower_dim(c->shapes[i].dims[k], which, &value))
            return 0;
        *out = *c;
        out->shapes[i].dims[k] = value;
        return 1;
    }
    return -1;
}

int bc_shrink_candidate(const bc_vector *c, long idx, bc_vector *out)
{
    int k = candidate(c, idx, out);
    /* A value case must stay one broadcheck computes: "where" keeps its three
     * operands, sum-to-shape an operand in range (a case the worker or the
     * reference would refuse would be charged to the SUT). */
    if (k == 1 && out->value.present && bc_value_case_check(out, NULL, 0) != 0)
        return 0;
    return k;
}

/* Appends '#' to a signature, unless it ends in one already (with only
 * spaces and commas after it): a list of shapes is one '#'. */
static void put_hash(char *out, size_t *n)
{
    size_t k = *n;
    while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == ','))
        k--;
    if (k > 0 && out[k - 1] == '#')
        *n = k;
    else
        out[(*n)++] = '#';
}

static int is_digit(char ch)
{
    return ch >= '0' && ch <= '9';
}

/* 1 if d[i..j) is a name a shrink may change: a dtype, or a word in
 * capitals other than "SUT" (a symbol, operand A or B). */
static int is_name(const char *d, size_t i, size_t j)
{
    char word[16];
    if (j - i >= sizeof word)
        return 0;
    memcpy(word, d + i, j - i);
    word[j - i] = '\0';
    bc_dtype dtype;
    if (bc_dtype_from_name(word, &dtype) == 0)
        return 1;
    for (size_t k = i; k < j; k++)
        if (!((d[k] >= 'A' && d[k] <= 'Z') || is_digit(d[k]) || d[k] == '_'))
            return 0;
    return strcmp(word, "SUT") != 0;
}

/* The kind of failure a detail shows: its text with every shape (bracketed,
 * however nested), number and name (is_name) made '#'. */
static void failure_signature(const char *d, char *out, size_t cap)
{
    size_t n = 0, len = strlen(d);
    for (size_t i = 0; i < len && n + 2 < cap;) {
        size_t j = i;
        if (d[i] == '[') {
            for (int depth = 0; j < len; j++) {
                depth += d[j] == '[' ? 1 : d[j] == ']' ? -1 : 0;
                if (depth == 0)
                    break;
            }
            j = j < len ? j + 1 : len;
        } else if (is_digit(d[i]) || ((d[i] == '-' || d[i] == '$') && is_digit(d[i + 1]))) {
            for (j++; j < len && (is_digit(d[j]) || d[j] == '.'); j++)
                continue;
            if (j + 1 < len && (d[j] == 'e' || d[j] == 'E') &&
                (is_digit(d[j + 1]) || d[j + 1] == '+' || d[j + 1] == '-'))
                for (j += 2; j < len && is_digit(d[j]); j++)
                    continue;
        } else if (isalpha((unsigned char)d[i])) {
            while (j < len && (isalnum((unsigned char)d[j]) || d[j] == '_'))
                j++;
            if (!is_name(d, i, j)) { /* a word: kept whole */
                for (; i < j && n + 2 < cap; i++)
                    out[n++] = d[i];
                continue;
            }
        }
        if (j > i) {
            put_hash(out, &n);
            i = j;
        } else {
            out[n++] = d[i++];
        }
    }
    out[n] = '\0';
}

int bc_same_failure(const char *a, const char *b)
{
    /* CUT: a detail this long may have been cut short (a failure keeps 511
     * bytes of it, a check writes up to 1023) */
    enum { SIG = 1100, CUT = 511 };
    char sa[SIG], sb[SIG];
    failure_signature(a, sa, sizeof sa);
    failure_signature(b, sb, sizeof sb);
    if (strlen(a) < CUT && strlen(b) < CUT)
        return strcmp(sa, sb) == 0;
    /* a detail cut short: compare what both have, its last token aside */
    size_t m = strlen(sa) < strlen(sb) ? strlen(sa) : strlen(sb);
    return m > 1 && strncmp(sa, sb, m - 1) == 0;
}

int bc_shrink_greedy(const bc_shrink_kind *k, bc_check_ctx *ctx, void *c, int64_t max_calls,
                     char *detail, size_t cap)
{
    ctx->stopped = BC_SHRINK_MINIMAL;
    void *cand = malloc(k->size);
    if (!cand)
        return 0;
    char cand_detail[1024];
    char *kind = strdup(detail); /* the failure this shrink keeps */
    int steps = 0;
    int64_t start_calls = ctx->sut_calls;
    long idx = 0;
    for (;;) {
        if (ctx->sut_calls - start_calls >= max_calls) {
            ctx->stopped = BC_SHRINK_CALL_LIMIT;
            break;
        }
        int made = k->candidate(k->self, c, idx, cand);
        if (made < 0)
            break; /* a full pass with no simplification that still fails */
        idx++;
        if (made == 0)
            continue;
        bc_check verdict = k->check(k->self, ctx, cand, cand_detail, sizeof cand_detail);
        /* A check cut short (an interrupt, a SUT given up on) tells nothing. */
        if (ctx->stopped != BC_SHRINK_MINIMAL ||
            (ctx->stop && (ctx->stopped = ctx->stop(ctx->hook)) != BC_SHRINK_MINIMAL))
            break;
        if (verdict == BC_CHECK_FAIL && (!kind || !kind[0] || bc_same_failure(cand_detail, kind)) &&
            (!ctx->takes || k->takes(ctx, cand, cand_detail))) {
            memcpy(c, cand, k->size);
            snprintf(detail, cap, "%s", cand_detail);
            steps++;
            idx = 0;
        }
    }
    free(cand);
    free(kind);
    if (ctx->stopped != BC_SHRINK_MINIMAL && ctx->stopped != BC_SHRINK_CALL_LIMIT)
        return steps; /* no time or SUT left for a last check: the last detail seen */
    /* The detail of the case we ended with, checked again (unless the run
     * stops meanwhile: then the last detail seen stands). */
    char *seen = strdup(detail);
    bc_shrink_stop before = ctx->stopped;
    bc_check again = k->check(k->self, ctx, c, detail, cap);
    if (ctx->stopped != before && seen)
        snprintf(detail, cap, "%s", seen);
    else if (again != BC_CHECK_FAIL)
        detail[0] = '\0'; /* a flaky SUT: the caller reports that */
    free(seen);
    return steps;
}

static int vector_candidate(void *self, const void *c, long idx, void *cand)
{
    (void)self;
    return bc_shrink_candidate(c, idx, cand);
}

static bc_check vector_check(void *property, bc_check_ctx *ctx, const void *c, char *detail,
                             size_t cap)
{
    return bc_property_check(*(const int *)property, ctx, c, detail, cap);
}

static int vector_takes(bc_check_ctx *ctx, void *cand, const char *detail)
{
    return ctx->takes(ctx->hook, cand, NULL, detail);
}

int bc_shrink(int property, bc_check_ctx *ctx, bc_vector *c, int64_t max_calls, char *detail,
              size_t cap)
{
    bc_shrink_kind k = {sizeof *c, vector_candidate, vector_check, vector_takes, &property};
    return bc_shrink_greedy(&k, ctx, c, max_calls, detail, cap);
}
