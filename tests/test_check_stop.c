/*
 * A stop (SIGINT, SIGTERM, SIGHUP: the run's interrupt flag) ends a long
 * value check where it is, not after its oracle and its comparison: a
 * huge case's check makes a dozen passes over gigabytes, and a SIGTERM
 * once waited about 8 minutes for them.  The stop comes from the SUT's own
 * answer, or from the run's stop hook at a counted poll, so the moment is
 * exact: no sleep, no timing margin.  And a run stopped so says so in its
 * report, whole.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "broadcheck/report.h"
#include "internal.h"

/* 1024 x 9000 int64: an output of 73.7 MB, two slabs of the comparison */
static const char *const long_case = "numpy op=add dtype=int64 [1024,9000] [9000] -> [1024,9000]";
#define LONG_OUTPUT_BYTES ((int64_t)1024 * 9000 * 8)

static volatile sig_atomic_t flag;   /* the run's interrupt flag, as a signal sets it */
static int interrupt_in_eval;        /* 1: the SUT's answer sets flag */
static int64_t polls, interrupt_at;  /* the stop hook's calls; flag set at this one (0: never) */
static bc_shrink_stop stop_kind = BC_SHRINK_INTERRUPTED; /* what the hook says once flag is set */

static void answering_eval(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    bc_reference_eval(BC_EVAL_FAST, req, a);
    if (interrupt_in_eval)
        flag = SIGTERM; /* the signal arrives while the SUT answers */
}

static void shapes_infer(const bc_sut *sut, const bc_params *p, int n, const bc_shape *shapes,
                         bc_sut_answer *a)
{
    const bc_sut *ref = bc_builtin_sut("reference");
    (void)sut;
    ref->ops->infer_shape(ref, p, n, shapes, a);
}

static const bc_sut_ops ops = {shapes_infer, answering_eval, NULL};
static const bc_sut sut = {"interrupting-eval", "1", "test", NULL, &ops};

static bc_shrink_stop counting_stop(void *hook)
{
    (void)hook;
    if (++polls == interrupt_at)
        flag = SIGTERM;
    return flag ? stop_kind : BC_SHRINK_MINIMAL;
}

static bc_check check_long_case(bc_check_ctx *ctx, char *detail, size_t cap)
{
    bc_vector *v = malloc(sizeof *v);
    char why[256];
    assert_non_null(v);
    assert_int_equal(bc_vector_parse(long_case, v, why, sizeof why), 1);
    memset(ctx, 0, sizeof *ctx);
    ctx->sut = &sut;
    ctx->stop = counting_stop;
    ctx->stopped = BC_SHRINK_MINIMAL;
    polls = 0;
    flag = 0;
    bc_check verdict =
        bc_property_check(bc_property_from_name("value-differential"), ctx, v, detail, cap);
    free(v);
    return verdict;
}

/* Interrupted while the SUT answers: neither the oracle nor the
 * comparison runs, and the check is thrown away. */
static void test_stop_after_the_answer(void **state)
{
    (void)state;
    bc_check_ctx ctx;
    char detail[1024];
    interrupt_in_eval = 1;
    interrupt_at = 0;
    bc_check verdict = check_long_case(&ctx, detail, sizeof detail);
    interrupt_in_eval = 0;
    assert_int_equal(ctx.sut_calls, 1);
    assert_int_equal(ctx.stopped, BC_SHRINK_INTERRUPTED);
    assert_int_equal(verdict, BC_CHECK_UNSUPPORTED);
    assert_non_null(strstr(detail, "interrupted"));
    assert_int_equal(ctx.compared_bytes, 0); /* nothing compared */
    assert_int_equal(polls, 2);              /* before the question, after the answer */
    bc_check_ctx_release(&ctx);
}

/* The comparison polls between its slabs: interrupted at the last one, the
 * check ends there, uncounted. */
static void test_stop_between_comparison_slabs(void **state)
{
    (void)state;
    bc_check_ctx ctx;
    char detail[1024];
    interrupt_at = 0;
    assert_int_equal(check_long_case(&ctx, detail, sizeof detail), BC_CHECK_PASS);
    assert_int_equal(ctx.compared_bytes, LONG_OUTPUT_BYTES);
    /* before the question, after the answer, after the oracle, before the
     * comparison, then one a slab of 64 MiB */
    const int64_t slabs = (LONG_OUTPUT_BYTES + ((int64_t)64 << 20) - 1) / ((int64_t)64 << 20);
    assert_int_equal(slabs, 2);
    assert_int_equal(polls, 4 + slabs);
    bc_check_ctx_release(&ctx);
    interrupt_at = 4 + slabs;
    bc_check verdict = check_long_case(&ctx, detail, sizeof detail);
    assert_int_equal(verdict, BC_CHECK_UNSUPPORTED);
    assert_int_equal(ctx.stopped, BC_SHRINK_INTERRUPTED);
    assert_int_equal(polls, interrupt_at); /* no poll after it: the check ended */
    assert_int_equal(ctx.compared_bytes, 0);
    bc_check_ctx_release(&ctx);
    interrupt_at = 0;
}

/* --time's end, as the run's stop hook says it past the deadline, ends a
 * long check as an interrupt does (a `--time 120` huge run went on for 5
 * minutes finishing its checks): here after the oracle, before the
 * comparison. */
static void test_time_ends_a_long_check(void **state)
{
    (void)state;
    bc_check_ctx ctx;
    char detail[1024];
    stop_kind = BC_SHRINK_TIME;
    interrupt_at = 3; /* before the question, after the answer, after the oracle */
    bc_check verdict = check_long_case(&ctx, detail, sizeof detail);
    stop_kind = BC_SHRINK_INTERRUPTED;
    interrupt_at = 0;
    assert_int_equal(verdict, BC_CHECK_UNSUPPORTED);
    assert_int_equal(ctx.stopped, BC_SHRINK_TIME);
    assert_int_equal(polls, 3); /* no poll after it: the check ended */
    assert_int_equal(ctx.compared_bytes, 0);
    if (!strstr(detail, "--time"))
        fail_msg("the detail does not say --time ended it: %s", detail);
    bc_check_ctx_release(&ctx);
}

/* A run whose SUT is answering when SIGTERM comes ends interrupted by it
 * (the CLI's exit 143), the case in progress uncounted, and its JSON
 * report is written whole and says so. */
static void test_run_stopped_in_a_long_check(void **state)
{
    (void)state;
    bc_run_config cfg = bc_run_config_default();
    cfg.sut = &sut;
    cfg.rules = 1u << BC_RULE_NUMPY;
    const int p = bc_property_from_name("value-differential");
    cfg.properties = 1u << p;
    cfg.value_tier = BC_TIER_MEDIUM;
    cfg.value_cases = 100;
    cfg.jobs = 1;
    cfg.interrupt = &flag;
    flag = 0;
    interrupt_in_eval = 1;
    char why[512];
    bc_run_result *r = bc_run(&cfg, why, sizeof why);
    interrupt_in_eval = 0;
    assert_non_null(r);
    assert_int_equal(bc_run_interrupted(r), SIGTERM);
    const bc_cell *cell = &r->cells[BC_RULE_NUMPY][p];
    assert_int_equal(cell->end, BC_CELL_INTERRUPTED);
    assert_int_equal(cell->passed + cell->failed + cell->unsupported, 0);
    char path[] = "/tmp/bc_check_stop_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(bc_report_json(r, path, why, sizeof why), 0);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 20];
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    unlink(path);
    text[n] = '\0';
    assert_non_null(strstr(text, "\"ended\": \"interrupted\""));
    const char *end = strrchr(text, '}'); /* whole: the object closes, only a newline after */
    assert_non_null(end);
    assert_true(strspn(end + 1, "\n") == strlen(end + 1));
    bc_run_result_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_after_the_answer),
        cmocka_unit_test(test_stop_between_comparison_slabs),
        cmocka_unit_test(test_time_ends_a_long_check),
        cmocka_unit_test(test_run_stopped_in_a_long_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
