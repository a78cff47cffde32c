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
 *  - a slow answer: a question that got no answer in time is asked again
 *    with 4 times the time; a SUT silent once conforms, its second answer
 *    is judged as any answer, and it is asked again only within --time;
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

/* ---- hostile SUTs ------------------------------------------------------------- */

/* "exec:bc_hostile_worker ARGS" */
static const char *hostile(const char *args)
{
    static char spec[2][2048];
    static int next;
    char *s = spec[next++ % 2];
    snprintf(s, sizeof spec[0], "exec:%s %s", BC_HOSTILE_WORKER, args);
    return s;
}

/* Runs broadcheck (a safety net of 600 s: a hang fails the test instead
 * of blocking it), checks the exit code. */
static void run_cli(bc_spawned *r, int want, const char *const *args, const char *const *env)
{
    bc_spawn_opts opts = {0, NULL, env, 600};
    assert_int_equal(bc_spawn_with(args, &opts, r), 0);
    if (r->status != want) {
        char line[4096] = "broadcheck";
        for (const char *const *a = args; *a; a++) {
            strncat(line, " ", sizeof line - strlen(line) - 1);
            strncat(line, *a, sizeof line - strlen(line) - 1);
        }
        fail_msg("%s: exit %d, want %d\nstdout: %.3000s\nstderr: %.3000s", line, r->status, want,
                 r->out, r->err);
    }
}

/* The report's failure of rule x property (NULL if none). */
static json_t *failure_of(json_t *report, const char *rule, const char *property)
{
    json_t *f;
    size_t i;
    json_array_foreach(json_object_get(report, "failures"), i, f)
        if (strcmp(json_string_value(json_object_get(f, "rule")), rule) == 0 &&
            strcmp(json_string_value(json_object_get(f, "property")), property) == 0)
            return f;
    return NULL;
}

static const char *cell_field(json_t *report, const char *rule, const char *property,
                              const char *key)
{
    json_t *c;
    size_t i;
    json_array_foreach(json_object_get(report, "cells"), i, c)
        if (strcmp(json_string_value(json_object_get(c, "rule")), rule) == 0 &&
            strcmp(json_string_value(json_object_get(c, "property")), property) == 0)
            return json_string_value(json_object_get(c, key));
    return NULL;
}

/* A second ANSWER is the protocol error of the question it came after.
 * The worker doubles its answers to rule none, whose cell comes before
 * numpy's: the surplus after none's last question used to be read as the
 * answer to numpy's first, a correct SUT's question failing there. */
static void test_surplus_answer_blames_its_own_question(void **state)
{
    (void)state;
    const char *report = at("surplus.json");
    const char *args[] = {"run", "--sut", hostile("--on none --double"), "--rule", "none,numpy",
                          "--property", "shape-differential", "--cases", "300", "--quiet",
                          "--json", report, NULL};
    bc_spawned r;
    run_cli(&r, 1, args, NULL);
    bc_spawned_free(&r);
    json_t *j = load_report(report);
    json_t *f = failure_of(j, "none", "shape-differential");
    assert_non_null(f);
    const char *detail = json_string_value(json_object_get(f, "detail"));
    if (!strstr(detail, "sent more bytes after its ANSWER"))
        fail_msg("the surplus frame is not named: %s", detail);
    if (failure_of(j, "numpy", "shape-differential"))
        fail_msg("numpy's innocent question was blamed: %s",
                 json_string_value(json_object_get(failure_of(j, "numpy", "shape-differential"),
                                                   "detail")));
    assert_string_equal(cell_field(j, "numpy", "shape-differential", "verdict"), "pass");
    json_decref(j);
}

/* An ANSWER frame far longer than a shape answer can be is refused at its
 * header: four workers sending 100 MB each made the harness hold them all. */
static void test_oversized_answer_refused_unread(void **state)
{
    (void)state;
    const char *report = at("huge.json");
    const char *args[] = {"run", "--sut", hostile("--on numpy --huge 100"), "--rule", "numpy",
                          "--property", "shape-differential,commutative,associative", "--jobs",
                          "4", "--cases", "40", "--whole-cells", "--quiet", "--json", report,
                          NULL};
    bc_spawned r;
    run_cli(&r, 1, args, NULL);
    long peak_mb = r.maxrss_kb / 1024;
    bc_spawned_free(&r);
    json_t *j = load_report(report);
    json_t *f = failure_of(j, "numpy", "shape-differential");
    assert_non_null(f);
    const char *detail = json_string_value(json_object_get(f, "detail"));
    if (!strstr(detail, "refused unread"))
        fail_msg("the oversized frame is not named: %s", detail);
    json_decref(j);
    /* far below one frame: nothing of it was buffered */
    if (peak_mb >= 100)
        fail_msg("broadcheck's peak resident memory was %ld MB", peak_mb);
}

/* 1 if text holds a terminal control: ESC, CSI (U+009B), BEL, CR. */
static int has_escape(const char *text)
{
    return strchr(text, '\x1b') || strstr(text, "\xc2\x9b") || strchr(text, '\a') ||
           strchr(text, '\r');
}

/* Whatever a SUT says (its HELLO, its messages) reaches the terminal and
 * the reports with its escape sequences neutralised. */
static void test_sut_text_cannot_drive_the_terminal(void **state)
{
    (void)state;
    const char *sut = hostile("--on numpy --escape");
    const char *report = at("escape.json"), *cert = at("escape.md");
    const char *args[] = {"run", "--sut", sut, "--rule", "numpy", "--property",
                          "shape-differential", "--cases", "50", "--json", report,
                          "--certificate", cert, NULL};
    bc_spawned r;
    run_cli(&r, 1, args, NULL);
    if (has_escape(r.out) || has_escape(r.err))
        fail_msg("a terminal escape reached the output:\n%s%s", r.out, r.err);
    assert_non_null(strstr(r.out, "bad ")); /* the message is there, made safe */
    bc_spawned_free(&r);
    json_t *j = load_report(report);
    char *text = slurp(report, NULL), *md = slurp(cert, NULL);
    if (has_escape(md) || strstr(text, "\\u001b") || strstr(text, "\\u009b"))
        fail_msg("a terminal escape reached a report");
    free(text);
    free(md);
    const char *list[] = {"list", "suts", "--sut", sut, NULL};
    run_cli(&r, 0, list, NULL);
    if (has_escape(r.out) || !strstr(r.out, "available"))
        fail_msg("list suts printed the worker's escapes:\n%s", r.out);
    bc_spawned_free(&r);
    /* replaying the failure prints the SUT's message: made safe too */
    const char *minimal = json_string_value(
        json_object_get(failure_of(j, "numpy", "shape-differential"), "minimal"));
    const char *replay_args[] = {"replay", "--sut", sut, "--property", "shape-differential",
                                 minimal, NULL};
    run_cli(&r, 1, replay_args, NULL);
    if (has_escape(r.out) || has_escape(r.err) || !strstr(r.out, "bad "))
        fail_msg("replay printed the worker's escapes:\n%s%s", r.out, r.err);
    bc_spawned_free(&r);
    json_decref(j);
}

/* An adapter whose child outlives it (and would hold its protocol fds if
 * they were inherited) crashes: the crash is reported as one, at once, not
 * as "no answer within" the (here 120 s) timeout. */
static void test_child_holding_fds_does_not_hide_a_crash(void **state)
{
    (void)state;
    const char *report = at("fork-crash.json");
    char sut[1024];
    snprintf(sut, sizeof sut, "%s/libfault_fork_crash.so", BC_FAULTY_DIR);
    const char *args[] = {"run", "--sut", sut, "--rule", "numpy", "--property",
                          "shape-differential", "--cases", "100", "--max-shrink-calls", "0",
                          "--timeout-ms", "120000", "--quiet", "--json", report, NULL};
    bc_spawned r;
    run_cli(&r, 1, args, NULL);
    bc_spawned_free(&r);
    json_t *j = load_report(report);
    const char *detail = json_string_value(
        json_object_get(failure_of(j, "numpy", "shape-differential"), "detail"));
    assert_non_null(detail);
    if (strstr(detail, "no answer within") ||
        !(strstr(detail, "SIGSEGV") || strstr(detail, "store to null")))
        fail_msg("the crash was not reported as one: %s", detail);
    json_decref(j);
}

/* A SUT that crashed once and then answers right: the failure says it is
 * flaky and keeps the crash it saw (its report used to say only that the
 * failure did not reproduce). */
static void test_flaky_failure_keeps_what_it_saw(void **state)
{
    (void)state;
    const char *report = at("flaky.json");
    char sut[1024], marker[600];
    snprintf(sut, sizeof sut, "%s/libfault_flaky.so", BC_FAULTY_DIR);
    snprintf(marker, sizeof marker, "BC_FLAKY_MARKER=%s", at("flaky.marker"));
    unlink(at("flaky.marker"));
    const char *env[] = {marker, NULL};
    const char *args[] = {"run", "--sut", sut, "--rule", "numpy", "--property",
                          "shape-differential", "--cases", "200", "--quiet", "--json", report,
                          NULL};
    bc_spawned r;
    run_cli(&r, 1, args, env);
    bc_spawned_free(&r);
    json_t *j = load_report(report);
    json_t *f = failure_of(j, "numpy", "shape-differential");
    assert_non_null(f);
    assert_true(json_is_true(json_object_get(f, "flaky")));
    const char *first = json_string_value(json_object_get(f, "first_detail"));
    const char *detail = json_string_value(json_object_get(f, "detail"));
    if (!(strstr(first, "SIGSEGV") || strstr(first, "store to null")) ||
        !(strstr(detail, "SIGSEGV") || strstr(detail, "store to null")) ||
        !strstr(detail, "flaky"))
        fail_msg("the crash seen first is lost: detail '%s', first_detail '%s'", detail, first);
    json_decref(j);
    unlink(at("flaky.marker"));
}

/* ---- bounded time ------------------------------------------------------------------ */

static int count_lines(const char *path)
{
    char *text = slurp(path, NULL);
    int n = 0;
    for (const char *p = text; p && *p; p++)
        n += *p == '\n';
    free(text);
    return n;
}

/* A run of --time `seconds` and --timeout-ms `timeout_ms` (one job, never
 * giving up) against a SUT that never answers, exiting `want`: its JSON
 * report, and in *asked how many asks the worker heard. */
static json_t *run_against_dead_sut(const char *name, const char *seconds, const char *timeout_ms,
                                    int want, int *asked)
{
    char report[300], log[300], worker[1024];
    snprintf(report, sizeof report, "%s.json", at(name));
    snprintf(log, sizeof log, "%s.log", at(name));
    unlink(log);
    snprintf(worker, sizeof worker, "--never --log %s", log);
    const char *args[] = {"run", "--sut", hostile(worker), "--time", seconds, "--timeout-ms",
                          timeout_ms, "--unresponsive-after", "0", "--jobs", "1", "--quiet",
                          "--json", report, NULL};
    bc_spawned r;
    run_cli(&r, want, args, NULL);
    bc_spawned_free(&r);
    *asked = count_lines(log);
    unlink(log);
    return load_report(report);
}

/* --time against a SUT that never answers: every question's first ask
 * takes a whole --timeout-ms, so a run bounded by --time asks at most
 * time/timeout + 1 questions per job (--jobs 1 here) (the old runner asked
 * a chunk of 2,048 in every cell: --time 2 --timeout-ms 50 ran 109 s), and
 * each is asked again at most once (4 x 300 ms, or what is left of the
 * time): the worker hears at most twice that.  A count, not a clock: a
 * slow machine only asks fewer.  The first question, asked again with the
 * whole 1,200 ms (it ends 1.5 s into the 4 s), is the cell's timeout. */
static void test_time_bounds_a_dead_sut(void **state)
{
    (void)state;
    int asked;
    json_t *j = run_against_dead_sut("dead", "4", "300", 1, &asked);
    if (asked < 2 || asked > 2 * (4 * 1000 / 300 + 1))
        fail_msg("%d asks heard in --time 4 at 300 ms a question, each asked again once", asked);
    /* the first cell failed (a timeout, twice), and the cells never reached say so */
    json_t *f = json_array_get(json_object_get(j, "failures"), 0);
    assert_non_null(f);
    const char *detail = json_string_value(json_object_get(f, "detail"));
    if (!strstr(detail, "no answer within 300 ms") ||
        !strstr(detail, "asked again with 1200 ms: no answer either"))
        fail_msg("the failure is not the question's two silences: %s", detail);
    assert_string_equal(cell_field(j, "explicit", "shape-differential", "ended"), "no-time");
    assert_string_equal(cell_field(j, "explicit", "shape-differential", "verdict"), "not-run");
    json_decref(j);
}

/* The default certification (--unresponsive-after 5) against a SUT that
 * never answers ends, and says why, long before its --time: five timeouts
 * end the cell in progress, the sixth the run.  Each of the six questions
 * is asked twice (the second time with 4 x the time, and silent again), so
 * the worker hears 12 asks.  --timeout-ms 400 (not the default 2000): six
 * questions of 400 + 1,600 ms take the 12 s that six of 2,000 took before
 * the second ask. */
static void test_dead_sut_ends_as_unresponsive(void **state)
{
    (void)state;
    const char *report = at("unresponsive.json"), *log = at("unresponsive.log"),
               *cert = at("unresponsive.md");
    unlink(log);
    char worker[1024];
    snprintf(worker, sizeof worker, "--never --log %s", log);
    const char *args[] = {"run", "--sut", hostile(worker), "--time", "300", "--timeout-ms", "400",
                          "--jobs", "1", "--json", report, "--certificate", cert, NULL};
    bc_spawned r;
    run_cli(&r, 1, args, NULL);
    if (!strstr(r.out, "ENDED EARLY: the SUT stopped answering"))
        fail_msg("the summary does not say why the run ended:\n%s", r.out);
    if (strstr(r.out, "answered only when asked again"))
        fail_msg("the summary counts an answer the SUT never gave:\n%s", r.out);
    bc_spawned_free(&r);
    assert_int_equal(count_lines(log), 2 * 6);
    json_t *j = load_report(report);
    assert_string_equal(json_string_value(json_object_get(j, "ended")), "sut-unresponsive");
    const char *ended = json_string_value(json_object_get(j, "ended_detail"));
    if (!strstr(ended, "in a row got no answer") ||
        !strstr(ended, "no answer within 400 ms while answering; worker killed; asked again "
                       "with 1600 ms: no answer either"))
        fail_msg("ended_detail: %s", ended);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "totals"),
                                                        "asked_again")), 0);
    json_decref(j);
    char *md = slurp(cert, NULL);
    assert_true(strstr(md, "Verdict: DIVERGES") || strstr(md, "Verdict: NOT CERTIFIED"));
    free(md);
    unlink(log);
}

/* A worker that fails a question (legitimately: it never answers numpy's)
 * and then cannot be restarted in time.  The questions that found no
 * worker were never asked: each used to fail as "no answer before its
 * HELLO", charged to an innocent case.  Now they are skipped, and the
 * streak of them ends the run as unresponsive, saying why (a streak long
 * enough, and no shrink, so that other cells ask first). */
static void test_failed_restart_blames_no_question(void **state)
{
    (void)state;
    const char *report = at("restart.json"), *marker = at("restart.marker");
    unlink(marker);
    char worker[1024];
    snprintf(worker, sizeof worker, "--on numpy --never --slow-restart %s", marker);
    const char *args[] = {"run", "--sut", hostile(worker), "--rule", "none,numpy", "--time", "60",
                          "--timeout-ms", "200", "--start-timeout-ms", "300", "--jobs", "1",
                          "--unresponsive-after", "10", "--max-shrink-calls", "0", "--quiet",
                          "--json", report, NULL};
    bc_spawned r;
    run_cli(&r, 1, args, NULL);
    bc_spawned_free(&r);
    json_t *j = load_report(report);
    json_t *failures = json_object_get(j, "failures");
    size_t i;
    json_t *f;
    json_array_foreach(failures, i, f) {
        /* The one failure is numpy's first question: no answer, and no
         * worker to ask it again (the restart hangs), so its silence stands
         * as a timeout, saying the second ask could not be made.  A question
         * that was never asked ("not asked: no worker could be started ...
         * HELLO") is never judged. */
        const char *detail = json_string_value(json_object_get(f, "detail"));
        if (strstr(detail, "HELLO") || strstr(detail, "not asked: no worker"))
            fail_msg("a question no worker was started for was judged: %s", detail);
        if (!strstr(detail, "no answer within 200 ms while answering; worker killed; not asked "
                            "again: no worker could be started"))
            fail_msg("an unexpected failure: %s", detail);
    }
    assert_int_equal(json_array_size(failures), 1);
    assert_string_equal(json_string_value(json_object_get(j, "ended")), "sut-unresponsive");
    assert_non_null(strstr(json_string_value(json_object_get(j, "ended_detail")),
                           "no worker could be started"));
    json_decref(j);
    unlink(marker);
}

/* ---- a slow answer, asked again ------------------------------------------------------ */

/* The JSON report's totals.asked_again. */
static json_int_t asked_again(json_t *report)
{
    json_t *n = json_object_get(json_object_get(report, "totals"), "asked_again");
    if (!json_is_integer(n))
        fail_msg("the report has no totals.asked_again");
    return json_integer_value(n);
}

/* A run of numpy's shape-differential against the hostile worker with
 * --hang-once (silent at its first question, and only then: the hang is a
 * file the first ask creates, not a clock) and worker_args, over `cases`
 * cases, no shrinking, exiting with want; *summary (if given) takes its
 * stdout.  Returns the JSON report. */
static json_t *run_hang_once(const char *name, const char *worker_args, const char *cases,
                             int want, char **summary)
{
    char report[512], marker[512], worker[1024];
    snprintf(report, sizeof report, "%s.json", at(name));
    snprintf(marker, sizeof marker, "%s.marker", at(name));
    unlink(marker);
    snprintf(worker, sizeof worker, "--hang-once %s %s", marker, worker_args);
    const char *args[] = {"run", "--sut", hostile(worker), "--rule", "numpy", "--property",
                          "shape-differential", "--cases", cases, "--max-shrink-calls", "0",
                          "--timeout-ms", "500", "--jobs", "1", "--json", report, NULL};
    bc_spawned r;
    run_cli(&r, want, args, NULL);
    if (summary)
        *summary = strdup(r.out);
    bc_spawned_free(&r);
    unlink(marker);
    return load_report(report);
}

/* A correct SUT that gives no answer once (as one on a saturated CI machine
 * can: NumPy's matmul at 2 s) is asked that question again, with 4 x the
 * time, answers it, and conforms; the summary and the report count the
 * question asked again.  It used to be a timeout: a failure, flaky, and a
 * DIVERGES verdict for a correct SUT. */
static void test_slow_once_is_asked_again(void **state)
{
    (void)state;
    const char *log = at("slow-once.log");
    unlink(log);
    char worker[1024], *out;
    snprintf(worker, sizeof worker, "--log %s", log);
    json_t *j = run_hang_once("slow-once", worker, "200", 0, &out);
    if (!strstr(out, "verdict: CONFORMS") ||
        !strstr(out, "NOTE: 1 question answered only when asked again, with 4x the time "
                     "limit"))
        fail_msg("the summary:\n%s", out);
    free(out);
    assert_true(json_is_true(json_object_get(j, "conforms")));
    assert_int_equal(json_array_size(json_object_get(j, "failures")), 0);
    assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "totals"), "passed")),
                     200);
    assert_int_equal(asked_again(j), 1);
    assert_int_equal(count_lines(log), 200 + 1); /* the slow question heard twice */
    json_decref(j);
    unlink(log);
}

/* The second ask's answer is judged as any answer: a SUT silent once and
 * then wrong (every answer one axis too many) diverges with that wrong
 * shape, the case's own failure, not with a timeout and not as flaky.
 * One case: the only question of the cell is the one asked again. */
static void test_asked_again_answer_is_judged(void **state)
{
    (void)state;
    json_t *j = run_hang_once("slow-wrong", "--wrong-rank any", "1", 1, NULL);
    json_t *f = failure_of(j, "numpy", "shape-differential");
    assert_non_null(f);
    const char *detail = json_string_value(json_object_get(f, "detail"));
    if (!strstr(detail, "SUT gives [") || strstr(detail, "no answer"))
        fail_msg("the answer asked again was not judged as an answer: %s", detail);
    assert_false(json_is_true(json_object_get(f, "flaky")));
    assert_int_equal(asked_again(j), 1);
    assert_non_null(strstr(json_string_value(json_object_get(j, "verdict")), "DIVERGES"));
    json_decref(j);
}

/* A question is asked again only within --time: one whose first ask (2.5 s)
 * ends past a --time of 2 s is not asked again (the worker hears it once),
 * and is not judged (its case is not counted): the run ends on time, and a
 * silence it could not confirm fails nothing, nor certifies anything (NOT
 * CERTIFIED: nothing was checked, exit 3). */
static void test_time_leaves_no_second_ask(void **state)
{
    (void)state;
    int asked;
    json_t *j = run_against_dead_sut("late", "2", "2500", 3, &asked);
    assert_int_equal(asked, 1);
    assert_int_equal(json_array_size(json_object_get(j, "failures")), 0);
    assert_string_equal(json_string_value(json_object_get(j, "verdict")),
                        "NOT CERTIFIED: nothing was checked");
    assert_string_equal(cell_field(j, "explicit", "shape-differential", "ended"), "no-time");
    assert_int_equal(asked_again(j), 0);
    json_decref(j);
}

/* ---- signals -------------------------------------------------------------------- */

/* Waits (bounded, polling) for path to appear; returns its first number. */
static long wait_for_marker(const char *path)
{
    for (int i = 0; i < 60000; i++) { /* up to ten minutes: a bound, not a margin */
        char *text = slurp(path, NULL);
        if (text) {
            long n = strtol(text, NULL, 10);
            free(text);
            return n;
        }
        struct timespec nap = {0, 10000000};
        nanosleep(&nap, NULL);
    }
    fail_msg("%s never appeared", path);
    return -1;
}

/* 1 if pid is gone (or a zombie: dead, not yet reaped). */
static int process_gone(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    return close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

/* Reaps what this test (a child subreaper) inherited; waits, bounded, for
 * pid to die. */
static void reap_orphan(long pid)
{
    for (int i = 0; i < 6000; i++) { /* up to a minute */
        int st;
        while (waitpid(-1, &st, WNOHANG) > 0)
            continue;
        if (process_gone(pid))
            return;
        struct timespec nap = {0, 10000000};
        nanosleep(&nap, NULL);
    }
    kill((pid_t)pid, SIGKILL);
    fail_msg("worker %ld was left running after broadcheck died", pid);
}

/* A run whose numpy cell fails (and is shrunk) and whose pdpd worker then
 * spins at 100 % CPU, saying so in a marker file: the signal comes when the
 * worker is spinning, never after a sleep. */
static void signal_mid_run(int sig, int want_status)
{
    const char *report = at("signal.json"), *corpus = at("signal.corpus"),
               *marker = at("spinning");
    unlink(report);
    unlink(corpus);
    unlink(marker);
    char worker[1024];
    snprintf(worker, sizeof worker, "--on numpy --wrong-rank 3 --on pdpd --spin --marker %s",
             marker);
    const char *args[] = {"run", "--sut", hostile(worker), "--rule", "numpy,pdpd", "--property",
                          "shape-differential", "--timeout-ms", "600000", "--quiet", "--json",
                          report, "--junit", at("signal.xml"), "--corpus", corpus, NULL};
    int pid = bc_spawn_background(args);
    assert_true(pid > 0);
    long spinner = wait_for_marker(marker);
    assert_true(spinner > 0);
    assert_int_equal(kill(pid, sig), 0);
    int status = bc_spawn_wait(pid);
    if (sig == SIGKILL) {
        assert_int_equal(status, 128 + SIGKILL);
        reap_orphan(spinner); /* its parent-death signal kills it */
        return;
    }
    if (status != want_status)
        fail_msg("exit %d after signal %d, want %d", status, sig, want_status);
    /* the worker was killed and reaped before broadcheck exited */
    if (!process_gone(spinner))
        fail_msg("worker %ld still runs after broadcheck exited", spinner);
    json_t *j = load_report(report);
    assert_string_equal(json_string_value(json_object_get(j, "ended")), "interrupted");
    json_t *f = failure_of(j, "numpy", "shape-differential");
    assert_non_null(f); /* found before the signal, kept */
    assert_string_equal(cell_field(j, "pdpd", "shape-differential", "ended"), "interrupted");
    const char *minimal = json_string_value(json_object_get(f, "minimal"));
    assert_corpus_well_formed(corpus, minimal);
    json_decref(j);
    char *xml = slurp(at("signal.xml"), NULL);
    assert_non_null(xml);
    free(xml);
    if (bc_scratch_count(dir, ".tmp.") != 0)
        fail_msg("a temporary file was left in %s", dir);
}

static void test_sigint_mid_run(void **state)
{
    (void)state;
    signal_mid_run(SIGINT, 130);
}

static void test_sigterm_mid_run(void **state)
{
    (void)state;
    signal_mid_run(SIGTERM, 143);
}

/* A SIGKILLed harness cannot clean up: its workers' parent-death signal
 * kills them (a busy one used to spin on, orphaned). */
static void test_sigkill_leaves_no_worker(void **state)
{
    (void)state;
    signal_mid_run(SIGKILL, 0);
}

int main(void)
{
    /* Orphans of a killed broadcheck come to this test, which can then see
     * whether they die. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_corpus_without_final_newline),
        cmocka_unit_test(test_corpus_append_past_file_size_limit),
        cmocka_unit_test(test_corpus_append_on_full_disk),
        cmocka_unit_test(test_report_killed_while_written),
        cmocka_unit_test(test_surplus_answer_blames_its_own_question),
        cmocka_unit_test(test_oversized_answer_refused_unread),
        cmocka_unit_test(test_sut_text_cannot_drive_the_terminal),
        cmocka_unit_test(test_child_holding_fds_does_not_hide_a_crash),
        cmocka_unit_test(test_flaky_failure_keeps_what_it_saw),
        cmocka_unit_test(test_time_bounds_a_dead_sut),
        cmocka_unit_test(test_dead_sut_ends_as_unresponsive),
        cmocka_unit_test(test_failed_restart_blames_no_question),
        cmocka_unit_test(test_slow_once_is_asked_again),
        cmocka_unit_test(test_asked_again_answer_is_judged),
        cmocka_unit_test(test_time_leaves_no_second_ask),
        cmocka_unit_test(test_sigint_mid_run),
        cmocka_unit_test(test_sigterm_mid_run),
        cmocka_unit_test(test_sigkill_leaves_no_worker),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
