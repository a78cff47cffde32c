/*
 * The properties: each one named, documented (what it checks and the bug it
 * catches), and applied to the rules where it means something.
 * Differential properties compare a SUT with the reference; metamorphic
 * ones compare a SUT with itself under a transformation whose effect the
 * rules fix, so they need no oracle and run on the reference too.
 */
#include <stdio.h>
#include <string.h>

#include "budget.h"
#include "gen.h"
#include "internal.h"
#include "value.h"

#define R(rule) (1u << (rule))
#define ALL_RULES ((1u << BC_RULE_COUNT) - 1)
/* The broadcasting rules of elementwise operations: value operations are
 * stated for them, not for matmul (RULES.md §15.4). */
#define ELEMENTWISE_RULES (ALL_RULES & ~R(BC_RULE_MATMUL))
/* Partial shapes are stated for every rule, matmul too (RULES.md §14.4, §15.4). */
#define PARTIAL_RULES ALL_RULES

enum {
    P_SHAPE_DIFFERENTIAL,
    P_COMMUTATIVE,
    P_ASSOCIATIVE,
    P_IDENTITY,
    P_PREPEND_ONES,
    P_UNI_IMPLIES_NUMPY,
    P_BIDIRECTIONAL_IS_NUMPY,
    P_PDPD_IS_PADDED_NUMPY,
    P_EXPLICIT_FORMS_AGREE,
    P_VALUE_DIFFERENTIAL,
    P_LAYOUT_INVARIANCE,
    P_BROADCAST_THEN_ELEMENTWISE,
    P_SUM_OF_BROADCAST,
    P_PARTIAL_SOUNDNESS,
    P_PARTIAL_PRECISION,
    P_PARTIAL_SYMBOLS,
    P_PARTIAL_STATIC_AGREES,
    P_MATMUL_BATCH_IS_NUMPY,
    P_MATMUL_SWAP_TRANSPOSES,
    P_MATMUL_VALUES,
    P_COUNT
};

static const bc_property_info properties[P_COUNT] = {
    [P_SHAPE_DIFFERENTIAL] = {
        "shape-differential", "differential",
        "The SUT accepts exactly the cases the reference accepts, with the same result shape, "
        "and (where the SUT names one) the same error kind.",
        "Any shape-rule bug: wrong stretch of 0, missing rank check, wrong axis default.",
        ALL_RULES, 0, 0},
    [P_COMMUTATIVE] = {
        "commutative", "metamorphic",
        "Reversing the operands of numpy (or swapping input and target of bidirectional) "
        "changes neither acceptance nor the result shape.",
        "Asymmetric code paths: operand 0 that cannot broadcast, a stretch only on one side.",
        R(BC_RULE_NUMPY) | R(BC_RULE_BIDIRECTIONAL), 0, 0},
    [P_ASSOCIATIVE] = {
        "associative", "metamorphic",
        "numpy(numpy(a,b),c), numpy(a,numpy(b,c)) and numpy(a,b,c) agree.",
        "n-ary broadcasting that differs from folding binary broadcasts.",
        R(BC_RULE_NUMPY), 0, 0},
    [P_IDENTITY] = {
        "identity", "metamorphic",
        "Adding a scalar or an all-ones shape of no larger rank changes nothing.",
        "Scalars and size-1 dims treated as real dims (a 1 that does not stretch).",
        R(BC_RULE_NUMPY) | R(BC_RULE_BIDIRECTIONAL), 0, 0},
    [P_PREPEND_ONES] = {
        "prepend-ones", "metamorphic",
        "Prepending the same number of 1s to every operand only prepends 1s to the result.",
        "Rank-dependent code paths, left alignment, off-by-one in rank differences.",
        R(BC_RULE_NONE) | R(BC_RULE_NUMPY) | R(BC_RULE_ONNX_UNI) | R(BC_RULE_BROADCAST_TO) |
            R(BC_RULE_BIDIRECTIONAL), 0, 0},
    [P_UNI_IMPLIES_NUMPY] = {
        "uni-implies-numpy", "metamorphic",
        "When onnx-uni accepts (A, B), numpy accepts it with result A; when broadcast-to "
        "accepts (input, target), numpy gives the target.",
        "A one-way rule more permissive than two-way broadcasting (a missing rank check).",
        R(BC_RULE_ONNX_UNI) | R(BC_RULE_BROADCAST_TO), 0, 0},
    [P_BIDIRECTIONAL_IS_NUMPY] = {
        "bidirectional-is-numpy", "metamorphic",
        "bidirectional(input, target) equals numpy(input, target), acceptance and result.",
        "Expand implemented as broadcast_to (or the reverse).",
        R(BC_RULE_BIDIRECTIONAL), 0, 0},
    [P_PDPD_IS_PADDED_NUMPY] = {
        "pdpd-is-padded-numpy", "metamorphic",
        "pdpd equals numpy after the smaller operand is padded with 1s around the axis window "
        "(after trimming, for openvino-doc).",
        "B read at the wrong axis, trailing 1s not ignored, the default axis computed after "
        "trimming.",
        R(BC_RULE_PDPD), 0, 0},
    [P_EXPLICIT_FORMS_AGREE] = {
        "explicit-forms-agree", "metamorphic",
        "An explicit broadcast_axes case the SUT accepts is also accepted, with the same "
        "result, in its axes_mapping spelling (the complement of the axes).",
        "The two spellings of explicit broadcast implemented inconsistently.",
        R(BC_RULE_EXPLICIT), 0, 0},
    [P_VALUE_DIFFERENTIAL] = {
        "value-differential", "differential",
        "The SUT computes every operation (elementwise, n-ary, where, broadcast, sum-to-shape) "
        "on strided inputs of distinct values exactly as the naive reference does, and rejects "
        "what it rejects.",
        "A wrong index or stride for a stretched axis, a mis-summed gradient, swapped where "
        "branches: anything that reads the wrong element.",
        ELEMENTWISE_RULES, 1, 0},
    [P_LAYOUT_INVARIANCE] = {
        "layout-invariance", "metamorphic",
        "The same values through other strides (permuted, negative, gapped, 0 on size-1 axes, "
        "offset) give the same result as C-contiguous inputs.",
        "Kernels that assume contiguous inputs, ignore an offset or use a size-1 axis's stride.",
        ELEMENTWISE_RULES, 1, 0},
    [P_BROADCAST_THEN_ELEMENTWISE] = {
        "broadcast-then-elementwise", "metamorphic",
        "Broadcasting each operand to the result shape first (broadcast-to), then computing "
        "with rule none, gives the same values as the broadcasting operation.",
        "A fused broadcasting kernel that disagrees with the library's own broadcast_to.",
        R(BC_RULE_NUMPY) | R(BC_RULE_ONNX_UNI), 1, 0},
    [P_SUM_OF_BROADCAST] = {
        "sum-of-broadcast", "metamorphic",
        "sum-to-shape of broadcast(x) is x times the stretch factor numel(result)/numel(x) "
        "(exact: small integer values).",
        "A backprop that forgets the leading or the stretched axes, or sums the wrong ones.",
        R(BC_RULE_BROADCAST_TO) | R(BC_RULE_BIDIRECTIONAL) | R(BC_RULE_EXPLICIT), 1, 0},
    [P_PARTIAL_SOUNDNESS] = {
        "partial-soundness", "differential",
        "On partial shapes (?, intervals, symbols, unknown rank) the SUT's answer holds the static "
        "reference's result of every concretization it accepts, and the SUT rejects only when "
        "no concretization is accepted (RULES.md §14.1).",
        "An unknown or an interval merged as if it were 1 (or never 1): a result that a real "
        "shape falls outside of, or a graph refused that would run.",
        PARTIAL_RULES, 0, 1},
    [P_PARTIAL_PRECISION] = {
        "partial-precision", "differential",
        "Each bound of the SUT's partial result is reached by an accepted concretization, and an "
        "accepted case has one, unless a relaxation of RULES.md §14.5 covers it.",
        "Inference that gives up (? where the dim is known, a case accepted that can never "
        "run).",
        PARTIAL_RULES, 0, 1},
    [P_PARTIAL_SYMBOLS] = {
        "partial-symbols", "differential",
        "A symbol in the SUT's partial result equals, in every accepted concretization, the "
        "value of that symbol in the inputs (or, if the SUT made it up, is one value).",
        "Different symbols assumed equal; a symbol kept on a result that can differ from it.",
        PARTIAL_RULES, 0, 1},
    [P_PARTIAL_STATIC_AGREES] = {
        "partial-static-agrees", "differential",
        "On static shapes, the SUT's partial inference answers as the static reference: the same "
        "acceptance, result and error kind.",
        "A partial-shape code path that drifts from the static one (its own 0 or rank rules).",
        PARTIAL_RULES, 0, 1},
    [P_MATMUL_BATCH_IS_NUMPY] = {
        "matmul-batch-is-numpy", "metamorphic",
        "When the contracted dims agree, matmul(A, B) is accepted exactly when the SUT's numpy "
        "accepts A's and B's batch parts (all but the matrix axes), and its result is that "
        "numpy result followed by A's rows and B's columns (none for a 1-D operand).",
        "Batch dims broadcast by a rule of their own (no stretch, left-aligned), or a 1-D "
        "operand's promoted axis kept in the result.",
        R(BC_RULE_MATMUL), 0, 0},
    [P_MATMUL_SWAP_TRANSPOSES] = {
        "matmul-swap-transposes", "metamorphic",
        "matmul(B^T, A^T), with ^T swapping the last two axes of an operand of rank >= 2, "
        "answers as matmul(A, B) with its result's last two axes swapped (when both are "
        "matrices; a 1-D operand stays as it is and the result too).",
        "Operand-order asymmetry: one side's 1-D promotion or batch stretch handled differently "
        "from the other's.",
        R(BC_RULE_MATMUL), 0, 0},
    [P_MATMUL_VALUES] = {
        "matmul-values", "differential",
        "The SUT computes matmul (batch broadcast, 1-D promotion, k = 0, size-0 batches, strided "
        "inputs) as the naive reference does: integers exactly, floats within the rounding "
        "bound of any summation order (gamma_K(u) sum |a||b|), and rejects what it rejects.",
        "A wrong batch stride for a stretched batch dim, a promoted 1-D axis read as a row of "
        "the other kind, a k = 0 product left unwritten.",
        R(BC_RULE_MATMUL), 1, 0},
};

const bc_property_info *bc_properties(int *count)
{
    *count = P_COUNT;
    return properties;
}

int bc_property_from_name(const char *name)
{
    for (int i = 0; i < P_COUNT; i++)
        if (strcmp(properties[i].name, name) == 0)
            return i;
    return -1;
}

static bc_partial_mode partial_mode(int property)
{
    switch (property) {
    case P_PARTIAL_SOUNDNESS: return BC_PMODE_SOUNDNESS;
    case P_PARTIAL_PRECISION: return BC_PMODE_PRECISION;
    case P_PARTIAL_SYMBOLS: return BC_PMODE_SYMBOLS;
    default: return BC_PMODE_STATIC;
    }
}

void bc_pproperty_gen(int property, bc_rule rule, unsigned partial_caps, unsigned profiles,
                      bc_prng *r, bc_pvector *c)
{
    bc_pgen_case(r, rule, partial_caps, profiles, partial_mode(property), c);
}

bc_check bc_pproperty_check(int property, bc_check_ctx *ctx, const bc_pvector *c, char *detail,
                            size_t cap)
{
    return bc_partial_check(partial_mode(property), ctx, c, detail, cap);
}

int bc_pproperty_shrink(int property, bc_check_ctx *ctx, bc_pvector *c, int64_t max_calls,
                        char *detail, size_t cap)
{
    return bc_pshrink(partial_mode(property), ctx, c, max_calls, detail, cap);
}

/* ---- generation -------------------------------------------------------- */

void bc_property_gen(int property, bc_rule rule, const bc_sut_value_caps *caps,
                     const bc_semantics *semantics, bc_prng *r, bc_vector *c)
{
    bc_property_gen_tier(property, rule, caps, semantics, BC_TIER_SMALL, r, c);
}

void bc_property_gen_tier(int property, bc_rule rule, const bc_sut_value_caps *caps,
                          const bc_semantics *semantics, bc_value_tier tier, bc_prng *r,
                          bc_vector *c)
{
    bc_property_gen_within(property, rule, caps, semantics, tier, 0, 0, r, c);
}

static void gen_one(int property, bc_rule rule, const bc_sut_value_caps *caps,
                    const bc_semantics *semantics, bc_value_tier tier, bc_prng *r, bc_vector *c);

/* What the huge tier is for: a result past 2^31 elements (a case the rule
 * rejects has none). */
static int past_int32(const bc_vector *c)
{
    bc_shape result;
    int64_t n;
    return bc_infer(&c->params, c->nshapes, c->shapes, &result, NULL) == BC_OK &&
           bc_shape_numel(&result, &n) == BC_OK && n > ((int64_t)1 << 31);
}

int bc_property_gen_within(int property, bc_rule rule, const bc_sut_value_caps *caps,
                           const bc_semantics *semantics, bc_value_tier tier, int64_t max_bytes,
                           int64_t max_question_bytes, bc_prng *r, bc_vector *c)
{
    /* Drawn blind, 9 of 12 huge cases needed 8.6 to 43 GB and went
     * unexamined (docs/PROPERTIES.md "The huge tier's budget"): the next
     * draws of the same stream, so that the same seed gives the same case.
     * Only the huge tier, whose budget is given: every small and medium
     * case fits the default budget, and stays what it was. */
    if (tier != BC_TIER_HUGE || max_bytes <= 0) {
        gen_one(property, rule, caps, semantics, tier, r, c);
        return 1;
    }
    /* Kept: the first draw that fits and is past 2^31 elements, or a first
     * draw the rule rejects (the tier's share of rejections); failing that,
     * the first draw that fits, drawn again from its state; failing that,
     * the last, which is then not examined. */
    bc_prng first_fit;
    int first_fit_draw = 0;
    for (int draw = 1;; draw++) {
        const bc_prng before = *r;
        gen_one(property, rule, caps, semantics, tier, r, c);
        int64_t bytes, question;
        const int fits = bc_property_fits(property, semantics, max_bytes, max_question_bytes, c,
                                          &bytes, &question);
        bc_shape result;
        if (fits && (past_int32(c) ||
                     (draw == 1 && bc_infer(&c->params, c->nshapes, c->shapes, &result, NULL) !=
                                       BC_OK)))
            return draw;
        if (fits && !first_fit_draw) {
            first_fit = before;
            first_fit_draw = draw;
        }
        if (draw < BC_HUGE_DRAWS)
            continue;
        if (!first_fit_draw)
            return draw;
        *r = first_fit;
        gen_one(property, rule, caps, semantics, tier, r, c);
        return first_fit_draw;
    }
}

static void gen_one(int property, bc_rule rule, const bc_sut_value_caps *caps,
                    const bc_semantics *semantics, bc_value_tier tier, bc_prng *r, bc_vector *c)
{
    bc_gen_request req = {.rule = rule, .reject_percent = 30,
                          .sut_max_operands = caps->max_operands};
    const unsigned all_kinds = (1u << BC_VALUE_OP_COUNT) - 1;
    switch (property) {
    case P_VALUE_DIFFERENTIAL:
        bc_value_gen_tier(r, rule, all_kinds, caps, semantics, 0, (int)tier, c);
        return;
    case P_LAYOUT_INVARIANCE:
        bc_value_gen_tier(r, rule, all_kinds, caps, semantics, 1, (int)tier, c);
        return;
    case P_BROADCAST_THEN_ELEMENTWISE:
        bc_value_gen_tier(r, rule,
                          BC_VALUE_KIND(BC_VALUE_ELEMENTWISE) | BC_VALUE_KIND(BC_VALUE_SELECT),
                          caps, semantics, 0, (int)tier, c);
        return;
    case P_MATMUL_VALUES:
        bc_value_gen_tier(r, rule, BC_VALUE_KIND(BC_VALUE_MATMUL), caps, semantics, 0, (int)tier, c);
        return;
    case P_SUM_OF_BROADCAST:
        bc_value_gen_tier(r, rule, BC_VALUE_KIND(BC_VALUE_BROADCAST), caps, semantics, 0, (int)tier, c);
        if (c->value.dtype == BC_BOOL || c->value.dtype == BC_FLOAT16)
            c->value.dtype = BC_INT32; /* no sums on bool; binary16 sums round */
        /* Past the small tier the distinct values (values=0) reach 2^20 and,
         * summed 2^20 times, pass 2^24, where a float32 sum rounds in an
         * order of the SUT's own: random values (|x| <= 9) keep every sum
         * exact.  The draw comes last, so smaller tiers' cases are as they
         * were. */
        if (tier != BC_TIER_SMALL && c->value.values == 0) {
            c->value.values = bc_prng_next(r) | 1u;
            c->value.values_version = bc_values_version_of_tier((int)tier);
        }
        return;
    case P_ASSOCIATIVE:
        req.min_operands = req.max_operands = 3;
        break;
    case P_SHAPE_DIFFERENTIAL:
        req.reject_percent = 40;
        req.expand_percent = 15;
        req.opmodes_percent = 25;
        req.empty_fold_percent = (caps->profiles >> BC_PROFILE_NUMPY_EMPTY_FOLD) & 1u ? 10 : 0;
        break;
    default:
        break;
    }
    bc_gen_case(r, &req, c);
}

/* ---- asking the SUT ----------------------------------------------------- */

/* 1 if the run is stopping (ctx->stop): the question is not asked, and
 * the check it belongs to will be thrown away (ctx->stopped says why). */
static int run_stopping(bc_check_ctx *ctx, bc_sut_answer *a)
{
    if (!ctx->stop || (ctx->stopped = ctx->stop(ctx->hook)) == BC_SHRINK_MINIMAL)
        return 0;
    a->status = BC_SUT_INTERNAL_ERROR;
    a->fault = BC_SUT_FAULT_INTERRUPTED;
    snprintf(a->message, sizeof a->message, "not asked: the run is stopping");
    return 1;
}

void bc_check_answered(bc_check_ctx *ctx, const bc_sut_answer *a)
{
    if (ctx->answered)
        ctx->answered(ctx->hook, a);
    if (a->status != BC_SUT_INTERNAL_ERROR || ctx->stopped != BC_SHRINK_MINIMAL)
        return;
    if (a->fault == BC_SUT_FAULT_INTERRUPTED) {
        /* cut short by a signal, or by the run's --time (a question asked
         * again after a timeout gets no more than the time left): the run's
         * own reason, if it is stopping */
        bc_shrink_stop why = ctx->stop ? ctx->stop(ctx->hook) : BC_SHRINK_MINIMAL;
        ctx->stopped = why != BC_SHRINK_MINIMAL ? why : BC_SHRINK_INTERRUPTED;
    } else if (a->fault == BC_SUT_FAULT_NO_WORKER)
        ctx->stopped = BC_SHRINK_UNRESPONSIVE;
}

static void ask_sut(bc_check_ctx *ctx, const bc_params *p, int n, const bc_shape *shapes,
                    bc_sut_answer *a)
{
    memset(a, 0, sizeof *a);
    if (run_stopping(ctx, a))
        return;
    ctx->sut_calls++;
    ctx->sut->ops->infer_shape(ctx->sut, p, n, shapes, a);
    bc_check_answered(ctx, a);
}

/* ---- a declared element limit (semantics max_elements, RULES.md §9.4) ---- */

typedef enum limit_class {
    LIMIT_FITS,       /* must be answered as the rule answers it */
    LIMIT_MAY_REFUSE, /* empty, but its nonzero dims multiply past the limit */
    LIMIT_OVER        /* more elements than the limit: must be refused */
} limit_class;

static limit_class shape_limit(const bc_shape *s)
{
    int64_t product = 1;
    int empty = 0, over = 0;
    for (int k = 0; k < s->rank; k++) {
        if (s->dims[k] == 0)
            empty = 1;
        else if (s->dims[k] > 0 && !over && __builtin_mul_overflow(product, s->dims[k], &product))
            over = 1;
    }
    return !over ? LIMIT_FITS : empty ? LIMIT_MAY_REFUSE : LIMIT_OVER;
}

/* What a declared limit makes of a shape question whose reference answer is
 * `result` (NULL: the rule rejects it).  The result must fit; an operand
 * past the limit (only possible beside an empty result, or in a case the
 * rule rejects anyway) may be refused for it, as a library that builds its
 * operands first does. */
static limit_class question_limit(const bc_check_ctx *ctx, const bc_params *p, int n,
                                  const bc_shape *shapes, const bc_shape *result)
{
    const unsigned rules = ctx->semantics.max_elements_rules;
    if (ctx->semantics.max_elements == BC_MAX_ELEMENTS_NONE ||
        (rules != 0 && ((unsigned)p->rule >= BC_RULE_COUNT || !(rules & (1u << p->rule)))))
        return LIMIT_FITS;
    limit_class worst = result ? shape_limit(result) : LIMIT_FITS;
    for (int i = 0; i < n && worst == LIMIT_FITS; i++)
        if (shape_limit(&shapes[i]) != LIMIT_FITS)
            worst = LIMIT_MAY_REFUSE;
    return worst;
}

/* A refusal the limit explains: no kind, or overflow. */
static int limit_refusal(const bc_sut_answer *a)
{
    return a->status == BC_SUT_REJECTED && (a->kind == BC_OK || a->kind == BC_ERR_OVERFLOW);
}

/* What a metamorphic property asks: the SUT's answer, except that a refusal
 * the declared limit explains is "unsupported" (the question was past what
 * the SUT declares it holds: comparing it with another answer says nothing
 * about the rule; shape-differential checks the refusal itself). */
static void ask(bc_check_ctx *ctx, const bc_params *p, int n, const bc_shape *shapes,
                bc_sut_answer *a)
{
    ask_sut(ctx, p, n, shapes, a);
    if (ctx->semantics.max_elements == BC_MAX_ELEMENTS_NONE || !limit_refusal(a))
        return;
    bc_shape want;
    bc_error err;
    int accepted = bc_infer(p, n, shapes, &want, &err) == BC_OK;
    limit_class limit = question_limit(ctx, p, n, shapes, accepted ? &want : NULL);
    if (limit == LIMIT_FITS || (!accepted && a->kind == BC_OK))
        return; /* an ordinary rejection, compared as one */
    a->status = BC_SUT_UNSUPPORTED;
    snprintf(a->message, sizeof a->message, "refused past the declared element limit");
}

static void describe(const bc_sut_answer *a, char *buf, size_t cap)
{
    switch (a->status) {
    case BC_SUT_OK:
        bc_shape_format(&a->shape, buf, cap);
        break;
    case BC_SUT_REJECTED:
        snprintf(buf, cap, "error%s%s", a->kind ? ":" : "", a->kind ? bc_error_kind_name(a->kind) : "");
        break;
    case BC_SUT_UNSUPPORTED:
        snprintf(buf, cap, "unsupported");
        break;
    default:
        snprintf(buf, cap, "internal error (%s)", a->message);
        break;
    }
}

/* Two answers agree: the same result shape, or both rejections. */
static int agree(const bc_sut_answer *a, const bc_sut_answer *b)
{
    if (a->status == BC_SUT_OK && b->status == BC_SUT_OK)
        return bc_shape_equal(&a->shape, &b->shape);
    return a->status == BC_SUT_REJECTED && b->status == BC_SUT_REJECTED;
}

/* The common tail of a metamorphic property: both answers known, compare. */
/* compare's verdict before any text is made: UNSUPPORTED, PASS, or FAIL
 * (whose detail compare writes). */
static bc_check compare_verdict(const bc_sut_answer *a, const bc_sut_answer *b)
{
    if (a->status == BC_SUT_UNSUPPORTED || b->status == BC_SUT_UNSUPPORTED)
        return BC_CHECK_UNSUPPORTED;
    if (a->status != BC_SUT_INTERNAL_ERROR && b->status != BC_SUT_INTERNAL_ERROR && agree(a, b))
        return BC_CHECK_PASS;
    return BC_CHECK_FAIL;
}

static bc_check compare(const bc_sut_answer *a, const char *what_a, const bc_sut_answer *b,
                        const char *what_b, char *detail, size_t cap)
{
    bc_check k = compare_verdict(a, b);
    if (k != BC_CHECK_FAIL)
        return k;
    char da[1400], db[1400];
    describe(a, da, sizeof da);
    describe(b, db, sizeof db);
    snprintf(detail, cap, "%s gives %s but %s gives %s", what_a, da, what_b, db);
    return BC_CHECK_FAIL;
}

/* A case on which the property has nothing to compare: still ask the SUT
 * the case itself, so that a pass means it answered (a rule it does not
 * declare shows as unsupported, a crash as a failure). */
static bc_check nothing_to_compare(bc_check_ctx *ctx, const bc_vector *c, char *detail,
                                   size_t cap)
{
    bc_sut_answer a;
    ask_sut(ctx, &c->params, c->nshapes, c->shapes, &a);
    if (a.status == BC_SUT_UNSUPPORTED)
        return BC_CHECK_UNSUPPORTED;
    if (a.status != BC_SUT_INTERNAL_ERROR)
        return BC_CHECK_PASS;
    snprintf(detail, cap, "SUT: internal error (%s)", a.message);
    return BC_CHECK_FAIL;
}

/* ---- the checks ---------------------------------------------------------- */

static bc_check shape_differential(bc_check_ctx *ctx, const bc_vector *c, char *detail, size_t cap)
{
    bc_sut_answer a;
    ask_sut(ctx, &c->params, c->nshapes, c->shapes, &a);
    if (a.status == BC_SUT_UNSUPPORTED)
        return BC_CHECK_UNSUPPORTED;
    bc_shape want;
    /* No error text yet (most cases pass): a failure asks again for it. */
    bc_error_kind kind = bc_infer(&c->params, c->nshapes, c->shapes, &want, NULL);
    limit_class limit =
        question_limit(ctx, &c->params, c->nshapes, c->shapes, kind == BC_OK ? &want : NULL);
    if (limit != LIMIT_FITS && limit_refusal(&a))
        return BC_CHECK_PASS; /* refused as the declared element limit allows */
    /* The answer is formatted only for a failure (formatting it for every
     * case, and prepend-ones' label, cost 5 % of the shape properties'
     * instructions). */
    char got[1400], ref[1400];
    if (limit == LIMIT_OVER) {
        describe(&a, got, sizeof got);
        bc_shape_format(&want, ref, sizeof ref);
        snprintf(detail, cap, "SUT gives %s, reference rejects: overflow: the result %s has more "
                 "than the declared max_elements (int64: 2^63 - 1)", got, ref);
        return BC_CHECK_FAIL;
    }
    if (kind == BC_OK) {
        if (a.status == BC_SUT_OK && bc_shape_equal(&a.shape, &want))
            return BC_CHECK_PASS;
        describe(&a, got, sizeof got);
        bc_shape_format(&want, ref, sizeof ref);
        snprintf(detail, cap, "SUT gives %s, reference gives %s", got, ref);
        return BC_CHECK_FAIL;
    }
    if (a.status == BC_SUT_REJECTED && (a.kind == BC_OK || a.kind == kind))
        return BC_CHECK_PASS;
    describe(&a, got, sizeof got);
    bc_error err;
    bc_infer(&c->params, c->nshapes, c->shapes, &want, &err);
    snprintf(detail, cap, "SUT gives %s, reference rejects: %s", got, err.message);
    return BC_CHECK_FAIL;
}

static bc_check commutative(bc_check_ctx *ctx, const bc_vector *c, char *detail, size_t cap)
{
    bc_shape rev[BC_VECTOR_MAX_SHAPES];
    for (int i = 0; i < c->nshapes; i++)
        rev[i] = c->shapes[c->nshapes - 1 - i];
    bc_sut_answer a, b;
    ask(ctx, &c->params, c->nshapes, c->shapes, &a);
    ask(ctx, &c->params, c->nshapes, rev, &b);
    return compare(&a, "the operands in order", &b, "the operands reversed", detail, cap);
}

static bc_check associative(bc_check_ctx *ctx, const bc_vector *c, char *detail, size_t cap)
{
    if (c->nshapes != 3)
        return BC_CHECK_UNSUPPORTED;
    const bc_shape *x = c->shapes;
    bc_sut_answer ab, bc_, left, right, all;
    bc_shape pair[2];
    pair[0] = x[0], pair[1] = x[1];
    ask(ctx, &c->params, 2, pair, &ab);
    pair[0] = x[1], pair[1] = x[2];
    ask(ctx, &c->params, 2, pair, &bc_);
    ask(ctx, &c->params, 3, x, &all);
    if (ab.status == BC_SUT_UNSUPPORTED || bc_.status == BC_SUT_UNSUPPORTED)
        return BC_CHECK_UNSUPPORTED;
    /* A rejected pair makes the fold reject; fold the accepted ones. */
    left = ab;
    if (ab.status == BC_SUT_OK) {
        pair[0] = ab.shape, pair[1] = x[2];
        ask(ctx, &c->params, 2, pair, &left);
    }
    right = bc_;
    if (bc_.status == BC_SUT_OK) {
        pair[0] = x[0], pair[1] = bc_.shape;
        ask(ctx, &c->params, 2, pair, &right);
    }
    bc_check k = compare(&left, "numpy(numpy(a,b),c)", &right, "numpy(a,numpy(b,c))", detail, cap);
    if (k != BC_CHECK_PASS || all.status == BC_SUT_UNSUPPORTED) /* 3 operands may be unsupported */
        return k;
    return compare(&left, "numpy(numpy(a,b),c)", &all, "numpy(a,b,c)", detail, cap);
}

static bc_check identity(bc_check_ctx *ctx, const bc_vector *c, char *detail, size_t cap)
{
    /* numpy: one more operand, the scalar and then all ones of the largest
     * rank; bidirectional: the target replaced by those, which gives the
     * input itself.  Both choices follow from the case, so replay is exact. */
    int n = c->nshapes, max_rank = 0;
    for (int i = 0; i < n; i++)
        if (c->shapes[i].rank > max_rank)
            max_rank = c->shapes[i].rank;
    if (c->params.rule == BC_RULE_BIDIRECTIONAL)
        max_rank = c->shapes[0].rank;
    bc_shape more[BC_VECTOR_MAX_SHAPES + 1];
    memcpy(more, c->shapes, (size_t)n * sizeof *more);
    bc_sut_answer base, with;
    if (c->params.rule == BC_RULE_BIDIRECTIONAL) {
        /* what bidirectional(input, ones) must give: the input, if valid */
        memset(&base, 0, sizeof base);
        base.status = BC_SUT_OK;
        base.shape = c->shapes[0];
        for (int k = 0; k < base.shape.rank; k++)
            if (base.shape.dims[k] < 0)
                base.status = BC_SUT_REJECTED;
    } else {
        /* no room for another operand: in the rule, or in what the SUT takes
         * (another would only come back "unsupported") */
        if (n >= BC_MAX_OPERANDS || n >= bc_sut_value_caps_of(ctx->sut).max_operands)
            return nothing_to_compare(ctx, c, detail, cap);
        ask(ctx, &c->params, n, c->shapes, &base);
    }
    int slot = c->params.rule == BC_RULE_BIDIRECTIONAL ? 1 : n;
    int count = c->params.rule == BC_RULE_BIDIRECTIONAL ? 2 : n + 1;
    for (int variant = 0; variant < 2; variant++) {
        bc_shape ones;
        ones.rank = variant == 0 ? 0 : max_rank;
        for (int k = 0; k < ones.rank; k++)
            ones.dims[k] = 1;
        more[slot] = ones;
        ask(ctx, &c->params, count, more, &with);
        bc_check k = compare(&base, variant ? "without the all-ones shape" : "without the scalar",
                             &with, variant ? "with an all-ones shape of the largest rank"
                                            : "with a scalar added", detail, cap);
        if (k != BC_CHECK_PASS)
            return k;
    }
    return BC_CHECK_PASS;
}

/* Prepends `count` 1s to s (count already fits the rank limit). */
static void prepend(bc_shape *s, int count)
{
    memmove(&s->dims[count], &s->dims[0], (size_t)s->rank * sizeof s->dims[0]);
    for (int i = 0; i < count; i++)
        s->dims[i] = 1;
    s->rank += count;
}

static bc_check prepend_ones(bc_check_ctx *ctx, const bc_vector *c, char *detail, size_t cap)
{
    int max_rank = 0;
    for (int i = 0; i < c->nshapes; i++)
        if (c->shapes[i].rank > max_rank)
            max_rank = c->shapes[i].rank;
    int count = max_rank < BC_MAX_RANK ? (max_rank % 3) + 1 : 0;
    if (count > BC_MAX_RANK - max_rank)
        count = BC_MAX_RANK - max_rank;
    if (count == 0)
        return nothing_to_compare(ctx, c, detail, cap); /* already at the rank limit */
    /* Under profile pytorch-expand a -1 target dim ahead of the input is an
     * error the padding takes away (it then keeps a padded 1): RULES.md §6.1 */
    if (bc_params_profile(&c->params) == BC_PROFILE_PYTORCH_EXPAND &&
        c->nshapes == 2)
        for (int k = 0; k < c->shapes[1].rank - c->shapes[0].rank; k++)
            if (c->shapes[1].dims[k] == -1)
                return nothing_to_compare(ctx, c, detail, cap);
    bc_shape more[BC_VECTOR_MAX_SHAPES];
    for (int i = 0; i < c->nshapes; i++) {
        more[i] = c->shapes[i];
        prepend(&more[i], count);
    }
    bc_sut_answer base, with;
    ask(ctx, &c->params, c->nshapes, c->shapes, &base);
    ask(ctx, &c->params, c->nshapes, more, &with);
    if (base.status == BC_SUT_OK && base.shape.rank + count <= BC_MAX_RANK)
        prepend(&base.shape, count); /* what the rules say the padded case gives */
    bc_check k = compare_verdict(&base, &with);
    if (k != BC_CHECK_FAIL) /* the label is made only for a failure's detail */
        return k;
    char what[64];
    snprintf(what, sizeof what, "every operand with %d leading 1s", count);
    return compare(&base, "the operands, result with leading 1s", &with, what, detail, cap);
}

static bc_check uni_implies_numpy(bc_check_ctx *ctx, const bc_vector *c, char *detail, size_t cap)
{
    bc_sut_answer uni, np;
    ask(ctx, &c->params, c->nshapes, c->shapes, &uni);
    if (uni.status == BC_SUT_UNSUPPORTED)
        return BC_CHECK_UNSUPPORTED;
    if (uni.status == BC_SUT_INTERNAL_ERROR)
        return compare(&uni, bc_rule_name(c->params.rule), &uni, "itself", detail, cap);
    bc_params numpy = bc_params_for(BC_RULE_NUMPY);
    /* Under profile pytorch-expand a -1 target dim keeps the input's dim it
     * lines up with (RULES.md §6.1): numpy is asked of that dim instead. */
    bc_shape shapes[2] = {c->shapes[0], c->shapes[1]};
    if (bc_params_profile(&c->params) == BC_PROFILE_PYTORCH_EXPAND)
        for (int k = 0; k < shapes[1].rank; k++) {
            int i = k - (shapes[1].rank - shapes[0].rank);
            if (shapes[1].dims[k] == -1 && i >= 0)
                shapes[1].dims[k] = shapes[0].dims[i];
        }
    ask(ctx, &numpy, 2, shapes, &np);
    /* A rejection implies nothing, but numpy is still asked: a SUT that
     * does not declare numpy cannot pass this property, only skip it. */
    if (uni.status != BC_SUT_OK && np.status != BC_SUT_UNSUPPORTED)
        return BC_CHECK_PASS;
    return compare(&uni, bc_rule_name(c->params.rule), &np, "numpy of the same shapes", detail,
                   cap);
}

static bc_check bidirectional_is_numpy(bc_check_ctx *ctx, const bc_vector *c, char *detail,
                                       size_t cap)
{
    bc_sut_answer bi, np;
    bc_params numpy = bc_params_for(BC_RULE_NUMPY);
    ask(ctx, &c->params, c->nshapes, c->shapes, &bi);
    ask(ctx, &numpy, c->nshapes, c->shapes, &np);
    return compare(&bi, "bidirectional", &np, "numpy of the same shapes", detail, cap);
}

static bc_check pdpd_is_padded_numpy(bc_check_ctx *ctx, const bc_vector *c, char *detail,
                                     size_t cap)
{
    if (c->nshapes != 2)
        return nothing_to_compare(ctx, c, detail, cap); /* operand-count: nothing to pad */
    const bc_shape *a = &c->shapes[0], *b = &c->shapes[1];
    bc_profile profile = bc_params_profile(&c->params);
    if (profile == BC_PROFILE_DEFAULT)
        profile = BC_PROFILE_OPENVINO_DOC;
    if (profile == BC_PROFILE_OPENVINO_BROADCAST)
        /* the Broadcast op's mode (RULES.md §5.6): two-way in a window that
         * runs to A's end, not a padded numpy */
        return nothing_to_compare(ctx, c, detail, cap);
    int paddle = profile == BC_PROFILE_PADDLE;
    const bc_shape *large = (paddle && b->rank >= a->rank && a->rank != b->rank) ? b : a;
    const bc_shape *small = large == a ? b : a;
    if (!paddle && b->rank > a->rank)
        return nothing_to_compare(ctx, c, detail, cap); /* rank-too-large: no window to pad into */
    int64_t axis = c->params.axis;
    if (axis < -1)
        return nothing_to_compare(ctx, c, detail, cap);
    if (axis == -1)
        axis = large->rank - small->rank;
    bc_shape window = *small;
    if (profile == BC_PROFILE_OPENVINO_DOC)
        while (window.rank > 0 && window.dims[window.rank - 1] == 1)
            window.rank--;
    if (axis > large->rank || axis + window.rank > large->rank)
        /* axis or window out of range: nothing to pad */
        return nothing_to_compare(ctx, c, detail, cap);
    for (int k = 0; k < window.rank; k++)
        if (window.dims[k] < 0)
            return nothing_to_compare(ctx, c, detail, cap);
    /* Pad: `axis` leading 1s, then the window, then 1s up to the larger rank. */
    bc_shape padded;
    padded.rank = large->rank;
    for (int r = 0; r < padded.rank; r++)
        padded.dims[r] = (r >= axis && r < axis + window.rank) ? window.dims[r - axis] : 1;
    bc_sut_answer pd, np;
    bc_params numpy = bc_params_for(BC_RULE_NUMPY);
    bc_shape pair[2] = {*large, padded};
    ask(ctx, &c->params, 2, c->shapes, &pd);
    ask(ctx, &numpy, 2, pair, &np);
    if (pd.status == BC_SUT_UNSUPPORTED || np.status == BC_SUT_UNSUPPORTED)
        return BC_CHECK_UNSUPPORTED;
    if (!paddle && np.status == BC_SUT_OK && !bc_shape_equal(&np.shape, a))
        np.status = BC_SUT_REJECTED; /* only B stretches: numpy must give A */
    if (profile == BC_PROFILE_OPENVINO_SHAPE_INFERENCE && pd.status == BC_SUT_REJECTED &&
        np.status == BC_SUT_OK)
        return BC_CHECK_PASS; /* this profile also refuses 1 onto 0: one way only */
    return compare(&pd, "pdpd", &np, "numpy with the smaller operand padded around the axis",
                   detail, cap);
}

static bc_check explicit_forms_agree(bc_check_ctx *ctx, const bc_vector *c, char *detail,
                                     size_t cap)
{
    if (!(c->params.options & BC_OPT_AXES) || (c->params.options & BC_OPT_AXES_MAPPING) ||
        c->nshapes != 2)
        /* only the broadcast_axes spelling translates */
        return nothing_to_compare(ctx, c, detail, cap);
    bc_sut_answer by_axes, by_mapping;
    ask(ctx, &c->params, 2, c->shapes, &by_axes);
    if (by_axes.status != BC_SUT_OK)
        return by_axes.status == BC_SUT_UNSUPPORTED ? BC_CHECK_UNSUPPORTED : BC_CHECK_PASS;
    bc_params mapping = bc_params_for(BC_RULE_EXPLICIT);
    mapping.options = BC_OPT_AXES_MAPPING;
    int is_axis[BC_MAX_RANK] = {0};
    for (int j = 0; j < c->params.naxes; j++)
        if (c->params.axes[j] >= 0 && c->params.axes[j] < BC_MAX_RANK)
            is_axis[c->params.axes[j]] = 1;
    for (int t = 0; t < c->shapes[1].rank; t++)
        if (!is_axis[t])
            mapping.axes[mapping.naxes++] = t;
    ask(ctx, &mapping, 2, c->shapes, &by_mapping);
    return compare(&by_axes, "explicit broadcast_axes", &by_mapping,
                   "explicit axes_mapping of the other axes", detail, cap);
}


/* ---- matmul (RULES.md §15) ---------------------------------------------- */

/* Swaps the last two axes of a matmul operand of rank >= 2 (a 1-D one has
 * nothing to transpose). */
static void transpose_matrix(bc_shape *s)
{
    if (s->rank < 2)
        return;
    int64_t tmp = s->dims[s->rank - 2];
    s->dims[s->rank - 2] = s->dims[s->rank - 1];
    s->dims[s->rank - 1] = tmp;
}

static bc_check matmul_batch_is_numpy(bc_check_ctx *ctx, const bc_vector *c, char *detail,
                                      size_t cap)
{
    const bc_shape *a = &c->shapes[0], *b = &c->shapes[1];
    bc_shape unused;
    /* Only well-formed cases (no negative dim) of two operands of rank >= 1
     * whose contraction agrees say anything about the batch. */
    if (c->nshapes != 2 ||
        bc_error_kind_is_invalid_input(bc_infer(&c->params, 2, c->shapes, &unused, NULL)) ||
        a->rank == 0 || b->rank == 0 ||
        a->dims[a->rank - 1] != b->dims[b->rank >= 2 ? b->rank - 2 : 0])
        return nothing_to_compare(ctx, c, detail, cap);
    bc_shape batch[2] = {*a, *b};
    batch[0].rank = a->rank >= 2 ? a->rank - 2 : 0;
    batch[1].rank = b->rank >= 2 ? b->rank - 2 : 0;
    bc_sut_answer mm, np;
    bc_params numpy = bc_params_for(BC_RULE_NUMPY);
    ask(ctx, &c->params, 2, c->shapes, &mm);
    ask(ctx, &numpy, 2, batch, &np);
    if (np.status == BC_SUT_OK) { /* what matmul must give: the batch, then [n, m] */
        if (a->rank >= 2)
            np.shape.dims[np.shape.rank++] = a->dims[a->rank - 2];
        if (b->rank >= 2)
            np.shape.dims[np.shape.rank++] = b->dims[b->rank - 1];
    }
    return compare(&mm, "matmul", &np, "numpy of the batch parts, then A's rows and B's columns",
                   detail, cap);
}

static bc_check matmul_swap_transposes(bc_check_ctx *ctx, const bc_vector *c, char *detail,
                                       size_t cap)
{
    if (c->nshapes != 2)
        return nothing_to_compare(ctx, c, detail, cap);
    bc_shape swapped[2] = {c->shapes[1], c->shapes[0]};
    transpose_matrix(&swapped[0]);
    transpose_matrix(&swapped[1]);
    bc_sut_answer ab, ba;
    ask(ctx, &c->params, 2, c->shapes, &ab);
    ask(ctx, &c->params, 2, swapped, &ba);
    if (ab.status == BC_SUT_OK && c->shapes[0].rank >= 2 && c->shapes[1].rank >= 2)
        transpose_matrix(&ab.shape); /* (AB)^T = B^T A^T */
    return compare(&ab, "matmul(A, B), its last two axes swapped when both are matrices", &ba,
                   "matmul(B^T, A^T)", detail, cap);
}

/* ---- value properties ------------------------------------------------------ */

void bc_check_ctx_release(bc_check_ctx *ctx)
{
    bc_arena_free(ctx->arena);
    ctx->arena = NULL;
}

/* Scratch for one check; NULL when out of memory. */
static bc_value_request *new_request(bc_check_ctx *ctx)
{
    if (!ctx->arena && !(ctx->arena = bc_arena_new()))
        return NULL;
    return bc_arena_alloc(ctx->arena, sizeof(bc_value_request));
}

/* Asks the SUT a value question; an overrun of the output is its fault. */
static void ask_value(bc_check_ctx *ctx, const bc_value_request *vr, bc_sut_answer *a)
{
    memset(a, 0, sizeof *a);
    if (run_stopping(ctx, a))
        return;
    ctx->sut_calls++;
    if (!ctx->sut->ops->eval) {
        a->status = BC_SUT_UNSUPPORTED;
        snprintf(a->message, sizeof a->message, "the SUT computes no values");
        return;
    }
    ctx->sut->ops->eval(ctx->sut, &vr->req, a);
    int buffer;
    const int broken = bc_value_guard_broken(vr, ctx->arena, &buffer);
    if (broken) {
        const char *side =
            broken == BC_VALUE_WROTE_PAST_END ? "past the end of" : "before the start of";
        a->status = BC_SUT_INTERNAL_ERROR;
        if (buffer < 0)
            snprintf(a->message, sizeof a->message, "wrote %s its output buffer (%lld elements)",
                     side, (long long)vr->req.out_capacity);
        else
            snprintf(a->message, sizeof a->message, "wrote %s the buffer of input %d (%s)", side,
                     buffer, bc_dtype_name(vr->req.inputs[buffer].dtype));
    }
    bc_check_answered(ctx, a);
}

/* A second request like vr (same kind, inputs and output size) with its own
 * output, which broadcheck fills: the oracle's, or an expected result. */
static int same_question(bc_check_ctx *ctx, const bc_value_request *vr, bc_value_request *copy)
{
    return bc_value_request_expected(vr, copy, ctx->arena);
}

/* The most elements a question's tensors hold (its output, or its largest
 * input: a sum's gradient): what picks the oracle, and what makes a check
 * long. */
static int64_t request_work(const bc_value_request *vr)
{
    int64_t work = vr->req.out_capacity;
    for (int i = 0; i < vr->req.ninputs; i++) {
        bc_shape s = bc_tensor_shape(&vr->req.inputs[i]);
        int64_t n;
        if (bc_shape_numel(&s, &n) == BC_OK && n > work)
            work = n;
    }
    return work;
}

/* 1 if the run is interrupted, or its --time ends (ctx->stop says so),
 * while a long check of question vr is in progress: the check is thrown
 * away at once
 * (ctx->stopped), instead of finishing its oracle and its comparison
 * first.  A huge case's check makes a dozen passes over gigabytes, under
 * memory pressure minutes; a SIGTERM waited for all of them.  Asked
 * between the steps of a check and between the slabs of its comparison,
 * only of questions past BC_VALUE_NAIVE_MAX_NUMEL (small checks end
 * within microseconds anyway). */
static int abandoned(bc_check_ctx *ctx, const bc_value_request *vr)
{
    if (ctx->stopped == BC_SHRINK_INTERRUPTED || ctx->stopped == BC_SHRINK_TIME)
        return 1;
    if (!ctx->stop || request_work(vr) <= BC_VALUE_NAIVE_MAX_NUMEL)
        return 0;
    /* --time's end too: a huge check makes a dozen passes over gigabytes,
     * and a `--time 120` huge run went on for 5 minutes finishing one */
    const bc_shrink_stop stop = ctx->stop(ctx->hook);
    if (stop != BC_SHRINK_INTERRUPTED && stop != BC_SHRINK_TIME)
        return 0;
    ctx->stopped = stop;
    return 1;
}

/* What an abandoned check says (the run does not count it). */
static bc_check interrupted_check(const bc_check_ctx *ctx, char *detail, size_t cap)
{
    snprintf(detail, cap, "not examined: %s during the check",
             ctx->stopped == BC_SHRINK_TIME ? "the run's time (--time) ended"
                                            : "the run was interrupted");
    return BC_CHECK_UNSUPPORTED;
}

/* The comparison's slab: a stop waits for one memcmp of this many bytes. */
#define COMPARE_SLAB_BYTES ((int64_t)64 << 20)

/* 1 if two contiguous outputs of `bytes` bytes hold the same bytes, 0 if
 * some slab differs (the element-wise comparison then says where), -1 if
 * the run was interrupted between slabs. */
static int same_bytes_polled(bc_check_ctx *ctx, const bc_value_request *vr, const void *a,
                             const void *b, int64_t bytes)
{
    for (int64_t at = 0; at < bytes; at += COMPARE_SLAB_BYTES) {
        if (abandoned(ctx, vr))
            return -1;
        const int64_t n = bytes - at < COMPARE_SLAB_BYTES ? bytes - at : COMPARE_SLAB_BYTES;
        if (memcmp((const char *)a + at, (const char *)b + at, (size_t)n) != 0)
            return 0;
    }
    return 1;
}

/* Compares two value answers: statuses, shapes, then every element. */
/* judge, with a tolerance per element (tols, row-major) when not NULL. */
static bc_check judge_bounded(bc_check_ctx *ctx, const bc_value_request *got_vr,
                              const bc_sut_answer *got, const char *got_name,
                              const bc_value_request *want_vr, const bc_sut_answer *want,
                              const char *want_name, double tol, const double *tols,
                              char *detail, size_t cap)
{
    if (abandoned(ctx, got_vr))
        return interrupted_check(ctx, detail, cap);
    if (got->status == BC_SUT_UNSUPPORTED || want->status == BC_SUT_UNSUPPORTED)
        return BC_CHECK_UNSUPPORTED;
    int64_t numel;
    if (got->status == BC_SUT_OK && want->status == BC_SUT_OK &&
        bc_shape_equal(&got->shape, &want->shape) &&
        bc_shape_numel(&got->shape, &numel) == BC_OK && numel <= got_vr->req.out_capacity &&
        numel <= want_vr->req.out_capacity) {
        /* the common case: compare the values (the answers are described below
         * only for a failure: formatting them cost more than the check) */
        bc_tensor gt = bc_value_output(got_vr, got), wt = bc_value_output(want_vr, want);
        /* equal bytes are equal values: a long comparison by slabs, a stop
         * between them; a slab that differs leaves it to the element-wise
         * comparison, which says where */
        const int64_t bytes = numel * (int64_t)bc_dtype_size(gt.dtype);
        if (bytes > COMPARE_SLAB_BYTES && gt.dtype == wt.dtype) {
            int same = same_bytes_polled(ctx, got_vr, gt.data, wt.data, bytes);
            if (same != 0)
                return same > 0 ? BC_CHECK_PASS : interrupted_check(ctx, detail, cap);
        }
        return bc_value_differ_bounded(&gt, got_name, &wt, want_name, tol, tols, detail, cap)
                   ? BC_CHECK_FAIL
                   : BC_CHECK_PASS;
    }
    char g[1400], w[1400];
    describe(got, g, sizeof g);
    describe(want, w, sizeof w);
    if (got->status == BC_SUT_INTERNAL_ERROR || want->status == BC_SUT_INTERNAL_ERROR) {
        snprintf(detail, cap, "%s gives %s; %s gives %s", got_name, g, want_name, w);
        return BC_CHECK_FAIL;
    }
    if (want->status == BC_SUT_REJECTED || got->status == BC_SUT_REJECTED) {
        if (got->status == want->status &&
            (got->kind == BC_OK || want->kind == BC_OK || got->kind == want->kind))
            return BC_CHECK_PASS;
        snprintf(detail, cap, "%s gives %s; %s gives %s%s%s", got_name, g, want_name, w,
                 want->status == BC_SUT_REJECTED ? ": " : "",
                 want->status == BC_SUT_REJECTED ? want->message : "");
        return BC_CHECK_FAIL;
    }
    if (!bc_shape_equal(&got->shape, &want->shape)) {
        snprintf(detail, cap, "%s gives shape %s; %s gives %s", got_name, g, want_name, w);
        return BC_CHECK_FAIL;
    }
    /* Outputs are sized for the rule's result: a larger shape (the same in
     * both answers of a metamorphic pair) came with no values to compare. */
    snprintf(detail, cap, "%s gives shape %s, more elements than the rule's result has (%lld)",
             got_name, g, (long long)got_vr->req.out_capacity);
    return BC_CHECK_FAIL;
}

static bc_check judge(bc_check_ctx *ctx, const bc_value_request *got_vr,
                      const bc_sut_answer *got, const char *got_name,
                      const bc_value_request *want_vr, const bc_sut_answer *want,
                      const char *want_name, double tol, char *detail, size_t cap)
{
    return judge_bounded(ctx, got_vr, got, got_name, want_vr, want, want_name, tol, NULL, detail,
                         cap);
}

/* What a value property does with a case it cannot make tensors for. */
static bc_check not_concrete(const char *why, char *detail, size_t cap)
{
    snprintf(detail, cap, "no value check: %s", why);
    return BC_CHECK_UNSUPPORTED;
}

/* The memory one check of value case c by `property` takes (-1: some
 * count past BC_VALUE_MAX_NUMEL), and in *question the bytes of its
 * largest question to the SUT: the one definition that both "not examined"
 * (over_budget) and the huge tier's drawing within the budget
 * (bc_property_gen_within) go by.  A case the property passes unexamined
 * (no values, nothing of its kind) takes nothing. */
int64_t bc_property_check_bytes(int property, const bc_semantics *semantics, const bc_vector *c,
                                int64_t *question)
{
    *question = 0;
    const bc_value_case *v = &c->value;
    if (!v->present)
        return 0;
    int input_sets = 1, outputs = 2, carried = 0;
    int64_t extra = 0;
    switch (property) {
    case P_VALUE_DIFFERENTIAL:
    case P_MATMUL_VALUES: {
        /* a sum-to-shape oracle under float16_sum=wide (on float16) or
         * int_overflow=saturate (on integers) holds its terms and sums in 8
         * bytes each, and no other does (charging every sum-to-shape for
         * them left most huge sums "not examined"); a float matmul a bound
         * (a double) per result element */
        const int wide_sum =
            v->kind == BC_VALUE_SUM_TO_SHAPE &&
            ((v->dtype == BC_FLOAT16 && semantics &&
              semantics->float16_sum == BC_FLOAT16_SUM_WIDE) ||
             bc_op_under(BC_OP_ADD, v->dtype, semantics) == BC_OP_ADD_SATURATE);
        extra = wide_sum ? 16 : v->kind == BC_VALUE_MATMUL ? 8 : 0;
        break;
    }
    case P_LAYOUT_INVARIANCE:
        if (v->layout == 0)
            return 0;
        input_sets = 2;
        break;
    case P_BROADCAST_THEN_ELEMENTWISE:
        if (v->kind != BC_VALUE_ELEMENTWISE && v->kind != BC_VALUE_SELECT)
            return 0;
        /* a copy of the result per operand, each carried by the last question */
        outputs = c->nshapes + 2;
        carried = c->nshapes;
        break;
    case P_SUM_OF_BROADCAST:
        if (v->kind != BC_VALUE_BROADCAST || v->dtype == BC_BOOL)
            return 0;
        outputs = 3;
        break;
    default:
        return 0; /* a shape property */
    }
    int64_t bytes = bc_value_check_bytes(c, input_sets, outputs, extra, question);
    bc_shape result;
    int64_t rn = 0;
    if (bytes >= 0 && carried > 0 &&
        bc_infer(&c->params, c->nshapes, c->shapes, &result, NULL) == BC_OK &&
        bc_shape_numel(&result, &rn) == BC_OK)
        *question += carried * rn * (int64_t)bc_dtype_size(v->dtype);
    return bytes;
}

int bc_property_fits(int property, const bc_semantics *semantics, int64_t max_bytes,
                     int64_t max_question_bytes, const bc_vector *c, int64_t *bytes,
                     int64_t *question)
{
    const int64_t budget = max_bytes > 0 ? max_bytes : BC_VALUE_DEFAULT_MAX_BYTES;
    *bytes = bc_property_check_bytes(property, semantics, c, question);
    return *bytes >= 0 && *bytes <= budget &&
           (max_question_bytes <= 0 || *question <= max_question_bytes);
}

/* 1 (with *verdict "unsupported" and why in detail) when a check of c by
 * `property` would need more memory than the run's budget, or a question
 * larger than the SUT takes: such a case is not examined, never passed or
 * failed (docs/PROPERTIES.md "Value tiers"). */
static int over_budget(const bc_check_ctx *ctx, int property, const bc_vector *c,
                       bc_check *verdict, char *detail, size_t cap)
{
    int64_t bytes, question;
    const int fits = ctx->fitted == c && ctx->fitted_property == property
                         ? (bytes = ctx->fitted_bytes, question = ctx->fitted_question,
                            ctx->fitted_ok)
                         : bc_property_fits(property, &ctx->semantics, ctx->max_bytes,
                                            ctx->max_question_bytes, c, &bytes, &question);
    if (fits)
        return 0;
    const int64_t budget = ctx->max_bytes > 0 ? ctx->max_bytes : BC_VALUE_DEFAULT_MAX_BYTES;
    if (bytes < 0)
        snprintf(detail, cap, "no value check: an operand or the result has a negative dim or "
                 "more than %lld elements", (long long)BC_VALUE_MAX_NUMEL);
    else if (bytes > budget)
        snprintf(detail, cap, "not examined: the check needs %lld bytes, more than the memory "
                 "budget of %lld (--max-bytes)", (long long)bytes, (long long)budget);
    else
        snprintf(detail, cap, "not examined: a question of %lld bytes, more than this SUT "
                 "takes in one (%lld: an out-of-process SUT's frame limit, wire/PROTOCOL.md)",
                 (long long)question, (long long)ctx->max_question_bytes);
    *verdict = BC_CHECK_UNSUPPORTED;
    return 1;
}

static bc_check value_differential(bc_check_ctx *ctx, const bc_vector *c, char *detail, size_t cap)
{
    if (!c->value.present)
        return BC_CHECK_PASS; /* a shape-only case: nothing to compute */
    bc_check verdict;
    const bc_value_op kind = c->value.kind;
    const bc_dtype dtype = c->value.dtype;
    if (over_budget(ctx, P_VALUE_DIFFERENTIAL, c, &verdict, detail, cap))
        return verdict;
    bc_value_request *sut = new_request(ctx), *oracle = new_request(ctx);
    char why[256];
    if (!sut || !oracle)
        return not_concrete("out of memory", detail, cap);
    if (bc_value_request_build(c, c->value.layout, ctx->arena, sut, why, sizeof why) != 0 ||
        same_question(ctx, sut, oracle) != 0)
        return not_concrete(why, detail, cap);
    bc_sut_answer got, want;
    ask_value(ctx, sut, &got);
    if (abandoned(ctx, sut))
        return interrupted_check(ctx, detail, cap);
    memset(&want, 0, sizeof want);
    /* The SUT's declared semantics (docs/ENGINE.md "Value semantics") are
     * what the oracle computes: checked, not excused. */
    if (oracle->req.kind == BC_VALUE_ELEMENTWISE)
        oracle->req.op = bc_op_under(oracle->req.op, dtype, &ctx->semantics);
    /* the naive oracle on small questions; the fast engine on large ones */
    bc_reference_eval(bc_value_oracle(request_work(oracle)), &oracle->req, &want);
    if (abandoned(ctx, oracle))
        return interrupted_check(ctx, detail, cap);
    double tol = 0;
    if (oracle->req.kind == BC_VALUE_SUM_TO_SHAPE && want.status == BC_SUT_OK) {
        bc_tensor wt = bc_value_output(oracle, &want);
        if (dtype == BC_FLOAT16 && ctx->semantics.float16_sum == BC_FLOAT16_SUM_WIDE &&
            (tol = bc_value_wide_sum(sut, ctx->arena, &wt)) < 0)
            return not_concrete("no bound on a float16 sum of these terms", detail, cap);
        if (bc_op_under(BC_OP_ADD, dtype, &ctx->semantics) == BC_OP_ADD_SATURATE &&
            bc_value_clamped_sum(sut, ctx->arena, &wt) != 0)
            return not_concrete("an exact integer sum past int64", detail, cap);
    }
    /* matmul (RULES.md §15.5): integers bit-exact, floats within the
     * order-free rounding bound of each element */
    double *tols = NULL;
    if (kind == BC_VALUE_MATMUL && want.status == BC_SUT_OK &&
        (dtype == BC_FLOAT16 || dtype == BC_FLOAT32 || dtype == BC_FLOAT64) &&
        bc_value_matmul_bounds(oracle, ctx->arena, &tols) != 0)
        return not_concrete("a sum of products that may round past the dtype's largest value: "
                            "no order-free bound", detail, cap);
    verdict = judge_bounded(ctx, sut, &got, "SUT", oracle, &want, "reference", tol, tols, detail,
                            cap);
    if (got.status == BC_SUT_OK && want.status == BC_SUT_OK &&
        ctx->stopped != BC_SHRINK_INTERRUPTED) {
        const int64_t out = sut->req.out_capacity * (int64_t)bc_dtype_size(sut->req.out_dtype);
        ctx->compared_bytes += out;
        /* what the question moves: a long sum reads up to 2^20 elements
         * and writes a few, which the output alone does not show */
        ctx->moved_bytes += out;
        for (int i = 0; i < sut->req.ninputs; i++) {
            bc_shape s = bc_tensor_shape(&sut->req.inputs[i]);
            int64_t n;
            if (bc_shape_numel(&s, &n) == BC_OK)
                ctx->moved_bytes += n * (int64_t)bc_dtype_size(sut->req.inputs[i].dtype);
        }
    }
    return verdict;
}

static bc_check layout_invariance(bc_check_ctx *ctx, const bc_vector *c, char *detail, size_t cap)
{
    if (!c->value.present || c->value.layout == 0)
        return BC_CHECK_PASS; /* contiguous already: no other layout to compare */
    bc_check verdict;
    if (over_budget(ctx, P_LAYOUT_INVARIANCE, c, &verdict, detail, cap))
        return verdict;
    bc_value_request *plain = new_request(ctx), *strided = new_request(ctx);
    char why[256];
    if (!plain || !strided)
        return not_concrete("out of memory", detail, cap);
    if (bc_value_request_build(c, 0, ctx->arena, plain, why, sizeof why) != 0 ||
        bc_value_request_build(c, c->value.layout, ctx->arena, strided, why, sizeof why) != 0)
        return not_concrete(why, detail, cap);
    bc_sut_answer a, b;
    ask_value(ctx, plain, &a);
    ask_value(ctx, strided, &b);
    return judge(ctx, strided, &b, "strided inputs", plain, &a, "C-contiguous inputs", 0, detail,
                 cap);
}

/* The common start of the value metamorphic properties: the SUT's answer
 * to the case itself.  Returns 1 to go on; else *verdict is the result. */
static int first_answer(bc_check_ctx *ctx, const bc_vector *c, bc_value_request *vr,
                        bc_sut_answer *a, bc_check *verdict, char *detail, size_t cap)
{
    char why[256];
    if (bc_value_request_build(c, c->value.layout, ctx->arena, vr, why, sizeof why) != 0) {
        *verdict = not_concrete(why, detail, cap);
        return 0;
    }
    ask_value(ctx, vr, a);
    if (a->status == BC_SUT_OK)
        return 1;
    *verdict = a->status == BC_SUT_UNSUPPORTED ? BC_CHECK_UNSUPPORTED
               : a->status == BC_SUT_REJECTED  ? BC_CHECK_PASS /* nothing to transform */
                                               : BC_CHECK_FAIL;
    if (*verdict == BC_CHECK_FAIL)
        snprintf(detail, cap, "SUT: internal error (%s)", a->message);
    return 0;
}

/* Whether the SUT answers a question of this kind at all, asked of input
 * in onto its own shape under p (a broadcast to itself, a sum to itself).
 * A property whose case was rejected has nothing to transform, and passes
 * only if its second question could have been asked: else a SUT without
 * that feature would pass it unexamined. */
static int answers_kind(bc_check_ctx *ctx, bc_value_op kind, const bc_params *p,
                        const bc_tensor *in)
{
    bc_value_request *probe = new_request(ctx);
    if (!probe)
        return 0;
    bc_shape pair[2] = {bc_tensor_shape(in), bc_tensor_shape(in)};
    int64_t numel;
    if (bc_shape_numel(&pair[0], &numel) != BC_OK ||
        bc_value_request_make(probe, kind, BC_OP_ADD, p, 2, pair, 0, 1, in, in->dtype, numel,
                              ctx->arena) != 0)
        return 0;
    bc_sut_answer a;
    ask_value(ctx, probe, &a);
    return a.status != BC_SUT_UNSUPPORTED;
}

static bc_check broadcast_then_elementwise(bc_check_ctx *ctx, const bc_vector *c, char *detail,
                                           size_t cap)
{
    if (!c->value.present ||
        (c->value.kind != BC_VALUE_ELEMENTWISE && c->value.kind != BC_VALUE_SELECT))
        return BC_CHECK_PASS;
    bc_check early;
    if (over_budget(ctx, P_BROADCAST_THEN_ELEMENTWISE, c, &early, detail, cap))
        return early;
    bc_value_request *direct = new_request(ctx), *step = new_request(ctx),
                     *via = new_request(ctx);
    bc_shape *targets = ctx->arena ? bc_arena_alloc(ctx->arena, BC_VECTOR_MAX_SHAPES *
                                                                    sizeof(bc_shape))
                                   : NULL;
    bc_tensor *expanded = ctx->arena ? bc_arena_alloc(ctx->arena, BC_VECTOR_MAX_SHAPES *
                                                                      sizeof(bc_tensor))
                                     : NULL;
    if (!direct || !step || !via || !targets || !expanded)
        return not_concrete("out of memory", detail, cap);
    bc_sut_answer a, b;
    bc_check verdict;
    if (!first_answer(ctx, c, direct, &a, &verdict, detail, cap)) {
        const bc_params to = bc_params_for(BC_RULE_BROADCAST_TO);
        if (verdict == BC_CHECK_PASS &&
            !answers_kind(ctx, BC_VALUE_BROADCAST, &to, &direct->inputs[0]))
            return BC_CHECK_UNSUPPORTED;
        return verdict;
    }
    const bc_shape result = a.shape;
    int64_t numel;
    if (bc_shape_numel(&result, &numel) != BC_OK || numel > BC_VALUE_MAX_NUMEL)
        return not_concrete("the SUT's result is too large", detail, cap);
    const bc_params to = bc_params_for(BC_RULE_BROADCAST_TO);
    int n = direct->req.ninputs;
    for (int i = 0; i < n; i++) {
        const bc_tensor *in = &direct->inputs[i];
        bc_shape pair[2] = {bc_tensor_shape(in), result};
        if (bc_value_request_make(step, BC_VALUE_BROADCAST, BC_OP_ADD, &to, 2, pair, 0, 1, in,
                                  in->dtype, numel, ctx->arena) != 0)
            return not_concrete("out of memory", detail, cap);
        ask_value(ctx, step, &b);
        if (b.status == BC_SUT_UNSUPPORTED)
            return BC_CHECK_UNSUPPORTED;
        if (b.status != BC_SUT_OK || !bc_shape_equal(&b.shape, &result)) {
            char got[1400], want[1400];
            describe(&b, got, sizeof got);
            bc_shape_format(&result, want, sizeof want);
            snprintf(detail, cap, "the operation gives %s, but broadcast-to of operand %d to it "
                     "gives %s", want, i, got);
            return BC_CHECK_FAIL;
        }
        targets[i] = result;
        expanded[i] = bc_value_output(step, &b);
    }
    const bc_params none = bc_params_for(BC_RULE_NONE);
    if (bc_value_request_make(via, direct->req.kind, direct->req.op, &none, n, targets, 0, n,
                              expanded, direct->req.out_dtype, numel, ctx->arena) != 0)
        return not_concrete("out of memory", detail, cap);
    ask_value(ctx, via, &b);
    return judge(ctx, via, &b, "rule none on the operands broadcast first", direct, &a,
                 "the broadcasting operation", 0, detail, cap);
}

static bc_check sum_of_broadcast(bc_check_ctx *ctx, const bc_vector *c, char *detail, size_t cap)
{
    if (!c->value.present || c->value.kind != BC_VALUE_BROADCAST)
        return BC_CHECK_PASS;
    if (c->value.dtype == BC_BOOL)
        return not_concrete("sums are not defined on bool", detail, cap);
    bc_check early;
    if (over_budget(ctx, P_SUM_OF_BROADCAST, c, &early, detail, cap))
        return early;
    bc_value_request *bcast = new_request(ctx), *sum = new_request(ctx);
    if (!bcast || !sum)
        return not_concrete("out of memory", detail, cap);
    bc_sut_answer y, s;
    bc_check verdict;
    if (!first_answer(ctx, c, bcast, &y, &verdict, detail, cap)) {
        if (verdict == BC_CHECK_PASS &&
            !answers_kind(ctx, BC_VALUE_SUM_TO_SHAPE, &c->params, &bcast->inputs[0]))
            return BC_CHECK_UNSUPPORTED;
        return verdict;
    }
    const bc_tensor *x = &bcast->inputs[0];
    bc_shape xs = bc_tensor_shape(x);
    int64_t nx, ny;
    if (bc_shape_numel(&xs, &nx) != BC_OK || bc_shape_numel(&y.shape, &ny) != BC_OK ||
        ny > BC_VALUE_MAX_NUMEL)
        return not_concrete("the SUT's result is too large", detail, cap);
    if (ny > bcast->req.out_capacity) {
        /* The output was sized for the rule's result: no values came with
         * a larger shape (value-differential reports the shape itself);
         * a SUT that sums nothing cannot fail this property on it. */
        if (!answers_kind(ctx, BC_VALUE_SUM_TO_SHAPE, &c->params, x))
            return BC_CHECK_UNSUPPORTED;
        char got[1400];
        bc_shape_format(&y.shape, got, sizeof got);
        snprintf(detail, cap, "the broadcast gives shape %s, more elements than the rule's "
                 "result has (%lld)", got, (long long)bcast->req.out_capacity);
        return BC_CHECK_FAIL;
    }
    int64_t factor = nx > 0 ? ny / nx : 0; /* no elements to sum into: nothing to scale */
    bc_tensor grad = bc_value_output(bcast, &y);
    if (bc_value_request_make(sum, BC_VALUE_SUM_TO_SHAPE, BC_OP_ADD, &c->params, c->nshapes,
                              c->shapes, 0, 1, &grad, x->dtype, nx, ctx->arena) != 0)
        return not_concrete("out of memory", detail, cap);
    ask_value(ctx, sum, &s);
    /* What the sums must be, in a third output of the same size. */
    bc_value_request *expect = new_request(ctx);
    if (!expect || same_question(ctx, sum, expect) != 0)
        return not_concrete("out of memory", detail, cap);
    bc_sut_answer want;
    memset(&want, 0, sizeof want);
    want.status = BC_SUT_OK;
    want.shape = xs;
    bc_tensor out = bc_value_output(expect, &want);
    bc_value_scale(x, factor,
                   bc_op_under(BC_OP_ADD, x->dtype, &ctx->semantics) == BC_OP_ADD_SATURATE, &out);
    char name[96];
    snprintf(name, sizeof name, "the input times %lld", (long long)factor);
    return judge(ctx, sum, &s, "sum-to-shape of the broadcast", expect, &want, name, 0, detail,
                 cap);
}

typedef bc_check (*check_fn)(bc_check_ctx *, const bc_vector *, char *, size_t);

static const check_fn checks[P_COUNT] = {
    [P_SHAPE_DIFFERENTIAL] = shape_differential,
    [P_COMMUTATIVE] = commutative,
    [P_ASSOCIATIVE] = associative,
    [P_IDENTITY] = identity,
    [P_PREPEND_ONES] = prepend_ones,
    [P_UNI_IMPLIES_NUMPY] = uni_implies_numpy,
    [P_BIDIRECTIONAL_IS_NUMPY] = bidirectional_is_numpy,
    [P_PDPD_IS_PADDED_NUMPY] = pdpd_is_padded_numpy,
    [P_EXPLICIT_FORMS_AGREE] = explicit_forms_agree,
    [P_VALUE_DIFFERENTIAL] = value_differential,
    [P_LAYOUT_INVARIANCE] = layout_invariance,
    [P_BROADCAST_THEN_ELEMENTWISE] = broadcast_then_elementwise,
    [P_SUM_OF_BROADCAST] = sum_of_broadcast,
    [P_MATMUL_BATCH_IS_NUMPY] = matmul_batch_is_numpy,
    [P_MATMUL_SWAP_TRANSPOSES] = matmul_swap_transposes,
    [P_MATMUL_VALUES] = value_differential, /* its cases: op=matmul only */
};

/* bc_budget_reserve's stop: the run's (ctx->stop), noted in ctx->stopped
 * as a question it stops is. */
static int budget_stop(void *hook)
{
    bc_check_ctx *ctx = hook;
    return ctx->stop && (ctx->stopped = ctx->stop(ctx->hook)) != BC_SHRINK_MINIMAL;
}

/* A value check whose bytes come from the budget the run's jobs share
 * (ctx->budget): reserved before the check allocates anything, given back
 * on every way out of it once its memory is unmapped.  Only when and
 * whether it runs depend on the pool, never what it finds: the pool's
 * total is the budget over_budget judges each check by, so a check it
 * could never hold is "not examined" by that check, without waiting. */
static bc_check shared_budget_check(int property, bc_check_ctx *ctx, const bc_vector *c,
                                    char *detail, size_t cap)
{
    const int64_t bytes = ctx->fitted_bytes;
    if (!ctx->fitted_ok || bytes <= BC_BUDGET_SHARED_MIN)
        return checks[property](ctx, c, detail, cap);
    if (ctx->arena)
        bc_arena_trim(ctx->arena); /* what this job's smaller checks kept for reuse goes first */
    const bc_budget_got got = bc_budget_reserve(ctx->budget, bytes, budget_stop, ctx);
    if (got == BC_BUDGET_TOO_LARGE) /* a pool smaller than ctx->max_bytes: a caller's bug */
        return checks[property](ctx, c, detail, cap);
    if (got == BC_BUDGET_STOPPED) {
        snprintf(detail, cap, "not examined: the run stopped while the check waited for "
                 "%lld bytes of the memory budget (--max-bytes) its jobs share",
                 (long long)bytes);
        return BC_CHECK_UNSUPPORTED; /* ctx->stopped says why: the run does not count it */
    }
    bc_check verdict = checks[property](ctx, c, detail, cap);
    if (ctx->arena)
        bc_arena_trim(ctx->arena); /* held until unmapped, or the next job's check adds to it */
    bc_budget_release(ctx->budget, bytes);
    return verdict;
}

bc_check bc_property_check(int property, bc_check_ctx *ctx, const bc_vector *c, char *detail,
                           size_t cap)
{
    detail[0] = '\0';
    if (ctx->arena)
        bc_arena_reset(ctx->arena);
    if (properties[property].values && bc_value_case_check(c, detail, cap) != 0)
        return BC_CHECK_INVALID;
    if (properties[property].values && c->value.present &&
        c->value.kind == BC_VALUE_ELEMENTWISE &&
        !bc_op_takes_dtype_under(c->value.op, c->value.dtype, &ctx->semantics)) {
        /* sub on bool: a question only a SUT declaring bool_sub=xor is asked */
        snprintf(detail, cap, "no value check: %s on %s is defined only under semantics "
                 "bool_sub=xor", bc_op_name(c->value.op), bc_dtype_name(c->value.dtype));
        return BC_CHECK_UNSUPPORTED;
    }
    if (!properties[property].values)
        return checks[property](ctx, c, detail, cap);
    ctx->fitted = c;
    ctx->fitted_property = property;
    ctx->fitted_ok = bc_property_fits(property, &ctx->semantics, ctx->max_bytes,
                                      ctx->max_question_bytes, c, &ctx->fitted_bytes,
                                      &ctx->fitted_question);
    const bc_check verdict = ctx->budget ? shared_budget_check(property, ctx, c, detail, cap)
                                         : checks[property](ctx, c, detail, cap);
    ctx->fitted = NULL;
    return verdict;
}
