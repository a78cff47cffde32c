/*
 * Planted-bug SUTs for partial shapes (RULES.md §14): the classic bugs of
 * shape inference on dynamic, interval and symbolic dims, each modelled on
 * a real one cited below and in docs/MUTANTS.md.  Static questions get the
 * reference's answers; partial questions get the reference's answer except
 * where the bug bites: numpy's dim merge (numpy and bidirectional), or
 * matmul's batch.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

static void reference_infer(const bc_sut *sut, const bc_params *p, int n, const bc_shape *s,
                            bc_sut_answer *a)
{
    (void)sut;
    bc_answer_from_reference(p, n, s, a);
}

static int merges_numpy(const bc_params *p)
{
    return p->rule == BC_RULE_NUMPY || p->rule == BC_RULE_BIDIRECTIONAL;
}

static int is_unknown(const bc_pdim *d)
{
    return d->lo == 0 && d->hi == BC_DIM_UNBOUNDED && !d->sym;
}

/* The dim of operand i at result axis a of rank R (right-aligned), or NULL. */
static const bc_pdim *at_axis(const bc_pshape *s, int R, int a)
{
    int k = a - (R - s->rank);
    return s->rank >= 0 && k >= 0 ? &s->dims[k] : NULL;
}

/* An unknown dim broadcast against 1s gives 1: the size-1 side is taken as
 * the result, as a max() of a "?" encoded as -1 does.  llvm/torch-mlir PR
 * #3001 (ONNX Expand broadcast a 1 against a ? dim to 1 instead of ?). */
static void unknown_times_one(const bc_sut *sut, const bc_params *p, int n, const bc_pshape *s,
                              const bc_psymbols *syms, bc_sut_panswer *a)
{
    (void)sut;
    bc_panswer_from_reference(p, n, s, syms, a);
    if (a->status != BC_SUT_OK || !merges_numpy(p) || a->shape.rank < 0)
        return;
    const int R = a->shape.rank;
    for (int r = 0; r < R; r++) {
        int unknowns = 0, others = 0;
        for (int i = 0; i < n; i++) {
            const bc_pdim *d = at_axis(&s[i], R, r);
            if (!d)
                continue;
            if (is_unknown(d))
                unknowns++;
            else if (!(d->lo == 1 && d->hi == 1))
                others++;
        }
        if (unknowns > 0 && others == 0 && unknowns < n)
            a->shape.dims[r] = bc_pdim_static(1);
    }
}

/* A dim whose interval holds 1 is taken to be 1, so the other side is the
 * result.  ROCm/AMDMIGraphX PR #2629 (a range containing the other gave the
 * contained one), revised by PR #2821. */
static void interval_as_one(const bc_sut *sut, const bc_params *p, int n, const bc_pshape *s,
                            const bc_psymbols *syms, bc_sut_panswer *a)
{
    (void)sut;
    bc_pshape t[BC_MAX_OPERANDS];
    if (!merges_numpy(p) || n < 1 || n > BC_MAX_OPERANDS) {
        bc_panswer_from_reference(p, n, s, syms, a);
        return;
    }
    memcpy(t, s, (size_t)n * sizeof *t);
    for (int i = 0; i < n; i++)
        for (int k = 0; k < t[i].rank; k++)
            if (t[i].dims[k].lo != t[i].dims[k].hi && bc_pdim_may_be_1(&t[i].dims[k]))
                t[i].dims[k] = bc_pdim_static(1);
    bc_panswer_from_reference(p, n, t, syms, a);
}

/* Two different symbols assumed equal: every symbol is merged into the
 * first.  microsoft/onnxruntime PR #5519 and #5349 (symbolic shape
 * inference merged the symbolic dims of broadcast inputs). */
static void symbols_equal(const bc_sut *sut, const bc_params *p, int n, const bc_pshape *s,
                          const bc_psymbols *syms, bc_sut_panswer *a)
{
    (void)sut;
    bc_pshape t[BC_MAX_OPERANDS];
    if (!merges_numpy(p) || n < 1 || n > BC_MAX_OPERANDS) {
        bc_panswer_from_reference(p, n, s, syms, a);
        return;
    }
    memcpy(t, s, (size_t)n * sizeof *t);
    int first = 0;
    for (int i = 0; i < n; i++)
        for (int k = 0; k < t[i].rank; k++)
            if (t[i].dims[k].sym) {
                first = first ? first : t[i].dims[k].sym;
                t[i].dims[k].sym = first;
            }
    bc_panswer_from_reference(p, n, t, syms, a);
    if (a->status == BC_SUT_REJECTED && a->kind == BC_ERR_BAD_PARAMS)
        bc_panswer_from_reference(p, n, s, syms, a); /* the merged bounds contradict */
}

/* numpy's dim merge of OpenVINO before 2022: a static 1 yields to the other
 * dim, anything else is intersected, so an interval that may be 1 is
 * taken never to be 1.  openvinotoolkit/openvino PR #10264 ("Proper
 * dynamic dimension broadcasting"). */
static void merge_intersects(const bc_sut *sut, const bc_params *p, int n, const bc_pshape *s,
                             const bc_psymbols *syms, bc_sut_panswer *a)
{
    (void)sut;
    bc_panswer_from_reference(p, n, s, syms, a);
    if (a->status != BC_SUT_OK || !merges_numpy(p) || a->shape.rank < 0)
        return;
    const int R = a->shape.rank;
    for (int r = 0; r < R; r++) {
        bc_pdim acc = bc_pdim_static(1);
        for (int i = 0; i < n; i++) {
            const bc_pdim *d = at_axis(&s[i], R, r);
            if (!d || (d->lo == 1 && d->hi == 1))
                continue;
            if (acc.lo == 1 && acc.hi == 1) {
                acc = *d;
                continue;
            }
            acc.lo = d->lo > acc.lo ? d->lo : acc.lo;
            acc.hi = d->hi < acc.hi ? d->hi : acc.hi;
            acc.sym = acc.sym == d->sym ? acc.sym : 0;
            if (acc.lo > acc.hi) {
                a->status = BC_SUT_REJECTED;
                a->kind = BC_ERR_DIM_MISMATCH;
                snprintf(a->message, sizeof a->message, "incompatible dims at axis %d", r);
                return;
            }
        }
        a->shape.dims[r] = acc;
    }
}

/* matmul: an unknown batch dim (?) against a batch 1 gives 1, as a max()
 * over dims that encode "unknown" as -1 does: the same bug as
 * unknown_times_one, in a matmul shape function (modelled on llvm/torch-mlir
 * PR #3001, whose Expand took 1 for a ? broadcast against 1). */
static void matmul_unknown_batch_times_one(const bc_sut *sut, const bc_params *p, int n,
                                           const bc_pshape *s, const bc_psymbols *syms,
                                           bc_sut_panswer *a)
{
    (void)sut;
    bc_panswer_from_reference(p, n, s, syms, a);
    if (a->status != BC_SUT_OK || p->rule != BC_RULE_MATMUL || n != 2 || a->shape.rank < 0)
        return;
    bc_pshape batch[2];
    int R = 0;
    for (int i = 0; i < 2; i++) {
        batch[i].rank = s[i].rank >= 2 ? s[i].rank - 2 : 0;
        memcpy(batch[i].dims, s[i].dims, (size_t)batch[i].rank * sizeof batch[i].dims[0]);
        R = batch[i].rank > R ? batch[i].rank : R;
    }
    for (int r = 0; r < R; r++) {
        const bc_pdim *x = at_axis(&batch[0], R, r), *y = at_axis(&batch[1], R, r);
        if (x && y &&
            ((is_unknown(x) && y->lo == 1 && y->hi == 1) ||
             (is_unknown(y) && x->lo == 1 && x->hi == 1)))
            a->shape.dims[r] = bc_pdim_static(1);
    }
}

/* Two intervals meet. */
static int meet(const bc_pdim *x, const bc_pdim *y)
{
    return (x->lo > y->lo ? x->lo : y->lo) <= (x->hi < y->hi ? x->hi : y->hi);
}

/* openvino-explicit: each axes_mapping entry checked against its target
 * dim alone, as OpenVINO's validate_target_shape_none does (RULES.md §14.4,
 * D9), so two entries naming one target axis pass whenever each dim alone
 * fits it, although no value of the target dim fits both: [2..3,4..5]
 * mapped 1,1 onto [5,?] is accepted.  openvinotoolkit/openvino
 * src/core/shape_inference/include/broadcast_shape_inference.hpp
 * (Dimension::compatible per entry). */
static void explicit_repeats_alone(const bc_sut *sut, const bc_params *p, int n, const bc_pshape *s,
                                   const bc_psymbols *syms, bc_sut_panswer *a)
{
    (void)sut;
    bc_panswer_from_reference(p, n, s, syms, a);
    if (a->status != BC_SUT_REJECTED || a->kind != BC_ERR_DIM_MISMATCH ||
        p->rule != BC_RULE_EXPLICIT || bc_params_profile(p) != BC_PROFILE_OPENVINO_EXPLICIT ||
        (p->options & BC_OPT_AXES_UNKNOWN) || n != 2 || s[0].rank < 0 || s[1].rank < 0)
        return;
    const bc_pdim one = bc_pdim_static(1);
    for (int i = 0; i < p->naxes; i++) {
        if (p->axes[i] < 0 || p->axes[i] >= s[1].rank)
            return;
        const bc_pdim *t = &s[1].dims[p->axes[i]];
        if (s[0].rank == 0 ? !meet(t, &one)
                           : !bc_pdim_may_be_1(&s[0].dims[i]) && !meet(t, &s[0].dims[i]))
            return; /* this entry fails alone too */
    }
    a->status = BC_SUT_OK;
    a->kind = BC_OK;
    a->shape = s[1];
    a->message[0] = '\0';
}

/* explicit: an axes_mapping of unknown values (RULES.md §14.9) taken to be
 * the right-aligned one (the input's last axis onto the target's last, as
 * numpy aligns), so a case that only another mapping runs is rejected:
 * [2,3] with ?,? onto [2,4,3] (mapping 0,2) fails at 3 against 4.  It
 * models a shape function that fills an input it cannot read with a
 * default, here numpy's alignment; no upstream report of it is cited (the
 * classic bug the §14.9 properties must catch, docs/MUTANTS.md). */
static void unknown_mapping_right_aligned(const bc_sut *sut, const bc_params *p, int n,
                                          const bc_pshape *s, const bc_psymbols *syms,
                                          bc_sut_panswer *a)
{
    (void)sut;
    if (p->rule != BC_RULE_EXPLICIT || !(p->options & BC_OPT_AXES_UNKNOWN) || n != 2 ||
        s[0].rank < 0 || s[1].rank < s[0].rank || (p->naxes >= 0 && p->naxes != s[0].rank)) {
        bc_panswer_from_reference(p, n, s, syms, a);
        return;
    }
    bc_params known = *p;
    known.options &= ~(unsigned)BC_OPT_AXES_UNKNOWN;
    known.naxes = s[0].rank;
    for (int k = 0; k < s[0].rank; k++)
        known.axes[k] = s[1].rank - s[0].rank + k;
    bc_panswer_from_reference(&known, n, s, syms, a);
}

#define PARTIAL_MUTANT(ident, fn, name, what, cite)                                                \
    static const bc_sut_ops ident##_ops = {reference_infer, NULL, fn};                             \
    const bc_sut ident = {name, "mutant", what, cite, &ident##_ops}

PARTIAL_MUTANT(bc_mutant_partial_unknown_times_one, unknown_times_one,
               "mutant:partial-unknown-times-one",
               "numpy: an unknown dim (?) broadcast against 1 gives 1", "llvm/torch-mlir PR #3001");
PARTIAL_MUTANT(bc_mutant_partial_interval_as_one, interval_as_one, "mutant:partial-interval-as-one",
               "numpy: an interval that holds 1 (0..5) is taken to be 1",
               "ROCm/AMDMIGraphX PR #2629 (revised by PR #2821)");
PARTIAL_MUTANT(bc_mutant_partial_symbols_equal, symbols_equal, "mutant:partial-symbols-equal",
               "numpy: different symbols (N, M) assumed equal",
               "microsoft/onnxruntime PR #5519 and PR #5349");
PARTIAL_MUTANT(bc_mutant_partial_merge_intersects, merge_intersects,
               "mutant:partial-merge-intersects",
               "numpy: dims other than a static 1 intersected, so 0..5 with 3..9 gives 3..5",
               "openvinotoolkit/openvino PR #10264");
PARTIAL_MUTANT(bc_mutant_partial_matmul_unknown_batch_times_one, matmul_unknown_batch_times_one,
               "mutant:partial-matmul-unknown-batch",
               "matmul: an unknown batch dim (?) against a batch 1 gives 1",
               "llvm/torch-mlir PR #3001 (the same bug on Expand)");
PARTIAL_MUTANT(bc_mutant_partial_explicit_repeats_alone, explicit_repeats_alone,
               "mutant:partial-explicit-repeats-alone",
               "openvino-explicit: entries naming one target axis each checked alone, so "
               "[2..3,4..5] mapped 1,1 onto [5,?] passes",
               "openvinotoolkit/openvino broadcast_shape_inference.hpp, "
               "validate_target_shape_none (RULES.md §14.4 D9)");
PARTIAL_MUTANT(bc_mutant_partial_unknown_mapping_right_aligned, unknown_mapping_right_aligned,
               "mutant:partial-unknown-mapping-right-aligned",
               "explicit: an axes_mapping of unknown values taken to be the right-aligned one, so "
               "[2,3] with ?,? onto [2,4,3] is rejected",
               "RULES.md §14.9 (an unknown mapping filled with a default one)");
