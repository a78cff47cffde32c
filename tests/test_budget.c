/*
 * The memory budget a run's jobs share (properties/budget.h): --max-bytes
 * is the whole run's, so checks of --jobs J threads never hold more of it
 * at once than the budget.  Observed by counting, never by timing: the
 * pool's own peak, a SUT that notes how many checks are inside it, and a
 * waiter seen in the queue before the stop that must wake it.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "budget.h"
#include "internal.h"

/* ---- the pool alone ----------------------------------------------------- */

#define STRESS_THREADS 8
#define STRESS_ROUNDS 3000
#define STRESS_TOTAL ((int64_t)1000)

typedef struct stress_arg {
    bc_budget *b;
    atomic_llong *held; /* what the threads hold, counted apart from the pool */
    atomic_int *over;   /* times held was seen above the total */
    unsigned seed;
} stress_arg;

static void *stress(void *p)
{
    stress_arg *a = p;
    for (int i = 0; i < STRESS_ROUNDS; i++) {
        a->seed = a->seed * 1103515245u + 12345u;
        const int64_t bytes = (int64_t)((a->seed >> 8) % (STRESS_TOTAL + 1));
        assert_int_equal(bc_budget_reserve(a->b, bytes, NULL, NULL), BC_BUDGET_RESERVED);
        if (atomic_fetch_add(a->held, bytes) + bytes > STRESS_TOTAL)
            atomic_fetch_add(a->over, 1);
        if (i % 7 == 0)
            sched_yield(); /* let others queue behind a holder */
        atomic_fetch_sub(a->held, bytes);
        bc_budget_release(a->b, bytes);
    }
    return NULL;
}

/* Many threads reserving random amounts, up to the whole budget: what they
 * hold together never exceeds it, and every one gets through (no deadlock,
 * no starvation: they are served in order). */
static void test_stress_never_over(void **state)
{
    (void)state;
    bc_budget b;
    assert_int_equal(bc_budget_init(&b, STRESS_TOTAL), 0);
    atomic_llong held;
    atomic_int over;
    atomic_init(&held, 0);
    atomic_init(&over, 0);
    pthread_t t[STRESS_THREADS];
    stress_arg args[STRESS_THREADS];
    for (int i = 0; i < STRESS_THREADS; i++) {
        args[i] = (stress_arg){&b, &held, &over, (unsigned)i * 7919u + 1u};
        assert_int_equal(pthread_create(&t[i], NULL, stress, &args[i]), 0);
    }
    for (int i = 0; i < STRESS_THREADS; i++)
        pthread_join(t[i], NULL);
    assert_int_equal(atomic_load(&over), 0);
    assert_true(bc_budget_peak(&b) <= STRESS_TOTAL);
    assert_true(bc_budget_peak(&b) > STRESS_TOTAL / 2); /* they did overlap */
    assert_int_equal(b.reserved, 0);
    assert_int_equal(bc_budget_waiting(&b), 0);
    bc_budget_destroy(&b);
}

/* More than the whole budget is refused at once, never waited for. */
static void test_too_large_never_waits(void **state)
{
    (void)state;
    bc_budget b;
    assert_int_equal(bc_budget_init(&b, 100), 0);
    assert_int_equal(bc_budget_reserve(&b, 100, NULL, NULL), BC_BUDGET_RESERVED);
    assert_int_equal(bc_budget_reserve(&b, 101, NULL, NULL), BC_BUDGET_TOO_LARGE);
    bc_budget_release(&b, 100);
    assert_int_equal(b.reserved, 0);
    bc_budget_destroy(&b);
}

/* ---- value checks sharing it ------------------------------------------- */

/* int64 [1024,4500] + [4500]: an output of 36.9 MB; a check of it needs
 * past BC_BUDGET_SHARED_MIN, so it takes the pool */
static const char *const big_case = "numpy op=add dtype=int64 [1024,4500] [4500] -> [1024,4500]";

static bc_budget *watched;     /* the pool the checks share, or NULL */
static atomic_int inside, most_inside, evals, left;
static atomic_int stop_flag;

/* The reference, noting how many checks are inside the SUT at once.  A
 * check stays inside until the other one is inside too, is queued on the
 * pool, or has been through: so without the pool the two overlap for
 * certain, and with it the second is seen waiting (no sleep decides). */
static void watching_eval(const bc_sut *sut, const bc_eval_request *req, bc_sut_answer *a)
{
    (void)sut;
    atomic_fetch_add(&evals, 1);
    int now = atomic_fetch_add(&inside, 1) + 1;
    for (int m = atomic_load(&most_inside); now > m;)
        if (atomic_compare_exchange_weak(&most_inside, &m, now))
            break;
    while (atomic_load(&inside) < 2 && bc_budget_waiting(watched) == 0 &&
           atomic_load(&left) == 0)
        sched_yield();
    bc_reference_eval(BC_EVAL_FAST, req, a);
    atomic_fetch_sub(&inside, 1);
    atomic_fetch_add(&left, 1);
}

static void shapes_infer(const bc_sut *sut, const bc_params *p, int n, const bc_shape *shapes,
                         bc_sut_answer *a)
{
    const bc_sut *ref = bc_builtin_sut("reference");
    (void)sut;
    ref->ops->infer_shape(ref, p, n, shapes, a);
}

static const bc_sut_ops ops = {shapes_infer, watching_eval, NULL};
static const bc_sut sut = {"watching-eval", "1", "test", NULL, &ops};

static bc_shrink_stop flag_stop(void *hook)
{
    (void)hook;
    return atomic_load(&stop_flag) ? BC_SHRINK_INTERRUPTED : BC_SHRINK_MINIMAL;
}

typedef struct check_arg {
    bc_budget *pool; /* ctx.budget */
    bc_check verdict;
    bc_shrink_stop stopped;
    char detail[1024];
} check_arg;

static void *check_big(void *p)
{
    check_arg *a = p;
    bc_vector *v = malloc(sizeof *v);
    char why[256];
    assert_non_null(v);
    assert_int_equal(bc_vector_parse(big_case, v, why, sizeof why), 1);
    bc_check_ctx ctx = {.sut = &sut, .stop = flag_stop, .budget = a->pool,
                        .stopped = BC_SHRINK_MINIMAL};
    a->verdict = bc_property_check(bc_property_from_name("value-differential"), &ctx, v,
                                   a->detail, sizeof a->detail);
    a->stopped = ctx.stopped;
    bc_check_ctx_release(&ctx);
    free(v);
    return NULL;
}

/* The bytes a check of big_case takes, and a pool of which that is 60 %. */
static int64_t big_case_bytes(void)
{
    bc_vector *v = malloc(sizeof *v);
    char why[256];
    int64_t question;
    assert_non_null(v);
    assert_int_equal(bc_vector_parse(big_case, v, why, sizeof why), 1);
    const int64_t bytes =
        bc_property_check_bytes(bc_property_from_name("value-differential"), NULL, v, &question);
    free(v);
    assert_true(bytes > BC_BUDGET_SHARED_MIN);
    return bytes;
}

/* A pool of which a check of big_case takes 60 %, watched by the SUT, and
 * the SUT's counts from 0.  Returns the check's bytes. */
static int64_t open_pool(bc_budget *b)
{
    const int64_t bytes = big_case_bytes();
    assert_int_equal(bc_budget_init(b, bytes * 100 / 60), 0);
    watched = b;
    atomic_store(&inside, 0);
    atomic_store(&most_inside, 0);
    atomic_store(&evals, 0);
    atomic_store(&left, 0);
    atomic_store(&stop_flag, 0);
    return bytes;
}

static void close_pool(bc_budget *b)
{
    watched = NULL;
    bc_budget_destroy(b);
}

/* Two jobs' checks, each needing 60 % of the budget: one runs while the
 * other waits, and both pass; the pool is whole again after them.  Without
 * the pool (ctx.budget NULL, as every run was before) both are inside the
 * SUT at once. */
static void test_two_checks_of_60_percent(void **state)
{
    (void)state;
    bc_budget b;
    const int64_t bytes = open_pool(&b);
    check_arg args[2] = {{.pool = &b}, {.pool = &b}};
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&t[i], NULL, check_big, &args[i]), 0);
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(args[i].verdict, BC_CHECK_PASS);
        assert_int_equal(args[i].stopped, BC_SHRINK_MINIMAL);
    }
    assert_int_equal(atomic_load(&evals), 2);
    assert_int_equal(atomic_load(&most_inside), 1);
    assert_int_equal(bc_budget_peak(&b), bytes);
    assert_int_equal(b.reserved, 0);
    close_pool(&b);
}

/* A stop (a signal's flag, --time) while a check waits for the pool wakes
 * it: the check is thrown away as an interrupted one is, asks the SUT
 * nothing, and holds nothing. */
static void test_stop_wakes_a_waiter(void **state)
{
    (void)state;
    bc_budget b;
    const int64_t bytes = open_pool(&b);
    /* another job's check holds 60 % */
    assert_int_equal(bc_budget_reserve(&b, bytes, NULL, NULL), BC_BUDGET_RESERVED);
    check_arg arg = {.pool = &b};
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, check_big, &arg), 0);
    while (bc_budget_waiting(&b) == 0 && atomic_load(&evals) == 0)
        sched_yield(); /* it is queued (or, wrongly, asking the SUT) */
    assert_int_equal(atomic_load(&evals), 0);
    atomic_store(&stop_flag, 1);
    pthread_join(t, NULL);
    assert_int_equal(arg.verdict, BC_CHECK_UNSUPPORTED);
    assert_int_equal(arg.stopped, BC_SHRINK_INTERRUPTED);
    assert_non_null(strstr(arg.detail, "not examined"));
    assert_int_equal(atomic_load(&evals), 0);
    assert_int_equal(bc_budget_waiting(&b), 0);
    assert_int_equal(b.reserved, bytes); /* only the other check's */
    bc_budget_release(&b, bytes);
    close_pool(&b);
}

/* A check that took the pool and was then stopped (its question not
 * asked) gives its bytes back as one that ran to its end does. */
static void test_interrupted_check_releases(void **state)
{
    (void)state;
    bc_budget b;
    const int64_t bytes = open_pool(&b);
    check_arg arg = {.pool = &b};
    atomic_store(&stop_flag, 1); /* free memory is not waited for: the stop is seen after */
    check_big(&arg);
    assert_int_equal(atomic_load(&evals), 0);
    assert_int_equal(arg.verdict, BC_CHECK_UNSUPPORTED);
    assert_int_equal(arg.stopped, BC_SHRINK_INTERRUPTED);
    assert_int_equal(b.reserved, 0);
    assert_int_equal(bc_budget_peak(&b), bytes); /* it did take the pool */
    close_pool(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stress_never_over),
        cmocka_unit_test(test_too_large_never_waits),
        cmocka_unit_test(test_two_checks_of_60_percent),
        cmocka_unit_test(test_stop_wakes_a_waiter),
        cmocka_unit_test(test_interrupted_check_releases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
