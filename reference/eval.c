/*
 * The front end of every bc_eval_* call: it checks everything, once, for
 * both evaluators, so that they receive only valid jobs and cannot fail.
 *
 * Order of checks: the evaluator and operation, each view (bc_tensor_check),
 * the rule (bc_infer: the result shape), dtypes, the output view's shape,
 * then aliasing.  The first failing check names the error.
 */
#include "broadcheck/tensor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine.h"

#define BAD(...) bc_engine_fail(err, BC_ERR_BAD_PARAMS, p->rule, __VA_ARGS__)

static bc_error_kind check_view(const bc_params *p, const bc_tensor *t, int operand,
                                const char *what, bc_error *err)
{
    bc_error local;
    bc_error_kind k = bc_tensor_check(t, NULL, &local);
    if (k) {
        char msg[sizeof local.message];
        snprintf(msg, sizeof msg, "%s", local.message);
        return bc_engine_fail(err, k, p->rule, operand, "%s: %s", what, msg);
    }
    return BC_OK;
}

/* The params with pdpd's profile resolved, so evaluators need not.  Field
 * by field: a whole bc_params (or bc_shape) copy costs more than a tiny
 * operation itself. */
static void resolve(const bc_params *p, bc_params *q)
{
    q->rule = p->rule;
    q->options = p->options;
    q->profile = bc_params_resolved_profile(p);
    q->axis = p->axis;
    q->naxes = p->naxes < 0 ? 0 : p->naxes > BC_MAX_RANK ? BC_MAX_RANK : p->naxes;
    for (int j = 0; j < q->naxes; j++)
        q->axes[j] = p->axes[j];
}

static void shape_of(const bc_tensor *t, bc_shape *s)
{
    s->rank = t->rank;
    for (int k = 0; k < t->rank; k++)
        s->dims[k] = t->dims[k];
}

static int has_shape(const bc_tensor *t, const bc_shape *s)
{
    if (t->rank != s->rank)
        return 0;
    for (int k = 0; k < t->rank; k++)
        if (t->dims[k] != s->dims[k])
            return 0;
    return 1;
}

/* Same dtype, dims and strides (where they matter): the same view if
 * also at the same address. */
static int same_layout(const bc_tensor *a, const bc_tensor *b)
{
    if (a->dtype != b->dtype || a->rank != b->rank)
        return 0;
    for (int k = 0; k < a->rank; k++)
        if (a->dims[k] != b->dims[k] || (a->dims[k] > 1 && a->strides[k] != b->strides[k]))
            return 0;
    return 1;
}

static int same_view(const bc_tensor *a, const bc_tensor *b)
{
    return (const char *)a->data + a->offset * (int64_t)bc_dtype_size(a->dtype) ==
               (const char *)b->data + b->offset * (int64_t)bc_dtype_size(b->dtype) &&
           same_layout(a, b);
}

/* Byte range [*lo, *hi) a view touches; 0 if it touches nothing. */
static int byte_range(const bc_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    int64_t l, h, size = (int64_t)bc_dtype_size(t->dtype);
    if (!bc_tensor_extent(t, &l, &h))
        return 0;
    *lo = (uintptr_t)t->data + (uintptr_t)(l * size);
    *hi = (uintptr_t)t->data + (uintptr_t)(h * size + size);
    return 1;
}

/* A sufficient test that no two elements of the view share memory: with the
 * axes sorted by |stride|, each stride passes everything the smaller ones
 * span.  It refuses a few exotic non-overlapping layouts, never allows an
 * overlapping one. */
static int self_overlaps(const bc_tensor *t)
{
    int64_t s[BC_MAX_RANK], d[BC_MAX_RANK];
    int n = 0;
    for (int k = 0; k < t->rank; k++) {
        if (t->dims[k] == 0)
            return 0;
        if (t->dims[k] == 1)
            continue;
        int64_t a = t->strides[k] < 0 ? -t->strides[k] : t->strides[k];
        int j = n++;
        for (; j > 0 && s[j - 1] > a; j--) {
            s[j] = s[j - 1];
            d[j] = d[j - 1];
        }
        s[j] = a;
        d[j] = t->dims[k];
    }
    int64_t reach = 0; /* extent, in elements, of the axes so far */
    for (int j = 0; j < n; j++) {
        if (s[j] <= reach)
            return 1;
        reach += s[j] * (d[j] - 1); /* within the view's checked extent */
    }
    return 0;
}

/* The checks shared by every operation once the result shape is known:
 * the output's shape and dtype, then aliasing.  in_place: an input may be
 * the very output view. */
static bc_error_kind check_output(const bc_params *p, const bc_shape *want, bc_dtype want_dtype,
                                  const bc_tensor *out, int nin, const bc_tensor *in,
                                  const bc_tensor *const *inp, int in_place, bc_error *err)
{
    bc_error_kind k = check_view(p, out, -1, "output", err);
    if (k)
        return k;
    if (out->dtype != want_dtype)
        return BAD(-1, "the output is %s, the operation gives %s", bc_dtype_name(out->dtype),
                   bc_dtype_name(want_dtype));
    if (!has_shape(out, want)) {
        char a[96], b[96];
        bc_shape got;
        shape_of(out, &got);
        bc_shape_format(&got, a, sizeof a);
        bc_shape_format(want, b, sizeof b);
        return BAD(-1, "the output view has shape %s, the result is %s", a, b);
    }
    if (self_overlaps(out))
        return BAD(-1, "the output view overlaps itself (a stride 0 or strides that collide); "
                       "each output element must have its own memory");
    uintptr_t olo, ohi, ilo, ihi;
    if (!byte_range(out, &olo, &ohi))
        return BC_OK;
    for (int i = 0; i < nin; i++) {
        const bc_tensor *t = in ? &in[i] : inp[i];
        if (!byte_range(t, &ilo, &ihi) || ihi <= olo || ohi <= ilo)
            continue;
        if (in_place && same_view(t, out))
            continue;
        return BAD(i, "the output overlaps input %d%s; only an output identical to an input "
                      "(same address, dtype, shape and strides) may share its memory", i,
                   in_place ? " without being the same view" : "");
    }
    return BC_OK;
}

static void job_init(bc_job *job, bc_job_kind kind, const bc_params *p, bc_dtype dtype)
{
    job->kind = kind;
    job->op = BC_OP_ADD;
    job->dtype = dtype;
    resolve(p, &job->params);
    job->nin = 0;
}

/* Values under profile openvino-explicit (RULES.md §8.3): where the
 * default rule would accept the mapping, or a scalar with its one entry (a
 * scalar read everywhere: the entry maps no axis).  Repeated entries or an
 * input of larger rank have shapes there but no values OpenVINO states. */
static bc_error_kind openvino_explicit_values(bc_job *job, const bc_shape *in, bc_error *err)
{
    bc_params *q = &job->params;
    if (q->rule != BC_RULE_EXPLICIT || q->profile != BC_PROFILE_OPENVINO_EXPLICIT)
        return BC_OK;
    if (in->rank == 0 && q->naxes == 1) {
        q->naxes = 0;
        return BC_OK;
    }
    for (int i = 1; i < q->naxes; i++)
        if (q->axes[i] <= q->axes[i - 1])
            return bc_engine_fail(err, BC_ERR_BAD_PARAMS, q->rule, -1,
                                  "values under openvino-explicit need a strictly increasing "
                                  "axes_mapping (entries %d and %d repeat)",
                                  i - 1, i);
    if (in->rank > job->result.rank)
        return bc_engine_fail(err, BC_ERR_BAD_PARAMS, q->rule, 0,
                              "values under openvino-explicit need an input of rank at most "
                              "the target's");
    return BC_OK;
}

static bc_error_kind make_plan(bc_evaluator ev, const bc_job *job, bc_eval_plan **plan,
                               bc_error *err);

/* Runs the checked job, or with `plan`, stores it as a prepared call. */
static bc_error_kind run(bc_evaluator ev, bc_job *job, bc_eval_plan **plan, bc_error *err)
{
    bc_error_kind k = bc_shape_numel(&job->result, &job->numel);
    if (k)
        return bc_engine_fail(err, k, job->params.rule, -1, "the result's element count "
                              "passes INT64_MAX");
    if (plan)
        return make_plan(ev, job, plan, err);
    if (ev == BC_EVAL_NAIVE)
        bc_naive_run(job);
    else
        bc_fast_run(job);
    return BC_OK;
}

static bc_error_kind check_evaluator(const bc_params *p, bc_evaluator ev, bc_error *err)
{
    if ((unsigned)ev >= BC_EVAL_COUNT)
        return BAD(-1, "unknown evaluator %d", (int)ev);
    /* The profiles of OpenVINO's and nGraph's op modes state shape inference
     * only (RULES.md §5.4 to §5.6, §8.4): which element each output reads is
     * not stated there, so no value is computed under them. */
    bc_profile prof = bc_params_profile(p);
    if (!bc_profile_has_values(prof))
        return BAD(-1, "profile %s states shapes only; no values are computed under it",
                   bc_profile_name(prof));
    return BC_OK;
}

/* ---- elementwise ----------------------------------------------------- */

static bc_error_kind elementwise(bc_evaluator ev, bc_op op, const bc_params *p, int n,
                                 const bc_tensor *in, const bc_tensor *const *inp,
                                 const bc_tensor *out, int nary, bc_eval_plan **plan,
                                 bc_error *err)
{
    bc_error_kind k;
    if ((k = check_evaluator(p, ev, err)))
        return k;
    if ((unsigned)op >= BC_OP_ENGINE_COUNT)
        return BAD(-1, "unknown operation %d", (int)op);
    if (nary) {
        if (op != BC_OP_ADD && op != BC_OP_MUL && op != BC_OP_MAX && op != BC_OP_MIN &&
            op != BC_OP_ADD_SATURATE && op != BC_OP_MUL_SATURATE)
            return BAD(-1, "%s is binary; the n-ary operations are add, mul, max and min",
                       bc_op_name(op));
        if (p->rule != BC_RULE_NONE && p->rule != BC_RULE_NUMPY)
            return BAD(-1, "n-ary %s takes rules none and numpy, not %s", bc_op_name(op),
                       bc_rule_name(p->rule));
        if (n < 1 || n > BC_MAX_OPERANDS)
            return bc_engine_fail(err, BC_ERR_OPERAND_COUNT, p->rule, -1,
                                  "n-ary %s takes 1 to %d inputs, got %d", bc_op_name(op),
                                  BC_MAX_OPERANDS, n);
    } else if (p->rule != BC_RULE_NONE && p->rule != BC_RULE_NUMPY &&
               p->rule != BC_RULE_ONNX_UNI && p->rule != BC_RULE_PDPD) {
        return BAD(-1, "%s takes the elementwise rules none, numpy, onnx-uni and pdpd, not %s",
                   bc_op_name(op), bc_rule_name(p->rule));
    }
    bc_shape shapes[BC_MAX_OPERANDS];
    bc_job job;
    for (int i = 0; i < n; i++) {
        const bc_tensor *t = in ? &in[i] : inp[i];
        if ((k = check_view(p, t, i, "input", err)))
            return k;
        shape_of(t, &shapes[i]);
        job.in[i] = t;
        job.operand[i] = i;
    }
    bc_dtype dt = job.in[0]->dtype;
    job_init(&job, BC_JOB_ELEMENTWISE, p, dt);
    job.op = op;
    job.nin = n;
    job.nshapes = n;
    job.shapes = shapes;
    if ((k = bc_infer(p, n, shapes, &job.result, err)))
        return k;
    for (int i = 1; i < n; i++)
        if (job.in[i]->dtype != dt)
            return BAD(i, "input %d is %s and input 0 is %s; inputs share a dtype", i,
                       bc_dtype_name(job.in[i]->dtype), bc_dtype_name(dt));
    if (!bc_op_takes_dtype(op, dt))
        return BAD(-1, "%s is not defined on %s", bc_op_name(op), bc_dtype_name(dt));
    if ((k = check_output(p, &job.result, bc_op_result_dtype(op, dt), out, n, in, inp, 1, err)))
        return k;
    job.out = out;
    return run(ev, &job, plan, err);
}

/* ---- the small-call front end ------------------------------------------ */

/* Strides and offsets (in elements) up to this size: with at most
 * BC_SMALL_NUMEL elements, at most 10 axes of extent 2 or more, so every
 * element and byte offset of the views stays below 2^58, far inside int64:
 * bc_tensor_check accepts such a view without computing them. */
#define SMALL_REACH ((int64_t)1 << 40)

static int small_reach(int64_t v)
{
    return v > -SMALL_REACH && v < SMALL_REACH;
}

/* 1 if the view's data is present and aligned (it has elements here). */
static int small_data(const bc_tensor *t, int64_t size)
{
    return t->data && ((uintptr_t)t->data & (uintptr_t)(size - 1)) == 0 &&
           small_reach(t->offset); /* sizes are powers of two */
}

/* The dense pass (small_rest's first), for a call whose three views are
 * dense row-major (on each axis an operand walks, its stride is the
 * product of its dims inside it; strides of size-1 axes are never read,
 * as bc_tensor_check never reads them): then no view overlaps itself, each reaches the
 * elements [0, its numel) from its first one, every stride is below
 * BC_SMALL_NUMEL, and neighbouring axes merge exactly when the same inputs
 * walk both.  So a pass over the dims alone does small_strided's work.
 * Returns the output's element count with the axes (byte strides: osz
 * the output's element size, isz the inputs') and the end of each
 * operand's bytes from its first element in hi[] (lowest 0), 0 if numpy (or none) refuses the
 * shapes or the output has more than BC_SMALL_NUMEL elements, -1 if a
 * view is not dense (small_strided then decides). */
static int64_t small_dense(const bc_tensor *a, const bc_tensor *b, const bc_tensor *out,
                           int none, int64_t osz, int64_t isz, bc_small_axes *ax, int64_t *hi)
{
    const int R = out->rank;
    /* one input has the output's rank (small_binary); the other's dims and
     * strides padded with leading axes of extent 1, so that the loop below
     * reads every operand at r with no test of its rank */
    const int64_t *ad = a->dims, *as = a->strides, *bd = b->dims, *bs = b->strides;
    int64_t pd[BC_MAX_RANK], ps[BC_MAX_RANK];
    if (a->rank != b->rank) {
        const bc_tensor *s = a->rank < R ? a : b;
        const int ds = R - s->rank;
        for (int r = 0; r < ds; r++) {
            pd[r] = 1;
            ps[r] = 0;
        }
        memcpy(pd + ds, s->dims, sizeof *pd * (size_t)s->rank);
        memcpy(ps + ds, s->strides, sizeof *ps * (size_t)s->rank);
        if (s == a)
            ad = pd, as = ps;
        else
            bd = pd, bs = ps;
    }
    int64_t no = 1, na = 1, nb = 1;
    int m = 0, last = 0;
    /* bit p: pattern p accepted (which inputs walk an axis: 1 a, 2 b, 3
     * both); numpy takes any but none (0), none only both */
    const unsigned takes = none ? 1u << 3 : 7u << 1;
    for (int r = R - 1; r >= 0; r--) {
        const int64_t dim = out->dims[r], da = ad[r], db = bd[r];
        /* numpy's dim (RULES.md §3): each 1 or equal to it, one equal
         * unless it is 1 */
        if (dim == 1) {
            if (da != 1 || db != 1)
                return 0;
            continue;
        }
        const int wa = da == dim, wb = db == dim, pat = wa | wb << 1;
        if ((uint64_t)dim - 2 > BC_SMALL_NUMEL - 2 || (!wa && da != 1) || (!wb && db != 1) ||
            !(takes >> pat & 1))
            return 0;
        if (out->strides[r] != no || (wa && as[r] != na) || (wb && bs[r] != nb))
            return -1;
        if (pat == last) {
            ax->dims[m - 1] *= dim;
        } else {
            ax->dims[m] = dim;
            ax->strides[m][0] = no * osz;
            ax->strides[m][1] = wa ? na * isz : 0;
            ax->strides[m][2] = wb ? nb * isz : 0;
            last = pat;
            m++;
        }
        no *= dim;
        na *= da;
        nb *= db;
        if (no > BC_SMALL_NUMEL)
            return 0;
    }
    ax->rank = m;
    hi[0] = no * osz;
    hi[1] = na * isz;
    hi[2] = nb * isz;
    return no;
}

/* The strided pass, for any strides: the axes of extent > 1, innermost
 * first, neighbours merged as bc_plan_finish merges them (no flip or sort:
 * a small call's blocks are short anyway), strides in bytes, and each
 * operand's bytes from its first element, [lo[j], hi[j]).  Returns the output's element count, or 0 if the call is
 * not one small_binary may take.  Out of line: inlined, its registers
 * crowd the dense pass's. */
static __attribute__((noinline)) int64_t small_strided(const bc_tensor *a, const bc_tensor *b,
                                                       const bc_tensor *out, int none,
                                                       int64_t osz, int64_t isz,
                                                       bc_small_axes *ax, int64_t *lo,
                                                       int64_t *hi)
{
    const int R = out->rank, ra = a->rank, rb = b->rank;
    int m = 0, in_order = 1;
    int64_t numel = 1, olo = 0, ohi = 0, alo = 0, ahi = 0, blo = 0, bhi = 0;
    for (int r = R - 1; r >= 0; r--) {
        const int ka = r - (R - ra), kb = r - (R - rb);
        const int64_t dim = out->dims[r], da = ka >= 0 ? a->dims[ka] : 1,
                      db = kb >= 0 ? b->dims[kb] : 1;
        /* numpy's dim (RULES.md §3): each 1 or equal to it, one equal unless it is 1 */
        if (dim < 1 || dim > BC_SMALL_NUMEL || (da != dim && da != 1) || (db != dim && db != 1) ||
            (dim != 1 && da != dim && db != dim) || (none && (da != dim || db != dim)))
            return 0;
        if (dim == 1)
            continue;
        if ((numel *= dim) > BC_SMALL_NUMEL)
            return 0;
        const int64_t so = out->strides[r], sa = da > 1 ? a->strides[ka] : 0,
                      sb = db > 1 ? b->strides[kb] : 0;
        if (!small_reach(so) || !small_reach(sa) || !small_reach(sb))
            return 0;
        /* self_overlaps() in the axes' own order: if each stride passes the
         * reach of the axes inside it, the strides increase, so that order is
         * its sorted one and it finds no overlap either */
        in_order &= (so < 0 ? -so : so) > ohi - olo;
        const int64_t e = dim - 1, po = e * so, pa = e * sa, pb = e * sb;
        olo += po < 0 ? po : 0;
        ohi += po > 0 ? po : 0;
        alo += pa < 0 ? pa : 0;
        ahi += pa > 0 ? pa : 0;
        blo += pb < 0 ? pb : 0;
        bhi += pb > 0 ? pb : 0;
        const int64_t bo = so * osz, ba = sa * isz, bb = sb * isz; /* bytes */
        if (m > 0 && ax->strides[m - 1][0] * ax->dims[m - 1] == bo &&
            ax->strides[m - 1][1] * ax->dims[m - 1] == ba &&
            ax->strides[m - 1][2] * ax->dims[m - 1] == bb) {
            ax->dims[m - 1] *= dim;
            continue;
        }
        ax->dims[m] = dim;
        ax->strides[m][0] = bo;
        ax->strides[m][1] = ba;
        ax->strides[m][2] = bb;
        m++;
    }
    if (!in_order && self_overlaps(out))
        return 0;
    ax->rank = m;
    lo[0] = olo * osz;
    hi[0] = ohi * osz + osz;
    lo[1] = alo * isz;
    hi[1] = ahi * isz + isz;
    lo[2] = blo * isz;
    hi[2] = bhi * isz + isz;
    return numel;
}

/* The byte ranges of a small call's three operands, [lo[j], hi[j]) from
 * each one's first element (as byte_range() gives them): 1 if the output's meets either input's (in place or refused,
 * the general path's checks then). */
static inline __attribute__((always_inline)) int small_overlaps(const bc_small_axes *ax,
                                                                 const int64_t *lo,
                                                                 const int64_t *hi)
{
    const uintptr_t o = (uintptr_t)ax->base[0], olo = o + (uintptr_t)lo[0],
                    ohi = o + (uintptr_t)hi[0];
    const uintptr_t x = (uintptr_t)ax->base[1], y = (uintptr_t)ax->base[2];
    return (x + (uintptr_t)lo[1] < ohi && olo < x + (uintptr_t)hi[1]) ||
           (y + (uintptr_t)lo[2] < ohi && olo < y + (uintptr_t)hi[2]);
}

/* small_binary's passes after the first: the dense one, then the strided
 * one; the views' data, dtypes and ranks already checked.  Out of line,
 * so that the first pass has the caller's registers to itself. */
static __attribute__((noinline)) int small_rest(bc_op op, const bc_tensor *a,
                                                const bc_tensor *b, const bc_tensor *out,
                                                int none, bc_dtype dt, int64_t osz,
                                                int64_t isz)
{
    bc_small_axes ax;
    int64_t lo[3] = {0, 0, 0}, hi[3];
    int64_t numel = small_dense(a, b, out, none, osz, isz, &ax, hi);
    if (numel < 0)
        numel = small_strided(a, b, out, none, osz, isz, &ax, lo, hi);
    if (numel == 0)
        return 0;
    ax.base[0] = (char *)out->data + out->offset * osz;
    ax.base[1] = (char *)a->data + a->offset * isz;
    ax.base[2] = (char *)b->data + b->offset * isz;
    if (small_overlaps(&ax, lo, hi))
        return 0;
    bc_fast_run_small(&ax, dt, op, numel * osz);
    return 1;
}

/* A one-shot fast binary call that every check of elementwise() accepts
 * and bc_fast_run would run on its direct route, recognised in one pass
 * over the result's axes, innermost first (two or three when the views
 * are not all contiguous with each input's dims the output's last ones),
 * and run without a job, a shape copy, bc_infer or a plan sort: rules
 * numpy and none without options, an output of 1 to BC_SMALL_NUMEL
 * elements (no size-0 axis) sharing no memory with either input.
 * Returns 0, having done nothing, for any call outside that set, valid or
 * not: elementwise() then checks it and names its error, so refusals are
 * the general path's by construction.  Each condition below is
 * sufficient for a check of the general path (bc_tensor_check, bc_infer,
 * the dtypes, check_output); none may accept a call that path refuses
 * (tests/test_engine_random.c compares the two evaluators on every
 * binary case, test_small_calls the refusals at its edges).
 *
 * The first pass, inline, takes the commonest call: the three views
 * contiguous row-major (every stride, size-1 axes' too, the product of
 * the dims inside it, as bc_tensor_contiguous makes them) and each
 * input's dims the output's last ones, one input (l) of the output's
 * rank.  Then numpy and none accept the shapes with no per-axis pattern,
 * no view overlaps itself, the inputs' elements are the output's on
 * their axes, and the call is one block, as bc_fast_run_small would run
 * it: rows of the shorter input's (s) ns elements, n / ns of them (one
 * row when ns is n or 1), its kernel called straight.  Any
 * other call (a size-1 axis's stride not the product, a dim of 1 where
 * the output has more, a non-contiguous view, a size-0 or negative dim,
 * more than BC_SMALL_NUMEL elements) goes to small_rest. */
static inline __attribute__((always_inline)) int small_binary(bc_op op, const bc_params *p,
                                                             const bc_tensor *a,
                                                             const bc_tensor *b,
                                                             const bc_tensor *out)
{
    if (p->options || (p->rule != BC_RULE_NUMPY && p->rule != BC_RULE_NONE))
        return 0;
    const bc_dtype dt = a->dtype;
    bc_dtype odt;
    int64_t isz;
    if (b->dtype != dt || !bc_op_types(op, dt, &odt, &isz) || out->dtype != odt)
        return 0;
    /* ranks: l that of the output, s at most that (both under none) */
    const int R = out->rank, a_short = a->rank != R, none = p->rule == BC_RULE_NONE;
    const bc_tensor *l = a_short ? b : a, *s = a_short ? a : b;
    const int ds = R - s->rank;
    if ((unsigned)R > BC_MAX_RANK || l->rank != R || (unsigned)s->rank > (unsigned)R ||
        (none && ds))
        return 0;
    /* the output is the inputs' dtype or bool (one byte) */
    const int64_t osz = odt == dt ? isz : 1;
    if (!small_data(out, osz) || !small_data(a, isz) || !small_data(b, isz))
        return 0;
    int64_t n = 1;
    int r = R - 1;
    /* the axes both inputs have, then those of l alone; each dim in
     * [1, BC_SMALL_NUMEL] and n checked on each axis, so n never overflows */
    for (; r >= ds; r--) {
        const int64_t dim = out->dims[r];
        if ((uint64_t)dim - 1 >= BC_SMALL_NUMEL || l->dims[r] != dim || s->dims[r - ds] != dim ||
            out->strides[r] != n || l->strides[r] != n || s->strides[r - ds] != n ||
            (n *= dim) > BC_SMALL_NUMEL)
            return small_rest(op, a, b, out, none, dt, osz, isz);
    }
    const int64_t ns = n;
    int64_t rows = 1;
    for (; r >= 0; r--) {
        const int64_t dim = out->dims[r];
        if ((uint64_t)dim - 1 >= BC_SMALL_NUMEL || l->dims[r] != dim || out->strides[r] != n ||
            l->strides[r] != n || (n *= dim) > BC_SMALL_NUMEL)
            return small_rest(op, a, b, out, none, dt, osz, isz);
        rows *= dim;
    }
    char *const o = (char *)out->data + out->offset * osz,
                *const x = (char *)l->data + l->offset * isz,
                *const y = (char *)s->data + s->offset * isz;
    /* the byte ranges, as byte_range() gives them, [o, oe) and the
     * inputs' (all lowest offsets 0) */
    const uintptr_t uo = (uintptr_t)o, oe = uo + (uintptr_t)(n * osz), ux = (uintptr_t)x,
                    uy = (uintptr_t)y;
    if ((ux < oe && uo < ux + (uintptr_t)(n * isz)) || (uy < oe && uo < uy + (uintptr_t)(ns * isz)))
        return 0; /* in place (or refused): the general path's checks */
    /* the block bc_fast_run_small would make of it and its kernel: one
     * row when s walks every element or none (then its stride 0), else
     * rows of s, which l walks on and s repeats */
    const int two = ns != 1 && rows != 1;
    const int64_t ls = two ? ns * isz : 0, se = ns != 1 ? isz : 0;
    char *const base[3] = {o, a_short ? y : x, a_short ? x : y};
    const int64_t s1[3] = {two ? ns * osz : 0, a_short ? 0 : ls, a_short ? ls : 0};
    const int64_t s0[3] = {osz, a_short ? se : isz, a_short ? isz : se};
    bc_fast_block_kernel(dt, op)(two ? rows : 1, ns != 1 ? ns : n, base, s1, s0, NULL);
    return 1;
}

/* The general path of bc_eval_binary, out of line so that a small call
 * sets up no frame for it. */
static __attribute__((noinline)) bc_error_kind binary(bc_evaluator ev, bc_op op,
                                                      const bc_params *p, const bc_tensor *a,
                                                      const bc_tensor *b, const bc_tensor *out,
                                                      bc_error *err)
{
    const bc_tensor *pair[2] = {a, b};
    return elementwise(ev, op, p, 2, NULL, pair, out, 0, NULL, err);
}

bc_error_kind bc_eval_binary(bc_evaluator ev, bc_op op, const bc_params *p, const bc_tensor *a,
                             const bc_tensor *b, const bc_tensor *out, bc_error *err)
{
    if (ev == BC_EVAL_FAST && small_binary(op, p, a, b, out))
        return BC_OK;
    return binary(ev, op, p, a, b, out, err);
}

bc_error_kind bc_eval_nary(bc_evaluator ev, bc_op op, const bc_params *p, int n,
                           const bc_tensor *in, const bc_tensor *out, bc_error *err)
{
    return elementwise(ev, op, p, n, in, NULL, out, 1, NULL, err);
}

/* ---- select ---------------------------------------------------------- */

bc_error_kind bc_eval_select(bc_evaluator ev, const bc_params *p, const bc_tensor *cond,
                             const bc_tensor *a, const bc_tensor *b, const bc_tensor *out,
                             bc_error *err)
{
    bc_error_kind k;
    if ((k = check_evaluator(p, ev, err)))
        return k;
    if (p->rule != BC_RULE_NONE && p->rule != BC_RULE_NUMPY)
        return BAD(-1, "select takes rules none and numpy, not %s", bc_rule_name(p->rule));
    const bc_tensor *three[3] = {cond, a, b};
    bc_shape shapes[3];
    bc_job job;
    job_init(&job, BC_JOB_SELECT, p, a->dtype);
    for (int i = 0; i < 3; i++) {
        if ((k = check_view(p, three[i], i, i ? "input" : "condition", err)))
            return k;
        shape_of(three[i], &shapes[i]);
        job.in[i] = three[i];
        job.operand[i] = i;
    }
    job.nin = 3;
    job.nshapes = 3;
    job.shapes = shapes;
    if ((k = bc_infer(p, 3, shapes, &job.result, err)))
        return k;
    if (cond->dtype != BC_BOOL)
        return BAD(0, "the condition is %s; select takes a bool condition",
                   bc_dtype_name(cond->dtype));
    if (b->dtype != a->dtype)
        return BAD(2, "select's b is %s and a is %s; they share a dtype", bc_dtype_name(b->dtype),
                   bc_dtype_name(a->dtype));
    if ((k = check_output(p, &job.result, a->dtype, out, 3, NULL, three, 1, err)))
        return k;
    job.out = out;
    return run(ev, &job, NULL, err);
}

/* ---- broadcast ------------------------------------------------------- */

bc_error_kind bc_eval_broadcast(bc_evaluator ev, const bc_params *p, const bc_tensor *in,
                                const bc_shape *target, const bc_tensor *out, bc_error *err)
{
    bc_error_kind k;
    if ((k = check_evaluator(p, ev, err)))
        return k;
    if (p->rule != BC_RULE_BROADCAST_TO && p->rule != BC_RULE_BIDIRECTIONAL &&
        p->rule != BC_RULE_EXPLICIT)
        return BAD(-1, "broadcast takes rules broadcast-to, bidirectional and explicit, not %s",
                   bc_rule_name(p->rule));
    if ((k = check_view(p, in, 0, "input", err)))
        return k;
    bc_shape shapes[2];
    shape_of(in, &shapes[0]);
    shapes[1].rank = target->rank < 0 || target->rank > BC_MAX_RANK ? 0 : target->rank;
    for (int d = 0; d < shapes[1].rank; d++)
        shapes[1].dims[d] = target->dims[d];
    if (target->rank != shapes[1].rank)
        return BAD(1, "the target has rank %d, outside 0..%d", target->rank, BC_MAX_RANK);
    bc_job job;
    job_init(&job, BC_JOB_BROADCAST, p, in->dtype);
    job.nin = 1;
    job.in[0] = in;
    job.operand[0] = 0;
    job.nshapes = 2;
    job.shapes = shapes;
    if ((k = bc_infer(p, 2, shapes, &job.result, err)))
        return k;
    if (p->rule == BC_RULE_BROADCAST_TO)
        shapes[1] = job.result; /* pytorch-expand's -1s resolved: no evaluator sees one */
    if ((k = openvino_explicit_values(&job, &shapes[0], err)))
        return k;
    if ((k = check_output(p, &job.result, in->dtype, out, 1, in, NULL, 1, err)))
        return k;
    job.out = out;
    return run(ev, &job, NULL, err);
}

/* ---- sum to shape ---------------------------------------------------- */

bc_error_kind bc_eval_sum_to_shape(bc_evaluator ev, const bc_params *p, int n,
                                   const bc_shape *shapes, int operand, const bc_tensor *grad,
                                   const bc_tensor *out, bc_error *err)
{
    bc_error_kind k;
    if ((k = check_evaluator(p, ev, err)))
        return k;
    if (n < 1 || n > BC_MAX_OPERANDS)
        return bc_engine_fail(err, BC_ERR_OPERAND_COUNT, p->rule, -1,
                              "sum-to-shape takes 1 to %d forward shapes, got %d",
                              BC_MAX_OPERANDS, n);
    if (p->rule == BC_RULE_MATMUL)
        return BAD(-1, "matmul has no sum-to-shape: its values are not stated (RULES.md §15.4)");
    int shape_only = p->rule == BC_RULE_BROADCAST_TO || p->rule == BC_RULE_BIDIRECTIONAL ||
                     p->rule == BC_RULE_EXPLICIT;
    if (operand < 0 || operand >= n || (shape_only && operand != 0))
        return BAD(operand, "operand %d has no gradient under %s (%s)", operand,
                   bc_rule_name(p->rule), shape_only ? "only the input, operand 0, has one"
                                                     : "outside the forward shapes");
    if ((k = check_view(p, grad, 0, "gradient", err)))
        return k;
    bc_job job;
    job_init(&job, BC_JOB_SUM, p, grad->dtype);
    job.nin = 1;
    job.in[0] = grad;
    job.operand[0] = operand;
    job.nshapes = n;
    job.shapes = shapes;
    if ((k = bc_infer(p, n, shapes, &job.result, err)))
        return k;
    bc_shape resolved[2];
    if (p->rule == BC_RULE_BROADCAST_TO) { /* pytorch-expand's -1s resolved, as above */
        resolved[0] = shapes[0];
        resolved[1] = job.result;
        job.shapes = resolved;
    }
    if (p->rule == BC_RULE_EXPLICIT && (k = openvino_explicit_values(&job, &shapes[0], err)))
        return k;
    if (!has_shape(grad, &job.result)) {
        char a[96], b[96];
        bc_shape gs;
        shape_of(grad, &gs);
        bc_shape_format(&gs, a, sizeof a);
        bc_shape_format(&job.result, b, sizeof b);
        return BAD(0, "the gradient has shape %s, the forward result is %s", a, b);
    }
    if (grad->dtype == BC_BOOL)
        return BAD(0, "sum-to-shape is not defined on bool");
    if ((k = check_output(p, &shapes[operand], grad->dtype, out, 1, grad, NULL, 0, err)))
        return k;
    job.out = out;
    return run(ev, &job, NULL, err);
}

/* ---- prepared calls ---------------------------------------------------- */

/* Operand j: 0 the output, 1 + i input i (the fast plan's order). */
struct bc_eval_plan {
    bc_evaluator ev;
    int nin;
    bc_job job;            /* as checked; in[] and out point at the copies below */
    bc_fast_prep *fast;    /* BC_EVAL_FAST */
    int64_t size[BC_PLAN_MAX_OPS];
    int64_t elements[BC_PLAN_MAX_OPS]; /* of each view: its data is checked if > 0 */
    int64_t lo[BC_PLAN_MAX_OPS], hi[BC_PLAN_MAX_OPS]; /* bytes from data it reaches */
    int64_t first[BC_PLAN_MAX_OPS]; /* bytes from data to its element 0 (offset) */
    unsigned char in_place_layout[BC_PLAN_MAX_OPS]; /* input laid out as the output */
    bc_shape *shapes;      /* [nin] */
    bc_tensor views[];     /* [1 + nin]: the output, then the inputs */
};

static bc_error_kind make_plan(bc_evaluator ev, const bc_job *job, bc_eval_plan **plan,
                               bc_error *err)
{
    const int nin = job->nin, nops = nin + 1;
    size_t bytes = sizeof(bc_eval_plan) + sizeof(bc_tensor) * (size_t)nops;
    bc_eval_plan *pl = malloc(bytes + sizeof(bc_shape) * (size_t)job->nshapes);
    if (!pl)
        return bc_engine_fail(err, BC_ERR_BAD_PARAMS, job->params.rule, -1,
                              "out of memory for a plan of %d operands", nops);
    pl->ev = ev;
    pl->nin = nin;
    pl->job = *job;
    pl->shapes = (bc_shape *)(void *)((char *)pl + bytes);
    memcpy(pl->shapes, job->shapes, sizeof(bc_shape) * (size_t)job->nshapes);
    pl->job.shapes = pl->shapes;
    pl->views[0] = *job->out;
    pl->job.out = &pl->views[0];
    for (int i = 0; i < nin; i++) {
        pl->views[1 + i] = *job->in[i];
        pl->job.in[i] = &pl->views[1 + i];
    }
    for (int j = 0; j < nops; j++) {
        const bc_tensor *t = &pl->views[j];
        int64_t l = 0, h = 0, size = (int64_t)bc_dtype_size(t->dtype);
        bc_tensor_check(t, &pl->elements[j], NULL); /* checked: only the count */
        bc_tensor_extent(t, &l, &h);
        pl->size[j] = size;
        pl->lo[j] = l * size; /* fit: bc_tensor_check */
        pl->hi[j] = h * size + size;
        pl->first[j] = t->offset * size;
        pl->in_place_layout[j] = j > 0 && same_layout(t, &pl->views[0]);
    }
    pl->fast = NULL;
    if (ev == BC_EVAL_FAST && !(pl->fast = bc_fast_prepare(&pl->job))) {
        free(pl);
        return bc_engine_fail(err, BC_ERR_BAD_PARAMS, job->params.rule, -1,
                              "out of memory for a plan of %d operands", nops);
    }
    *plan = pl;
    return BC_OK;
}

bc_error_kind bc_eval_plan_binary(bc_evaluator ev, bc_op op, const bc_params *p,
                                  const bc_tensor *a, const bc_tensor *b, const bc_tensor *out,
                                  bc_eval_plan **plan, bc_error *err)
{
    const bc_tensor *pair[2] = {a, b};
    *plan = NULL;
    return elementwise(ev, op, p, 2, NULL, pair, out, 0, plan, err);
}

bc_error_kind bc_eval_plan_nary(bc_evaluator ev, bc_op op, const bc_params *p, int n,
                                const bc_tensor *in, const bc_tensor *out, bc_eval_plan **plan,
                                bc_error *err)
{
    *plan = NULL;
    return elementwise(ev, op, p, n, in, NULL, out, 1, plan, err);
}

int bc_eval_plan_inputs(const bc_eval_plan *plan)
{
    return plan->nin;
}

void bc_eval_plan_free(bc_eval_plan *plan)
{
    if (!plan)
        return;
    free(plan->fast);
    free(plan);
}

/* The checks of the front end that depend on the addresses, in its order
 * (inputs, output, then aliasing), with its messages. */
static bc_error_kind check_addresses(const bc_eval_plan *pl, char *const *data, int *overlaps,
                                     bc_error *err)
{
    *overlaps = 0;
    const bc_rule rule = pl->job.params.rule;
    for (int n = 1; n <= pl->nin + 1; n++) {
        const int j = n <= pl->nin ? n : 0; /* the inputs first */
        if (pl->elements[j] == 0)
            continue;
        const char *what = j ? "input" : "output";
        if (!data[j])
            return bc_engine_fail(err, BC_ERR_BAD_PARAMS, rule, j - 1,
                                  "%s: the view has %lld elements but no data", what,
                                  (long long)pl->elements[j]);
        if ((uintptr_t)data[j] % (uintptr_t)pl->size[j])
            return bc_engine_fail(err, BC_ERR_BAD_PARAMS, rule, j - 1,
                                  "%s: data is not aligned to its %lld-byte elements", what,
                                  (long long)pl->size[j]);
    }
    if (pl->elements[0] == 0)
        return BC_OK;
    const uintptr_t o = (uintptr_t)data[0], olo = o + (uintptr_t)pl->lo[0],
                    ohi = o + (uintptr_t)pl->hi[0];
    for (int j = 1; j <= pl->nin; j++) {
        const uintptr_t d = (uintptr_t)data[j];
        if (pl->elements[j] == 0 || d + (uintptr_t)pl->hi[j] <= olo ||
            ohi <= d + (uintptr_t)pl->lo[j])
            continue;
        *overlaps = 1;
        if (pl->in_place_layout[j] &&
            d + (uintptr_t)pl->first[j] == o + (uintptr_t)pl->first[0])
            continue;
        return bc_engine_fail(err, BC_ERR_BAD_PARAMS, rule, j - 1,
                              "the output overlaps input %d without being the same view; only "
                              "an output identical to an input (same address, dtype, shape "
                              "and strides) may share its memory", j - 1);
    }
    return BC_OK;
}

bc_error_kind bc_eval_plan_run(const bc_eval_plan *pl, void *out, const void *const *in,
                               bc_error *err)
{
    char *data[BC_PLAN_MAX_OPS];
    data[0] = out;
    for (int i = 0; i < pl->nin; i++)
        data[1 + i] = (char *)(uintptr_t)in[i];
    int overlaps;
    bc_error_kind k = check_addresses(pl, data, &overlaps, err);
    if (k)
        return k;
    if (pl->fast) {
        bc_fast_exec(pl->fast, data, overlaps);
        return BC_OK;
    }
    /* the oracle walks the views themselves: copies with the new data */
    const int nops = pl->nin + 1;
    bc_tensor *views = malloc(sizeof *views * (size_t)nops);
    if (!views)
        return bc_engine_fail(err, BC_ERR_BAD_PARAMS, pl->job.params.rule, -1,
                              "out of memory for %d views", nops);
    bc_job job = pl->job;
    for (int j = 0; j < nops; j++) {
        views[j] = pl->views[j];
        views[j].data = data[j];
    }
    job.out = &views[0];
    for (int i = 0; i < pl->nin; i++)
        job.in[i] = &views[1 + i];
    bc_naive_run(&job);
    free(views);
    return BC_OK;
}
