/*
 * broadcheck run against the faulty adapters, as a user runs it: each run
 * completes (no harness crash) with exit 1, its JSON report's failure names
 * the fault, and the replay line the report prints reproduces it.
 * Adapters that cannot be loaded exit 2 with the reason, and 'list suts'
 * calls them "not available".
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#if !defined(BC_CLI_PATH) || !defined(BC_FAULTY_DIR)
#error "the build names the CLI and the faulty adapters"
#endif

/* Room for a whole `list suts` (16,281 bytes in build/default with the
 * faulty adapters at 34 mutants: a 16 KiB buffer cut the adapters off the
 * end under a longer build path); output past it fails the test. */
typedef struct result {
    int status;
    char out[1 << 20];
    char err[1 << 20];
} result;

static void slurp(FILE *f, char *buf, size_t cap)
{
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = '\0';
    if (fgetc(f) != EOF)
        fail_msg("a command's output is longer than the test's %zu bytes", cap - 1);
}

/* Runs a shell command line, capturing stdout and stderr. */
static void sh(result *r, const char *command)
{
    FILE *out = tmpfile(), *err = tmpfile();
    assert_true(out && err);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(fileno(out), 1);
        dup2(fileno(err), 2);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus)); /* the harness never dies of a signal */
    r->status = WEXITSTATUS(wstatus);
    rewind(out);
    rewind(err);
    slurp(out, r->out, sizeof r->out);
    slurp(err, r->err, sizeof r->err);
    fclose(out);
    fclose(err);
}

static int names(const char *text, const char *a, const char *b)
{
    return strstr(text, a) || (b && strstr(text, b));
}

/* Runs numpy x shape-differential on adapter `name` with `limits`; checks
 * the failure names the fault (a or b), then runs the printed replay line,
 * with `replay_limits` inserted after "replay" (empty: exactly as printed). */
static void check_faulty(const char *name, const char *limits, int cases, const char *a,
                         const char *b, const char *replay_limits)
{
    char json[] = "/tmp/bc_faulty_XXXXXX";
    int fd = mkstemp(json);
    assert_true(fd >= 0);
    close(fd);
    char command[4096];
    snprintf(command, sizeof command,
             "%s run --sut %s/libfault_%s.so --rule numpy --property shape-differential "
             "--cases %d --max-shrink-calls 300 %s --quiet --json %s",
             BC_CLI_PATH, BC_FAULTY_DIR, name, cases, limits, json);
    static result buffers; /* static: a failing assertion leaks nothing */
    result *r = &buffers;
    sh(r, command);
    if (r->status != 1)
        fail_msg("%s: exit %d, stderr: %s", name, r->status, r->err);
    json_error_t error;
    json_t *root = json_load_file(json, 0, &error);
    unlink(json);
    assert_non_null(root);
    json_t *failure = json_array_get(json_object_get(root, "failures"), 0);
    assert_non_null(failure);
    const char *detail = json_string_value(json_object_get(failure, "detail"));
    const char *replay = json_string_value(json_object_get(failure, "replay"));
    assert_non_null(detail);
    assert_non_null(replay);
    if (!names(detail, a, b))
        fail_msg("%s: the failure '%s' names neither '%s' nor '%s'", name, detail, a, b ? b : "-");
    /* "broadcheck replay --sut ..." with this build's executable */
    const char *prefix = "broadcheck replay ";
    assert_int_equal(strncmp(replay, prefix, strlen(prefix)), 0);
    snprintf(command, sizeof command, "%s replay %s %s", BC_CLI_PATH, replay_limits,
             replay + strlen(prefix));
    sh(r, command);
    if (r->status != 1 || strncmp(r->out, "FAIL shape-differential", 23) != 0 ||
        !names(r->out, a, b))
        fail_msg("%s: the replay '%s' gave exit %d: %s%s", name, command, r->status, r->out,
                 r->err);
    json_decref(root);
}

static void test_crash(void **state)
{
    (void)state;
    /* A sanitized worker reports the null store itself (UBSan) and exits. */
    check_faulty("crash", "", 150, "worker killed by SIGSEGV", "runtime error: store to null", "");
}

static void test_hang(void **state)
{
    (void)state;
    /* the printed replay line carries the run's --timeout-ms: exactly as printed,
     * it reproduces the same verdict (it used to run with the default 2000 ms) */
    check_faulty("hang", "--timeout-ms 150", 80, "no answer within 150 ms", NULL, "");
}

static void test_runaway(void **state)
{
    (void)state;
    /* The replay line carries the run's limit: the default 1 GB would be reached too, slowly.
     * Not 48 MB: an AddressSanitizer build's worker holds 53-54 MB by its HELLO (its shadow
     * memory), so it was killed before it started (fresh-clone sanitize run, 2026-11-27). */
    check_faulty("runaway", "--memory-mb 96 --timeout-ms 10000", 80, "96 MB memory limit",
                 "memory limit of 96 MB", "");
}

static void test_garbage(void **state)
{
    (void)state;
    check_faulty("garbage", "", 150, "the adapter answered a shape of rank 65", NULL, "");
}

static void test_cannot_load(void **state)
{
    (void)state;
    static const struct {
        const char *spec, *reason;
    } cases[] = {
        {"./missing.so", "broadcheck: --sut: cannot load adapter ./missing.so: No such file or directory"},
        {BC_FAULTY_DIR "/libfault_no_entry.so", "missing symbol bc_adapter_entry_v1"},
        {BC_FAULTY_DIR "/libfault_bad_abi.so", "ABI version mismatch"},
        {BC_FAULTY_DIR "/libfault_bad_descriptor.so", "bad descriptor"},
    };
    static result buffers;
    result *r = &buffers;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char command[2048];
        snprintf(command, sizeof command, "%s run --sut %s --cases 10", BC_CLI_PATH, cases[i].spec);
        sh(r, command);
        if (r->status != 2 || !strstr(r->err, cases[i].reason) || r->out[0])
            fail_msg("%s: exit %d, stdout '%s', stderr '%s'", cases[i].spec, r->status, r->out,
                     r->err);
        snprintf(command, sizeof command, "%s list suts --sut %s", BC_CLI_PATH, cases[i].spec);
        sh(r, command);
        assert_int_equal(r->status, 0);
        assert_non_null(strstr(r->out, "not available"));
        assert_non_null(strstr(r->out, "reference"));
    }
}

static void test_list_adapter_path(void **state)
{
    (void)state;
    static result buffers;
    result *r = &buffers;
    char command[2048];
    snprintf(command, sizeof command, "BROADCHECK_ADAPTER_PATH=%s:/no/such/dir %s list suts",
             BC_FAULTY_DIR, BC_CLI_PATH);
    sh(r, command);
    assert_int_equal(r->status, 0);
    const char *expect[] = {
        "libfault_crash.so", "available  crash: a faulty test adapter (out of process), version 0",
        "declares: implements shape; rules numpy; max rank 64; max operands 64",
        "libfault_bad_abi.so", "not available", "/no/such/dir", "mutant:max-dim"};
    for (size_t i = 0; i < sizeof expect / sizeof *expect; i++)
        if (!strstr(r->out, expect[i]))
            fail_msg("list suts lacks '%s':\n%s", expect[i], r->out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crash),       cmocka_unit_test(test_hang),
        cmocka_unit_test(test_runaway),     cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_cannot_load), cmocka_unit_test(test_list_adapter_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
