/* The guarded buffers' pool (guard/guard.h): placement, poison, which
 * slot a buffer gets, and where a stray address lies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../guard/guard.h"

static size_t page(void)
{
    return (size_t)sysconf(_SC_PAGESIZE);
}

/* A buffer sits at the end of its pages, before its margin; everything
 * around it is poison until someone writes there. */
static void test_placement_and_poison(void **state)
{
    (void)state;
    bc_guard_pool *pool = bc_guard_pool_new();
    assert_non_null(pool);
    unsigned char *b = bc_guard_alloc(pool, 100, BC_GUARD_MARGIN, 3);
    assert_non_null(b);
    assert_int_equal(((uintptr_t)b + 100 + BC_GUARD_MARGIN) % page(), 0);
    for (int i = 0; i < 100 + BC_GUARD_MARGIN; i++)
        assert_int_equal(b[i], BC_GUARD_POISON);
    assert_true(bc_guard_intact(pool, b));
    memset(b, 1, 100); /* its own bytes: still intact */
    assert_int_equal(bc_guard_check(pool, b), BC_GUARD_INTACT);
    b[100] = 1; /* its margin */
    assert_int_equal(bc_guard_check(pool, b), BC_GUARD_WROTE_AFTER);
    assert_false(bc_guard_intact(pool, b));
    b[100] = BC_GUARD_POISON;
    b[-1] = 1; /* before it, in its pages */
    assert_int_equal(bc_guard_check(pool, b), BC_GUARD_WROTE_BEFORE);
    assert_false(bc_guard_intact(pool, b));
    b[-1] = BC_GUARD_POISON;
    ((unsigned char *)b - (((uintptr_t)b) % page()))[0] = 1; /* its pages' first byte */
    assert_int_equal(bc_guard_check(pool, b), BC_GUARD_WROTE_BEFORE);
    assert_int_equal(bc_guard_check(pool, b + 1), BC_GUARD_NOT_A_BUFFER);
    unsigned char mine[8];
    assert_int_equal(bc_guard_check(pool, mine), BC_GUARD_NOT_A_BUFFER);
    int label, after;
    size_t distance;
    assert_true(bc_guard_find(pool, b + 100 + 10, &label, &after, &distance));
    assert_int_equal(label, 3);
    assert_int_equal(after, 1);
    assert_int_equal(distance, 10);
    assert_true(bc_guard_find(pool, b - 5, &label, &after, &distance));
    assert_int_equal(after, 0);
    assert_int_equal(distance, 5);
    assert_false(bc_guard_find(pool, b + 50, &label, &after, &distance)); /* inside it */
    bc_guard_pool_free(pool);
}

/* A reset frees every buffer; a slot whose poison a SUT wrote (found by
 * bc_guard_intact) is poison again when reused, so the next question (a
 * shrink's candidate) is not failed for the last one's write. */
static void test_reset_poisons_again(void **state)
{
    (void)state;
    bc_guard_pool *pool = bc_guard_pool_new();
    unsigned char *b = bc_guard_alloc(pool, 4000, 0, -1);
    memset(b - 16, 7, 16 + 4000); /* a SUT that wrote before its output */
    assert_false(bc_guard_intact(pool, b));
    bc_guard_pool_reset(pool);
    unsigned char *again = bc_guard_alloc(pool, 4000, 0, -1);
    assert_ptr_equal(again, b); /* the same slot, no new mapping */
    for (int i = -16; i < 4000; i++)
        assert_int_equal(again[i], BC_GUARD_POISON);
    assert_true(bc_guard_intact(pool, again));
    bc_guard_pool_free(pool);
}

/* The same for an input, whose bytes its caller writes: a write before
 * it that the check found is gone when the slot is next used, here by an
 * output at the same place, whose check must not see it. */
static void test_input_write_poisoned_again(void **state)
{
    (void)state;
    bc_guard_pool *pool = bc_guard_pool_new();
    unsigned char *in = bc_guard_alloc_filled(pool, 4000, BC_GUARD_MARGIN, 0);
    memset(in, 1, 4000);
    in[-8] = 9; /* a SUT that wrote before its input */
    assert_int_equal(bc_guard_check(pool, in), BC_GUARD_WROTE_BEFORE);
    bc_guard_pool_reset(pool);
    unsigned char *out = bc_guard_alloc(pool, 4000, BC_GUARD_MARGIN, -1);
    assert_ptr_equal(out, in);
    assert_int_equal(out[-8], BC_GUARD_POISON);
    assert_true(bc_guard_intact(pool, out));
    bc_guard_pool_free(pool);
}

/* Each buffer takes the smallest free slot that fits, whatever order the
 * slots were made in and wherever the search starts.  (The search stops
 * early at an exact fit: these pin that it still picks the same slot.) */
static void test_smallest_slot_that_fits(void **state)
{
    (void)state;
    const size_t p = page();
    bc_guard_pool *pool = bc_guard_pool_new();
    /* slots of 3, 1 and 2 pages, in that order */
    unsigned char *s3 = bc_guard_alloc(pool, 3 * p, 0, 0);
    unsigned char *s1 = bc_guard_alloc(pool, p, 0, 1);
    unsigned char *s2 = bc_guard_alloc(pool, 2 * p, 0, 2);
    assert_non_null(s3);
    assert_non_null(s1);
    assert_non_null(s2);
    bc_guard_pool_reset(pool);
    /* 2 pages: not the 3-page slot met first, the 2-page one */
    assert_ptr_equal(bc_guard_alloc(pool, 2 * p, 0, 0), s2);
    /* one page and a half: the 3-page slot is the only free one that fits */
    assert_ptr_equal(bc_guard_alloc(pool, p + p / 2, 0, 0), s3 + 3 * p - (p + p / 2));
    /* one page: the 1-page slot */
    assert_ptr_equal(bc_guard_alloc(pool, p, 0, 0), s1);
    bc_guard_pool_reset(pool);
    /* a smaller buffer than any slot: the smallest slot, not the first */
    assert_ptr_equal(bc_guard_alloc(pool, 10, 0, 0), s1 + p - 10);
    /* half a page again: the 2-page slot (the 1-page one is in use) */
    assert_ptr_equal(bc_guard_alloc(pool, p / 2, 0, 0), s2 + 2 * p - p / 2);
    /* four pages: none fits, a new slot (its end is none of the others') */
    unsigned char *s4 = bc_guard_alloc(pool, 4 * p, 0, 0);
    assert_non_null(s4);
    assert_true(s4 + 4 * p != s3 + 3 * p && s4 + 4 * p != s2 + 2 * p && s4 + 4 * p != s1 + p);
    /* the same question again gets the same buffers (a replay's placement) */
    bc_guard_pool_reset(pool);
    assert_ptr_equal(bc_guard_alloc(pool, 10, 0, 0), s1 + p - 10);
    assert_ptr_equal(bc_guard_alloc(pool, p / 2, 0, 0), s2 + 2 * p - p / 2);
    assert_ptr_equal(bc_guard_alloc(pool, 4 * p, 0, 0), s4);
    bc_guard_pool_free(pool);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placement_and_poison),
        cmocka_unit_test(test_reset_poisons_again),
        cmocka_unit_test(test_input_write_poisoned_again),
        cmocka_unit_test(test_smallest_slot_that_fits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
