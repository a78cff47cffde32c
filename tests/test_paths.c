/*
 * broadcheck/paths.h in a build tree: each kind found where this build
 * put it, $BROADCHECK_WORKER taken as the only place when set, and a
 * missing file named with every place looked at.  (The installed places,
 * relative to the program, are tested by tests/relocation_test.sh.)
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "broadcheck/paths.h"

static void test_build_tree(void **state)
{
    (void)state;
    char path[4096], why[4096];
    unsetenv("BROADCHECK_WORKER");
    assert_int_equal(bc_path_find(BC_PATH_VECTORS, NULL, path, sizeof path, why, sizeof why), 0);
    assert_string_equal(path, BC_SPEC_DIR "/vectors");
    assert_int_equal(bc_path_find(BC_PATH_VECTORS, "numpy.vec", path, sizeof path, why, sizeof why),
                     0);
    assert_string_equal(path, BC_SPEC_DIR "/vectors/numpy.vec");
    assert_int_equal(bc_path_find(BC_PATH_PYTHON, "bcwire.py", path, sizeof path, why, sizeof why),
                     0);
    assert_int_equal(access(path, R_OK), 0);
    assert_int_equal(bc_path_find(BC_PATH_JS, "bcwire.js", path, sizeof path, why, sizeof why), 0);
    assert_int_equal(
        bc_path_find(BC_PATH_BENCH, "numpy_bench.py", path, sizeof path, why, sizeof why), 0);
    assert_int_equal(bc_path_find(BC_PATH_WORKER, NULL, path, sizeof path, why, sizeof why), 0);
    assert_string_equal(path, BC_WORKER);
    assert_int_equal(bc_path_find(BC_PATH_ADAPTERS, "libbc_example_adapter.so", path, sizeof path,
                                  why, sizeof why),
                     0);
    assert_int_equal(access(path, R_OK), 0);
}

static void test_missing(void **state)
{
    (void)state;
    char path[4096], why[4096];
    assert_int_equal(
        bc_path_find(BC_PATH_VECTORS, "no-such.vec", path, sizeof path, why, sizeof why), -1);
    /* both places: installed beside this program (tests/../share/...), the build tree */
    if (!strstr(why, "broadcheck's no-such.vec is missing") ||
        !strstr(why, "/share/broadcheck/vectors/no-such.vec (installed beside") ||
        !strstr(why, BC_SPEC_DIR "/vectors/no-such.vec") || strstr(why, "/../"))
        fail_msg("why: %s", why);
    assert_int_equal(bc_path_find(BC_PATH_COUNT, NULL, path, sizeof path, why, sizeof why), -1);
    assert_null(bc_path_name(BC_PATH_COUNT));
    const char *names[] = {"worker", "vectors", "adapters", "python", "js", "bench"};
    for (int k = 0; k < BC_PATH_COUNT; k++)
        assert_string_equal(bc_path_name((bc_path_kind)k), names[k]);
}

static void test_worker_from_the_environment(void **state)
{
    (void)state;
    char path[4096], why[4096];
    setenv("BROADCHECK_WORKER", "/bin/sh", 1);
    assert_int_equal(bc_path_find(BC_PATH_WORKER, NULL, path, sizeof path, why, sizeof why), 0);
    assert_string_equal(path, "/bin/sh");
    /* set but wrong: an error, not a silent fall back to another worker */
    setenv("BROADCHECK_WORKER", "/nonexistent/broadcheck-worker", 1);
    assert_int_equal(bc_path_find(BC_PATH_WORKER, NULL, path, sizeof path, why, sizeof why), -1);
    if (!strstr(why, "/nonexistent/broadcheck-worker (from $BROADCHECK_WORKER)"))
        fail_msg("why: %s", why);
    /* only the worker reads it */
    assert_int_equal(bc_path_find(BC_PATH_VECTORS, NULL, path, sizeof path, why, sizeof why), 0);
    unsetenv("BROADCHECK_WORKER");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_build_tree),
        cmocka_unit_test(test_missing),
        cmocka_unit_test(test_worker_from_the_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
