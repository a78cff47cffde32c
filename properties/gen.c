/*
 * Case generators.  Accept cases are built from a result shape by dropping
 * leading dims and setting dims to 1, so they are broadcastable by
 * construction and most of them stretch something; reject cases are accept
 * cases with one mutation from a catalogue (a dim changed, a rank too
 * large, an axis out of range, axes duplicated or unsorted, a negative dim).
 * Whether a case is accepted is always decided by the reference, never by
 * the generator: generators only aim.
 */
#include "gen.h"

#include <string.h>

/* A dim for a result shape: mostly small, sometimes 0 or 1, rarely huge. */
static int64_t gen_dim(bc_prng *r, int64_t max_dim)
{
    int64_t d;
    int pick = (int)bc_prng_below(r, 100);
    if (pick < 10)
        d = 0;
    else if (pick < 22)
        d = 1;
    else if (pick < 85)
        d = bc_prng_range(r, 2, 5);
    else if (pick < 97)
        d = bc_prng_range(r, 6, 300);
    else
        d = bc_prng_range(r, (int64_t)1 << 32, INT64_MAX);
    if (max_dim > 0 && d > max_dim)
        d = bc_prng_range(r, 2, max_dim);
    return d;
}

/* A rank: mostly 1..4, sometimes 0, up to the limit now and then. */
static int gen_rank(bc_prng *r, int max_rank)
{
    int pick = (int)bc_prng_below(r, 100);
    int rank;
    if (pick < 6)
        rank = 0;
    else if (pick < 70)
        rank = (int)bc_prng_range(r, 1, 4);
    else if (pick < 95)
        rank = (int)bc_prng_range(r, 5, 8);
    else if (pick < 98)
        rank = (int)bc_prng_range(r, 9, BC_MAX_RANK);
    else
        rank = BC_MAX_RANK;
    return rank > max_rank ? max_rank : rank;
}

static void gen_result(bc_prng *r, int rank, int64_t max_dim, bc_shape *s)
{
    s->rank = rank;
    for (int i = 0; i < rank; i++)
        s->dims[i] = gen_dim(r, max_dim);
}

/* Lowers the largest dims of s until it has at most 64 elements. */
static void fit_64_elements(bc_shape *s)
{
    for (;;) {
        int64_t numel = 1;
        int largest = 0;
        for (int i = 0; i < s->rank; i++) {
            numel *= s->dims[i];
            if (s->dims[i] > s->dims[largest])
                largest = i;
        }
        if (numel <= 64)
            return;
        s->dims[largest]--;
    }
}

/* A result shape for a value case, of at most 64 elements: rank 0 to 6
 * (mostly 1 to 3) with dims 0 to 4; or, in 10 % of cases where max_rank
 * allows, rank 7 to max_rank (mostly 7 to 10: just past the rank-6
 * kernels of many libraries), all 1s but two to four axes of 2 or 3 at
 * random places, so that a kernel collapsing or dropping high axes shows.
 * A 0 dim in 12 % of them, so that with the operands' own 0s over 10 % of
 * value cases hold one. */
static void gen_value_result(bc_prng *r, int max_rank, bc_shape *s)
{
    static const int rank_weight[7] = {8, 22, 30, 22, 10, 5, 3};
    if (max_rank >= 7 && bc_prng_percent(r, 10)) {
        int hi = max_rank < 10 || bc_prng_percent(r, 65) ? (max_rank < 10 ? max_rank : 10)
                                                          : max_rank;
        s->rank = (int)bc_prng_range(r, 7, hi);
        for (int i = 0; i < s->rank; i++)
            s->dims[i] = 1;
        int big = (int)bc_prng_range(r, 2, 4);
        for (int j = 0; j < big; j++)
            s->dims[bc_prng_below(r, (uint64_t)s->rank)] = bc_prng_range(r, 2, 3);
    } else {
        int x = (int)bc_prng_below(r, 100), rank = 0;
        while (x >= rank_weight[rank]) {
            x -= rank_weight[rank];
            rank++;
        }
        s->rank = rank < max_rank ? rank : max_rank;
        for (int i = 0; i < s->rank; i++)
            s->dims[i] = bc_prng_percent(r, 18) ? 1 : bc_prng_range(r, 2, 4);
    }
    if (s->rank > 0 && bc_prng_percent(r, 12))
        s->dims[bc_prng_below(r, (uint64_t)s->rank)] = 0;
    fit_64_elements(s);
}

/* A length for the medium tier's innermost axis, at most hi: a multiple of a
 * vector width (8 to 64 elements) plus an odd tail; just short of or past a
 * cache block or a thread grain (1,024 to 262,144 elements; PyTorch splits
 * elementwise work at 32,768); or any length, log-uniform.  The main loops
 * and the tails of real kernels start and end at such lengths. */
static int64_t medium_length(bc_prng *r, int64_t hi)
{
    static const int64_t width[] = {8, 16, 32, 64};
    static const int64_t block[] = {1024, 4096, 8192, 16384, 32768, 65536, 131072, 262144};
    int64_t d;
    int pick = (int)bc_prng_below(r, 100);
    if (pick < 40) {
        int64_t w = width[bc_prng_below(r, 4)];
        int64_t most = hi / w > 1 ? hi / w - 1 : 1;
        d = w * bc_prng_range(r, 1, most < 4096 ? most : 4096) + 2 * bc_prng_range(r, 0, w / 2 - 1) + 1;
    } else if (pick < 75) {
        d = block[bc_prng_below(r, sizeof block / sizeof block[0])] + bc_prng_range(r, -9, 9);
    } else {
        int bits = (int)bc_prng_range(r, 0, 19);
        d = bc_prng_range(r, (int64_t)1 << bits, ((int64_t)1 << (bits + 1)) - 1);
    }
    return d < 1 ? 1 : d > hi ? hi : d;
}

/* A result shape for the medium tier: 10^3 to 2^20 elements, rank 1 to 6
 * (mostly 1 to 3), its innermost axis of a medium_length and the outer ones
 * small odd or even factors; now and then the interesting length sits one
 * axis further out, behind a short inner axis, so that a stretched inner
 * operand crosses it too.  No 0 dims: those are the small tier's. */
static void gen_medium_result(bc_prng *r, int max_rank, bc_shape *s)
{
    static const int rank_weight[6] = {30, 35, 20, 9, 4, 2};
    int x = (int)bc_prng_below(r, 100), rank = 0;
    while (x >= rank_weight[rank]) {
        x -= rank_weight[rank];
        rank++;
    }
    rank++;
    s->rank = rank < max_rank ? rank : max_rank > 0 ? max_rank : 1;
    const int64_t most = (int64_t)1 << 20;
    int bits = (int)bc_prng_range(r, 10, 19);
    int64_t target = bc_prng_range(r, (int64_t)1 << bits, ((int64_t)1 << (bits + 1)) - 1);
    int inner = s->rank - 1;
    if (s->rank >= 2 && bc_prng_percent(r, 20))
        inner = s->rank - 2; /* behind a short last axis */
    for (int i = 0; i < s->rank; i++)
        s->dims[i] = i == inner ? 1 : bc_prng_range(r, 1, 7);
    int64_t others = 1;
    for (int i = 0; i < s->rank; i++)
        others *= s->dims[i];
    s->dims[inner] = medium_length(r, target / others > 1 ? target / others : 1);
    int64_t numel = others * s->dims[inner];
    /* grow the outermost axis to at least 1,000 elements, within 2^20 */
    if (numel < 1000) {
        int64_t rest = numel / s->dims[0];
        s->dims[0] = (1000 + rest - 1) / rest + bc_prng_range(r, 0, 3);
    }
    for (;;) { /* and no more than 2^20 */
        numel = 1;
        int largest = 0;
        for (int i = 0; i < s->rank; i++) {
            numel *= s->dims[i];
            largest = s->dims[i] > s->dims[largest] ? i : largest;
        }
        if (numel <= most)
            return;
        s->dims[largest] = s->dims[largest] / 2 + 1;
    }
}

/* A result shape for the huge tier: 2^31 and a few more elements (past any
 * 32-bit element index), rank 2 or 3, so that operands that stretch hold
 * few elements: [A, B] or [A, 3, B] with B a medium_length. */
static void gen_huge_result(bc_prng *r, bc_shape *s)
{
    const int64_t past = ((int64_t)1 << 31) + 2 * bc_prng_range(r, 0, 1 << 15) + 1;
    s->rank = bc_prng_percent(r, 70) ? 2 : 3;
    int64_t b = medium_length(r, (int64_t)1 << 20), mid = s->rank == 3 ? 3 : 1;
    s->dims[s->rank - 1] = b;
    if (s->rank == 3)
        s->dims[1] = mid;
    s->dims[0] = (past + b * mid - 1) / (b * mid);
}

/* An operand that broadcasts to `result`: its trailing `keep` axes, some set
 * to 1.  ones_percent is how often each axis becomes 1. */
static void derive(bc_prng *r, const bc_shape *result, int keep, int ones_percent, bc_shape *out)
{
    out->rank = keep;
    for (int k = 0; k < keep; k++) {
        int64_t d = result->dims[result->rank - keep + k];
        out->dims[k] = bc_prng_percent(r, ones_percent) ? 1 : d;
    }
}

/* How many trailing axes an operand keeps: usually all, often fewer. */
static int gen_keep(bc_prng *r, int rank)
{
    if (rank == 0 || bc_prng_percent(r, 55))
        return rank;
    return (int)bc_prng_below(r, (uint64_t)rank + 1);
}

static void prepend_ones(bc_shape *s, int count)
{
    if (count <= 0)
        return;
    if (s->rank + count > BC_MAX_RANK)
        count = BC_MAX_RANK - s->rank;
    memmove(&s->dims[count], &s->dims[0], (size_t)s->rank * sizeof s->dims[0]);
    for (int i = 0; i < count; i++)
        s->dims[i] = 1;
    s->rank += count;
}

/* ---- the mutation catalogue ------------------------------------------- */

/* One dim changed to a value that is neither the old one nor 1. */
static void mutate_dim(bc_prng *r, bc_vector *c)
{
    int i = (int)bc_prng_below(r, (uint64_t)c->nshapes);
    bc_shape *s = &c->shapes[i];
    if (s->rank == 0)
        return;
    int k = (int)bc_prng_below(r, (uint64_t)s->rank);
    int64_t old = s->dims[k];
    int64_t d;
    switch (bc_prng_below(r, 3)) {
    case 0: d = 0; break;
    case 1: d = old < INT64_MAX ? old + 1 : old - 1; break;
    default: d = bc_prng_range(r, 2, 7); break;
    }
    if (d == old || d == 1)
        d = old == 2 ? 3 : 2;
    s->dims[k] = d;
}

static void mutate_negative(bc_prng *r, bc_vector *c)
{
    int i = (int)bc_prng_below(r, (uint64_t)c->nshapes);
    bc_shape *s = &c->shapes[i];
    if (s->rank == 0)
        s->rank = 1;
    int k = (int)bc_prng_below(r, (uint64_t)s->rank);
    s->dims[k] = bc_prng_percent(r, 70) ? -1 : bc_prng_range(r, INT64_MIN, -2);
}

/* The operand that must be the smaller gets more axes than the other. */
static void mutate_rank(bc_prng *r, bc_vector *c, int small, int big)
{
    int gap = c->shapes[big].rank - c->shapes[small].rank; /* < 0 if paddle swapped them */
    int extra = (gap > 0 ? gap : 0) + 1 + (int)bc_prng_below(r, 2);
    if (c->shapes[small].rank + extra > BC_MAX_RANK)
        return;
    prepend_ones(&c->shapes[small], extra);
    if (bc_prng_percent(r, 50))
        c->shapes[small].dims[0] = bc_prng_range(r, 2, 4);
}

/* ---- per rule ----------------------------------------------------------- */

static void gen_nary(bc_prng *r, const bc_gen_request *req, const bc_shape *result, bc_vector *c)
{
    int lo = req->min_operands > 0 ? req->min_operands : 1;
    int hi = req->max_operands > 0 ? req->max_operands : BC_MAX_OPERANDS;
    int n;
    int pick = (int)bc_prng_below(r, 100);
    if (pick < 65)
        n = 2;
    else if (pick < 80)
        n = 3;
    else if (pick < 93)
        n = (int)bc_prng_range(r, 1, 8);
    else if (pick < 98)
        n = (int)bc_prng_range(r, 9, BC_GEN_OPERANDS_BEFORE);
    else
        n = BC_GEN_OPERANDS_BEFORE;
    /* Past 64 (RULES.md §9.5) only for a SUT that takes more: another's
     * draws stay as they were.  Half of these reach the SUT's limit. */
    int most = req->sut_max_operands < hi ? req->sut_max_operands : hi;
    if (n == BC_GEN_OPERANDS_BEFORE && most > BC_GEN_OPERANDS_BEFORE)
        n = bc_prng_percent(r, 50) ? most
                                   : (int)bc_prng_range(r, BC_GEN_OPERANDS_BEFORE + 1, most);
    n = n < lo ? lo : n > hi ? hi : n;
    c->nshapes = n;
    int ones = (int)bc_prng_range(r, 10, 60);
    for (int i = 0; i < n; i++) {
        if (req->rule == BC_RULE_NONE)
            c->shapes[i] = *result;
        else
            derive(r, result, gen_keep(r, result->rank), ones, &c->shapes[i]);
    }
    /* Keep every result dim owned by some operand most of the time, so the
     * result is the one we aimed at and a 1 really stretches. */
    if (req->rule == BC_RULE_NUMPY && n > 0 && bc_prng_percent(r, 70)) {
        int owner = (int)bc_prng_below(r, (uint64_t)n);
        c->shapes[owner] = *result;
    }
}

static void gen_pdpd(bc_prng *r, const bc_shape *a, bc_vector *c)
{
    static const bc_profile profiles[] = {BC_PROFILE_OPENVINO_DOC,
                                          BC_PROFILE_OPENVINO_SHAPE_INFERENCE,
                                          BC_PROFILE_PADDLE};
    bc_profile profile = profiles[bc_prng_below(r, 3)];
    int len = (int)bc_prng_below(r, (uint64_t)a->rank + 1);
    int start = (int)bc_prng_below(r, (uint64_t)(a->rank - len) + 1);
    bc_shape b;
    b.rank = len;
    for (int k = 0; k < len; k++)
        b.dims[k] = bc_prng_percent(r, 30) ? 1 : a->dims[start + k];
    int trailing = bc_prng_percent(r, 35) ? (int)bc_prng_range(r, 1, 2) : 0;
    if (start + len + trailing > a->rank && bc_prng_percent(r, 50))
        trailing = a->rank - start - len;
    for (int t = 0; t < trailing && b.rank < BC_MAX_RANK; t++)
        b.dims[b.rank++] = 1;
    c->nshapes = 2;
    c->shapes[0] = *a;
    c->shapes[1] = b;
    if (profile == BC_PROFILE_PADDLE && bc_prng_percent(r, 40)) {
        /* Paddle stretches A too: set some of A's window dims to 1. */
        for (int k = 0; k < len; k++)
            if (c->shapes[1].dims[k] != 1 && bc_prng_percent(r, 40))
                c->shapes[0].dims[start + k] = 1;
        if (bc_prng_percent(r, 50)) { /* either operand may be the smaller */
            c->shapes[0] = c->shapes[1];
            c->shapes[1] = *a;
        }
    }
    if (profile != BC_PROFILE_OPENVINO_DOC || bc_prng_percent(r, 30)) {
        c->params.options |= BC_OPT_PROFILE;
        c->params.profile = profile;
    }
    /* Name the axis unless the default gives the same start. */
    int default_start = a->rank - b.rank;
    if (start != default_start || bc_prng_percent(r, 25)) {
        c->params.options |= BC_OPT_AXIS;
        c->params.axis = start;
    }
}

static void gen_explicit(bc_prng *r, const bc_shape *target, bc_vector *c)
{
    c->nshapes = 2;
    c->shapes[1] = *target;
    bc_shape *in = &c->shapes[0];
    in->rank = 0;
    if (bc_prng_percent(r, 50)) {
        /* nGraph broadcast_axes: a subset of target axes, listed in any order. */
        c->params.options |= BC_OPT_AXES;
        c->params.naxes = 0;
        for (int t = 0; t < target->rank; t++) {
            if (bc_prng_percent(r, 40))
                c->params.axes[c->params.naxes++] = t;
            else
                in->dims[in->rank++] = target->dims[t];
        }
        for (int j = c->params.naxes - 1; j > 0; j--) { /* shuffle */
            int k = (int)bc_prng_below(r, (uint64_t)j + 1);
            int64_t tmp = c->params.axes[j];
            c->params.axes[j] = c->params.axes[k];
            c->params.axes[k] = tmp;
        }
    } else {
        /* OpenVINO axes_mapping: increasing target axes, input dims equal or 1. */
        c->params.options |= BC_OPT_AXES_MAPPING;
        c->params.naxes = 0;
        for (int t = 0; t < target->rank; t++) {
            if (bc_prng_percent(r, 55)) {
                c->params.axes[c->params.naxes++] = t;
                in->dims[in->rank++] = bc_prng_percent(r, 25) ? 1 : target->dims[t];
            }
        }
    }
}

static void mutate_explicit(bc_prng *r, bc_vector *c)
{
    bc_params *p = &c->params;
    int target_rank = c->shapes[1].rank;
    switch (bc_prng_below(r, 4)) {
    case 0: /* an axis out of range */
        if (p->naxes > 0)
            p->axes[bc_prng_below(r, (uint64_t)p->naxes)] =
                bc_prng_percent(r, 50) ? target_rank + (int64_t)bc_prng_below(r, 3) : -1;
        break;
    case 1: /* an axis named twice */
        if (p->naxes > 0 && p->naxes < BC_MAX_RANK && (p->options & BC_OPT_AXES)) {
            p->axes[p->naxes] = p->axes[bc_prng_below(r, (uint64_t)p->naxes)];
            p->naxes++;
        } else if (p->naxes > 0 && p->naxes < BC_MAX_RANK && c->shapes[0].rank == p->naxes) {
            /* axes_mapping: entry j again right after it, and input dim j again, so the
             * count still fits and the duplicate check is the one that fires */
            bc_shape *in = &c->shapes[0];
            int j = (int)bc_prng_below(r, (uint64_t)p->naxes);
            memmove(&p->axes[j + 1], &p->axes[j], (size_t)(p->naxes - j) * sizeof p->axes[0]);
            p->naxes++;
            memmove(&in->dims[j + 1], &in->dims[j], (size_t)(in->rank - j) * sizeof in->dims[0]);
            in->rank++;
        }
        break;
    case 2: /* two entries swapped: unsorted for axes_mapping */
        if (p->naxes > 1) {
            int j = (int)bc_prng_below(r, (uint64_t)p->naxes - 1);
            int64_t tmp = p->axes[j];
            p->axes[j] = p->axes[j + 1];
            p->axes[j + 1] = tmp;
        }
        break;
    default: /* one entry too many or too few */
        if (p->naxes > 0 && bc_prng_percent(r, 50))
            p->naxes--;
        else if (p->naxes < BC_MAX_RANK)
            p->axes[p->naxes++] = (int64_t)bc_prng_below(r, (uint64_t)target_rank + 1);
        break;
    }
}

/* Profile pytorch-expand (RULES.md §6.1) on a broadcast-to case: some
 * target dims aligned with the input become -1 ("keep"), now and then one
 * on a new leading axis too (negative-dim). */
static void gen_expand_profile(bc_prng *r, bc_vector *c)
{
    bc_shape *target = &c->shapes[1];
    const int lead = target->rank - c->shapes[0].rank;
    c->params.options |= BC_OPT_PROFILE;
    c->params.profile = BC_PROFILE_PYTORCH_EXPAND;
    for (int t = lead < 0 ? 0 : lead; t < target->rank; t++)
        if (bc_prng_percent(r, 40))
            target->dims[t] = -1;
    if (lead > 0 && bc_prng_percent(r, 10))
        target->dims[bc_prng_below(r, (uint64_t)lead)] = -1;
}

/* One operand placed in `frame` from `start` (RULES.md §5.4 to §5.6): each
 * of its `len` dims the frame's there or, unless `equal_only` (nGraph
 * 2020), now and then a 1; then `trailing` 1s. */
static void placed_in(bc_prng *r, const bc_shape *frame, int start, int len, int trailing,
                      int equal_only, bc_shape *out)
{
    out->rank = len;
    for (int k = 0; k < len; k++)
        out->dims[k] = !equal_only && bc_prng_percent(r, 30) ? 1 : frame->dims[start + k];
    for (; trailing > 0 && out->rank < BC_MAX_RANK; trailing--)
        out->dims[out->rank++] = 1;
}

/* Profiles openvino-select and ngraph-select: (cond, then, else) with the
 * frame (then, or else for nGraph) the result, the two others windows of it
 * from one axis or, without one, each at its own default axis.  nGraph's
 * operands get trailing 1s now and then (dropped there, but counted in the
 * default axis, so the window sits that much further left). */
static void gen_select(bc_prng *r, const bc_shape *result, bc_profile profile, bc_vector *c)
{
    const int f = profile == BC_PROFILE_OPENVINO_SELECT ? 1 : 2, ngraph = f == 2;
    const int R = result->rank;
    int named = bc_prng_percent(r, 50);
    int start = named ? (int)bc_prng_below(r, (uint64_t)R + 1) : 0;
    c->nshapes = 3;
    c->shapes[f] = *result;
    for (int i = 0; i < 3; i++) {
        if (i == f)
            continue;
        int len = (int)bc_prng_below(r, (uint64_t)(R - start) + 1);
        int trailing = ngraph && bc_prng_percent(r, 35) ? (int)bc_prng_range(r, 1, 2) : 0;
        if (!named && len + trailing > R)
            trailing = R - len;
        placed_in(r, result, named ? start : R - len - trailing, len, trailing, ngraph,
                  &c->shapes[i]);
    }
    c->params.options |= BC_OPT_PROFILE;
    c->params.profile = profile;
    if (named) {
        c->params.options |= BC_OPT_AXIS;
        c->params.axis = start;
    }
}

/* Profile openvino-broadcast: (target, data), the data covering the target
 * from the axis to its last axis; some target dims 1 where the data has
 * another (the two-way part), now and then a data axis past the target's. */
static void gen_ov_broadcast(bc_prng *r, const bc_shape *result, bc_vector *c)
{
    const int R = result->rank;
    int start = (int)bc_prng_below(r, (uint64_t)R + 1);
    c->nshapes = 2;
    c->shapes[0] = *result;
    placed_in(r, result, start, R - start, 0, 0, &c->shapes[1]);
    for (int t = start; t < R; t++)
        if (c->shapes[1].dims[t - start] != 1 && bc_prng_percent(r, 20))
            c->shapes[0].dims[t] = 1;
    if (bc_prng_percent(r, 10) && c->shapes[1].rank < BC_MAX_RANK)
        c->shapes[1].dims[c->shapes[1].rank++] = bc_prng_range(r, 0, 5);
    c->params.options |= BC_OPT_PROFILE;
    c->params.profile = BC_PROFILE_OPENVINO_BROADCAST;
    /* the default -1 gives the same start where the data ends with the target */
    if (c->shapes[1].rank != R - start || bc_prng_percent(r, 70)) {
        c->params.options |= BC_OPT_AXIS;
        c->params.axis = start;
    }
}

/* matmul (RULES.md §15): batch parts that broadcast to `batch` (one of
 * them, most of the time, the whole batch), then the matrix axes [n,k] and
 * [k,m]; now and then an operand is 1-D, just [k]. */
static void gen_matmul(bc_prng *r, const bc_gen_request *req, const bc_shape *batch,
                       bc_vector *c)
{
    /* a value case's matrices stay small (0 .. 5: k = 0 gives zeros) */
    const int64_t max_dim = req->value_sized ? 5 : req->max_dim;
    const int64_t rows = gen_dim(r, max_dim), inner = gen_dim(r, max_dim),
                  cols = gen_dim(r, max_dim);
    const int ones = (int)bc_prng_range(r, 10, 60);
    const int owner = bc_prng_percent(r, 70) ? (int)bc_prng_below(r, 2) : -1;
    c->nshapes = 2;
    for (int i = 0; i < 2; i++) {
        bc_shape *s = &c->shapes[i];
        if (bc_prng_percent(r, 20)) {
            s->rank = 1;
            s->dims[0] = inner;
            continue;
        }
        if (i == owner)
            *s = *batch;
        else
            derive(r, batch, gen_keep(r, batch->rank), ones, s);
        s->dims[s->rank++] = i == 0 ? rows : inner;
        s->dims[s->rank++] = i == 0 ? inner : cols;
    }
}

void bc_gen_case(bc_prng *r, const bc_gen_request *req, bc_vector *c)
{
    const bc_rule rule = req->rule;
    c->params = bc_params_for(rule);
    memset(&c->value, 0, sizeof c->value); /* a shape case; value generators add theirs */
    c->nshapes = 0;
    c->expect = BC_EXPECT_ANY_ERROR;
    bc_shape result;
    const int value_rank = req->max_rank > 0 ? req->max_rank : BC_MAX_RANK;
    if (req->value_sized && rule == BC_RULE_MATMUL) /* the batch; small in every tier */
        gen_value_result(r, value_rank > 2 ? value_rank - 2 : 0, &result);
    else if (req->value_sized && req->value_tier == 2)
        gen_huge_result(r, &result);
    else if (req->value_sized && req->value_tier == 1)
        gen_medium_result(r, req->max_rank > 0 ? req->max_rank : BC_MAX_RANK, &result);
    else if (req->value_sized)
        gen_value_result(r, req->max_rank > 0 ? req->max_rank : BC_MAX_RANK, &result);
    else
        gen_result(r, gen_rank(r, rule == BC_RULE_MATMUL ? BC_MAX_RANK - 2 : BC_MAX_RANK),
                   req->max_dim, &result);
    switch (rule) {
    case BC_RULE_NONE:
    case BC_RULE_NUMPY:
        gen_nary(r, req, &result, c);
        break;
    case BC_RULE_ONNX_UNI:
    case BC_RULE_BROADCAST_TO: {
        bc_shape small;
        derive(r, &result, gen_keep(r, result.rank), (int)bc_prng_range(r, 10, 60), &small);
        c->nshapes = 2;
        /* onnx-uni: A then B; broadcast-to: input then target */
        c->shapes[rule == BC_RULE_ONNX_UNI ? 0 : 1] = result;
        c->shapes[rule == BC_RULE_ONNX_UNI ? 1 : 0] = small;
        break;
    }
    case BC_RULE_BIDIRECTIONAL:
        c->nshapes = 2;
        for (int i = 0; i < 2; i++)
            derive(r, &result, gen_keep(r, result.rank), (int)bc_prng_range(r, 10, 60),
                   &c->shapes[i]);
        break;
    case BC_RULE_PDPD:
        if (req->opmodes_percent > 0 && bc_prng_percent(r, req->opmodes_percent)) {
            static const bc_profile modes[] = {BC_PROFILE_OPENVINO_SELECT,
                                               BC_PROFILE_NGRAPH_SELECT,
                                               BC_PROFILE_OPENVINO_BROADCAST};
            bc_profile mode = modes[bc_prng_below(r, 3)];
            if (mode == BC_PROFILE_OPENVINO_BROADCAST)
                gen_ov_broadcast(r, &result, c);
            else
                gen_select(r, &result, mode, c);
        } else {
            gen_pdpd(r, &result, c);
        }
        break;
    case BC_RULE_MATMUL: /* result: the batch */
        gen_matmul(r, req, &result, c);
        break;
    default:
        gen_explicit(r, &result, c);
        if ((c->params.options & BC_OPT_AXES_MAPPING) && req->opmodes_percent > 0 &&
            bc_prng_percent(r, req->opmodes_percent)) {
            /* ngraph-explicit: the input dims equal the target's, 1 not stretching */
            c->params.options |= BC_OPT_PROFILE;
            c->params.profile = BC_PROFILE_NGRAPH_EXPLICIT;
            for (int i = 0; i < c->params.naxes; i++)
                c->shapes[0].dims[i] = result.dims[c->params.axes[i]];
        }
        break;
    }
    if (rule == BC_RULE_BROADCAST_TO && req->expand_percent > 0 &&
        bc_prng_percent(r, req->expand_percent))
        gen_expand_profile(r, c);
    if (rule == BC_RULE_NUMPY && req->empty_fold_percent > 0 &&
        bc_prng_percent(r, req->empty_fold_percent)) {
        /* numpy-empty-fold (RULES.md §3.1): the same answers, and [] of no shape */
        c->params.options |= BC_OPT_PROFILE;
        c->params.profile = BC_PROFILE_NUMPY_EMPTY_FOLD;
        if (bc_prng_percent(r, 50)) {
            c->nshapes = 0;
            return;
        }
    }
    if (!bc_prng_percent(r, req->reject_percent))
        return;
    /* One mutation from the catalogue. */
    int pick = (int)bc_prng_below(r, 100);
    if (pick < 12 && !req->value_sized) { /* a negative dim: no tensor can have it */
        mutate_negative(r, c);
    } else if (rule == BC_RULE_PDPD && pick < 40) {
        if (bc_prng_percent(r, 50)) {
            c->params.options |= BC_OPT_AXIS;
            c->params.axis = bc_prng_percent(r, 50) ? -(int64_t)bc_prng_range(r, 2, 5)
                                                    : c->shapes[0].rank + (int64_t)bc_prng_range(r, 1, 3);
        } else {
            mutate_rank(r, c, 1, 0);
        }
    } else if ((rule == BC_RULE_ONNX_UNI || rule == BC_RULE_BROADCAST_TO) && pick < 35) {
        mutate_rank(r, c, rule == BC_RULE_ONNX_UNI ? 1 : 0, rule == BC_RULE_ONNX_UNI ? 0 : 1);
    } else if (rule == BC_RULE_EXPLICIT && pick < 60) {
        mutate_explicit(r, c);
    } else if (rule == BC_RULE_MATMUL && pick < 20) { /* a scalar operand */
        c->shapes[bc_prng_below(r, 2)].rank = 0;
    } else if (rule == BC_RULE_NONE && pick < 30 && c->nshapes > 1) {
        c->shapes[1].rank > 0 ? (void)c->shapes[1].rank-- : prepend_ones(&c->shapes[1], 1);
    } else {
        mutate_dim(r, c);
    }
}
