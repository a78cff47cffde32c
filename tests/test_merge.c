/*
 * broadcheck merge, run as a user runs it: the shards of a run merged give
 * exactly the unsharded run's JSON report (every count, coverage class,
 * rejection and failure; only the wall time and the 'merge' object
 * differ), for a SUT with failures and one without; a missing shard is a
 * warning in every report; a corpus failure wins its cell; coverage classes
 * this build does not know are summed, not dropped; and every bad input
 * exits 2 naming the file and the field, writing nothing.
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

#include "cli_spawn.h"

static char dir[256];

static int setup(void **state)
{
    (void)state;
    return bc_scratch_dir("bc_merge", dir, sizeof dir);
}

static int teardown(void **state)
{
    (void)state;
    bc_scratch_remove(dir);
    return 0;
}

/* dir/name */
static const char *at(const char *name)
{
    return bc_scratch_path(dir, name);
}

/* Runs broadcheck and checks its exit code, printing its output if it differs. */
static bc_spawned *cli(int want_status, const char *const *args)
{
    static bc_spawned r;
    bc_spawned_free(&r);
    assert_int_equal(bc_spawn(args, &r), 0);
    if (r.status != want_status) {
        char line[1024] = "";
        for (const char *const *a = args; *a; a++) {
            strncat(line, " ", sizeof line - strlen(line) - 1);
            strncat(line, *a, sizeof line - strlen(line) - 1);
        }
        fail_msg("broadcheck%s: exit %d, want %d\nstdout: %s\nstderr: %s", line, r.status,
                 want_status, r.out, r.err);
    }
    return &r;
}

/* 1: runs check every case of a failing cell too (--whole-cells), so the
 * shards' counts add up to the whole run's exactly. */
static int whole_cells = 1;

/* A run of sut writing its JSON report to dir/name; shard "" for none. */
static void run_shard(const char *sut, const char *shard, const char *name, int want_status)
{
    const char *args[20] = {"run", "--sut", sut, "--cases", "1500", "--seed", "5", "--jobs", "2",
                            "--quiet", "--json", at(name)};
    int n = 12;
    if (whole_cells)
        args[n++] = "--whole-cells";
    if (shard[0]) {
        args[n++] = "--shard";
        args[n++] = shard;
    }
    args[n] = NULL;
    cli(want_status, args);
}

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    assert_int_equal(fclose(in), 0);
    assert_int_equal(fclose(out), 0);
}

static json_t *load(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);
    if (!j)
        fail_msg("%s: %s", path, err.text);
    return j;
}

static void save(json_t *j, const char *path)
{
    assert_int_equal(json_dump_file(j, path, JSON_INDENT(2)), 0);
}

/* The report less what may differ between a merge and the unsharded run. */
static json_t *comparable(const char *path)
{
    json_t *j = load(path);
    json_object_del(j, "elapsed_seconds");
    json_object_del(j, "started_at"); /* the first shard's, not the whole run's */
    json_object_del(j, "merge");
    return j;
}

static void assert_same_report(const char *merged, const char *whole)
{
    json_t *a = comparable(merged), *b = comparable(whole);
    if (!json_equal(a, b)) {
        char *ta = json_dumps(a, JSON_INDENT(1) | JSON_SORT_KEYS);
        char *tb = json_dumps(b, JSON_INDENT(1) | JSON_SORT_KEYS);
        fail_msg("merged report %s differs from the unsharded %s:\n--- merged\n%s\n--- whole\n%s",
                 merged, whole, ta, tb);
    }
    json_decref(a);
    json_decref(b);
}

static void assert_contains(const char *text, const char *part, const char *what)
{
    if (!text || !strstr(text, part))
        fail_msg("%s lacks '%s':\n%s", what, part, text ? text : "(null)");
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot read %s", path);
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* ---- the shards add up to the whole ------------------------------------- */

static void check_equal_to_unsharded(const char *sut, int status)
{
    run_shard(sut, "", "whole.json", status);
    run_shard(sut, "1/2", "half1.json", status);
    run_shard(sut, "2/2", "half2.json", status);
    const char *merge2[] = {"merge", "--quiet", "--json", at("merged2.json"), "--junit",
                            at("merged2.xml"), "--certificate", at("merged2.md"),
                            at("half1.json"), at("half2.json"), NULL};
    bc_spawned *r = cli(status, merge2);
    assert_string_equal(r->out, ""); /* --quiet */
    assert_string_equal(r->err, ""); /* no warning: every shard is there */
    assert_same_report(at("merged2.json"), at("whole.json"));

    /* three shards, given out of order, options after the inputs */
    run_shard(sut, "3/3", "third3.json", status);
    run_shard(sut, "1/3", "third1.json", status);
    run_shard(sut, "2/3", "third2.json", status);
    const char *merge3[] = {"merge", at("third3.json"), at("third1.json"), at("third2.json"),
                            "--json", at("merged3.json"), NULL};
    r = cli(status, merge3);
    assert_contains(r->out, "shard 1/1", "the merged summary");
    assert_contains(r->out, status ? " failed, " : " 0 failed, ", "the merged summary");
    assert_same_report(at("merged3.json"), at("whole.json"));

    json_t *m = load(at("merged3.json"));
    json_t *merge = json_object_get(m, "merge");
    assert_int_equal(json_integer_value(json_object_get(merge, "shards")), 3);
    assert_int_equal(json_array_size(json_object_get(merge, "missing_shards")), 0);
    assert_int_equal(json_array_size(json_object_get(merge, "inputs")), 3);
    assert_string_equal(json_string_value(json_object_get(json_object_get(m, "config"), "shard")),
                        "1/1");
    json_decref(m);

    assert_contains(slurp(at("merged2.xml")), "<testsuites name=\"broadcheck\"", "merged JUnit");
    assert_contains(slurp(at("merged2.md")), status ? "Verdict: DIVERGES" : "Verdict: CONFORMS",
                    "merged certificate");
}

static void test_mutant_shards_equal_whole(void **state)
{
    (void)state;
    check_equal_to_unsharded("mutant:max-dim", 1);
    /* the mutant's failures survived the merge */
    json_t *m = load(at("merged2.json"));
    assert_true(json_array_size(json_object_get(m, "failures")) > 0);
    json_decref(m);
}

/* With the per-cell stop (the default), a shard stops a failing cell at its
 * own first failure: the merge has the unsharded run's verdicts, failures,
 * minimal cases and replay lines, and its passing cells' counts; a failing
 * cell's counts are what the shards checked (no fewer). */
static void test_cell_stop_shards_keep_verdicts(void **state)
{
    (void)state;
    whole_cells = 0;
    run_shard("mutant:zero-wildcard", "", "stop-whole.json", 1);
    run_shard("mutant:zero-wildcard", "1/2", "stop1.json", 1);
    run_shard("mutant:zero-wildcard", "2/2", "stop2.json", 1);
    whole_cells = 1;
    const char *args[] = {"merge", "--quiet", "--json", at("stop-merged.json"), at("stop1.json"),
                          at("stop2.json"), NULL};
    cli(1, args);
    json_t *m = load(at("stop-merged.json")), *w = load(at("stop-whole.json"));
    json_t *mc = json_object_get(m, "cells"), *wc = json_object_get(w, "cells");
    assert_int_equal(json_array_size(mc), json_array_size(wc));
    for (size_t i = 0; i < json_array_size(wc); i++) {
        json_t *a = json_array_get(mc, i), *b = json_array_get(wc, i);
        assert_true(json_equal(json_object_get(a, "verdict"), json_object_get(b, "verdict")));
        assert_true(json_equal(json_object_get(a, "ended"), json_object_get(b, "ended")));
        json_int_t checked_a = json_integer_value(json_object_get(a, "passed")) +
                               json_integer_value(json_object_get(a, "failed"));
        json_int_t checked_b = json_integer_value(json_object_get(b, "passed")) +
                               json_integer_value(json_object_get(b, "failed"));
        if (strcmp(json_string_value(json_object_get(b, "verdict")), "fail") == 0)
            assert_true(checked_a >= checked_b);
        else
            assert_int_equal(checked_a, checked_b);
    }
    assert_true(json_equal(json_object_get(m, "failures"), json_object_get(w, "failures")));
    json_decref(m);
    json_decref(w);
}

static void test_reference_shards_equal_whole(void **state)
{
    (void)state;
    check_equal_to_unsharded("reference", 0);
}

/* ---- missing shards, corpus failures, unknown classes -------------------- */

/* A missing shard is a warning in every report, and the merge certifies
 * nothing: NOT CERTIFIED, exit 3 (it exited 0: a CI merge job passed on a
 * third of the run). */
static void test_missing_shard_is_a_warning(void **state)
{
    (void)state;
    run_shard("reference", "1/3", "one-of-three.json", 0);
    const char *args[] = {"merge", "--json", at("partial.json"), "--certificate",
                          at("partial.md"), "--junit", at("partial.xml"),
                          at("one-of-three.json"), NULL};
    bc_spawned *r = cli(3, args);
    assert_contains(r->err, "warning: shards 2/3, 3/3 are missing from the merge", "stderr");
    assert_contains(r->out, "WARNING: shards 2/3, 3/3 are missing", "the summary");
    json_t *m = load(at("partial.json"));
    json_t *missing = json_object_get(json_object_get(m, "merge"), "missing_shards");
    assert_int_equal(json_array_size(missing), 2);
    assert_int_equal(json_integer_value(json_array_get(missing, 0)), 2);
    assert_int_equal(json_integer_value(json_array_get(missing, 1)), 3);
    json_decref(m);
    assert_contains(slurp(at("partial.md")), "NOT CERTIFIED: incomplete", "the certificate");
    assert_contains(slurp(at("partial.xml")), "name=\"warning\"", "the JUnit properties");
}

static void test_corpus_failure_wins_its_cell(void **state)
{
    (void)state;
    run_shard("mutant:max-dim", "1/2", "c1.json", 1);
    run_shard("mutant:max-dim", "2/2", "c2.json", 1);
    /* Make the last failure of shard 2 a corpus line (index -1): the merge
     * must pick it over shard 1's generated failure of the same cell and
     * list it first, as the runner does. */
    json_t *j = load(at("c2.json"));
    json_t *failures = json_object_get(j, "failures");
    size_t last = json_array_size(failures) - 1;
    json_t *f = json_array_get(failures, last);
    const char *rule = json_string_value(json_object_get(f, "rule"));
    const char *property = json_string_value(json_object_get(f, "property"));
    json_object_set_new(f, "case_index", json_integer(-1));
    json_object_set_new(f, "detail", json_string("from the corpus"));
    save(j, at("c2.json"));
    const char *args[] = {"merge", "--quiet", "--json", at("cm.json"), at("c1.json"),
                          at("c2.json"), NULL};
    cli(1, args);
    json_t *m = load(at("cm.json"));
    json_t *first = json_array_get(json_object_get(m, "failures"), 0);
    assert_string_equal(json_string_value(json_object_get(first, "rule")), rule);
    assert_string_equal(json_string_value(json_object_get(first, "property")), property);
    assert_int_equal(json_integer_value(json_object_get(first, "case_index")), -1);
    assert_string_equal(json_string_value(json_object_get(first, "detail")), "from the corpus");
    json_decref(m);
    json_decref(j);
}

static void test_unknown_coverage_class_is_summed(void **state)
{
    (void)state;
    run_shard("reference", "1/2", "u1.json", 0);
    run_shard("reference", "2/2", "u2.json", 0);
    for (int k = 1; k <= 2; k++) {
        const char *path = at(k == 1 ? "u1.json" : "u2.json");
        json_t *j = load(path);
        json_t *cov = json_object_get(j, "coverage");
        json_object_set_new(cov, "from-the-future", json_integer(k * 10));
        save(j, path);
        json_decref(j);
    }
    const char *args[] = {"merge", "--quiet", "--json", at("um.json"), at("u1.json"),
                          at("u2.json"), NULL};
    bc_spawned *r = cli(0, args);
    assert_contains(r->err, "coverage class 'from-the-future' is unknown", "stderr");
    json_t *m = load(at("um.json")), *a = load(at("u1.json")), *b = load(at("u2.json"));
    json_t *cov = json_object_get(m, "coverage"), *cov_a = json_object_get(a, "coverage"),
           *cov_b = json_object_get(b, "coverage");
    assert_int_equal(json_integer_value(json_object_get(cov, "from-the-future")), 30);
    /* a known class is the sum too */
    assert_int_equal(json_integer_value(json_object_get(cov, "accept")),
                     json_integer_value(json_object_get(cov_a, "accept")) +
                         json_integer_value(json_object_get(cov_b, "accept")));
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

/* ---- a known divergence that fails intermittently ------------------------- */

/* The known divergence of a run of manifest `manifest` on zero-wildcard's
 * numpy shape cells (its reach holds their failures, its case passes):
 * shard "" for none. */
static void run_intermittent(const char *manifest, const char *shard, const char *name)
{
    const char *args[24] = {"run", "--sut", "mutant:zero-wildcard", "--rule", "numpy",
                            "--property", "shape-differential", "--cases", "1500", "--seed", "5",
                            "--jobs", "2", "--whole-cells", "--strict", "--quiet", "--manifest",
                            manifest, "--json", at(name)};
    int n = 20;
    if (shard[0]) {
        args[n++] = "--shard";
        args[n++] = shard;
    }
    args[n] = NULL;
    cli(0, args);
}

static json_t *known_entry(json_t *report)
{
    json_t *e = json_array_get(json_object_get(report, "known_divergences"), 0);
    assert_non_null(e);
    return e;
}

/* Merges dir/a and dir/b into dir/out (exit want); returns out's entry's
 * status (in static storage). */
static const char *merged_status(const char *a, const char *b, int want)
{
    char pa[512], pb[512];
    snprintf(pa, sizeof pa, "%s", at(a));
    snprintf(pb, sizeof pb, "%s", at(b));
    const char *args[] = {"merge", "--quiet", "--json", at("im.json"), pa, pb, NULL};
    cli(want, args);
    json_t *m = load(at("im.json"));
    static char status[32];
    snprintf(status, sizeof status, "%s", json_string_value(json_object_get(known_entry(m), "status")));
    json_decref(m);
    return status;
}

/* An entry whose case passes its replay while failures of the run lie
 * within it fails intermittently (XFAIL, docs/MANIFEST.md): the merge
 * decides that from the replaying shard's case_replay and every shard's
 * failures, as the unsharded run does, never from the detail's text (it
 * matched the prose "its case passes", so a shard that wrote any other
 * detail made a stale XPASS). */
static void test_intermittent_entry_decided_alike(void **state)
{
    (void)state;
    char manifest[512];
    const char *text =
        "{\"broadcheck_manifest\": 1, \"name\": \"x\", \"version\": \"1\", \"known_divergences\": "
        "[{\"id\": \"zero\", \"class\": \"a\", \"property\": \"shape-differential\", "
        "\"case\": \"numpy [2] [2]\", \"note\": \"any 0\", \"reach\": {\"rules\": [\"numpy\"]}}]}";
    assert_int_equal(bc_scratch_file(dir, "intermittent.manifest.json", text, strlen(text),
                                     manifest, sizeof manifest), 0);
    run_intermittent(manifest, "", "iwhole.json");
    run_intermittent(manifest, "1/2", "i1.json");
    run_intermittent(manifest, "2/2", "i2.json");
    json_t *w = load(at("iwhole.json"));
    assert_string_equal(json_string_value(json_object_get(known_entry(w), "status")), "xfail");
    assert_string_equal(json_string_value(json_object_get(known_entry(w), "case_replay")),
                        "passes");
    json_decref(w);
    assert_string_equal(merged_status("i1.json", "i2.json", 0), "xfail");
    assert_same_report(at("im.json"), at("iwhole.json")); /* the detail's count too */

    /* Shard 1 replays entry 0.  Had it seen no failure within the entry, it
     * wrote xpass (with a detail of any words); shard 2's failures still
     * make the merge XFAIL, counting them. */
    json_t *s2 = load(at("i2.json"));
    const json_int_t hits2 = json_integer_value(json_object_get(known_entry(s2), "reach_hits"));
    json_decref(s2);
    assert_true(hits2 > 0);
    json_t *j = load(at("i1.json"));
    json_t *e = known_entry(j);
    assert_string_equal(json_string_value(json_object_get(e, "case_replay")), "passes");
    json_object_set_new(e, "status", json_string("xpass"));
    json_object_set_new(e, "detail", json_string("passed, in other words"));
    json_object_set_new(e, "reach_hits", json_integer(0));
    save(j, at("i1-alone.json"));
    assert_string_equal(merged_status("i1-alone.json", "i2.json", 0), "xfail");
    json_t *m = load(at("im.json"));
    json_t *me = known_entry(m);
    assert_int_equal(json_integer_value(json_object_get(me, "reach_hits")), hits2);
    char want[128];
    snprintf(want, sizeof want, "but %lld failing cases of this run lie within it",
             (long long)(hits2 + json_integer_value(json_object_get(me, "explained"))));
    assert_contains(json_string_value(json_object_get(me, "detail")), want,
                    "the merged entry's detail");
    json_decref(m);

    /* A case the SUT now declines is stale whatever failed (--strict: exit 1). */
    json_object_set_new(e, "case_replay", json_string("declined"));
    save(j, at("i1-declined.json"));
    assert_string_equal(merged_status("i1-declined.json", "i2.json", 1), "xpass");
    json_decref(j);
}

/* ---- bad input: exit 2, file and field named, nothing written ------------- */

typedef struct edit {
    const char *name;   /* what the case shows */
    const char *object; /* NULL: the top level; else a top-level member or "cells[0]" */
    const char *key;
    json_t *(*value)(void);
    const char *want[2]; /* parts the message must contain (the file name is checked too) */
} edit;

static json_t *v_seed2(void) { return json_string("2"); }
static json_t *v_other_sut(void) { return json_string("mutant:left-aligned"); }
static json_t *v_cases(void) { return json_integer(999); }
static json_t *v_version(void) { return json_string("9.9.9"); }
static json_t *v_schema2(void) { return json_integer(2); }
static json_t *v_shard_of_3(void) { return json_string("2/3"); }
static json_t *v_shard_1(void) { return json_string("1/2"); }
static json_t *v_shard_bad(void) { return json_string("2of2"); }
static json_t *v_text(void) { return json_string("many"); }
static json_t *v_property(void) { return json_string("no-such-property"); }
static json_t *v_negative(void) { return json_integer(-5); }
static json_t *v_schema_name(void) { return json_string("something-else"); }

static const edit edits[] = {
    {"mismatched seed", "config", "seed", v_seed2, {"field 'config.seed'", "differs"}},
    {"mismatched sut", "sut", "name", v_other_sut, {"field 'sut.name'", "differs"}},
    {"mismatched cases", "config", "cases", v_cases, {"field 'config.cases'", "999"}},
    {"mismatched version", NULL, "broadcheck_version", v_version,
     {"field 'broadcheck_version'", "9.9.9"}},
    {"newer schema", NULL, "schema_version", v_schema2, {"field 'schema_version'", "version 2"}},
    {"other schema", NULL, "schema", v_schema_name, {"field 'schema'", "something-else"}},
    {"shard count", "config", "shard", v_shard_of_3, {"field 'config.shard'", "a shard of 2"}},
    {"duplicate shard", "config", "shard", v_shard_1, {"field 'config.shard'", "duplicate shard"}},
    {"malformed shard", "config", "shard", v_shard_bad, {"field 'config.shard'", "'2of2'"}},
    {"count of the wrong type", "cells[0]", "passed", v_text,
     {"field 'cells[0].passed'", "expected an integer, found a string"}},
    {"negative count", "cells[0]", "failed", v_negative, {"field 'cells[0].failed'", "-5"}},
    {"unknown property", "cells[0]", "property", v_property,
     {"field 'cells[0].property'", "no-such-property"}},
    {"missing field", "corpus", "replayed", NULL, {"field 'corpus.replayed'", "missing"}},
};

/* The merge fails with exit 2, names `file` and each part, writes no output. */
static void assert_refused(const char *const *inputs, int ninputs, const char *file,
                           const char *const *parts, int nparts, const char *what)
{
    const char *args[16] = {"merge", "--json", at("refused.json"), "--junit", at("refused.xml")};
    int n = 5;
    for (int i = 0; i < ninputs; i++)
        args[n++] = inputs[i];
    args[n] = NULL;
    bc_spawned r;
    assert_int_equal(bc_spawn(args, &r), 0);
    if (r.status != 2)
        fail_msg("%s: exit %d, want 2\nstderr: %s", what, r.status, r.err);
    char quoted[600];
    snprintf(quoted, sizeof quoted, "'%s'", file);
    if (!strstr(r.err, quoted))
        fail_msg("%s: the message does not name %s:\n%s", what, quoted, r.err);
    for (int i = 0; i < nparts; i++)
        if (!strstr(r.err, parts[i]))
            fail_msg("%s: the message lacks '%s':\n%s", what, parts[i], r.err);
    if (access(at("refused.json"), F_OK) == 0 || access(at("refused.xml"), F_OK) == 0)
        fail_msg("%s: a report was written although the merge was refused", what);
    if (bc_scratch_count(dir, ".tmp.") != 0)
        fail_msg("%s: a temporary file was left in %s", what, dir);
    assert_string_equal(r.out, "");
    bc_spawned_free(&r);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    run_shard("reference", "1/2", "good1.json", 0);
    run_shard("reference", "2/2", "good2.json", 0);
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        const edit *e = &edits[i];
        json_t *j = load(at("good2.json"));
        json_t *obj = j;
        if (e->object && strcmp(e->object, "cells[0]") == 0)
            obj = json_array_get(json_object_get(j, "cells"), 0);
        else if (e->object)
            obj = json_object_get(j, e->object);
        if (e->value)
            json_object_set_new(obj, e->key, e->value());
        else
            json_object_del(obj, e->key);
        save(j, at("edited.json"));
        json_decref(j);
        const char *inputs[] = {at("good1.json"), at("edited.json")};
        assert_refused(inputs, 2, at("edited.json"), e->want, 2, e->name);
    }

    /* the same file twice */
    const char *twice[] = {at("good1.json"), at("good1.json")};
    const char *dup[] = {"duplicate shard", "input 1"};
    assert_refused(twice, 2, at("good1.json"), dup, 2, "the same file twice");

    /* malformed JSON names the file, line and column */
    char path[512];
    const char *truncated = "{\n  \"schema\": \"broadcheck-report\",\n  \"schema_version\": ";
    assert_int_equal(bc_scratch_file(dir, "truncated.json", truncated, strlen(truncated), path,
                                     sizeof path), 0);
    const char *bad_json[] = {at("good1.json"), path};
    const char *json_parts[] = {"not valid JSON", "line 3"};
    assert_refused(bad_json, 2, path, json_parts, 2, "truncated JSON");

    /* a missing file, a folder, a JSON array, a merged report */
    const char *missing[] = {at("no-such.json")};
    const char *open_parts[] = {"cannot open", "No such file"};
    assert_refused(missing, 1, at("no-such.json"), open_parts, 2, "a missing file");
    const char *folder[] = {dir};
    const char *dir_parts[] = {"is a directory"};
    assert_refused(folder, 1, dir, dir_parts, 1, "a folder");
    assert_int_equal(bc_scratch_file(dir, "array.json", "[1,2]", 5, path, sizeof path), 0);
    const char *array[] = {path};
    const char *array_parts[] = {"not a broadcheck JSON report", "an array"};
    assert_refused(array, 1, path, array_parts, 2, "a JSON array");
    const char *both[] = {"merge", "--quiet", "--json", at("once.json"), at("good1.json"),
                          at("good2.json"), NULL};
    cli(0, both);
    const char *merged[] = {at("once.json")};
    const char *merged_parts[] = {"field 'merge'", "merged report already"};
    assert_refused(merged, 1, at("once.json"), merged_parts, 2, "a merged report");

    /* usage */
    const char *none[] = {"merge", "--quiet", NULL};
    assert_contains(cli(2, none)->err, "no reports given", "stderr");
    const char *bad_option[] = {"merge", "--shard", "1/2", at("good1.json"), NULL};
    assert_contains(cli(2, bad_option)->err, "unknown option '--shard'", "stderr");
    const char *no_value[] = {"merge", at("good1.json"), "--json", NULL};
    assert_contains(cli(2, no_value)->err, "'--json' needs a value", "stderr");
    /* an unwritable report: exit 2, the path named, no temporary file left */
    const char *unwritable[] = {"merge", "--quiet", "--json", at("no-dir/out.json"),
                                at("good1.json"), at("good2.json"), NULL};
    assert_contains(cli(2, unwritable)->err, at("no-dir/out.json"), "stderr");
    assert_int_equal(bc_scratch_count(dir, ".tmp."), 0);
}

/* Each shard replays its share of the corpus (line l on shard (l mod N) + 1,
 * as cases): merged, the corpus is counted once, as in the unsharded run
 * (each shard replayed it whole, and the merge counted it N times). */
static void test_sharded_corpus_counted_once(void **state)
{
    (void)state;
    char corpus[1024]; /* at()'s paths are reused after a few calls */
    snprintf(corpus, sizeof corpus, "%s", at("shared.corpus"));
    unlink(corpus);
    const char *seed_corpus[] = {"run", "--sut", "mutant:left-aligned", "--cases", "500",
                                 "--quiet", "--corpus", corpus, NULL};
    cli(1, seed_corpus);
    /* Each run reads the corpus as seeded (a run appends the new minimal
     * cases it finds, which another shard or the whole run may not find). */
    const char *names[3] = {"cwhole.json", "cs1.json", "cs2.json"};
    const char *corpora[3] = {"cwhole.corpus", "cs1.corpus", "cs2.corpus"};
    const char *shards[3] = {NULL, "1/2", "2/2"};
    for (int i = 0; i < 3; i++) {
        copy_file(corpus, at(corpora[i]));
        const char *args[20] = {"run", "--sut", "mutant:left-aligned", "--cases", "1500",
                                "--seed", "5", "--quiet", "--whole-cells", "--json",
                                at(names[i]), "--corpus", at(corpora[i])};
        int n = 13;
        if (shards[i]) {
            args[n++] = "--shard";
            args[n++] = shards[i];
        }
        args[n] = NULL;
        cli(1, args);
    }
    const char *args[] = {"merge", "--quiet", "--json", at("cmerged.json"), at("cs1.json"),
                          at("cs2.json"), NULL};
    cli(1, args);
    json_t *w = load(at("cwhole.json"));
    assert_true(json_integer_value(json_object_get(json_object_get(w, "corpus"), "replayed")) > 1);
    json_decref(w);
    assert_same_report(at("cmerged.json"), at("cwhole.json"));
}

/* A failure whose text is not what the run would have written (a replay
 * line that is not its case's, a case that is no vector line, a failure in
 * a cell that says nothing failed) is refused, naming the field. */
static void test_forged_failures_refused(void **state)
{
    (void)state;
    run_shard("mutant:max-dim", "1/2", "f1.json", 1);
    run_shard("mutant:max-dim", "2/2", "f2.json", 1);
    static const struct {
        const char *what, *key, *value, *want;
    } forged[] = {
        {"a forged replay line", "replay", "rm -rf ~", "failures[0].replay"},
        {"a replay line of another case", "replay",
         "broadcheck replay --sut mutant:max-dim --property shape-differential 'numpy [1] -> [1]'",
         "failures[0].replay"},
        {"a minimal case that is no vector line", "minimal", "numpy [1", "failures[0].minimal"},
        {"a minimal case of another rule", "minimal", "none [1] -> [1]", "a case of rule none"},
        {"a failure in a passing cell", NULL, NULL, "has no failed case"},
    };
    for (size_t i = 0; i < sizeof forged / sizeof *forged; i++) {
        json_t *j = load(at("f2.json"));
        json_t *f = json_array_get(json_object_get(j, "failures"), 0);
        assert_non_null(f);
        if (forged[i].key) {
            json_object_set_new(f, forged[i].key, json_string(forged[i].value));
        } else { /* the failure's cell says 0 failed */
            json_t *cells = json_object_get(j, "cells");
            for (size_t c = 0; c < json_array_size(cells); c++) {
                json_t *cell = json_array_get(cells, c);
                if (json_equal(json_object_get(cell, "rule"), json_object_get(f, "rule")) &&
                    json_equal(json_object_get(cell, "property"), json_object_get(f, "property")))
                    json_object_set_new(cell, "failed", json_integer(0));
            }
        }
        save(j, at("forged.json"));
        json_decref(j);
        const char *inputs[] = {at("f1.json"), at("forged.json")};
        const char *parts[] = {forged[i].want};
        assert_refused(inputs, 2, at("forged.json"), parts, 1, forged[i].what);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mutant_shards_equal_whole),
        cmocka_unit_test(test_cell_stop_shards_keep_verdicts),
        cmocka_unit_test(test_reference_shards_equal_whole),
        cmocka_unit_test(test_missing_shard_is_a_warning),
        cmocka_unit_test(test_corpus_failure_wins_its_cell),
        cmocka_unit_test(test_unknown_coverage_class_is_summed),
        cmocka_unit_test(test_sharded_corpus_counted_once),
        cmocka_unit_test(test_forged_failures_refused),
        cmocka_unit_test(test_intermittent_entry_decided_alike),
        cmocka_unit_test(test_bad_inputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
