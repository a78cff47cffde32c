/*
 * Partial-shape cases (RULES.md §14): their generator, the four partial
 * properties, coverage and shrinking.
 *
 * The oracle of every partial property is the *static* reference applied
 * to concretizations of the case: shapes that replace each dim by a value
 * of its interval, one value per symbol.  A concretization is built by
 * "axis repair": start from values that are 1 wherever 1 is allowed, ask
 * the static reference, and when it names a dim-mismatch at some axis, try
 * for that axis one common value v for every dim aligned there (v where a
 * dim's interval holds it, else 1), v taken from the bounds of those dims.
 * Without symbols that tie two axes together (relaxation R1) the axes are
 * independent and every rule here accepts an axis exactly when its dims
 * can all be v or 1 for some such v, so the repair finds an accepted
 * concretization whenever one exists, and one whose result has value b at
 * an axis whenever one does (used by partial-precision).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"
#include "internal.h"

/* ---- where each dim lands (the result frame of each rule) -------------- */

/* The operand whose frame a Select profile places the others in: then
 * (openvino-select), else (ngraph-select); -1 for any other case. */
static int select_frame(const bc_params *p, int n)
{
    if (p->rule != BC_RULE_PDPD || n != 3)
        return -1;
    return bc_params_profile(p) == BC_PROFILE_OPENVINO_SELECT ? 1
           : bc_params_profile(p) == BC_PROFILE_NGRAPH_SELECT ? 2
                                                       : -1;
}

/* matmul's batch rank: the larger of the operands' ranks less their matrix axes. */
static int matmul_batch_rank(const int *rank)
{
    int ba = rank[0] >= 2 ? rank[0] - 2 : 0, bb = rank[1] >= 2 ? rank[1] - 2 : 0;
    return ba > bb ? ba : bb;
}

/* The frame an error's axis and a dim's place are counted in: the result's
 * (numpy, none, paddle's larger operand), A's (pdpd), the target's. */
static int frame_rank(const bc_params *p, int n, const int *rank)
{
    int r = 0;
    switch (p->rule) {
    case BC_RULE_ONNX_UNI: return rank[0];
    case BC_RULE_BROADCAST_TO:
    case BC_RULE_EXPLICIT: return n > 1 ? rank[1] : -1;
    case BC_RULE_MATMUL:
        /* the result's axes, then one more for the contracted dims (as align.c) */
        if (n != 2 || rank[0] < 1 || rank[1] < 1)
            return -1;
        return matmul_batch_rank(rank) + (rank[0] >= 2) + (rank[1] >= 2) + 1;
    case BC_RULE_PDPD:
        if (n == 3 && select_frame(p, n) >= 0)
            return rank[select_frame(p, n)];
        if (n < 2)
            return -1;
        if (bc_params_profile(p) == BC_PROFILE_PADDLE)
            return rank[0] > rank[1] ? rank[0] : rank[1];
        return rank[0];
    default:
        for (int i = 0; i < n; i++)
            r = rank[i] > r ? rank[i] : r;
        return r;
    }
}

/* Axis k of operand i in the frame, or -1 (an unknown rank, an axis the
 * options put outside the frame). */
static int place_of(const bc_params *p, int n, const int *rank, int i, int k)
{
    const int R = frame_rank(p, n, rank);
    int at = -1;
    const int f = select_frame(p, n);
    if (f >= 0) { /* Select: the others placed in the frame's operand from the axis */
        if (rank[i] < 0 || R < 0)
            return -1;
        int64_t axis = p->axis == -1 ? (int64_t)R - rank[i] : p->axis;
        at = i == f ? k : (axis >= 0 && axis <= BC_MAX_RANK ? (int)axis + k : -1);
        return at >= 0 && at < R ? at : -1;
    }
    if (p->rule == BC_RULE_MATMUL) {
        if (R < 0)
            return -1;
        const int batch = matmul_batch_rank(rank);
        if (k == (i == 0 ? rank[0] - 1 : (rank[1] >= 2 ? rank[1] - 2 : 0)))
            return R - 1; /* a contracted dim: the axis past the result */
        if (k == rank[i] - 2 && i == 0)
            return batch; /* A's rows */
        if (k == rank[i] - 1 && i == 1)
            return R - 2;                 /* B's columns */
        return batch - (rank[i] - 2) + k; /* a batch dim, right-aligned */
    }
    if (rank[i] < 0 || R < 0 ||
        (n == 2 && rank[1 - i] < 0 && p->rule != BC_RULE_NONE && p->rule != BC_RULE_NUMPY &&
         p->rule != BC_RULE_BIDIRECTIONAL))
        return -1;
    switch (p->rule) {
    case BC_RULE_NONE: at = k; break;
    case BC_RULE_PDPD:
        if (n != 2)
            return -1;
        {
            int paddle = bc_params_profile(p) == BC_PROFILE_PADDLE;
            int small = paddle ? (rank[0] > rank[1] ? 1 : 0) : 1;
            int64_t axis = p->axis;
            if (axis == -1)
                axis = paddle ? R - rank[small] : rank[0] - rank[1];
            at = i == small ? (axis >= 0 && axis <= BC_MAX_RANK ? (int)axis + k : -1) : k;
        }
        break;
    case BC_RULE_EXPLICIT:
        if (n != 2)
            return -1;
        if (i == 1) {
            at = k;
        } else if (p->options & BC_OPT_AXES_MAPPING) {
            at = k < p->naxes && p->axes[k] >= 0 && p->axes[k] < R ? (int)p->axes[k] : -1;
        } else {
            int is_new[BC_MAX_RANK] = {0};
            for (int j = 0; j < p->naxes; j++)
                if (p->axes[j] >= 0 && p->axes[j] < R)
                    is_new[p->axes[j]] = 1;
            for (int t = 0, m = 0; t < R; t++)
                if (!is_new[t] && m++ == k)
                    at = t;
        }
        break;
    default: at = R - rank[i] + k; break; /* right-aligned */
    }
    return at >= 0 && at < R ? at : -1;
}

static void ranks_of(const bc_pvector *c, int *rank)
{
    for (int i = 0; i < c->nshapes; i++)
        rank[i] = c->shapes[i].rank;
}

/* Relaxation R1 (RULES.md §14.5): some symbol is on two places of the frame,
 * or on a dim with no place. */
static int crosses_axes(const bc_pvector *c)
{
    int rank[BC_VECTOR_MAX_SHAPES], where[BC_MAX_SYMBOLS + 1];
    for (int s = 0; s <= BC_MAX_SYMBOLS; s++)
        where[s] = -2;
    ranks_of(c, rank);
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].rank; k++) {
            int s = c->shapes[i].dims[k].sym;
            if (!s)
                continue;
            int at = place_of(&c->params, c->nshapes, rank, i, k);
            if (at < 0 || (where[s] != -2 && where[s] != at))
                return 1;
            where[s] = at;
        }
    return 0;
}

static int has_dynamic_rank(const bc_pvector *c)
{
    for (int i = 0; i < c->nshapes; i++)
        if (c->shapes[i].rank == BC_RANK_DYNAMIC)
            return 1;
    return 0;
}

/* Relaxation R2: the result is the target (A) as given, not narrowed. */
static int result_is_target(const bc_params *p)
{
    if (p->rule == BC_RULE_PDPD) /* paddle and openvino-broadcast stretch the frame too */
        return bc_params_profile(p) != BC_PROFILE_PADDLE &&
               bc_params_profile(p) != BC_PROFILE_OPENVINO_BROADCAST;
    return p->rule == BC_RULE_ONNX_UNI || p->rule == BC_RULE_BROADCAST_TO ||
           p->rule == BC_RULE_EXPLICIT;
}

/* ---- concretizations ------------------------------------------------------ */

typedef struct conc {
    int n;
    bc_shape shapes[BC_VECTOR_MAX_SHAPES];
    int64_t sym_lo[BC_MAX_SYMBOLS + 1], sym_hi[BC_MAX_SYMBOLS + 1];
    int64_t sym_val[BC_MAX_SYMBOLS + 1];
    int rank[BC_VECTOR_MAX_SHAPES];
    int frame;                                            /* frame_rank */
    signed char place[BC_VECTOR_MAX_SHAPES][BC_MAX_RANK]; /* place_of, -1: none */
    bc_shape result;
    bc_error err;
    bc_error_kind kind;
} conc;

/* Every symbol's interval (the intersection of its occurrences); 0 if some
 * symbol has none, or the case has negative or malformed dims (then no
 * concretization is asked for). */
static int symbol_bounds(const bc_pvector *c, conc *x)
{
    for (int s = 0; s <= BC_MAX_SYMBOLS; s++) {
        x->sym_lo[s] = 0;
        x->sym_hi[s] = BC_DIM_UNBOUNDED;
    }
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].rank; k++) {
            const bc_pdim *d = &c->shapes[i].dims[k];
            if (d->lo > d->hi || d->sym < 0 || d->sym > BC_MAX_SYMBOLS)
                return 0;
            if (!d->sym)
                continue;
            x->sym_lo[d->sym] = d->lo > x->sym_lo[d->sym] ? d->lo : x->sym_lo[d->sym];
            x->sym_hi[d->sym] = d->hi < x->sym_hi[d->sym] ? d->hi : x->sym_hi[d->sym];
            if (x->sym_lo[d->sym] > x->sym_hi[d->sym])
                return 0;
        }
    return 1;
}

static void dim_bounds(const conc *x, const bc_pdim *d, int64_t *lo, int64_t *hi)
{
    *lo = d->sym ? x->sym_lo[d->sym] : d->lo;
    *hi = d->sym ? x->sym_hi[d->sym] : d->hi;
}

/* Sets dim k of operand i (and its symbol, everywhere) to v. */
static void assign(const bc_pvector *c, conc *x, int i, int k, int64_t v)
{
    const bc_pdim *d = &c->shapes[i].dims[k];
    if (!d->sym) {
        x->shapes[i].dims[k] = v;
        return;
    }
    x->sym_val[d->sym] = v;
    for (int j = 0; j < c->nshapes; j++)
        for (int m = 0; m < c->shapes[j].rank; m++)
            if (c->shapes[j].dims[m].sym == d->sym)
                x->shapes[j].dims[m] = v;
}

/* A shape for each operand of unknown rank, from the others: a copy of
 * the operand it must match or fit (none: the first of known rank; the
 * big side of a one-way rule: the small side), else the scalar. */
static void fill_unknown_ranks(const bc_pvector *c, conc *x)
{
    int base = -1;
    for (int i = 0; i < c->nshapes; i++)
        if (c->shapes[i].rank != BC_RANK_DYNAMIC && base < 0)
            base = i;
    for (int i = 0; i < c->nshapes; i++) {
        if (c->shapes[i].rank != BC_RANK_DYNAMIC)
            continue;
        x->shapes[i].rank = 0;
        if (c->params.rule == BC_RULE_MATMUL && c->nshapes == 2) {
            /* a 1-D operand of the other's contracted dim (1 if unknown too) */
            const bc_shape *o = &x->shapes[1 - i];
            int known = c->shapes[1 - i].rank >= 1;
            x->shapes[i].rank = 1;
            x->shapes[i].dims[0] = !known   ? 1
                                   : i == 1 ? o->dims[o->rank - 1]
                                            : o->dims[o->rank >= 2 ? o->rank - 2 : 0];
            continue;
        }
        if (i == 0 && c->nshapes == 2 && c->shapes[1].rank != BC_RANK_DYNAMIC &&
            bc_params_profile(&c->params) == BC_PROFILE_PYTORCH_EXPAND) {
            /* as many axes as the target, so that each -1 keeps a dim: 1s */
            x->shapes[0].rank = c->shapes[1].rank;
            for (int k = 0; k < x->shapes[0].rank; k++)
                x->shapes[0].dims[k] = 1;
            continue;
        }
        int big =
            c->params.rule == BC_RULE_BROADCAST_TO || c->params.rule == BC_RULE_EXPLICIT ? 1 : 0;
        if (c->params.rule == BC_RULE_NONE && base >= 0)
            x->shapes[i] = x->shapes[base];
        else if (c->nshapes == 2 && i == big && c->params.rule != BC_RULE_NUMPY &&
                 c->params.rule != BC_RULE_BIDIRECTIONAL &&
                 c->shapes[1 - i].rank != BC_RANK_DYNAMIC)
            x->shapes[i] = x->shapes[1 - i];
    }
}

static void ask_reference(const bc_pvector *c, conc *x)
{
    fill_unknown_ranks(c, x);
    x->kind = bc_infer(&c->params, c->nshapes, x->shapes, &x->result, &x->err);
}

/* The first concretization: each dim 1 where it may be, else its lower
 * bound (rnd: else a random value of its interval, for the samples). */
static void start(const bc_pvector *c, conc *x, bc_prng *rnd)
{
    x->n = c->nshapes;
    ranks_of(c, x->rank);
    x->frame = frame_rank(&c->params, c->nshapes, x->rank);
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].rank; k++)
            x->place[i][k] = (signed char)place_of(&c->params, c->nshapes, x->rank, i, k);
    for (int i = 0; i < c->nshapes; i++) {
        x->shapes[i].rank = c->shapes[i].rank < 0 ? 0 : c->shapes[i].rank;
        for (int k = 0; k < c->shapes[i].rank; k++) {
            int64_t lo, hi, v;
            dim_bounds(x, &c->shapes[i].dims[k], &lo, &hi);
            v = lo <= 1 && 1 <= hi ? 1 : lo;
            if (rnd) {
                switch (bc_prng_below(rnd, 5)) {
                case 0: v = lo; break;
                case 1: v = hi; break;
                case 2: v = hi - lo > 8 ? lo + (int64_t)bc_prng_below(rnd, 9) : hi; break;
                case 3: v = lo + (int64_t)bc_prng_below(rnd, (uint64_t)(hi - lo) + 1); break;
                default: break;
                }
            }
            x->shapes[i].dims[k] = v;
        }
    }
    /* one value per symbol: the first occurrence's */
    for (int i = c->nshapes - 1; i >= 0; i--)
        for (int k = c->shapes[i].rank - 1; k >= 0; k--)
            if (c->shapes[i].dims[k].sym)
                x->sym_val[c->shapes[i].dims[k].sym] = x->shapes[i].dims[k];
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].rank; k++)
            if (c->shapes[i].dims[k].sym)
                x->shapes[i].dims[k] = x->sym_val[c->shapes[i].dims[k].sym];
}

/* Rules whose dims at an axis must all be equal (no 1 stretches). */
static int equal_dims(const bc_params *p)
{
    return p->rule == BC_RULE_NONE || (p->rule == BC_RULE_EXPLICIT && (p->options & BC_OPT_AXES));
}

/* Sets every dim placed at `at` to v, or to 1 where v is outside its
 * interval (not for rules of equal dims); 0 if some dim can be neither. */
static int set_axis(const bc_pvector *c, conc *x, int at, int64_t v)
{
    const int stretch = !equal_dims(&c->params);
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].rank; k++) {
            if (x->place[i][k] != at)
                continue;
            int64_t lo, hi;
            dim_bounds(x, &c->shapes[i].dims[k], &lo, &hi);
            if (lo < 0 && lo == hi)
                continue; /* as written: pytorch-expand's -1 follows the input's dim */
            if (lo <= v && v <= hi)
                assign(c, x, i, k, v);
            else if (stretch && lo <= 1 && 1 <= hi)
                assign(c, x, i, k, 1);
            else
                return 0;
        }
    return 1;
}

/* The frame axis of the reference's error on x: its axis, but matmul's
 * contracted dims (axis -1) are the axis past the result (place_of). */
static int error_place(const bc_pvector *c, const conc *x)
{
    if (c->params.rule == BC_RULE_MATMUL && x->kind == BC_ERR_DIM_MISMATCH && x->err.axis == -1)
        return x->frame - 1;
    return x->err.axis;
}

/* Makes the static reference accept x by repairing one axis at a time; the
 * axis `fixed` (-1: none) keeps its values.  1 if it accepts. */
static int repair(const bc_pvector *c, conc *x, int fixed)
{
    int repaired[BC_MAX_RANK + 1] = {0}; /* + 1: matmul's contracted axis (place_of) */
    ask_reference(c, x);
    while (x->kind != BC_OK) {
        int at = error_place(c, x);
        if (x->kind != BC_ERR_DIM_MISMATCH || at < 0 || at >= x->frame || at == fixed ||
            repaired[at])
            return 0;
        repaired[at] = 1;
        /* candidates: 1 and every bound of a dim placed there, each once */
        int64_t cand[2 * BC_VECTOR_MAX_SHAPES + 1];
        int ncand = 0;
        cand[ncand++] = 1;
        for (int i = 0; i < c->nshapes; i++)
            for (int k = 0; k < c->shapes[i].rank; k++) {
                if (x->place[i][k] != at)
                    continue;
                int64_t b[2];
                dim_bounds(x, &c->shapes[i].dims[k], &b[0], &b[1]);
                for (int e = 0; e < 2; e++) {
                    int dup = 0;
                    for (int j = 0; j < ncand && !dup; j++)
                        dup = cand[j] == b[e];
                    if (!dup && ncand < (int)(sizeof cand / sizeof *cand))
                        cand[ncand++] = b[e];
                }
            }
        /* each try sets every dim placed there, so no undo is needed */
        int fixed_now = 0;
        for (int j = 0; j < ncand && !fixed_now; j++) {
            if (!set_axis(c, x, at, cand[j]))
                continue;
            ask_reference(c, x);
            fixed_now =
                x->kind == BC_OK || (x->kind == BC_ERR_DIM_MISMATCH && error_place(c, x) != at);
        }
        if (!fixed_now)
            return 0;
    }
    return 1;
}

/* An accepted concretization (whose result has b at axis `at`, if at >= 0). */
static int witness(const bc_pvector *c, conc *x, int at, int64_t b)
{
    if (!symbol_bounds(c, x))
        return 0;
    start(c, x, NULL);
    if (at >= 0 && !set_axis(c, x, at, b))
        return 0;
    if (!repair(c, x, at))
        return 0;
    return at < 0 || (at < x->result.rank && x->result.dims[at] == b);
}

/* Whether accepted concretization x, with axis `at` changed to b (b, or 1
 * where b is outside a dim's interval), is still accepted with b there:
 * without relaxation R1 the other axes do not change, so this decides
 * whether b is reached at `at`.  x is left as it was. */
static int reaches(const bc_pvector *c, conc *x, int at, int64_t b)
{
    enum { MAX_SAVED = 2 * BC_VECTOR_MAX_SHAPES };
    int64_t saved[MAX_SAVED];
    int nsaved = 0, ok = 1;
    for (int i = 0; i < c->nshapes && ok; i++)
        for (int k = 0; k < c->shapes[i].rank && ok; k++)
            if (x->place[i][k] == at) {
                ok = nsaved < MAX_SAVED;
                if (ok)
                    saved[nsaved++] = x->shapes[i].dims[k];
            }
    if (ok && set_axis(c, x, at, b)) {
        ask_reference(c, x);
        ok = x->kind == BC_OK && at < x->result.rank && x->result.dims[at] == b;
    } else {
        ok = 0;
    }
    nsaved = 0;
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].rank; k++)
            if (x->place[i][k] == at && nsaved < MAX_SAVED)
                assign(c, x, i, k, saved[nsaved++]);
    return ok;
}

/* A random accepted concretization, if repair finds one. */
static int sample(const bc_pvector *c, conc *x, bc_prng *rnd)
{
    if (!symbol_bounds(c, x))
        return 0;
    start(c, x, rnd);
    return repair(c, x, -1);
}

/* ---- asking the SUT -------------------------------------------------------- */

static void ask_partial(bc_check_ctx *ctx, const bc_pvector *c, bc_sut_panswer *a)
{
    memset(a, 0, sizeof *a);
    /* A stopping run asks nothing more (ctx->stop); the check it belongs
     * to is thrown away (ctx->stopped says why), as in property.c. */
    if (ctx->stop && (ctx->stopped = ctx->stop(ctx->hook)) != BC_SHRINK_MINIMAL) {
        a->status = BC_SUT_INTERNAL_ERROR;
        a->fault = BC_SUT_FAULT_INTERRUPTED;
        snprintf(a->message, sizeof a->message, "not asked: the run is stopping");
        return;
    }
    ctx->sut_calls++;
    if (!ctx->sut->ops->infer_partial) {
        a->status = BC_SUT_UNSUPPORTED;
        snprintf(a->message, sizeof a->message, "the SUT infers no partial shapes");
        return;
    }
    ctx->sut->ops->infer_partial(ctx->sut, &c->params, c->nshapes, c->shapes, &c->syms, a);
    /* the run counts questions without an answer of the SUT's own */
    bc_sut_answer seen;
    memset(&seen, 0, sizeof seen);
    seen.status = a->status;
    seen.fault = a->fault;
    seen.asked_again = a->asked_again;
    bc_set_text(seen.message, sizeof seen.message, a->message);
    bc_check_answered(ctx, &seen);
}

static void describe_answer(const bc_sut_panswer *a, const bc_psymbols *syms, char *buf, size_t cap)
{
    switch (a->status) {
    case BC_SUT_OK: bc_pshape_format(&a->shape, syms, buf, cap); break;
    case BC_SUT_REJECTED:
        snprintf(buf, cap, "error%s%s", a->kind ? ":" : "",
                 a->kind ? bc_error_kind_name(a->kind) : "");
        break;
    case BC_SUT_UNSUPPORTED: snprintf(buf, cap, "unsupported"); break;
    default: snprintf(buf, cap, "internal error (%s)", a->message); break;
    }
}

/* The SUT's answer, or a verdict if there is nothing to check. */
static int answered(const bc_sut_panswer *a, bc_check *verdict, char *detail, size_t cap)
{
    if (a->status == BC_SUT_UNSUPPORTED) {
        *verdict = BC_CHECK_UNSUPPORTED;
        return 0;
    }
    if (a->status == BC_SUT_INTERNAL_ERROR) {
        snprintf(detail, cap, "SUT: internal error (%s)", a->message);
        *verdict = BC_CHECK_FAIL;
        return 0;
    }
    return 1;
}

/* "[2,1] [3]" (the concretization, for a message). */
static void say_conc(const conc *x, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < x->n && len + 2 < cap; i++) {
        if (i)
            buf[len++] = ' ';
        len += (size_t)bc_shape_format(&x->shapes[i], buf + len, cap - len);
        if (len >= cap)
            len = cap - 1;
    }
}

/* A seed of its own for each case, from its canonical text (symbols by
 * name, options as written), so that the replay of its line draws the same
 * samples whatever ids its symbols had when it was generated. */
static uint64_t case_seed(const bc_pvector *c)
{
    uint64_t h = 0xcbf29ce484222325u;
    int len = bc_pvector_format(c, NULL, 0);
    char *text = len > 0 ? malloc((size_t)len + 1) : NULL;
    if (!text)
        return h;
    bc_pvector_format(c, text, (size_t)len + 1);
    char *arrow = strstr(text, " -> "); /* the expectation is not part of the case */
    for (const char *p = text; *p && p != arrow; p++)
        h = (h ^ (uint8_t)*p) * 0x100000001b3u;
    free(text);
    return h;
}

#define SAMPLES 6

/* ---- partial-soundness and partial-symbols --------------------------------- */

/* judge_sample's texts: the concretization, its result and the SUT's
 * answer, made only once a failure is found (formatting them for every
 * sample, with the other eager texts of these checks, was a quarter of the
 * partial properties' instructions). */
typedef struct sample_text {
    char cs[1024], got[2048], res[1024];
} sample_text;

static void say_sample(const bc_pvector *c, const conc *x, const bc_sut_panswer *a,
                       sample_text *t)
{
    say_conc(x, t->cs, sizeof t->cs);
    bc_shape_format(&x->result, t->res, sizeof t->res);
    if (a->status == BC_SUT_OK)
        describe_answer(a, &c->syms, t->got, sizeof t->got);
    else
        t->got[0] = '\0';
}

/* What concretization x says about answer a: 0 fine, 1 a failure in detail.
 * symbols: check the answer's symbols, else its intervals and acceptance. */
static int judge_sample(const bc_pvector *c, const conc *x, const bc_sut_panswer *a, int symbols,
                        char *detail, size_t cap)
{
    sample_text t;
    const char *cs = t.cs, *got = t.got, *res = t.res;
    if (a->status != BC_SUT_OK) {
        if (symbols)
            return 0;
        say_sample(c, x, a, &t);
        snprintf(detail, cap, "SUT rejects, but the concretization %s is accepted (result %s)", cs,
                 res);
        return 1;
    }
    const bc_pshape *q = &a->shape;
    if (q->rank == BC_RANK_DYNAMIC)
        return 0;
    if (q->rank != x->result.rank) {
        if (symbols)
            return 0;
        say_sample(c, x, a, &t);
        snprintf(detail, cap, "SUT gives %s, but the concretization %s gives %s, of rank %d", got,
                 cs, res, x->result.rank);
        return 1;
    }
    for (int k = 0; k < q->rank; k++) {
        const bc_pdim *d = &q->dims[k];
        int64_t v = x->result.dims[k];
        if (!symbols && (v < d->lo || v > d->hi)) {
            char dt[96];
            bc_pdim_format(d, &c->syms, dt, sizeof dt);
            say_sample(c, x, a, &t);
            snprintf(detail, cap,
                     "SUT gives %s, but the concretization %s gives %s: %lld at "
                     "axis %d is outside %s",
                     got, cs, res, (long long)v, k, dt);
            return 1;
        }
        if (!symbols || !d->sym)
            continue;
        if (d->sym <= c->syms.count) {
            int used = 0;
            for (int i = 0; i < c->nshapes && !used; i++)
                for (int m = 0; m < c->shapes[i].rank; m++)
                    used |= c->shapes[i].dims[m].sym == d->sym;
            if (used && x->sym_val[d->sym] != v) {
                say_sample(c, x, a, &t);
                snprintf(detail, cap,
                         "SUT gives %s, but the concretization %s (%s = %lld) gives "
                         "%s: axis %d is %lld, not %s",
                         got, cs, c->syms.names[d->sym - 1], (long long)x->sym_val[d->sym], res, k,
                         (long long)v, c->syms.names[d->sym - 1]);
                return 1;
            }
            if (used)
                continue;
        }
        /* a symbol of the SUT's own: equal wherever it is in the answer */
        for (int m = 0; m < k; m++)
            if (q->dims[m].sym == d->sym && x->result.dims[m] != v) {
                say_sample(c, x, a, &t);
                snprintf(detail, cap,
                         "SUT gives %s, one symbol at axes %d and %d, but the "
                         "concretization %s gives %s",
                         got, m, k, cs, res);
                return 1;
            }
    }
    return 0;
}

/* ---- an axes_mapping of unknown values (RULES.md §14.9) -------------------- */

/* A concretization of such a case also picks the mapping (and its length,
 * and the ranks, where unknown).  Every mapping the static rule accepts has
 * entries in 0..R-1 that never decrease (§8.2 to §8.4: the default wants
 * them increasing, the profiles let them repeat) and as many as the
 * input's rank (a scalar under openvino-explicit: one more), so the
 * known-mapping cases walked here, each concretized as any case is, hold
 * every accepted concretization of a case whose ranks are known.  An
 * unknown rank is given one: the input the mapping's length (its dims ?),
 * the target that length or one more (its dims ?); every concretization
 * the rule accepts then has one of the same acceptance there (the identity
 * mapping onto a target equal to the input), which is all soundness needs
 * of them, and precision judges no case of unknown rank. */
#define MAX_MAPPINGS 4096

typedef struct mapping_walk {
    int lens[BC_MAX_RANK + 2], nlen, li; /* the lengths to try, and which */
    int tr[2], ntr, ti;                  /* the target's ranks to try with lens[li] */
    int64_t axes[BC_MAX_RANK];
    int started; /* axes holds a mapping already given */
    long given;  /* mappings given so far */
    long cap;    /* the most to give (0: every one); walk_start sets MAX_MAPPINGS */
} mapping_walk;

static void walk_lengths(const bc_pvector *c, mapping_walk *w)
{
    const int in = c->shapes[0].rank, tg = c->shapes[1].rank;
    w->nlen = 0;
    if (c->params.naxes >= 0) {
        w->lens[w->nlen++] = c->params.naxes;
    } else if (in != BC_RANK_DYNAMIC) {
        w->lens[w->nlen++] = in;
        if (in == 0)
            w->lens[w->nlen++] = 1; /* openvino-explicit's scalar with one entry */
    } else {
        const int most = tg == BC_RANK_DYNAMIC ? 2 : tg;
        for (int L = 0; L <= most && L <= BC_MAX_RANK; L++)
            w->lens[w->nlen++] = L;
    }
}

static void walk_target_ranks(const bc_pvector *c, mapping_walk *w)
{
    const int L = w->lens[w->li], tg = c->shapes[1].rank;
    w->ntr = 0;
    if (tg != BC_RANK_DYNAMIC) {
        w->tr[w->ntr++] = tg;
        return;
    }
    w->tr[w->ntr++] = L;
    if (L < BC_MAX_RANK)
        w->tr[w->ntr++] = L + 1;
}

static void walk_start(const bc_pvector *c, mapping_walk *w)
{
    memset(w, 0, sizeof *w);
    w->cap = MAX_MAPPINGS;
    walk_lengths(c, w);
    if (w->nlen)
        walk_target_ranks(c, w);
}

/* The next known-mapping case of c into *out (out's header and its two
 * shapes are rewritten; the rest of *out is left alone); 0 when every
 * mapping has been given, or w->cap of them. */
static int walk_next(const bc_pvector *c, mapping_walk *w, bc_pvector *out)
{
    while (w->li < w->nlen && (!w->cap || w->given < w->cap)) {
        const int L = w->lens[w->li], R = w->tr[w->ti];
        int ok = 0;
        if (!w->started) {
            for (int k = 0; k < L; k++)
                w->axes[k] = 0;
            ok = L == 0 || R > 0;
            w->started = 1;
        } else {
            /* the next non-decreasing sequence: raise the last entry that can rise */
            int k = L - 1;
            while (k >= 0 && w->axes[k] >= R - 1)
                k--;
            if (k >= 0) {
                w->axes[k]++;
                for (int j = k + 1; j < L; j++)
                    w->axes[j] = w->axes[k];
                ok = 1;
            }
        }
        if (!ok) { /* the next target rank, else the next length */
            w->started = 0;
            if (++w->ti >= w->ntr) {
                w->ti = 0;
                if (++w->li < w->nlen)
                    walk_target_ranks(c, w);
            }
            continue;
        }
        w->given++;
        out->params = c->params;
        out->params.options &= ~(unsigned)BC_OPT_AXES_UNKNOWN;
        out->params.naxes = L;
        memcpy(out->params.axes, w->axes, (size_t)L * sizeof w->axes[0]);
        out->nshapes = c->nshapes;
        out->syms = c->syms;
        out->expect = c->expect;
        out->expect_kind = c->expect_kind;
        out->expect_shape.rank = 0;
        for (int i = 0; i < 2; i++) {
            out->shapes[i] = c->shapes[i];
            if (c->shapes[i].rank != BC_RANK_DYNAMIC)
                continue;
            out->shapes[i].rank = i == 0 ? L : R;
            for (int k = 0; k < out->shapes[i].rank; k++)
                out->shapes[i].dims[k] = bc_pdim_dynamic();
        }
        return 1;
    }
    return 0;
}

/* Whether a walk that walk_next ended had given every mapping: not if it
 * stopped at its cap with another one left (w is spent after). */
static int walk_complete(const bc_pvector *c, mapping_walk *w, bc_pvector *scratch)
{
    if (!w->cap || w->given < w->cap)
        return 1;
    w->given--; /* room for one more: is there one? */
    return !walk_next(c, w, scratch);
}

static int is_unknown_mapping(const bc_pvector *c)
{
    return (c->params.options & BC_OPT_AXES_UNKNOWN) && c->params.rule == BC_RULE_EXPLICIT &&
           c->nshapes == 2;
}

/* partial-soundness and partial-symbols: the witness of each mapping (the
 * first accepted concretization repair finds) and SAMPLES random ones, each
 * of a random mapping among those that have a witness; a is the SUT's
 * answer. */
static int judge_past_cap(const bc_pvector *c, const bc_sut_panswer *a, int symbols, char *detail,
                          size_t cap, conc *x, bc_pvector *m);

/* How many mappings c's walk gives, or more than most. */
static long walk_count(const bc_pvector *c, long most)
{
    mapping_walk w;
    walk_start(c, &w);
    long total = 0;
    for (w.li = 0; w.li < w.nlen && total <= most; w.li++) {
        walk_target_ranks(c, &w);
        for (w.ti = 0; w.ti < w.ntr && total <= most; w.ti++) {
            const int L = w.lens[w.li], R = w.tr[w.ti];
            long count = L == 0 ? 1 : R > 0;
            for (int k = 1; k <= L && count && count <= most; k++)
                count = count * (R - 1 + k) / k; /* C(R-1+k, k), exact at each step */
            total += count;
        }
    }
    return total;
}

static bc_check unknown_mapping_agree(const bc_pvector *c, const bc_sut_panswer *a, int symbols,
                                      char *detail, size_t cap)
{
    conc *x = malloc(sizeof *x);
    bc_pvector *m = malloc(sizeof *m);
    long *accepted = malloc(MAX_MAPPINGS * sizeof *accepted);
    bc_check result = BC_CHECK_PASS;
    if (!x || !m || !accepted) {
        snprintf(detail, cap, "out of memory");
        result = BC_CHECK_UNSUPPORTED;
        goto done;
    }
    mapping_walk w;
    long naccepted = 0;
    walk_start(c, &w);
    /* a walk that would be cut is judged by judge_past_cap: its first
     * mappings' witnesses and samples are kept, fewer of them */
    if (walk_count(c, MAX_MAPPINGS) > MAX_MAPPINGS)
        w.cap = MAX_MAPPINGS / 16;
    while (result == BC_CHECK_PASS && walk_next(c, &w, m))
        if (witness(m, x, -1, 0)) {
            accepted[naccepted++] = w.given - 1;
            if (judge_sample(m, x, a, symbols, detail, cap))
                result = BC_CHECK_FAIL;
        }
    /* past the cap: each axis's least and greatest value (judge_past_cap) */
    if (result == BC_CHECK_PASS && !walk_complete(c, &w, m) &&
        judge_past_cap(c, a, symbols, detail, cap, x, m))
        result = BC_CHECK_FAIL;
    bc_prng rnd;
    bc_prng_init(&rnd, case_seed(c), 0x9a28, 0);
    for (int s = 0; s < SAMPLES && naccepted && result == BC_CHECK_PASS; s++) {
        const long want = accepted[bc_prng_below(&rnd, (uint64_t)naccepted)];
        walk_start(c, &w);
        while (w.given <= want && walk_next(c, &w, m))
            ;
        if (sample(m, x, &rnd) && judge_sample(m, x, a, symbols, detail, cap))
            result = BC_CHECK_FAIL;
    }
done:
    free(x);
    free(m);
    free(accepted);
    return result;
}

/* ---- partial-precision of an unknown axes_mapping ---------------------------
 *
 * The SUT accepts only if some mapping has an accepted concretization, and
 * each bound it gives is reached by one (or is the target's as given, R2).
 * A mapping that puts a symbol on two places (R1) may hide an accepted
 * concretization from repair, so a case in which one does is judged only
 * where it is found wanting without them (then it is not judged).
 *
 * The full walk gives every mapping (non-decreasing entries, §14.9) to
 * witness and reaches; there are C(R+n-1, n) of length n onto R axes,
 * 5,005 at R = 10, n = 6, 490,314 at R = 16, n = 8.  The check itself reasons one target axis at a
 * time instead, and gives the same verdict (tests/test_partial_profiles.c
 * compares the two on thousands of cases):
 *
 * 1. Only a mapping of length n (the input's rank; one entry for a scalar,
 *    below) can be accepted: every form checks the count before any dim
 *    (§8.2 to §8.4; the default's rank check, first, rejects too).  Any
 *    other length is skipped by both methods, crossing or not: a mapping
 *    the count rejects hides no concretization.
 * 2. A non-decreasing mapping of length n onto R axes is exactly a split
 *    of the input axes 0..n-1 into R consecutive blocks, block t (maybe
 *    empty) the input axes mapped onto target axis t.
 * 3. A mapping m crosses (crosses_axes) iff some block (t, i..j-1) does
 *    not hold every occurrence of a symbol it holds, counting target dim t
 *    in the block (block_keeps_symbols): every dim of m has a place, a
 *    symbol's places are those of its occurrences, and its occurrences at
 *    place t are target dim t and block t.  A target symbol on two axes
 *    fails every block that holds it, and every split has a block at each t.
 * 4. For a mapping m that does not cross, the axes of m are independent:
 *    each symbol lies at one place, the static rule accepts iff each entry
 *    passes (its dim equal to the target dim, or 1, per form; repeats
 *    under the default are axes-duplicate), and no rule does arithmetic on
 *    dims (§9.4).  So m has an accepted concretization iff, for every t,
 *    the case of block t alone onto the target dim t alone (block_case:
 *    entries all 0, rank-1 target; a block of two or more under the default
 *    is rejected there as it is in m) has one; and m reaches b at axis k
 *    iff it has one and block k's case reaches b at its axis 0: reaches
 *    changes axis k only, and the other axes of m's witness stay accepted.
 *    The symbol intervals agree: a block case holds every occurrence of its
 *    symbols (3).  repair is exact on both (a dim-mismatch names the first
 *    failing entry; entries onto one axis are consecutive, so once an axis
 *    is repaired the error moves past it, and the candidates hold the least
 *    common value where one exists; partial.c's head).
 * 5. Hence, with P[t][i] "input axes 0..i-1 split onto target axes 0..t-1
 *    with every block accepted and keeping its symbols" and S[t][j] "j..n-1
 *    onto t..R-1 likewise": some non-crossing mapping is accepted iff
 *    P[R][n], and one reaches b at k iff some block (k, i..j-1) with
 *    P[k][i] and S[k+1][j] reaches b.  That is the full walk's tally over
 *    the non-crossing mappings, in R * (n+1)^2 / 2 block cases at most.
 * 6. The full walk's tally over every mapping contains that one (a found
 *    concretization is a real one), so a case passing here passes there.
 *    Otherwise, if no split has a block that does not keep its symbols, no
 *    mapping crosses: the full walk fails it too, with the same open bounds.
 *    If some mapping crosses, the crossing ones are walked as the full walk
 *    walks them (at most MAX_MAPPINGS given); a case they do not complete
 *    is not judged (R1), as in the full walk, or (past MAX_MAPPINGS) not
 *    judged where the full walk might have passed it: the only difference,
 *    and only on an R1 case.
 * 7. A scalar under any form may also take one entry (openvino-explicit's
 *    rank 1): those R mappings are walked one by one.
 */

/* What the mappings judged so far show of answer q (an acceptance). */
typedef struct mapping_tally {
    const bc_pshape *q;
    int need[BC_MAX_RANK][2], open; /* bounds of q that no accepted concretization has shown */
    int found;                      /* some mapping has an accepted concretization */
    int crossing;                   /* some mapping puts a symbol on two places (R1) */
    int cut;                        /* a walk stopped at MAX_MAPPINGS with mappings left */
} mapping_tally;

/* The bounds to reach: R2 lets the reference's own (the target's as given) stand. */
static void tally_start(const bc_pvector *c, const bc_pshape *q, mapping_tally *t)
{
    memset(t, 0, sizeof *t);
    t->q = q;
    bc_pshape ref;
    const int ref_ok = bc_pinfer(&c->params, c->nshapes, c->shapes, &c->syms, &ref, NULL) == BC_OK;
    for (int k = 0; k < q->rank && k < BC_MAX_RANK; k++)
        for (int side = 0; side < 2; side++) {
            const int64_t b = side ? q->dims[k].hi : q->dims[k].lo;
            t->need[k][side] =
                !(side && q->dims[k].hi == q->dims[k].lo) &&
                !(ref_ok && ref.rank == q->rank && (side ? ref.dims[k].hi : ref.dims[k].lo) == b);
            t->open += t->need[k][side];
        }
}

static int tally_done(const mapping_tally *t)
{
    return t->found && !t->open;
}

/* The bounds of q's axis k that accepted concretization x of m reaches at
 * m's axis `at`. */
static void tally_axis(mapping_tally *t, const bc_pvector *m, conc *x, int k, int at)
{
    for (int side = 0; side < 2 && k < BC_MAX_RANK; side++)
        if (t->need[k][side] && reaches(m, x, at, side ? t->q->dims[k].hi : t->q->dims[k].lo)) {
            t->need[k][side] = 0;
            t->open--;
        }
}

/* Judges one known mapping m of the case. */
static void tally_mapping(mapping_tally *t, const bc_pvector *m, conc *x)
{
    t->crossing |= crosses_axes(m);
    if (!witness(m, x, -1, 0))
        return;
    t->found = 1;
    for (int k = 0; k < t->q->rank && t->open; k++)
        tally_axis(t, m, x, k, k);
}

/* Whether the count check can pass a mapping of length L (1 above). */
static int length_may_pass(const bc_pvector *c, int L)
{
    const int n = c->shapes[0].rank;
    return L == n || (n == 0 && L == 1);
}

/* Walks c's mappings (of length L only, if L >= 0; crossing ones only, if
 * asked), at most cap of them (0: all), until the tally is done. */
static void tally_walk(const bc_pvector *c, int L, int crossing_only, long cap, mapping_tally *t,
                       conc *x, bc_pvector *m)
{
    mapping_walk w;
    walk_start(c, &w);
    if (L >= 0) {
        w.nlen = 1;
        w.lens[0] = L;
        walk_target_ranks(c, &w);
    }
    w.cap = cap;
    while (!tally_done(t) && walk_next(c, &w, m))
        if (length_may_pass(c, m->params.naxes) && (!crossing_only || crosses_axes(m)))
            tally_mapping(t, m, x);
    if (!tally_done(t) && !walk_complete(c, &w, m))
        t->cut = 1;
}

/* The case of input axes i..j-1 alone mapped onto target axis t alone. */
static void block_case(const bc_pvector *c, int t, int i, int j, bc_pvector *out)
{
    out->params = c->params;
    out->params.options &= ~(unsigned)BC_OPT_AXES_UNKNOWN;
    out->params.naxes = j - i;
    for (int k = 0; k < j - i; k++)
        out->params.axes[k] = 0;
    out->nshapes = 2;
    out->syms = c->syms;
    out->expect = c->expect;
    out->expect_kind = c->expect_kind;
    out->expect_shape.rank = 0;
    out->shapes[0].rank = j - i;
    for (int k = 0; k < j - i; k++)
        out->shapes[0].dims[k] = c->shapes[0].dims[i + k];
    out->shapes[1].rank = 1;
    out->shapes[1].dims[0] = c->shapes[1].dims[t];
}

/* Whether input axes i..j-1 and target axis t hold every occurrence of
 * each symbol they hold (point 3 above). */
static int block_keeps_symbols(const bc_pvector *c, int t, int i, int j)
{
    for (int a = i; a <= j; a++) {
        const int s = a < j ? c->shapes[0].dims[a].sym : c->shapes[1].dims[t].sym;
        if (!s)
            continue;
        for (int op = 0; op < 2; op++)
            for (int k = 0; k < c->shapes[op].rank; k++)
                if (c->shapes[op].dims[k].sym == s && !(op == 0 ? i <= k && k < j : k == t))
                    return 0;
    }
    return 1;
}

/* Whether some split of n input axes onto R target axes has a block that
 * does not keep its symbols: block (t, i..j-1) is in a split iff the axes
 * before it fit t blocks (t > 0 or i == 0) and those after it R-1-t
 * (t < R-1 or j == n). */
static int some_split_crosses(const bc_pvector *c, int n, int R)
{
    for (int t = 0; t < R; t++)
        for (int i = 0; i <= (t > 0 ? n : 0); i++)
            for (int j = t < R - 1 ? i : n; j <= n; j++)
                if (!block_keeps_symbols(c, t, i, j))
                    return 1;
    return 0;
}

/* Whether input axes i..n-1 split onto target axes a..R-1 with every block
 * accepted and keeping its symbols (S[a][i] of point 5), depth first: an
 * answer with no bound to reach needs only one accepted mapping, which is
 * found with few block cases (tried: 1 where a state was found not to
 * split, 0 untried). */
static int splits_from(const bc_pvector *c, int a, int i, unsigned char *tried, conc *x,
                       bc_pvector *m)
{
    const int n = c->shapes[0].rank, R = c->shapes[1].rank;
    if (a == R)
        return i == n;
    unsigned char *state = &tried[(size_t)a * ((size_t)n + 1) + (size_t)i];
    if (*state)
        return 0;
    for (int j = i; j <= n; j++) {
        block_case(c, a, i, j, m);
        if (block_keeps_symbols(c, a, i, j) && witness(m, x, -1, 0) &&
            splits_from(c, a + 1, j, tried, x, m))
            return 1;
    }
    *state = 1;
    return 0;
}

/* The splits of c's n input axes onto its R target axes (point 5): each
 * block's case (ok: 0 untried, else ACCEPTED or REJECTED, which a block
 * that does not keep its symbols is), P and S. */
enum { BLOCK_REJECTED = 1, BLOCK_ACCEPTED };
typedef struct bc_umap_splits {
    int n, R;
    size_t w; /* n + 1 */
    unsigned char *ok, *P, *S;
} split_table;

static unsigned char *block_at(const split_table *s, int t, int i, int j)
{
    return &s->ok[((size_t)t * s->w + (size_t)i) * s->w + (size_t)j];
}

static int split_p(const split_table *s, int t, int i)
{
    return s->P[(size_t)t * s->w + (size_t)i];
}

static int split_s(const split_table *s, int t, int j)
{
    return s->S[(size_t)t * s->w + (size_t)j];
}

/* Whether block (t, i..j-1) is in an accepted split. */
static int block_in_split(const split_table *s, int t, int i, int j)
{
    return split_p(s, t, i) && *block_at(s, t, i, j) == BLOCK_ACCEPTED && split_s(s, t + 1, j);
}

int bc_umap_prefix(const bc_umap_splits *s, int k, int i)
{
    return split_p(s, k, i);
}

int bc_umap_block(const bc_umap_splits *s, int k, int i, int j)
{
    return *block_at(s, k, i, j) == BLOCK_ACCEPTED;
}

int bc_umap_suffix(const bc_umap_splits *s, int k, int j)
{
    return split_s(s, k, j);
}

int bc_umap_block_in_split(const bc_umap_splits *s, int k, int i, int j)
{
    return block_in_split(s, k, i, j);
}

static void split_table_free(split_table *s)
{
    free(s->ok);
    free(s->P);
    free(s->S);
}

/* Fills s for c (known ranks); 0 if out of memory. */
static int split_table_fill(const bc_pvector *c, split_table *s, conc *x, bc_pvector *m)
{
    const int n = c->shapes[0].rank, R = c->shapes[1].rank;
    s->n = n;
    s->R = R;
    s->w = (size_t)n + 1;
    s->ok = calloc((size_t)(R > 0 ? R : 1) * s->w * s->w, 1);
    s->P = calloc((size_t)(R + 1) * s->w, 1);
    s->S = calloc((size_t)(R + 1) * s->w, 1);
    if (!s->ok || !s->P || !s->S) {
        split_table_free(s);
        return 0;
    }
    s->P[0] = 1;
    for (int a = 0; a < R; a++)
        for (int i = 0; i <= n; i++)
            for (int j = i; j <= n && split_p(s, a, i); j++) {
                block_case(c, a, i, j, m);
                *block_at(s, a, i, j) = block_keeps_symbols(c, a, i, j) && witness(m, x, -1, 0)
                                            ? BLOCK_ACCEPTED
                                            : BLOCK_REJECTED;
                if (*block_at(s, a, i, j) == BLOCK_ACCEPTED)
                    s->P[(size_t)(a + 1) * s->w + (size_t)j] = 1;
            }
    if (!split_p(s, R, n))
        return 1;
    s->S[(size_t)R * s->w + (size_t)n] = 1;
    for (int a = R - 1; a >= 0; a--)
        for (int i = 0; i <= n; i++)
            for (int j = i; j <= n && !split_s(s, a, i); j++)
                s->S[(size_t)a * s->w + (size_t)i] =
                    *block_at(s, a, i, j) == BLOCK_ACCEPTED && split_s(s, a + 1, j);
    return 1;
}

/* Points 2 to 6 above, for the mappings of length n, through the blocks
 * `takes` takes (block_in_split; another only in a test's planted wrong
 * rule, bc_unknown_mapping_precision_by). */
static int tally_blocks(const bc_pvector *c, mapping_tally *t, conc *x, bc_pvector *m,
                        bc_umap_block_rule takes)
{
    const int n = c->shapes[0].rank, R = c->shapes[1].rank;
    if (!t->open) { /* nothing to reach: one accepted split will do */
        unsigned char *tried = calloc((size_t)(R + 1) * ((size_t)n + 1), 1);
        if (!tried)
            return 0;
        t->found |= splits_from(c, 0, 0, tried, x, m);
        free(tried);
    } else {
        split_table s;
        if (!split_table_fill(c, &s, x, m))
            return 0;
        t->found |= split_p(&s, R, n);
        for (int k = 0; k < R && k < t->q->rank && t->open && t->found; k++)
            for (int i = 0; i <= n && (t->need[k][0] || t->need[k][1]); i++)
                for (int j = i; j <= n && (t->need[k][0] || t->need[k][1]); j++) {
                    if (!takes(&s, k, i, j))
                        continue;
                    block_case(c, k, i, j, m);
                    if (witness(m, x, -1, 0))
                        tally_axis(t, m, x, k, 0);
                }
        split_table_free(&s);
    }
    if (!tally_done(t) && some_split_crosses(c, n, R)) {
        t->crossing = 1;
        tally_walk(c, n, 1, MAX_MAPPINGS, t, x, m);
    }
    return 1;
}

/* The known-mapping case of cc (ranks known) through block (k, i..j-1):
 * the blocks before it and after it from an accepted split of s. */
static void split_through(const bc_pvector *cc, const split_table *s, int k, int i, int j,
                          bc_pvector *out)
{
    out->params = cc->params;
    out->params.options &= ~(unsigned)BC_OPT_AXES_UNKNOWN;
    out->params.naxes = s->n;
    for (int e = i; e < j; e++)
        out->params.axes[e] = k;
    for (int a = k - 1, cur = i; a >= 0; a--)
        for (int from = 0; from <= cur; from++)
            if (split_p(s, a, from) && *block_at(s, a, from, cur) == BLOCK_ACCEPTED) {
                for (int e = from; e < cur; e++)
                    out->params.axes[e] = a;
                cur = from;
                break;
            }
    for (int a = k + 1, cur = j; a < s->R; a++)
        for (int to = cur; to <= s->n; to++)
            if (*block_at(s, a, cur, to) == BLOCK_ACCEPTED && split_s(s, a + 1, to)) {
                for (int e = cur; e < to; e++)
                    out->params.axes[e] = a;
                cur = to;
                break;
            }
    out->nshapes = 2;
    out->syms = cc->syms;
    out->expect = cc->expect;
    out->expect_kind = cc->expect_kind;
    out->expect_shape.rank = 0;
    out->shapes[0] = cc->shapes[0];
    out->shapes[1] = cc->shapes[1];
}

/* partial-soundness on the splits of cc (ranks known, the mapping unknown):
 * for each target axis, the least and the greatest value an accepted
 * split that keeps its symbols reaches there, each judged on a whole
 * concretization.  A block's values at its axis are an interval (the
 * target dim's, cut by each input dim that cannot be 1; equal dims under
 * ngraph-explicit; 1 for openvino-explicit's scalar), whose ends are 1 or
 * bounds of its dims, so if some value an accepted split reaches at axis k
 * is outside the answer's interval there, one of these two is.  1 if one
 * fails. */
static int judge_extremes(const bc_pvector *cc, const bc_sut_panswer *a, int symbols, char *detail,
                          size_t cap, conc *x, bc_pvector *m)
{
    split_table s;
    if (!split_table_fill(cc, &s, x, m))
        return 0;
    int failed = 0;
    for (int k = 0; k < s.R && !failed && split_p(&s, s.R, s.n); k++) {
        int64_t best[2] = {0, 0};
        int have[2] = {0, 0}, from[2] = {0, 0}, to[2] = {0, 0};
        for (int i = 0; i <= s.n; i++)
            for (int j = i; j <= s.n; j++) {
                if (!block_in_split(&s, k, i, j))
                    continue;
                block_case(cc, k, i, j, m);
                if (!witness(m, x, -1, 0))
                    continue;
                for (int d = 0; d <= 2 * (j - i + 1); d++) {
                    int64_t b = 1, lo, hi;
                    if (d > 0) {
                        const int op = (d - 1) / 2 < j - i ? 0 : 1;
                        dim_bounds(x, &m->shapes[op].dims[op ? 0 : (d - 1) / 2], &lo, &hi);
                        b = (d - 1) % 2 ? hi : lo;
                    }
                    for (int side = 0; side < 2; side++)
                        if ((!have[side] || (side ? b > best[1] : b < best[0])) &&
                            reaches(m, x, 0, b)) {
                            best[side] = b;
                            have[side] = 1;
                            from[side] = i;
                            to[side] = j;
                        }
                }
            }
        for (int side = 0; side < 2 && !failed; side++) {
            if (!have[side])
                continue;
            split_through(cc, &s, k, from[side], to[side], m);
            if (witness(m, x, -1, 0) && set_axis(m, x, k, best[side])) {
                ask_reference(m, x);
                failed = x->kind == BC_OK && judge_sample(m, x, a, symbols, detail, cap);
            }
        }
    }
    split_table_free(&s);
    return failed;
}

/* judge_extremes for each rank the walk gives an unknown one (its dims ?),
 * with mappings of the input's rank (any other length is refused by the
 * count, and a scalar's one entry is walked whole, far below MAX_MAPPINGS;
 * two unknown ranks give 14 mappings, never cut). */
static int judge_past_cap(const bc_pvector *c, const bc_sut_panswer *a, int symbols, char *detail,
                          size_t cap, conc *x, bc_pvector *m)
{
    bc_pvector *cc = malloc(sizeof *cc);
    if (!cc)
        return 0;
    mapping_walk w;
    walk_start(c, &w);
    int failed = 0;
    for (w.li = 0; w.li < w.nlen && !failed; w.li++) {
        walk_target_ranks(c, &w);
        for (w.ti = 0; w.ti < w.ntr && !failed; w.ti++) {
            const int L = w.lens[w.li], R = w.tr[w.ti];
            if (c->shapes[0].rank != BC_RANK_DYNAMIC && c->shapes[0].rank != L)
                continue;
            /* an input of unknown rank may be [] (no entry), which lets each
             * target dim take every value of its interval: a longer one, of
             * ? dims, reaches no other (and would cost a table per length) */
            if (c->shapes[0].rank == BC_RANK_DYNAMIC && c->shapes[1].rank != BC_RANK_DYNAMIC &&
                L > 0)
                continue;
            *cc = *c;
            for (int i = 0; i < 2; i++) {
                if (c->shapes[i].rank != BC_RANK_DYNAMIC)
                    continue;
                cc->shapes[i].rank = i == 0 ? L : R;
                for (int k = 0; k < cc->shapes[i].rank; k++)
                    cc->shapes[i].dims[k] = bc_pdim_dynamic();
            }
            failed = judge_extremes(cc, a, symbols, detail, cap, x, m);
        }
    }
    free(cc);
    return failed;
}

/* The verdict on answer a from the tally of every mapping. */
static bc_check tally_verdict(const bc_pvector *c, const mapping_tally *t, const bc_sut_panswer *a,
                              char *detail, size_t cap)
{
    const bc_pshape *q = t->q;
    char got[2048]; /* the answer, described only for a failure's detail */
    if (tally_done(t))
        return BC_CHECK_PASS;
    if (t->cut || t->crossing) {
        snprintf(detail, cap, "not checked: %s",
                 t->crossing ? "a mapping puts a symbol on two axes (relaxation R1, RULES.md §14.5)"
                             : "more axes_mappings than the check walks");
        return BC_CHECK_UNSUPPORTED;
    }
    if (!t->found) {
        bc_pshape none;
        bc_error err = {0};
        describe_answer(a, &c->syms, got, sizeof got);
        if (bc_pinfer(&c->params, c->nshapes, c->shapes, &c->syms, &none, &err) != BC_OK)
            snprintf(detail, cap,
                     "SUT accepts (%s), but no concretization of any axes_mapping is accepted: %s",
                     got, err.message);
        else
            snprintf(detail, cap,
                     "SUT accepts (%s), but no concretization of any axes_mapping is accepted",
                     got);
        return BC_CHECK_FAIL;
    }
    for (int k = 0; k < q->rank && k < BC_MAX_RANK; k++)
        for (int side = 0; side < 2; side++)
            if (t->need[k][side]) {
                const int64_t b = side ? q->dims[k].hi : q->dims[k].lo;
                describe_answer(a, &c->syms, got, sizeof got);
                snprintf(detail, cap,
                         "SUT gives %s, but no accepted concretization of any axes_mapping "
                         "has %s%lld at axis %d (its %s bound)",
                         got, b == BC_DIM_UNBOUNDED ? "a dim as large as " : "", (long long)b, k,
                         side ? "upper" : "lower");
                return BC_CHECK_FAIL;
            }
    return BC_CHECK_PASS;
}

/* partial-precision on an unknown mapping; a is the SUT's answer, an
 * acceptance. */
static bc_check unknown_mapping_precision(const bc_pvector *c, const bc_sut_panswer *a,
                                          bc_umap_method method, bc_umap_block_rule takes,
                                          char *detail, size_t cap)
{
    if (has_dynamic_rank(c)) {
        snprintf(detail, cap, "not checked: a shape of unknown rank (RULES.md §14.5)");
        return BC_CHECK_UNSUPPORTED;
    }
    conc *x = malloc(sizeof *x);
    bc_pvector *m = malloc(sizeof *m);
    int ok = x && m;
    mapping_tally t;
    tally_start(c, &a->shape, &t);
    if (ok && method == BC_UMAP_FULL_WALK) {
        tally_walk(c, -1, 0, 0, &t, x, m);
    } else if (ok) {
        mapping_walk w;
        walk_start(c, &w);
        for (int li = 0; li < w.nlen && ok && !tally_done(&t); li++)
            if (w.lens[li] == c->shapes[0].rank)
                ok = tally_blocks(c, &t, x, m, takes);
            else if (length_may_pass(c, w.lens[li]))
                tally_walk(c, w.lens[li], 0, 0, &t, x, m);
    }
    free(x);
    free(m);
    if (!ok) {
        snprintf(detail, cap, "out of memory");
        return BC_CHECK_UNSUPPORTED;
    }
    return tally_verdict(c, &t, a, detail, cap);
}

bc_check bc_unknown_mapping_soundness(const bc_pvector *c, const bc_sut_panswer *a, char *detail,
                                      size_t cap)
{
    return unknown_mapping_agree(c, a, 0, detail, cap);
}

/* an acceptance of q, judged */
static bc_check judge_acceptance(const bc_pvector *c, const bc_pshape *q, bc_umap_method method,
                                 bc_umap_block_rule takes, char *detail, size_t cap)
{
    bc_sut_panswer a;
    memset(&a, 0, sizeof a);
    a.status = BC_SUT_OK;
    a.shape = *q;
    return unknown_mapping_precision(c, &a, method, takes, detail, cap);
}

bc_check bc_unknown_mapping_precision(const bc_pvector *c, const bc_pshape *q,
                                      bc_umap_method method, char *detail, size_t cap)
{
    return judge_acceptance(c, q, method, block_in_split, detail, cap);
}

bc_check bc_unknown_mapping_precision_by(const bc_pvector *c, const bc_pshape *q,
                                         bc_umap_block_rule takes, char *detail, size_t cap)
{
    return judge_acceptance(c, q, BC_UMAP_BY_AXIS, takes, detail, cap);
}

static bc_check concretizations_agree(bc_check_ctx *ctx, const bc_pvector *c, int symbols,
                                      char *detail, size_t cap)
{
    bc_sut_panswer a;
    bc_check verdict;
    ask_partial(ctx, c, &a);
    if (!answered(&a, &verdict, detail, cap))
        return verdict;
    if (is_unknown_mapping(c))
        return unknown_mapping_agree(c, &a, symbols, detail, cap);
    conc *x = malloc(sizeof *x);
    if (!x) {
        snprintf(detail, cap, "out of memory");
        return BC_CHECK_UNSUPPORTED;
    }
    bc_prng rnd;
    bc_prng_init(&rnd, case_seed(c), 0x9a27, 0);
    bc_check result = BC_CHECK_PASS;
    for (int s = 0; s <= SAMPLES && result == BC_CHECK_PASS; s++) {
        int found = s == 0 ? witness(c, x, -1, 0) : sample(c, x, &rnd);
        if (found && judge_sample(c, x, &a, symbols, detail, cap))
            result = BC_CHECK_FAIL;
    }
    free(x);
    return result;
}

/* ---- partial-precision ------------------------------------------------------ */

static bc_check precision(bc_check_ctx *ctx, const bc_pvector *c, char *detail, size_t cap)
{
    bc_sut_panswer a;
    bc_check verdict;
    ask_partial(ctx, c, &a);
    if (!answered(&a, &verdict, detail, cap))
        return verdict;
    if (a.status != BC_SUT_OK)
        return BC_CHECK_PASS; /* nothing claimed: a wrong rejection is partial-soundness's */
    if (is_unknown_mapping(c))
        return unknown_mapping_precision(c, &a, BC_UMAP_BY_AXIS, block_in_split, detail, cap);
    if (crosses_axes(c) || has_dynamic_rank(c)) {
        snprintf(detail, cap, "not checked: %s (RULES.md §14.5)",
                 has_dynamic_rank(c) ? "a shape of unknown rank"
                                     : "a symbol on two axes (relaxation R1)");
        return BC_CHECK_UNSUPPORTED;
    }
    conc *x = malloc(sizeof *x);
    if (!x) {
        snprintf(detail, cap, "out of memory");
        return BC_CHECK_UNSUPPORTED;
    }
    char got[2048]; /* the answer, described only for a failure's detail */
    bc_check result = BC_CHECK_PASS;
    const int found = witness(c, x, -1, 0);
    if (!found && bc_params_profile(&c->params) == BC_PROFILE_NGRAPH_SELECT && c->nshapes == 3) {
        /* relaxation R3: its two steps are checked one at a time; no concretization to
         * try the bounds from either */
        free(x);
        snprintf(detail, cap,
                 "not checked: no accepted concretization found under ngraph-select "
                 "(relaxation R3, RULES.md §14.5)");
        return BC_CHECK_UNSUPPORTED;
    }
    if (!found) {
        /* why none is: what a known divergence's reach can tell bugs apart by */
        bc_pshape none;
        bc_error err = {0};
        describe_answer(&a, &c->syms, got, sizeof got);
        if (bc_pinfer(&c->params, c->nshapes, c->shapes, &c->syms, &none, &err) != BC_OK)
            snprintf(detail, cap, "SUT accepts (%s), but no concretization is accepted: %s", got,
                     err.message);
        else
            snprintf(detail, cap, "SUT accepts (%s), but no concretization is accepted", got);
        result = BC_CHECK_FAIL;
    }
    /* x is now the accepted concretization each bound is tried from */
    const bc_pshape *q = &a.shape;
    bc_pshape ref;
    int ref_ok = bc_pinfer(&c->params, c->nshapes, c->shapes, &c->syms, &ref, NULL) == BC_OK;
    for (int k = 0; k < q->rank && result == BC_CHECK_PASS; k++) {
        for (int side = 0; side < 2 && result == BC_CHECK_PASS; side++) {
            int64_t b = side ? q->dims[k].hi : q->dims[k].lo;
            if (side && q->dims[k].hi == q->dims[k].lo)
                break;
            if (reaches(c, x, k, b))
                continue;
            /* R2: the reference's own bound, where the result is the target as given */
            if (result_is_target(&c->params) && ref_ok && ref.rank == q->rank &&
                (side ? ref.dims[k].hi : ref.dims[k].lo) == b)
                continue;
            describe_answer(&a, &c->syms, got, sizeof got);
            snprintf(detail, cap,
                     "SUT gives %s, but no accepted concretization has %s%lld at "
                     "axis %d (its %s bound)",
                     got, b == BC_DIM_UNBOUNDED ? "a dim as large as " : "", (long long)b, k,
                     side ? "upper" : "lower");
            result = BC_CHECK_FAIL;
        }
    }
    free(x);
    return result;
}

/* ---- partial-static-agrees --------------------------------------------------- */

static bc_check static_agrees(bc_check_ctx *ctx, const bc_pvector *c, char *detail, size_t cap)
{
    bc_shape *s = malloc((size_t)BC_VECTOR_MAX_SHAPES * sizeof *s);
    if (!s) {
        snprintf(detail, cap, "out of memory");
        return BC_CHECK_UNSUPPORTED;
    }
    for (int i = 0; i < c->nshapes; i++)
        if (!bc_pshape_to_shape(&c->shapes[i], &s[i])) {
            free(s);
            snprintf(detail, cap, "not a static case: nothing to compare");
            return BC_CHECK_UNSUPPORTED;
        }
    bc_sut_panswer a;
    bc_check verdict;
    ask_partial(ctx, c, &a);
    if (!answered(&a, &verdict, detail, cap)) {
        free(s);
        return verdict;
    }
    bc_shape want;
    const bc_error_kind kind = bc_infer(&c->params, c->nshapes, s, &want, NULL);
    bc_check result = BC_CHECK_PASS;
    char got[2048], ref[2048];
    if (kind == BC_OK) {
        bc_pshape w = bc_pshape_from_shape(&want);
        bc_pshape q = a.shape;
        for (int k = 0; k < q.rank; k++)
            q.dims[k].sym = 0; /* a symbol on a static result says nothing more */
        if (a.status != BC_SUT_OK || !bc_pshape_equal(&q, &w)) {
            describe_answer(&a, &c->syms, got, sizeof got);
            bc_shape_format(&want, ref, sizeof ref);
            snprintf(detail, cap,
                     "on static shapes the SUT's partial inference gives %s, the static "
                     "reference %s",
                     got, ref);
            result = BC_CHECK_FAIL;
        }
    } else if (a.status != BC_SUT_REJECTED || (a.kind != BC_OK && a.kind != kind)) {
        /* the reference's error text, asked for only here: its detail */
        bc_error err;
        bc_infer(&c->params, c->nshapes, s, &want, &err);
        describe_answer(&a, &c->syms, got, sizeof got);
        snprintf(detail, cap,
                 "on static shapes the SUT's partial inference gives %s, the static "
                 "reference rejects: %s",
                 got, err.message);
        result = BC_CHECK_FAIL;
    }
    free(s);
    return result;
}

bc_check bc_partial_check(bc_partial_mode mode, bc_check_ctx *ctx, const bc_pvector *c,
                          char *detail, size_t cap)
{
    detail[0] = '\0';
    if (c->params.options & BC_OPT_AXES_UNKNOWN) {
        /* its concretizations choose the mapping too (RULES.md §14.9) */
        if (!is_unknown_mapping(c) || mode == BC_PMODE_STATIC) {
            snprintf(detail, cap, "not checked: %s",
                     mode == BC_PMODE_STATIC
                         ? "not a static case: nothing to compare"
                         : "an axes_mapping of unknown values outside explicit's two shapes");
            return BC_CHECK_UNSUPPORTED;
        }
        /* the properties below walk its mappings (is_unknown_mapping) */
    }
    switch (mode) {
    case BC_PMODE_SOUNDNESS: return concretizations_agree(ctx, c, 0, detail, cap);
    case BC_PMODE_SYMBOLS: return concretizations_agree(ctx, c, 1, detail, cap);
    case BC_PMODE_PRECISION: return precision(ctx, c, detail, cap);
    default: return static_agrees(ctx, c, detail, cap);
    }
}

/* ---- generation: forget, widen, name ------------------------------------------ */

/* An interval around d: lo at most 3 below, hi at most 3 above or none. */
static bc_pdim widen(bc_prng *r, int64_t d)
{
    bc_pdim p = bc_pdim_static(d);
    int64_t down = bc_prng_percent(r, 30) ? d : (int64_t)bc_prng_below(r, 4);
    p.lo = down > d ? 0 : d - down;
    if (bc_prng_percent(r, 30))
        p.hi = BC_DIM_UNBOUNDED;
    else {
        int64_t up = (int64_t)bc_prng_below(r, 4);
        p.hi = d > INT64_MAX - up ? INT64_MAX : d + up;
    }
    if (p.lo == p.hi && p.hi < INT64_MAX) /* an interval, not a static dim */
        p.hi++;
    if (p.lo == p.hi)
        p.lo--;
    return p;
}

static int symbol_named(bc_psymbols *syms, int index)
{
    char name[16];
    if (index < 26)
        snprintf(name, sizeof name, "%c", 'A' + index);
    else
        snprintf(name, sizeof name, "S%d", index);
    return bc_psymbols_intern(syms, name, strlen(name));
}

/* pytorch-expand (RULES.md §6.1): target dims that an input axis faces
 * become -1 ("keep"), now and then one on a new leading axis too
 * (negative-dim); with an input of unknown rank any may face one. */
static void pgen_expand(bc_prng *r, bc_pvector *c)
{
    bc_pshape *in = &c->shapes[0], *tg = &c->shapes[1];
    if (tg->rank == BC_RANK_DYNAMIC)
        return;
    const int lead = in->rank == BC_RANK_DYNAMIC ? 0 : tg->rank - in->rank;
    c->params.options |= BC_OPT_PROFILE;
    c->params.profile = BC_PROFILE_PYTORCH_EXPAND;
    for (int t = lead < 0 ? 0 : lead; t < tg->rank; t++)
        if (bc_prng_percent(r, 40))
            tg->dims[t] = bc_pdim_static(-1);
    if (lead > 0 && bc_prng_percent(r, 10))
        tg->dims[bc_prng_below(r, (uint64_t)lead)] = bc_pdim_static(-1);
}

/* openvino-explicit (RULES.md §8.3): a drawn axes-mapping case under it,
 * now and then with what only the profile takes: an entry repeated (its
 * input dim 1, or the target's dim there), or a scalar input with one
 * entry (naming a 1, or not). */
static void pgen_openvino_explicit(bc_prng *r, bc_pvector *c, int static_only)
{
    bc_pshape *in = &c->shapes[0], *tg = &c->shapes[1];
    bc_params *p = &c->params;
    p->options |= BC_OPT_PROFILE;
    p->profile = BC_PROFILE_OPENVINO_EXPLICIT;
    const int pick = (int)bc_prng_below(r, 100);
    if (pick < 30 && p->naxes >= 2 && in->rank == p->naxes) {
        int i = (int)bc_prng_range(r, 1, p->naxes - 1);
        p->axes[i] = p->axes[i - 1];
        const int64_t at = p->axes[i];
        const int how = (int)bc_prng_below(r, 3);
        if (how == 0)
            in->dims[i] = bc_pdim_static(1);
        else if (how == 1 && tg->rank != BC_RANK_DYNAMIC && at >= 0 && at < tg->rank)
            in->dims[i] = tg->dims[at];
        else if (static_only) /* partial-static-agrees: every dim static */
            in->dims[i] = bc_pdim_static(bc_prng_range(r, 2, 6));
        else { /* a dim of its own: the target dim may fit it and entry i-1's alone, not both */
            in->dims[i] = widen(r, (int64_t)bc_prng_range(r, 2, 6));
            /* Half the time the target dim spans both entries' dims, so that
             * each fits it alone and only the two together decide (§14.4 D9):
             * the case that tells a joint check from one entry at a time,
             * which drawn target dims reach once in thousands of cases. */
            if (tg->rank != BC_RANK_DYNAMIC && at >= 0 && at < tg->rank && bc_prng_percent(r, 50)) {
                const bc_pdim *a = &in->dims[i - 1], *b = &in->dims[i];
                bc_pdim span = {.lo = a->lo < b->lo ? a->lo : b->lo,
                                .hi = a->hi > b->hi ? a->hi : b->hi};
                tg->dims[at] = span;
            }
        }
    } else if (pick < 45 && tg->rank > 0) {
        in->rank = 0;
        p->naxes = 1;
        p->axes[0] = (int64_t)bc_prng_below(r, (uint64_t)tg->rank);
        if (bc_prng_percent(r, 50))
            tg->dims[p->axes[0]] = bc_pdim_static(1);
    }
}

/* static_only: the case must stay static (partial-static-agrees).  A
 * profile is drawn only for a SUT that declares it (profiles: its bits), as
 * the shape generator does numpy-empty-fold: another SUT's cases are the
 * ones it got before these profiles took partial shapes, none of them spent
 * on a question it refuses. */
static void pgen_last_profiles(bc_prng *r, bc_pvector *c, int static_only, unsigned profiles)
{
    const bc_params *p = &c->params;
    const int expand = (profiles >> BC_PROFILE_PYTORCH_EXPAND) & 1u,
              ov_explicit = (profiles >> BC_PROFILE_OPENVINO_EXPLICIT) & 1u,
              empty_fold = (profiles >> BC_PROFILE_NUMPY_EMPTY_FOLD) & 1u;
    if (p->rule == BC_RULE_BROADCAST_TO && c->nshapes == 2 && !(p->options & BC_OPT_PROFILE) &&
        expand && bc_prng_percent(r, 15))
        pgen_expand(r, c);
    else if (p->rule == BC_RULE_EXPLICIT && c->nshapes == 2 && (p->options & BC_OPT_AXES_MAPPING) &&
             !(p->options & (BC_OPT_AXES | BC_OPT_PROFILE)) && ov_explicit &&
             bc_prng_percent(r, 30))
        pgen_openvino_explicit(r, c, static_only);
    else if (p->rule == BC_RULE_NUMPY && !(p->options & BC_OPT_PROFILE) && empty_fold &&
             bc_prng_percent(r, 10)) {
        /* numpy-empty-fold (RULES.md §3.1): the same answers, and [] of no shape */
        c->params.options |= BC_OPT_PROFILE;
        c->params.profile = BC_PROFILE_NUMPY_EMPTY_FOLD;
        if (bc_prng_percent(r, 30))
            c->nshapes = 0;
    }
}

/* An explicit axes-mapping case whose mapping is forgotten (RULES.md §14.9):
 * its values, or now and then its length too; only for a SUT that takes
 * such a mapping (caps), so that another SUT's cases are the ones it got
 * before. */
static void pgen_unknown_mapping(bc_prng *r, bc_pvector *c, unsigned caps)
{
    bc_params *p = &c->params;
    if (!(caps & BC_PARTIAL_AXES_UNKNOWN) || p->rule != BC_RULE_EXPLICIT || c->nshapes != 2 ||
        !(p->options & BC_OPT_AXES_MAPPING) || (p->options & BC_OPT_AXES) ||
        !bc_prng_percent(r, 30))
        return;
    p->options |= BC_OPT_AXES_UNKNOWN;
    if (bc_prng_percent(r, 25))
        p->naxes = -1;
    for (int k = 0; k < BC_MAX_RANK; k++)
        p->axes[k] = 0; /* unused: a case's bytes say only what its line says */
}

void bc_pgen_case(bc_prng *r, bc_rule rule, unsigned caps, unsigned profiles, bc_partial_mode mode,
                  bc_pvector *c)
{
    bc_vector v; /* not zeroed: bc_gen_case sets what it uses, and so do the lines below */
    /* the op-mode profiles (RULES.md §5.4 to §5.6, §8.4) take partial shapes too (§14.4) */
    bc_gen_request req = {
        .rule = rule, .reject_percent = mode == BC_PMODE_STATIC ? 40 : 25, .opmodes_percent = 35};
    bc_gen_case(r, &req, &v);
    c->params = v.params;
    c->nshapes = v.nshapes;
    c->syms.count = 0;
    c->expect = BC_EXPECT_ANY_ERROR;
    c->expect_kind = BC_OK;
    c->expect_shape.rank = 0;
    for (int i = 0; i < v.nshapes; i++)
        c->shapes[i] = bc_pshape_from_shape(&v.shapes[i]);
    if (mode == BC_PMODE_STATIC) {
        pgen_last_profiles(r, c, 1, profiles);
        return;
    }
    /* symbols: one per (place, value), sometimes per value alone (R1) */
    int rank[BC_VECTOR_MAX_SHAPES];
    ranks_of(c, rank);
    int nsym = 0, sym_place[BC_MAX_SYMBOLS];
    int64_t sym_value[BC_MAX_SYMBOLS];
    bc_pdim sym_bounds[BC_MAX_SYMBOLS];
    int cross = mode != BC_PMODE_PRECISION && bc_prng_percent(r, 20);
    int forget = (int)bc_prng_range(r, 5, 40), interval = (int)bc_prng_range(r, 10, 40),
        name = (int)bc_prng_range(r, 10, 40);
    if (!(caps & BC_PARTIAL_DYNAMIC))
        forget = 0;
    if (!(caps & BC_PARTIAL_INTERVAL))
        interval = 0;
    if (!(caps & BC_PARTIAL_SYMBOL))
        name = 0;
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].rank; k++) {
            bc_pdim *d = &c->shapes[i].dims[k];
            int64_t value = d->lo;
            if (value < 0)
                continue; /* a negative dim stays as written: invalid input */
            int pick = (int)bc_prng_below(r, 100);
            if (pick < forget) {
                *d = bc_pdim_dynamic();
            } else if (pick < forget + interval) {
                *d = widen(r, value);
            } else if (pick < forget + interval + name) {
                int at = place_of(&c->params, c->nshapes, rank, i, k);
                int s = -1;
                for (int j = 0; j < nsym && s < 0; j++)
                    if (sym_value[j] == value && (cross || sym_place[j] == at) &&
                        !bc_prng_percent(r, 10))
                        s = j;
                if (s < 0 && nsym < BC_MAX_SYMBOLS && (at >= 0 || cross)) {
                    s = nsym++;
                    sym_value[s] = value;
                    sym_place[s] = at;
                    sym_bounds[s] = (caps & BC_PARTIAL_INTERVAL) && bc_prng_percent(r, 35)
                                        ? widen(r, value)
                                        : bc_pdim_dynamic();
                }
                if (s >= 0) {
                    /* each occurrence its own bounds, all holding the value, now and then */
                    *d = (caps & BC_PARTIAL_INTERVAL) && bc_prng_percent(r, 15) ? widen(r, value)
                                                                                : sym_bounds[s];
                    d->sym = symbol_named(&c->syms, s);
                }
            }
        }
    if ((caps & BC_PARTIAL_DYNAMIC_RANK) && mode != BC_PMODE_PRECISION)
        for (int i = 0; i < c->nshapes; i++)
            if (bc_prng_percent(r, 4))
                c->shapes[i].rank = BC_RANK_DYNAMIC;
    /* The profiles drawn last, so that a case of any other rule, and one
     * that does not take them, is the case it was before they took partial
     * shapes (RULES.md §14.4) */
    pgen_last_profiles(r, c, 0, profiles);
    pgen_unknown_mapping(r, c, caps);
}

/* ---- coverage ---------------------------------------------------------------- */

void bc_pclassify(const bc_pvector *c, int64_t coverage[BC_COV_COUNT],
                  int64_t rejects[BC_ERR_KIND_COUNT])
{
    int seen[BC_COV_COUNT] = {0}, uses[BC_MAX_SYMBOLS + 1] = {0};
    seen[BC_COV_PARTIAL] = 1;
    for (int i = 0; i < c->nshapes; i++) {
        if (c->shapes[i].rank == BC_RANK_DYNAMIC)
            seen[BC_COV_PARTIAL_DYNAMIC_RANK] = 1;
        for (int k = 0; k < c->shapes[i].rank; k++) {
            const bc_pdim *d = &c->shapes[i].dims[k];
            if (d->sym > 0 && d->sym <= BC_MAX_SYMBOLS && uses[d->sym]++)
                seen[BC_COV_PARTIAL_SYMBOL_SHARED] = 1;
            seen[BC_COV_PARTIAL_SYMBOL] |= d->sym != 0;
            if (d->lo == 0 && d->hi == BC_DIM_UNBOUNDED)
                seen[BC_COV_PARTIAL_DYNAMIC] = 1;
            else if (d->lo != d->hi)
                seen[d->hi == BC_DIM_UNBOUNDED ? BC_COV_PARTIAL_UNBOUNDED
                                               : BC_COV_PARTIAL_INTERVAL] = 1;
        }
    }
    bc_pshape out;
    bc_error_kind k = bc_pinfer(&c->params, c->nshapes, c->shapes, &c->syms, &out, NULL);
    if (k != BC_OK) {
        seen[BC_COV_PARTIAL_REJECT] = 1;
        rejects[k]++;
    }
    for (int j = 0; j < BC_COV_COUNT; j++)
        coverage[j] += seen[j];
}

/* ---- shrinking ------------------------------------------------------------------ */

static void remove_pdim(bc_pshape *s, int k)
{
    memmove(&s->dims[k], &s->dims[k + 1], (size_t)(s->rank - k - 1) * sizeof s->dims[0]);
    s->rank--;
}

/* The simplifications of one dim, simplest first: its symbol dropped; an
 * interval made the static dim at its lower bound, or 1, or started at 0;
 * then BC_SHRINK_LOWER_DIM_CANDIDATES steps: a static dim lowered (0, 1, 2,
 * half, bisecting toward a threshold), a bounded interval narrowed the
 * same way (its width lowered, its lower bound kept). */
#define DIM_STEPS (4 + BC_SHRINK_LOWER_DIM_CANDIDATES)

static int simpler_dim(const bc_pdim *d, int step, bc_pdim *out)
{
    *out = *d;
    int is_static = d->lo == d->hi;
    int64_t v;
    switch (step) {
    case 0: out->sym = 0; return d->sym != 0;
    case 1: return !is_static && (out->hi = d->lo, 1);
    case 2: return !is_static && bc_pdim_may_be_1(d) && d->lo != 1 && (out->lo = out->hi = 1, 1);
    case 3: return !is_static && d->lo > 0 && (out->lo = 0, 1);
    default:
        if (is_static)
            return bc_shrink_lower_dim(d->lo, step - 4, &v) && (out->lo = out->hi = v, 1);
        /* width 0 is step 1's static dim */
        return d->hi != BC_DIM_UNBOUNDED && step > 4 &&
               bc_shrink_lower_dim(d->hi - d->lo, step - 4, &v) && (out->hi = d->lo + v, 1);
    }
}

/* c's ranks and options as a static case, which is all that the shared
 * axis steps (bc_shrink_axes_candidate) and the alignment read; axis k of
 * each operand is labelled k, so that a step's result names the axes it
 * kept.  An unknown rank counts as [] (it has no axis to line up). */
static void axes_skeleton(const bc_pvector *c, bc_vector *s)
{
    /* only what those read is written: the whole struct is ~70 KB */
    s->params = c->params;
    memset(&s->value, 0, sizeof s->value);
    s->nshapes = c->nshapes;
    for (int i = 0; i < c->nshapes; i++) {
        s->shapes[i].rank = c->shapes[i].rank < 0 ? 0 : c->shapes[i].rank;
        for (int k = 0; k < s->shapes[i].rank; k++)
            s->shapes[i].dims[k] = k;
    }
}

/* The idx-th of the steps that drop axes as the rule lines them up (a
 * frame axis from every operand, a block of them, explicit's input axis
 * with its entry), renumbering explicit's mapping and pdpd's axis. */
static int drop_aligned_axes(const bc_pvector *c, long idx, bc_vector *skel, bc_vector *kept,
                             bc_pvector *out)
{
    axes_skeleton(c, skel);
    int k = bc_shrink_axes_candidate(skel, idx, kept);
    if (k != 1)
        return k;
    *out = *c;
    out->params = kept->params;
    for (int i = 0; i < c->nshapes; i++) {
        if (c->shapes[i].rank < 0)
            continue;
        out->shapes[i].rank = kept->shapes[i].rank;
        for (int j = 0; j < kept->shapes[i].rank; j++)
            out->shapes[i].dims[j] = c->shapes[i].dims[kept->shapes[i].dims[j]];
    }
    return 1;
}

/* The largest known rank of c's operands (no frame is larger). */
static int max_rank(const bc_pvector *c)
{
    int r = 0;
    for (int i = 0; i < c->nshapes; i++)
        r = c->shapes[i].rank > r ? c->shapes[i].rank : r;
    return r;
}

/* Simplifies frame axis t's dim (simpler_dim's step) in every operand
 * lined up with it that has the first such operand's dim there, when two
 * or more do: equal dims stay equal (one alone turns the case into a dim
 * mismatch). */
static int simplify_shared_dim(const bc_pvector *c, int t, int step, bc_vector *skel,
                               bc_pvector *out)
{
    axes_skeleton(c, skel);
    int axis_of[BC_MAX_RANK], at[BC_VECTOR_MAX_SHAPES], holders = 0;
    bc_pdim d = {0, 0, 0}, simpler;
    for (int i = 0; i < c->nshapes; i++) {
        at[i] = -1;
        if (c->shapes[i].rank < 0)
            continue;
        bc_align(skel, i, axis_of);
        for (int k = 0; k < c->shapes[i].rank; k++)
            if (axis_of[k] == t) {
                const bc_pdim *di = &c->shapes[i].dims[k];
                if (holders == 0)
                    d = *di;
                if (di->lo == d.lo && di->hi == d.hi && di->sym == d.sym) {
                    at[i] = k;
                    holders++;
                }
                break;
            }
    }
    if (holders < 2 || d.lo < 0 || !simpler_dim(&d, step, &simpler))
        return 0;
    *out = *c;
    for (int i = 0; i < c->nshapes; i++)
        if (at[i] >= 0)
            out->shapes[i].dims[at[i]] = simpler;
    return 1;
}

/* Symbol s (1-based) in every dim that carries it, when two or more do:
 * step 0 drops it (fewer symbols), step 1 makes each of them the static
 * dim the symbol's smallest possible value is (the largest lower bound, if
 * every interval holds it).  One use alone is simpler_dim's. */
static int simplify_symbol(const bc_pvector *c, int s, int step, bc_pvector *out)
{
    int uses = 0;
    int64_t lo = 0, hi = BC_DIM_UNBOUNDED;
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].rank; k++) {
            const bc_pdim *d = &c->shapes[i].dims[k];
            if (d->sym != s)
                continue;
            uses++;
            lo = d->lo > lo ? d->lo : lo;
            hi = d->hi < hi ? d->hi : hi;
        }
    if (uses < 2 || (step == 1 && lo > hi))
        return 0;
    *out = *c;
    for (int i = 0; i < c->nshapes; i++)
        for (int k = 0; k < c->shapes[i].rank; k++) {
            bc_pdim *d = &out->shapes[i].dims[k];
            if (d->sym != s)
                continue;
            d->sym = 0;
            if (step == 1)
                d->lo = d->hi = lo;
        }
    return 1;
}

/* The idx-th simplification.  The big steps come first: operands, options,
 * axes as the rule lines them up, then one axis, then dims (shared ones
 * together, a symbol everywhere, then one dim). */
static int pshrink_candidate(const bc_pvector *c, long idx, bc_vector *skel, bc_vector *kept,
                             bc_pvector *out)
{
    const int n = c->nshapes;
    const bc_rule rule = c->params.rule;
    if (idx < n) { /* drop an operand */
        if (!(rule == BC_RULE_NONE || rule == BC_RULE_NUMPY) || n <= 1)
            return 0;
        *out = *c;
        memmove(&out->shapes[idx], &out->shapes[idx + 1],
                (size_t)(n - idx - 1) * sizeof out->shapes[0]);
        out->nshapes--;
        return 1;
    }
    idx -= n;
    static const unsigned droppable[] = {BC_OPT_PROFILE, BC_OPT_AXIS};
    if (idx < 2) { /* drop an option */
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
    if (idx < BC_SHRINK_AXES_STEPS) /* drop axes as the rule lines them up */
        return drop_aligned_axes(c, idx, skel, kept, out);
    idx -= BC_SHRINK_AXES_STEPS;
    if (idx < BC_MAX_RANK) { /* drop an axes entry */
        if (idx >= c->params.naxes)
            return 0;
        *out = *c;
        memmove(&out->params.axes[idx], &out->params.axes[idx + 1],
                (size_t)(c->params.naxes - idx - 1) * sizeof out->params.axes[0]);
        out->params.naxes--;
        return 1;
    }
    idx -= BC_MAX_RANK;
    if (idx < n) { /* an unknown rank becomes the scalar */
        if (c->shapes[idx].rank != BC_RANK_DYNAMIC)
            return 0;
        *out = *c;
        out->shapes[idx].rank = 0;
        return 1;
    }
    idx -= n;
    if (idx < (long)n * BC_MAX_RANK) { /* drop one axis of one operand */
        int i = (int)(idx / BC_MAX_RANK), k = (int)(idx % BC_MAX_RANK);
        if (k >= c->shapes[i].rank)
            return 0;
        *out = *c;
        remove_pdim(&out->shapes[i], k);
        return 1;
    }
    idx -= (long)n * BC_MAX_RANK;
    if (idx < (long)BC_MAX_RANK * DIM_STEPS) /* simplify a frame axis's dim together */
        return idx / DIM_STEPS >= max_rank(c) ? 0 : simplify_shared_dim(c, (int)(idx / DIM_STEPS), (int)(idx % DIM_STEPS), skel, out);
    idx -= (long)BC_MAX_RANK * DIM_STEPS;
    if (idx < 2L * BC_MAX_SYMBOLS) /* a symbol everywhere: dropped, then made static */
        return simplify_symbol(c, (int)(idx % BC_MAX_SYMBOLS) + 1, (int)(idx / BC_MAX_SYMBOLS),
                               out);
    idx -= 2L * BC_MAX_SYMBOLS;
    if (idx < (long)n * BC_MAX_RANK * DIM_STEPS) { /* simplify one dim */
        int step = (int)(idx % DIM_STEPS);
        long pos = idx / DIM_STEPS;
        int i = (int)(pos / BC_MAX_RANK), k = (int)(pos % BC_MAX_RANK);
        bc_pdim d;
        if (k >= c->shapes[i].rank || c->shapes[i].dims[k].lo < 0 ||
            !simpler_dim(&c->shapes[i].dims[k], step, &d))
            return 0;
        *out = *c;
        out->shapes[i].dims[k] = d;
        return 1;
    }
    return -1;
}

/* Numbers the symbols a candidate still uses in the order they first
 * appear and forgets the others, as parsing its line does: the case a
 * shrink checks is the one its replay line makes in a fresh process (an
 * external SUT is sent the symbol table). */
static void renumber_symbols(bc_pvector *v)
{
    int map[BC_MAX_SYMBOLS + 1] = {0}, count = 0;
    bc_psymbols names;
    names.count = 0;
    for (int i = 0; i < v->nshapes; i++)
        for (int k = 0; k < v->shapes[i].rank; k++) {
            int *sym = &v->shapes[i].dims[k].sym;
            if (*sym <= 0 || *sym > v->syms.count)
                continue;
            if (!map[*sym]) {
                map[*sym] = ++count;
                memcpy(names.names[count - 1], v->syms.names[*sym - 1], sizeof names.names[0]);
            }
            *sym = map[*sym];
        }
    names.count = count;
    memcpy(v->syms.names, names.names, (size_t)count * sizeof names.names[0]);
    v->syms.count = count;
}

/* pshrink_candidate as the parse of its line makes it (scratch: two
 * bc_vector): its symbols renumbered, and an unknown mapping left with no
 * entry the empty mapping its line ("axes-mapping=") says. */
static int pshrink_step(const bc_pvector *c, long idx, bc_vector *scratch, bc_pvector *out)
{
    int k = pshrink_candidate(c, idx, scratch, scratch + 1, out);
    if (k == 1) {
        renumber_symbols(out);
        if ((out->params.options & BC_OPT_AXES_UNKNOWN) && out->params.naxes == 0)
            out->params.options &= ~(unsigned)BC_OPT_AXES_UNKNOWN;
    }
    return k;
}

int bc_pshrink_candidate(const bc_pvector *c, long idx, bc_pvector *out)
{
    bc_vector *scratch = malloc(2 * sizeof *scratch);
    if (!scratch)
        return -1;
    int k = pshrink_step(c, idx, scratch, out);
    free(scratch);
    return k;
}

/* bc_shrink_greedy's view of a partial case */
typedef struct pshrink_self {
    bc_partial_mode mode;
    bc_vector *scratch; /* pshrink_step's two */
} pshrink_self;

static int pshrink_kind_candidate(void *self, const void *c, long idx, void *cand)
{
    return pshrink_step(c, idx, ((pshrink_self *)self)->scratch, cand);
}

static bc_check pshrink_kind_check(void *self, bc_check_ctx *ctx, const void *c, char *detail,
                                   size_t cap)
{
    return bc_partial_check(((pshrink_self *)self)->mode, ctx, c, detail, cap);
}

static int pshrink_kind_takes(bc_check_ctx *ctx, void *cand, const char *detail)
{
    return ctx->takes(ctx->hook, NULL, cand, detail);
}

int bc_pshrink(bc_partial_mode mode, bc_check_ctx *ctx, bc_pvector *c, int64_t max_calls,
               char *detail, size_t cap)
{
    ctx->stopped = BC_SHRINK_MINIMAL;
    pshrink_self self = {mode, malloc(2 * sizeof(bc_vector))};
    if (!self.scratch)
        return 0;
    bc_shrink_kind k = {sizeof *c, pshrink_kind_candidate, pshrink_kind_check, pshrink_kind_takes,
                        &self};
    int steps = bc_shrink_greedy(&k, ctx, c, max_calls, detail, cap);
    free(self.scratch);
    return steps;
}
