/*
 * Every replay line a run prints reproduces its verdict in a fresh process.
 * For every built-in mutant (in process, and the two that need it out of
 * process through broadcheck-worker --builtin) a default run's failures are
 * replayed, each as a new `broadcheck replay` process exactly as printed:
 * it must fail with the very detail the run reported.  Each minimal case
 * must also pass on the conformant adapter (a correct SUT written from
 * adapter.h alone), or broadcheck blamed a correct SUT.  The faulty
 * adapters' replays (crash, hang, memory, garbage, wild write, out-of-bounds
 * read, a slow death) must fail again too.
 *
 * What used to break this: the worker left outputs unpoisoned and packed
 * inputs back to back, so an unwritten element or a read past an input gave
 * whatever the heap held, and a replay in a fresh worker passed; replay
 * lines dropped --timeout-ms and --memory-mb.
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
#include <jansson.h>

#include "broadcheck/sut.h"
#include "broadcheck/vector.h"
#include "cli_spawn.h"

#if !defined(BC_CONFORMANT_ADAPTER) || !defined(BC_FAULTY_DIR) || !defined(BC_WORKER)
#error "the build names the conformant adapter, the faulty adapters and the worker"
#endif

static char scratch[512];

static int setup(void **state)
{
    (void)state;
    return bc_scratch_dir("bc_replay", scratch, sizeof scratch);
}

static int teardown(void **state)
{
    (void)state;
    bc_scratch_remove(scratch);
    return 0;
}

/* Runs `broadcheck run ARGS --json F` (exit 1 expected: something failed)
 * and returns the report's failures array (owned by *root). */
static json_t *failures_of(const char *const *args, const char *name, json_t **root)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s.json", scratch, name);
    const char *argv[32];
    int n = 0;
    argv[n++] = "run";
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n++] = "--quiet";
    argv[n++] = "--json";
    argv[n++] = path;
    argv[n] = NULL;
    bc_spawned r;
    assert_int_equal(bc_spawn(argv, &r), 0);
    if (r.status != 1)
        fail_msg("%s: broadcheck run exited %d (expected 1): %s", name, r.status, r.err);
    bc_spawned_free(&r);
    json_error_t error;
    *root = json_load_file(path, 0, &error);
    if (!*root)
        fail_msg("%s: %s: %s", name, path, error.text);
    json_t *failures = json_object_get(*root, "failures");
    assert_true(json_array_size(failures) > 0);
    return failures;
}

static const char *text(json_t *failure, const char *key)
{
    const char *s = json_string_value(json_object_get(failure, key));
    assert_non_null(s);
    return s;
}

/* Replays every failure of the run as printed, in a new process each:
 * exit 1 and "FAIL <property> on <sut>: <detail>".  With same_detail, the
 * detail must be the run's own (a deterministic SUT); then the minimal case
 * must also pass on the conformant adapter.  Returns the failures replayed. */
static int replay_all(const char *const *args, const char *name, int same_detail)
{
    json_t *root;
    json_t *failures = failures_of(args, name, &root);
    const char *sut = json_string_value(json_object_get(json_object_get(root, "sut"), "name"));
    size_t i;
    json_t *f;
    json_array_foreach(failures, i, f) {
        const char *property = text(f, "property"), *replay = text(f, "replay");
        bc_spawned r;
        assert_int_equal(bc_spawn_printed(replay, &r), 0);
        char want[2048];
        snprintf(want, sizeof want, "FAIL %s on %s: %s\n", property, sut,
                 same_detail ? text(f, "detail") : "");
        if (r.status != 1 || (same_detail ? strcmp(r.out, want) != 0
                                          : strncmp(r.out, want, strlen(want) - 1) != 0))
            fail_msg("%s: the replay\n  %s\nexited %d with\n  %s%s\nexpected\n  %s", name,
                     replay, r.status, r.out, r.err, want);
        bc_spawned_free(&r);
        if (!same_detail)
            continue;
        /* the same case on a correct SUT: no failure charged to it (the
         * conformant adapter infers no partial shapes, an optional query,
         * and declares no rule profile: such a case goes to the reference) */
        const char *minimal = text(f, "minimal");
        int conformant = !bc_vector_line_is_partial(minimal) && !strstr(minimal, "profile=");
        const char *correct[] = {"replay", "--sut",
                                 conformant ? BC_CONFORMANT_ADAPTER : "reference",
                                 "--property", property, minimal, NULL};
        assert_int_equal(bc_spawn(correct, &r), 0);
        if (r.status != 0)
            fail_msg("%s: '%s' fails the conformant adapter too (exit %d): %s%s", name,
                     text(f, "minimal"), r.status, r.out, r.err);
        bc_spawned_free(&r);
    }
    int count = (int)json_array_size(failures);
    json_decref(root);
    return count;
}

/* Cases per shape cell of the mutant runs, "8000" or $BC_REPLAY_CASES (the
 * sanitizer build sets 4000); a value cell gets a quarter.  Every mutant is
 * killed at 4000 (the sanitizer build's runs); 20000 took this test 608 s of
 * a loaded CI run, and test_runner and mutants.killed run every mutant at
 * the default sizes anyway. */
static void budget(char *cases, char *value_cases, size_t cap)
{
    const char *v = getenv("BC_REPLAY_CASES");
    long long n = v ? atoll(v) : 0;
    n = n > 0 ? n : 8000;
    snprintf(cases, cap, "%lld", n);
    snprintf(value_cases, cap, "%lld", n / 4 > 0 ? n / 4 : 1);
}

static void test_builtin_mutants(void **state)
{
    (void)state;
    int count, replayed = 0;
    char cases[32], value_cases[32];
    budget(cases, value_cases, sizeof cases);
    const bc_sut *const *suts = bc_builtin_suts(&count);
    for (int s = 0; s < count; s++) {
        if (!suts[s]->citation)
            continue; /* the reference */
        const char *args[] = {"--sut", suts[s]->name, "--cases", cases, "--value-cases",
                              value_cases, "--jobs", "2", NULL};
        /* a bug past the small tier's sizes: its medium-tier failures */
        const char *medium[] = {"--sut", suts[s]->name, "--value-tier", "medium", "--property",
                                "value-differential,layout-invariance,broadcast-then-elementwise",
                                "--value-cases", "200", "--jobs", "2", NULL};
        replayed += replay_all(bc_builtin_sut_tier(suts[s]) == 1 ? medium : args,
                               suts[s]->name + strlen("mutant:"), 1);
    }
    assert_true(replayed > 2 * (count - 1));
}

/* Out of process, where the layout (offsets, poison) must reach the worker
 * and come back the same in every fresh worker. */
static void test_builtin_mutants_out_of_process(void **state)
{
    (void)state;
    char cases[32], value_cases[32];
    budget(cases, value_cases, sizeof cases);
    static const char *const mutants[] = {"mutant:offset-ignored", "mutant:rank7-collapse",
                                          "mutant:contiguous-assumed", "mutant:flat-modulo"};
    for (size_t m = 0; m < sizeof mutants / sizeof *mutants; m++) {
        char sut[1024];
        snprintf(sut, sizeof sut, "exec:%s --builtin %s", BC_WORKER, mutants[m]);
        const char *args[] = {"--sut", sut, "--rule", "none,numpy,onnx-uni,explicit",
                              "--property", "value-differential,layout-invariance",
                              "--value-cases", value_cases, "--jobs", "2", "--timeout-ms",
                              "60000", NULL};
        char name[64];
        snprintf(name, sizeof name, "exec-%s", mutants[m] + strlen("mutant:"));
        replay_all(args, name, 1);
    }
    /* matmul values (EVAL kind 4) through the wire and back */
    char sut[1024];
    snprintf(sut, sizeof sut, "exec:%s --builtin mutant:matmul-batch-modulo", BC_WORKER);
    const char *matmul[] = {"--sut", sut, "--rule", "matmul", "--property", "matmul-values",
                            "--value-cases", value_cases, "--jobs", "2", "--timeout-ms", "60000",
                            NULL};
    replay_all(matmul, "exec-matmul-batch-modulo", 1);
}

static void test_faulty_adapters(void **state)
{
    (void)state;
    static const struct {
        const char *name, *property, *limits[4];
    } faulty[] = {
        {"crash", "shape-differential", {NULL}},
        {"hang", "shape-differential", {"--timeout-ms", "150", NULL}},
        {"runaway", "shape-differential", {"--memory-mb", "96", "--timeout-ms", "10000"}},
        {"garbage", "shape-differential", {NULL}},
        {"dying", "shape-differential", {"--timeout-ms", "150", NULL}},
        {"garbage", "value-differential", {NULL}},
        {"wild_write", "value-differential", {NULL}},
        {"overread", "value-differential", {NULL}},
    };
    for (size_t i = 0; i < sizeof faulty / sizeof *faulty; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/libfault_%s.so", BC_FAULTY_DIR, faulty[i].name);
        const char *args[16] = {"--sut", path, "--rule", "numpy", "--property", faulty[i].property,
                                "--cases", "120", "--max-shrink-calls", "200"};
        int n = 10;
        for (int k = 0; k < 4 && faulty[i].limits[k]; k++)
            args[n++] = faulty[i].limits[k];
        args[n] = NULL;
        char name[64];
        snprintf(name, sizeof name, "%s-%zu", faulty[i].name, i);
        /* a memory limit's figures vary from run to run: the verdict, not the text */
        replay_all(args, name, strcmp(faulty[i].name, "runaway") != 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_mutants),
        cmocka_unit_test(test_builtin_mutants_out_of_process),
        cmocka_unit_test(test_faulty_adapters),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
