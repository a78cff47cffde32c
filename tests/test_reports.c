/*
 * The four reports of a run: the JSON parses back with jansson, the JUnit
 * XML with libxml2, the certificate and summary say the right things, text
 * needing escaping round-trips, and a report that cannot be written leaves
 * no temporary file and no partial target behind.
 */
#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <libxml/tree.h>

#include "broadcheck/report.h"
#include "internal.h"

#define REPLAY "broadcheck replay --sut mutant-x \"numpy <a> & [2]\"\nsecond 'line'"
#define DETAIL "SUT said \"[3]\" <&> the reference rejects: dim-mismatch"
#define ORIGINAL "numpy [2,3] [4,3] -> error \xff"
#define ORIGINAL_CLEAN "numpy [2,3] [4,3] -> error ?"
#define MINIMAL "numpy [2] [3] -> error:dim-mismatch"

typedef struct fixture {
    char dir[64];
    bc_run_result *r;
} fixture;

static void set_cell(bc_run_result *r, bc_rule rule, int p, int64_t passed, int64_t failed,
                     int64_t unsupported)
{
    bc_cell *c = &r->cells[rule][p];
    c->selected = 1;
    c->passed = passed;
    c->failed = failed;
    c->unsupported = unsupported;
}

/* Totals: 4487 passed, 3 failed, 2010 unsupported; 7 cells, 1 failing,
 * 2 unsupported. */
static bc_run_result *make_result(int with_failure)
{
    bc_run_result *r = calloc(1, sizeof *r);
    assert_non_null(r);
    snprintf(r->broadcheck_version, sizeof r->broadcheck_version, "0.1.0");
    snprintf(r->sut_name, sizeof r->sut_name, "mutant-x");
    snprintf(r->sut_version, sizeof r->sut_version, "1.2<&>");
    r->seed = UINT64_MAX;
    r->cases = 1000;
    r->value_cases = 200;
    r->shard_index = 0;
    r->shard_count = 1;
    r->jobs = 4;
    r->elapsed = 1.5;
    r->nproperties = 3;
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        for (int p = 0; p < BC_MAX_PROPERTIES; p++)
            r->cells[rule][p].failure = -1;
    set_cell(r, BC_RULE_NUMPY, 0, 1000, 0, 0);
    if (with_failure)
        set_cell(r, BC_RULE_NUMPY, 1, 997, 3, 0);
    else
        set_cell(r, BC_RULE_NUMPY, 1, 1000, 0, 0);
    set_cell(r, BC_RULE_NUMPY, 2, 0, 0, 1000);
    set_cell(r, BC_RULE_PDPD, 0, 990, 0, 10);
    set_cell(r, BC_RULE_PDPD, 1, 1000, 0, 0);
    set_cell(r, BC_RULE_PDPD, 2, 0, 0, 1000);
    set_cell(r, BC_RULE_BROADCAST_TO, 0, 500, 0, 0);
    for (int c = 0; c < BC_COV_COUNT; c++)
        r->coverage[c] = 100 + c;
    r->rejects[BC_ERR_DIM_MISMATCH] = 77;
    r->rejects[BC_ERR_RANK_MISMATCH] = 5;
    r->corpus_replayed = 12;
    if (with_failure) {
        r->nfailures = 1;
        r->failures = calloc(1, sizeof *r->failures);
        assert_non_null(r->failures);
        bc_failure *f = &r->failures[0];
        f->property = 1;
        f->rule = BC_RULE_NUMPY;
        f->case_index = 17;
        f->original = strdup(ORIGINAL);
        f->minimal = strdup(MINIMAL);
        f->replay = strdup(REPLAY);
        snprintf(f->detail, sizeof f->detail, "%s", DETAIL);
        f->shrink_calls = 42;
        f->shrink_steps = 5;
        r->cells[BC_RULE_NUMPY][1].failure = 0;
    }
    return r;
}

static void free_result(bc_run_result *r)
{
    if (!r)
        return;
    for (int i = 0; i < r->nfailures; i++) {
        free(r->failures[i].original);
        free(r->failures[i].minimal);
        free(r->failures[i].replay);
    }
    free(r->failures);
    free(r);
}

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/test_reports.XXXXXX");
    if (!mkdtemp(fx->dir)) {
        free(fx);
        return -1;
    }
    fx->r = make_result(1);
    *state = fx;
    return 0;
}

/* Removes dir and everything below it (the tests make one level of
 * subdirectories at most). */
static void remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            chmod(path, 0755);
            remove_tree(path);
        } else {
            unlink(path);
        }
    }
    closedir(d);
    rmdir(dir);
}

static int teardown(void **state)
{
    fixture *fx = *state;
    chmod(fx->dir, 0755);
    remove_tree(fx->dir);
    free_result(fx->r);
    free(fx);
    return 0;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 8192;
            char *n = realloc(buf, cap);
            assert_non_null(n);
            buf = n;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fputs(text, f) >= 0, 1);
    assert_int_equal(fclose(f), 0);
}

/* Number of entries in dir whose name contains ".tmp.". */
static int count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp."))
            n++;
    closedir(d);
    return n;
}

static void assert_contains(const char *haystack, const char *needle)
{
    if (!haystack || !strstr(haystack, needle))
        fail_msg("expected to find '%s' in:\n%s", needle, haystack ? haystack : "(null)");
}

typedef int (*report_fn)(const bc_run_result *, const char *, char *, size_t);

static const struct {
    const char *name;
    report_fn fn;
} writers[] = {
    {"json", bc_report_json},
    {"junit", bc_report_junit},
    {"certificate", bc_report_certificate},
};
#define NWRITERS ((int)(sizeof writers / sizeof writers[0]))

/* ---- JSON ---------------------------------------------------------------- */

static json_t *cell_of(json_t *cells, const char *rule, const char *property)
{
    size_t i;
    json_t *c;
    json_array_foreach(cells, i, c)
    {
        if (strcmp(json_string_value(json_object_get(c, "rule")), rule) == 0 &&
            strcmp(json_string_value(json_object_get(c, "property")), property) == 0)
            return c;
    }
    return NULL;
}

static long long jint(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v))
        fail_msg("'%s' is not an integer", key);
    return (long long)json_integer_value(v);
}

static const char *jtext(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_string(v))
        fail_msg("'%s' is not a string", key);
    return json_string_value(v);
}

static void test_json_parses_back(void **state)
{
    fixture *fx = *state;
    char path[256], why[512] = "";
    snprintf(path, sizeof path, "%s/report.json", fx->dir);
    if (bc_report_json(fx->r, path, why, sizeof why) != 0)
        fail_msg("bc_report_json: %s", why);
    assert_int_equal(count_temp_files(fx->dir), 0);

    json_error_t err;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    if (!root)
        fail_msg("JSON does not parse: %s at line %d", err.text, err.line);
    assert_string_equal(jtext(root, "schema"), "broadcheck-report");
    assert_int_equal(jint(root, "schema_version"), BC_REPORT_SCHEMA_VERSION);
    assert_string_equal(jtext(root, "broadcheck_version"), "0.1.0");
    json_t *sut = json_object_get(root, "sut");
    assert_string_equal(jtext(sut, "name"), "mutant-x");
    assert_string_equal(jtext(sut, "version"), "1.2<&>");
    json_t *config = json_object_get(root, "config");
    assert_string_equal(jtext(config, "seed"), "18446744073709551615");
    assert_int_equal(jint(config, "cases"), 1000);
    assert_int_equal(jint(config, "value_cases"), 200);
    assert_true(json_is_real(json_object_get(config, "seconds")));
    assert_string_equal(jtext(config, "shard"), "1/1");
    assert_int_equal(jint(config, "jobs"), 4);
    assert_true(json_real_value(json_object_get(root, "elapsed_seconds")) == 1.5);

    json_t *totals = json_object_get(root, "totals");
    assert_int_equal(jint(totals, "passed"), 4487);
    assert_int_equal(jint(totals, "failed"), 3);
    assert_int_equal(jint(totals, "unsupported"), 2010);

    json_t *cells = json_object_get(root, "cells");
    assert_int_equal(json_array_size(cells), 7);
    json_t *c = cell_of(cells, "numpy", "fake-commutative");
    assert_non_null(c);
    assert_string_equal(jtext(c, "verdict"), "fail");
    assert_int_equal(jint(c, "failed"), 3);
    assert_int_equal(jint(c, "passed"), 997);
    c = cell_of(cells, "pdpd", "fake-differential");
    assert_string_equal(jtext(c, "verdict"), "pass");
    assert_int_equal(jint(c, "unsupported"), 10);
    c = cell_of(cells, "pdpd", "fake-unsupported");
    assert_string_equal(jtext(c, "verdict"), "unsupported");
    assert_null(cell_of(cells, "broadcast-to", "fake-commutative"));

    json_t *cov = json_object_get(root, "coverage");
    assert_int_equal(json_object_size(cov), BC_COV_COUNT);
    assert_int_equal(jint(cov, "accept"), 100);
    assert_int_equal(jint(cov, "stretch-to-0"), 100 + BC_COV_STRETCH_TO_0);
    assert_int_equal(jint(cov, "huge-dim"), 100 + BC_COV_HUGE_DIM);
    json_t *rejects = json_object_get(root, "rejects");
    assert_int_equal(json_object_size(rejects), BC_ERR_KIND_COUNT - 1);
    assert_int_equal(jint(rejects, "dim-mismatch"), 77);
    assert_int_equal(jint(rejects, "overflow"), 0);
    json_t *corpus = json_object_get(root, "corpus");
    assert_int_equal(jint(corpus, "replayed"), 12);
    assert_int_equal(jint(corpus, "failed"), 0);

    json_t *failures = json_object_get(root, "failures");
    assert_int_equal(json_array_size(failures), 1);
    json_t *f = json_array_get(failures, 0);
    assert_string_equal(jtext(f, "rule"), "numpy");
    assert_string_equal(jtext(f, "property"), "fake-commutative");
    assert_int_equal(jint(f, "case_index"), 17);
    assert_string_equal(jtext(f, "original"), ORIGINAL_CLEAN); /* bad UTF-8 replaced */
    assert_string_equal(jtext(f, "minimal"), MINIMAL);
    assert_string_equal(jtext(f, "detail"), DETAIL);
    assert_string_equal(jtext(f, "replay"), REPLAY); /* quotes, <, &, newline round-trip */
    assert_int_equal(jint(f, "shrink_calls"), 42);
    assert_int_equal(jint(f, "shrink_steps"), 5);
    json_decref(root);
}

/* ---- JUnit --------------------------------------------------------------- */

typedef struct xml_counts {
    int testsuite, testcase, failure, skipped, properties;
    const char *failure_text_needle;
    int failure_text_found, failure_message_ok;
} xml_counts;

static void walk(xmlNode *n, xml_counts *k)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const char *name = (const char *)n->name;
        if (strcmp(name, "testsuite") == 0)
            k->testsuite++;
        else if (strcmp(name, "testcase") == 0)
            k->testcase++;
        else if (strcmp(name, "skipped") == 0)
            k->skipped++;
        else if (strcmp(name, "properties") == 0)
            k->properties++;
        else if (strcmp(name, "failure") == 0) {
            k->failure++;
            xmlChar *text = xmlNodeGetContent(n);
            if (text && strstr((const char *)text, k->failure_text_needle) &&
                strstr((const char *)text, MINIMAL) && strstr((const char *)text, "42 SUT calls"))
                k->failure_text_found = 1;
            xmlFree(text);
            xmlChar *msg = xmlGetProp(n, BAD_CAST "message");
            xmlChar *type = xmlGetProp(n, BAD_CAST "type");
            k->failure_message_ok = msg && type && strcmp((const char *)msg, DETAIL) == 0 &&
                                    strcmp((const char *)type, "fake-commutative") == 0;
            xmlFree(msg);
            xmlFree(type);
        }
        walk(n->children, k);
    }
}

static void assert_attr(xmlNode *n, const char *name, const char *want)
{
    xmlChar *v = xmlGetProp(n, BAD_CAST name);
    if (!v || strcmp((const char *)v, want) != 0)
        fail_msg("attribute %s is '%s', want '%s'", name, v ? (const char *)v : "(none)", want);
    xmlFree(v);
}

static void test_junit_parses_back(void **state)
{
    fixture *fx = *state;
    char path[256], why[512] = "";
    snprintf(path, sizeof path, "%s/junit.xml", fx->dir);
    if (bc_report_junit(fx->r, path, why, sizeof why) != 0)
        fail_msg("bc_report_junit: %s", why);
    assert_int_equal(count_temp_files(fx->dir), 0);

    xmlDocPtr doc = xmlReadFile(path, NULL, XML_PARSE_NONET);
    assert_non_null(doc);
    xmlNode *root = xmlDocGetRootElement(doc);
    assert_string_equal((const char *)root->name, "testsuites");
    assert_attr(root, "name", "broadcheck");
    assert_attr(root, "tests", "7");
    assert_attr(root, "failures", "1");
    assert_attr(root, "skipped", "2");
    assert_attr(root, "time", "1.500");

    xml_counts k = {0};
    k.failure_text_needle = REPLAY;
    walk(root->children, &k);
    assert_int_equal(k.testsuite, 3);
    assert_int_equal(k.properties, 3);
    assert_int_equal(k.testcase, 7);
    assert_int_equal(k.failure, 1);
    assert_int_equal(k.skipped, 2);
    assert_true(k.failure_text_found);
    assert_true(k.failure_message_ok);

    /* The first suite is numpy's, with its classname and properties. */
    xmlNode *suite = root->children;
    while (suite && suite->type != XML_ELEMENT_NODE)
        suite = suite->next;
    assert_non_null(suite);
    assert_attr(suite, "name", "broadcheck.numpy");
    assert_attr(suite, "tests", "3");
    assert_attr(suite, "failures", "1");
    char *text = slurp(path);
    assert_contains(text, "classname=\"broadcheck.numpy\"");
    assert_contains(text, "<property name=\"seed\" value=\"18446744073709551615\"/>");
    assert_contains(text, "<property name=\"sut_version\" value=\"1.2&lt;&amp;&gt;\"/>");
    free(text);
    xmlFreeDoc(doc);
}

/* ---- certificate --------------------------------------------------------- */

static void test_certificate_contents(void **state)
{
    fixture *fx = *state;
    char path[256], why[512] = "";
    snprintf(path, sizeof path, "%s/CERTIFICATE.md", fx->dir);
    if (bc_report_certificate(fx->r, path, why, sizeof why) != 0)
        fail_msg("bc_report_certificate: %s", why);
    char *text = slurp(path);
    assert_non_null(text);
    assert_contains(text, "# broadcheck certificate: mutant-x 1.2\\<\\&\\>\n");
    assert_contains(text, "## Verdict: DIVERGES: 1 new failure\n");
    assert_contains(text, "| rule | fake-differential | fake-commutative | fake-unsupported |\n");
    assert_contains(text, "| numpy | ✅ 1000 | ❌ 3/1000 | unsupported |\n");
    assert_contains(text, "| pdpd | ✅ 990 | ✅ 1000 | unsupported |\n");
    assert_contains(text, "| broadcast-to | ✅ 500 | – | – |\n");
    assert_contains(text, "18446744073709551615");
    assert_contains(text, "```sh\n" REPLAY "\n```\n");
    assert_contains(text, "```\n" MINIMAL "\n```\n");
    assert_contains(text, "| stretch-to-0 | 108 |");
    assert_contains(text, "## What was not checked");
    assert_contains(text, "- fake-unsupported on numpy: unsupported");
    assert_contains(text, "- fake-differential on pdpd: 10 of its cases were unsupported");
    assert_contains(text, "Date (UTC):** 20");
    free(text);

    /* A run without failures is certified. */
    bc_run_result *ok = make_result(0);
    if (bc_report_certificate(ok, path, why, sizeof why) != 0)
        fail_msg("bc_report_certificate: %s", why);
    free_result(ok);
    text = slurp(path);
    assert_contains(text, "## Verdict: CONFORMS\n");
    assert_null(strstr(text, "DIVERGES"));
    free(text);
}

/* ---- summary ------------------------------------------------------------- */

static void test_summary_last_line(void **state)
{
    fixture *fx = *state;
    FILE *f = tmpfile();
    assert_non_null(f);
    bc_report_summary(fx->r, f);
    long size = ftell(f);
    assert_true(size > 0);
    rewind(f);
    char *text = calloc(1, (size_t)size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)size, f), (size_t)size);
    fclose(f);

    assert_true(strncmp(text, "broadcheck 0.1.0: sut mutant-x 1.2<&>\n", 38) == 0);
    assert_contains(text, "\nseed 18446744073709551615, shard 1/1, jobs 4, 1.50 s elapsed\n"
                          "1000 cases per shape cell, 200 per value cell, 0 per partial cell\n");
    assert_contains(text, "rule numpy: 1 pass, 1 FAIL, 1 unsupported\n");
    assert_contains(text, "FAIL 3/1000");
    assert_contains(text, "unsup 1000");
    assert_contains(text, "pass 990 (+10 unsup)");
    assert_contains(text, "stretch-to-0");
    assert_contains(text, "dim-mismatch");
    assert_contains(text, "FAIL fake-commutative on numpy (case 17)");
    assert_contains(text, "replay:   broadcheck replay --sut mutant-x");
    /* Every line fits in 100 columns. */
    for (const char *line = text; *line;) {
        const char *nl = strchr(line, '\n');
        size_t len = nl ? (size_t)(nl - line) : strlen(line);
        if (len > 100)
            fail_msg("summary line longer than 100 columns: %.*s", (int)len, line);
        line = nl ? nl + 1 : line + len;
    }
    size_t n = strlen(text);
    assert_true(n > 0 && text[n - 1] == '\n');
    text[n - 1] = '\0';
    /* the totals, then the verdict (from the function the certificate
     * states it with) */
    const char *last = strrchr(text, '\n');
    assert_non_null(last);
    assert_string_equal(last + 1, "verdict: DIVERGES: 1 new failure");
    text[last - text] = '\0';
    last = strrchr(text, '\n');
    assert_non_null(last);
    assert_string_equal(last + 1, "4487 passed, 3 failed, 2010 unsupported");
    free(text);
}

/* ---- failures ------------------------------------------------------------ */

static void test_missing_directory(void **state)
{
    fixture *fx = *state;
    for (int i = 0; i < NWRITERS; i++) {
        char path[256], why[512] = "";
        snprintf(path, sizeof path, "%s/no-such-dir/report.%s", fx->dir, writers[i].name);
        assert_int_equal(writers[i].fn(fx->r, path, why, sizeof why), -1);
        assert_contains(why, path);
        assert_contains(why, strerror(ENOENT));
        assert_int_equal(count_temp_files(fx->dir), 0);
        char sub[256];
        snprintf(sub, sizeof sub, "%s/no-such-dir", fx->dir);
        struct stat st;
        assert_int_equal(stat(sub, &st), -1);
    }
}

static void test_directory_target(void **state)
{
    fixture *fx = *state;
    char path[256], inside[300];
    snprintf(path, sizeof path, "%s/a-dir", fx->dir);
    assert_int_equal(mkdir(path, 0755), 0);
    snprintf(inside, sizeof inside, "%s/keep", path);
    write_file(inside, "kept");
    for (int i = 0; i < NWRITERS; i++) {
        char why[512] = "";
        assert_int_equal(writers[i].fn(fx->r, path, why, sizeof why), -1);
        assert_contains(why, path);
        assert_int_equal(count_temp_files(fx->dir), 0);
        char *kept = slurp(inside);
        assert_string_equal(kept, "kept");
        free(kept);
    }
}

/* A target whose name fits but whose temporary name is too long: the
 * write fails before anything is written, the old report stays. */
static void test_failure_keeps_old_target(void **state)
{
    fixture *fx = *state;
    char name[251], path[400];
    memset(name, 'r', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    snprintf(path, sizeof path, "%s/%s", fx->dir, name);
    write_file(path, "old report\n");
    for (int i = 0; i < NWRITERS; i++) {
        char why[1024] = "";
        assert_int_equal(writers[i].fn(fx->r, path, why, sizeof why), -1);
        assert_contains(why, path);
        assert_contains(why, strerror(ENAMETOOLONG));
        char *text = slurp(path);
        assert_string_equal(text, "old report\n");
        free(text);
        assert_int_equal(count_temp_files(fx->dir), 0);
    }
}

/* A write that fails half way (the file size limit): -1 with the errno
 * text, the old report intact, no temporary file. */
static void test_short_write_keeps_old_target(void **state)
{
    fixture *fx = *state;
    char path[256];
    snprintf(path, sizeof path, "%s/report.out", fx->dir);
    write_file(path, "old report\n");

    struct rlimit saved, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &saved), 0);
    void (*old_handler)(int) = signal(SIGXFSZ, SIG_IGN);
    small = saved;
    small.rlim_cur = 64;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    int rcs[NWRITERS];
    char whys[NWRITERS][1024];
    for (int i = 0; i < NWRITERS; i++) {
        whys[i][0] = '\0';
        rcs[i] = writers[i].fn(fx->r, path, whys[i], sizeof whys[i]);
    }
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &saved), 0);
    signal(SIGXFSZ, old_handler);

    for (int i = 0; i < NWRITERS; i++) {
        assert_int_equal(rcs[i], -1);
        assert_contains(whys[i], path);
        assert_contains(whys[i], strerror(EFBIG));
    }
    char *text = slurp(path);
    assert_string_equal(text, "old report\n");
    free(text);
    assert_int_equal(count_temp_files(fx->dir), 0);
}

static void test_read_only_directory(void **state)
{
    fixture *fx = *state;
    if (geteuid() == 0)
        skip(); /* root ignores directory permissions */
    char path[256], why[512] = "";
    snprintf(path, sizeof path, "%s/report.json", fx->dir);
    write_file(path, "old report\n");
    assert_int_equal(chmod(fx->dir, 0555), 0);
    int rc = bc_report_json(fx->r, path, why, sizeof why);
    chmod(fx->dir, 0755);
    assert_int_equal(rc, -1);
    assert_contains(why, path);
    assert_contains(why, strerror(EACCES));
    char *text = slurp(path);
    assert_string_equal(text, "old report\n");
    free(text);
    assert_int_equal(count_temp_files(fx->dir), 0);
}

static void test_replaces_existing_report(void **state)
{
    fixture *fx = *state;
    char path[256], why[512] = "";
    snprintf(path, sizeof path, "%s/report.json", fx->dir);
    write_file(path, "old report, much longer than nothing at all\n");
    assert_int_equal(chmod(path, 0640), 0);
    if (bc_report_json(fx->r, path, why, sizeof why) != 0)
        fail_msg("bc_report_json: %s", why);
    char *text = slurp(path);
    assert_true(text[0] == '{');
    free(text);
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640); /* the replaced report's mode is kept */

    snprintf(path, sizeof path, "%s/fresh.xml", fx->dir);
    if (bc_report_junit(fx->r, path, why, sizeof why) != 0)
        fail_msg("bc_report_junit: %s", why);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    assert_int_equal(count_temp_files(fx->dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_json_parses_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_junit_parses_back, setup, teardown),
        cmocka_unit_test_setup_teardown(test_certificate_contents, setup, teardown),
        cmocka_unit_test_setup_teardown(test_summary_last_line, setup, teardown),
        cmocka_unit_test_setup_teardown(test_missing_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_directory_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_failure_keeps_old_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_short_write_keeps_old_target, setup, teardown),
        cmocka_unit_test_setup_teardown(test_read_only_directory, setup, teardown),
        cmocka_unit_test_setup_teardown(test_replaces_existing_report, setup, teardown),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    xmlCleanupParser();
    return failed;
}
