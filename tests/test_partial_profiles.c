/*
 * The partial generator draws every rule and profile that has partial
 * inference (spec/RULES.md §14.4): the op-mode profiles openvino-select,
 * ngraph-select, openvino-broadcast and ngraph-explicit, matmul, and the
 * profiles pytorch-expand, openvino-explicit and numpy-empty-fold, and an
 * explicit axes_mapping of unknown values (RULES.md §14.9, under any of
 * explicit's profiles; its checks walk the mappings).  For
 * each, N generated cases (BC_PARTIAL_PROFILE_CASES, default 3000) per
 * property, partial-soundness and partial-precision, are checked against
 * the reference's own partial inference: none may fail, and precision must
 * judge most of them (a relaxation skips the rest).  The figures it prints
 * are the measurement docs/PROPERTIES.md quotes (with 1000000; it may be
 * split over processes with BC_PARTIAL_PROFILE_ONLY).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "internal.h"

enum {
    OV_SELECT,
    NG_SELECT,
    OV_BROADCAST,
    NG_EXPLICIT,
    MATMUL,
    EXPAND,
    OV_EXPLICIT,
    EMPTY_FOLD,
    UNKNOWN_MAPPING,
    TARGETS
};

static const char *const target_name[TARGETS] = {
    "openvino-select", "ngraph-select",     "openvino-broadcast", "ngraph-explicit",     "matmul",
    "pytorch-expand",  "openvino-explicit", "numpy-empty-fold",   "unknown-axes-mapping"};
static const bc_rule target_rule[TARGETS] = {BC_RULE_PDPD,     BC_RULE_PDPD,   BC_RULE_PDPD,
                                             BC_RULE_EXPLICIT, BC_RULE_MATMUL, BC_RULE_BROADCAST_TO,
                                             BC_RULE_EXPLICIT, BC_RULE_NUMPY,  BC_RULE_EXPLICIT};

/* Which target a generated case is, or -1. */
static int target_of(const bc_pvector *c)
{
    if (c->params.rule == BC_RULE_MATMUL)
        return MATMUL;
    if (c->params.options & BC_OPT_AXES_UNKNOWN)
        return UNKNOWN_MAPPING;
    if (!(c->params.options & BC_OPT_PROFILE))
        return -1;
    switch (c->params.profile) {
    case BC_PROFILE_OPENVINO_SELECT: return OV_SELECT;
    case BC_PROFILE_NGRAPH_SELECT: return NG_SELECT;
    case BC_PROFILE_OPENVINO_BROADCAST: return OV_BROADCAST;
    case BC_PROFILE_NGRAPH_EXPLICIT: return NG_EXPLICIT;
    case BC_PROFILE_PYTORCH_EXPAND: return EXPAND;
    case BC_PROFILE_OPENVINO_EXPLICIT: return OV_EXPLICIT;
    case BC_PROFILE_NUMPY_EMPTY_FOLD: return EMPTY_FOLD;
    default: return -1;
    }
}

static void each_target_sound_and_precise(void **state)
{
    (void)state;
    const char *env = getenv("BC_PARTIAL_PROFILE_CASES");
    const int64_t want = env ? strtoll(env, NULL, 10) : 3000;
    const bc_partial_mode modes[2] = {BC_PMODE_SOUNDNESS, BC_PMODE_PRECISION};
    bc_check_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.sut = bc_builtin_sut("reference");
    assert_non_null(ctx.sut);
    const unsigned caps = BC_PARTIAL_DYNAMIC | BC_PARTIAL_INTERVAL | BC_PARTIAL_SYMBOL |
                          BC_PARTIAL_DYNAMIC_RANK | BC_PARTIAL_AXES_UNKNOWN;
    bc_pvector *c = malloc(sizeof *c);
    assert_non_null(c);
    int failures = 0;
    /* BC_PARTIAL_PROFILE_ONLY=NAME,...: only these profiles and properties (a
     * measurement split over processes); unset: all */
    const char *only = getenv("BC_PARTIAL_PROFILE_ONLY");
    for (int m = 0; m < 2; m++) {
        int64_t n[TARGETS] = {0}, judged[TARGETS] = {0}, failed[TARGETS] = {0};
        for (int t = 0; t < TARGETS; t++) {
            if (only && (!strstr(only, target_name[t]) ||
                         !strstr(only, m ? "partial-precision" : "partial-soundness")))
                continue;
            bc_prng r;
            bc_prng_init(&r, 1, 0x7a11 + (uint64_t)t, (uint64_t)m);
            /* a profile is a share of its rule's cases: 100 draws per case is plenty */
            for (int64_t draws = 0; n[t] < want && draws < 100 * want; draws++) {
                bc_pgen_case(&r, target_rule[t], caps, ~0u, modes[m], c);
                if (target_of(c) != t)
                    continue;
                n[t]++;
                char detail[4096];
                bc_check v = bc_partial_check(modes[m], &ctx, c, detail, sizeof detail);
                judged[t] += v != BC_CHECK_UNSUPPORTED;
                if (v == BC_CHECK_FAIL && failed[t]++ < 3) {
                    char line[8192];
                    bc_pvector_format(c, line, sizeof line);
                    fprintf(stderr, "%s %s fails: %s\n  %s\n", target_name[t],
                            m ? "partial-precision" : "partial-soundness", detail, line);
                }
            }
            printf("%-20s %-18s %lld cases, %lld judged, %lld failed\n", target_name[t],
                   m ? "partial-precision" : "partial-soundness", (long long)n[t],
                   (long long)judged[t], (long long)failed[t]);
            if (n[t] < want)
                fail_msg("the partial generator drew %s only %lld times", target_name[t],
                         (long long)n[t]);
            if (2 * judged[t] < n[t])
                fail_msg("%s: only %lld of %lld cases judged", target_name[t], (long long)judged[t],
                         (long long)n[t]);
            failures += (int)failed[t];
        }
    }
    free(c);
    assert_int_equal(failures, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(each_target_sound_and_precise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
