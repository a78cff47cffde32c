/*
 * broadcheck merge: the JSON reports of a run's shards (run --shard K/N)
 * made into the result the unsharded run would have given.  Case i of a
 * cell runs on exactly one shard and depends only on the seed, the cell and
 * i, so the counts and coverage are sums, and a cell's failure is the one
 * with the lowest case index over the shards (a corpus failure, index -1,
 * first), just as the runner picks it.
 *
 * Every input is read and checked whole before anything is written: a
 * report of another run (version, SUT, seed, budget, shard count) or a
 * duplicate shard is an error naming the file and the field; a missing
 * shard only a warning, carried into every report.
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "broadcheck/report.h"
#include "internal.h"
#include "notes.h"

typedef struct input {
    const char *path;
    json_t *root;
    int shard; /* K of K/N, 1-based */
} input;

typedef struct pick {
    const json_t *failure; /* the chosen failure object of the cell, or NULL */
    int64_t index;          /* its case_index */
    int64_t corpus_line;    /* for a corpus failure (index -1): its line, or INT64_MAX */
    int position;           /* its place in its file's failures array */
} pick;

typedef struct merger {
    input *in;
    int n;
    int shard_count;
    bc_run_result *res;
    pick picks[BC_RULE_COUNT][BC_MAX_PROPERTIES];
    json_t *unknown_coverage, *unknown_rejects; /* names this build does not know */
    int failed_here[BC_RULE_COUNT][BC_MAX_PROPERTIES]; /* the last shard whose cell failed */
    char *why;
    size_t cap;
    int verdict; /* bc_report_exit_code_noted of the merged result */
} merger;

#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
static int fail(merger *m, const input *in, const char *field, const char *fmt, ...)
{
    int n = field ? snprintf(m->why, m->cap, "'%s': field '%s': ", in->path, field)
                  : snprintf(m->why, m->cap, "'%s': ", in->path);
    if (n >= 0 && (size_t)n < m->cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->why + n, m->cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static const char *type_name(const json_t *j)
{
    switch (json_typeof(j)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static const char *prop_name(int p)
{
    int count;
    return bc_properties(&count)[p].name;
}

/* ---- typed members; each failure names the field ------------------------ */

/* obj's member key, checked to be of type want (JSON_REAL takes any number;
 * JSON_NULL with a string: a string or null). */
static json_t *member(merger *m, const input *in, json_t *obj, const char *where,
                      const char *key, json_type want, int nullable)
{
    char field[128];
    snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "", key);
    json_t *v = json_object_get(obj, key);
    if (!v) {
        fail(m, in, field, "missing");
        return NULL;
    }
    int ok = json_typeof(v) == want || (want == JSON_REAL && json_is_number(v)) ||
             (nullable && json_is_null(v));
    if (!ok) {
        const char *wanted = want == JSON_OBJECT ? "an object" : want == JSON_ARRAY ? "an array"
                           : want == JSON_STRING ? "a string" : want == JSON_INTEGER ? "an integer"
                           : "a number";
        fail(m, in, field, "expected %s%s, found %s", wanted, nullable ? " or null" : "",
             type_name(v));
        return NULL;
    }
    return v;
}

static int int_member(merger *m, const input *in, json_t *obj, const char *where,
                      const char *key, int64_t min, int64_t max, int64_t *out)
{
    json_t *v = member(m, in, obj, where, key, JSON_INTEGER, 0);
    if (!v)
        return -1;
    json_int_t x = json_integer_value(v);
    if (x < min || x > max) {
        char field[128];
        snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "", key);
        fail(m, in, field, "%lld is out of range (%lld to %lld)", (long long)x, (long long)min,
             (long long)max);
        /* -1 here, not fail()'s value: every 0 returned has written *out,
         * which the compiler can see (GCC 12 -O3 cannot see through fail). */
        return -1;
    }
    *out = (int64_t)x;
    return 0;
}

/* a += b, refusing an overflow (counts are int64 in the reports). */
static int add_count(merger *m, const input *in, const char *field, int64_t *a, int64_t b)
{
    if (__builtin_add_overflow(*a, b, a))
        return fail(m, in, field, "the sum over the shards is past INT64_MAX");
    return 0;
}

/* ---- reading one file ------------------------------------------------------- */

static int load(merger *m, input *in)
{
    FILE *f = fopen(in->path, "r");
    if (!f)
        return fail(m, in, NULL, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        return fail(m, in, NULL, "is a directory, not a JSON report");
    }
    json_error_t err;
    in->root = json_loadf(f, JSON_REJECT_DUPLICATES, &err);
    fclose(f);
    if (!in->root)
        return fail(m, in, NULL, "not valid JSON: line %d, column %d: %s", err.line, err.column,
                    err.text);
    if (!json_is_object(in->root))
        return fail(m, in, NULL, "not a broadcheck JSON report: the top level is %s, not an "
                    "object", type_name(in->root));
    json_t *schema = member(m, in, in->root, "", "schema", JSON_STRING, 0);
    if (!schema)
        return -1;
    if (strcmp(json_string_value(schema), "broadcheck-report") != 0)
        return fail(m, in, "schema", "'%s', expected 'broadcheck-report'",
                    json_string_value(schema));
    int64_t version;
    if (int_member(m, in, in->root, "", "schema_version", INT64_MIN, INT64_MAX, &version) != 0)
        return -1;
    if (version != BC_REPORT_SCHEMA_VERSION)
        return fail(m, in, "schema_version", "version %" PRId64 "; this broadcheck reads "
                    "version %d", version, BC_REPORT_SCHEMA_VERSION);
    if (json_object_get(in->root, "merge"))
        return fail(m, in, "merge", "this is a merged report already; merge the shards' own "
                    "reports");
    return 0;
}

/* "K/N" with 1 <= K <= N, digits only (as 'run --shard' takes it). */
static int parse_shard(const char *s, int *k, int *n)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return -1;
    unsigned long a = strtoul(s, &end, 10);
    if (*end != '/' || !isdigit((unsigned char)end[1]))
        return -1;
    unsigned long b = strtoul(end + 1, &end, 10);
    if (*end || a < 1 || a > b || b > 1ul << 20)
        return -1;
    *k = (int)a;
    *n = (int)b;
    return 0;
}

/* json_equal, where an absent or null member equals an absent or null one. */
static int json_equal_or_absent(json_t *a, json_t *b)
{
    int none_a = !a || json_is_null(a), none_b = !b || json_is_null(b);
    return none_a || none_b ? none_a && none_b : json_equal(a, b);
}

/* 1 if two reports' known_divergences lists declare the same entries
 * (their outcomes may differ: each shard replays its own). */
static int same_known(json_t *a, json_t *b)
{
    if (json_array_size(a) != json_array_size(b))
        return 0;
    for (size_t i = 0; i < json_array_size(a); i++) {
        static const char *const keys[] = {"id", "class", "property", "case", "reach"};
        for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
            if (!json_equal_or_absent(json_object_get(json_array_get(a, i), keys[k]),
                                      json_object_get(json_array_get(b, i), keys[k])))
                return 0;
    }
    return 1;
}

/* The fields that say which run a report is of must equal the first file's. */
static int same_run(merger *m, input *in)
{
    static const char *const fields[][2] = {
        {"", "broadcheck_version"}, {"sut", "name"}, {"sut", "version"},
        {"config", "seed"},        {"config", "cases"}, {"config", "value_cases"},
        {"config", "seconds"},
    };
    for (size_t i = 0; i < sizeof fields / sizeof *fields; i++) {
        const char *where = fields[i][0], *key = fields[i][1];
        json_type type = strstr(key, "cases")          ? JSON_INTEGER
                         : strcmp(key, "seconds") == 0 ? JSON_REAL
                                                       : JSON_STRING;
        json_t *obj = where[0] ? member(m, in, in->root, "", where, JSON_OBJECT, 0) : in->root;
        json_t *mine = obj ? member(m, in, obj, where, key, type, 0) : NULL;
        if (!mine)
            return -1;
        if (in == m->in)
            continue; /* the first file is what the others must match */
        json_t *first = json_object_get(where[0] ? json_object_get(m->in[0].root, where)
                                                 : m->in[0].root, key);
        int equal = type == JSON_REAL ? json_number_value(first) == json_number_value(mine)
                                      : json_equal(first, mine);
        if (!equal) {
            char field[64];
            snprintf(field, sizeof field, "%s%s%s", where, where[0] ? "." : "", key);
            char *a = json_dumps(mine, JSON_ENCODE_ANY), *b = json_dumps(first, JSON_ENCODE_ANY);
            fail(m, in, field, "%s differs from %s in '%s' (the shards must come from one run)",
                 a ? a : "?", b ? b : "?", m->in[0].path);
            free(a);
            free(b);
            return -1;
        }
    }
    json_t *config = json_object_get(in->root, "config");
    /* Parameters a report may lack (written before they existed): equal
     * where the first file has them. */
    static const char *const optional[] = {"max_failures", "whole_cells", "value_tier",
                                           "max_bytes"};
    for (size_t i = 0; i < sizeof optional / sizeof *optional; i++) {
        json_t *first = json_object_get(json_object_get(m->in[0].root, "config"), optional[i]);
        json_t *mine = json_object_get(config, optional[i]);
        if (in != m->in && first && (!mine || !json_equal(first, mine))) {
            char field[64];
            snprintf(field, sizeof field, "config.%s", optional[i]);
            return fail(m, in, field, "differs from '%s' (the shards must come from one run)",
                        m->in[0].path);
        }
    }
    /* One manifest for every shard: the same declaration and known cases. */
    static const char *const declared[] = {"declared_name", "declared_version", "manifest",
                                           "semantics"};
    for (size_t i = 0; i < sizeof declared / sizeof *declared && in != m->in; i++)
        if (!json_equal_or_absent(json_object_get(json_object_get(m->in[0].root, "sut"),
                                                  declared[i]),
                                  json_object_get(json_object_get(in->root, "sut"), declared[i]))) {
            char field[64];
            snprintf(field, sizeof field, "sut.%s", declared[i]);
            return fail(m, in, field, "differs from '%s' (the shards must come from one run, "
                        "with one manifest)", m->in[0].path);
        }
    if (in != m->in && !json_equal_or_absent(json_object_get(m->in[0].root, "broadcheck_commit"),
                                             json_object_get(in->root, "broadcheck_commit")))
        return fail(m, in, "broadcheck_commit", "differs from '%s' (the shards must come from "
                    "one build of broadcheck)", m->in[0].path);
    if (in != m->in &&
        !json_equal_or_absent(json_object_get(json_object_get(m->in[0].root, "config"), "strict"),
                              json_object_get(config, "strict")))
        return fail(m, in, "config.strict", "differs from '%s' (the shards must come from one "
                    "run)", m->in[0].path);
    if (in != m->in && !same_known(json_object_get(m->in[0].root, "known_divergences"),
                                   json_object_get(in->root, "known_divergences")))
        return fail(m, in, "known_divergences", "not the known divergences of '%s' (the shards "
                    "must come from one run, with one manifest)", m->in[0].path);
    json_t *shard = member(m, in, config, "config", "shard", JSON_STRING, 0);
    if (!shard)
        return -1;
    int k, n;
    if (parse_shard(json_string_value(shard), &k, &n) != 0)
        return fail(m, in, "config.shard", "'%s', expected K/N with 1 <= K <= N",
                    json_string_value(shard));
    if (in == m->in)
        m->shard_count = n;
    if (n != m->shard_count)
        return fail(m, in, "config.shard", "shard %d/%d, but '%s' is a shard of %d (the shards "
                    "must come from one run)", k, n, m->in[0].path, m->shard_count);
    for (input *o = m->in; o < in; o++)
        if (o->shard == k)
            return fail(m, in, "config.shard", "shard %d/%d again: input %d '%s' is that "
                        "shard too (a duplicate shard)", k, n, (int)(o - m->in) + 1, o->path);
    in->shard = k;
    int64_t jobs;
    double elapsed;
    if (int_member(m, in, config, "config", "jobs", 1, INT32_MAX, &jobs) != 0 ||
        !member(m, in, in->root, "", "elapsed_seconds", JSON_REAL, 0))
        return -1;
    elapsed = json_number_value(json_object_get(in->root, "elapsed_seconds"));
    /* Shards run side by side: the merged run's jobs and wall time are the largest. */
    if (jobs > m->res->jobs)
        m->res->jobs = (int)jobs;
    if (elapsed > m->res->elapsed)
        m->res->elapsed = elapsed;
    return 0;
}

/* A "rule" and "property" pair of obj (a cell or a failure), as indexes. */
static int cell_of(merger *m, const input *in, json_t *obj, const char *where, bc_rule *rule,
                   int *property)
{
    json_t *r = member(m, in, obj, where, "rule", JSON_STRING, 0);
    json_t *p = r ? member(m, in, obj, where, "property", JSON_STRING, 0) : NULL;
    if (!p)
        return -1;
    char field[96];
    snprintf(field, sizeof field, "%s.rule", where);
    if (bc_rule_from_name(json_string_value(r), rule) != 0)
        return fail(m, in, field, "unknown rule '%s'", json_string_value(r));
    *property = bc_property_from_name(json_string_value(p));
    snprintf(field, sizeof field, "%s.property", where);
    if (*property < 0 || *property >= m->res->nproperties)
        return fail(m, in, field, "unknown property '%s' (was the report written by another "
                    "broadcheck version?)", json_string_value(p));
    return 0;
}

/* How bad a cell's end is, for the merged cell: the worst of the shards'. */
static int end_rank(bc_cell_end e)
{
    static const int rank[BC_CELL_END_COUNT] = {
        [BC_CELL_RAN] = 0,          [BC_CELL_FIRST_FAILURE] = 1, [BC_CELL_MAX_FAILURES] = 2,
        [BC_CELL_NO_TIME] = 3,      [BC_CELL_UNRESPONSIVE] = 4,  [BC_CELL_INTERRUPTED] = 5,
    };
    return (unsigned)e < BC_CELL_END_COUNT ? rank[e] : 0;
}

/* A cell's "ended" (optional: older reports have none). */
static int read_cell_end(merger *m, const input *in, json_t *cell, const char *where,
                         bc_cell *c)
{
    json_t *ended = json_object_get(cell, "ended");
    if (!ended)
        return 0;
    char field[64];
    snprintf(field, sizeof field, "%s.ended", where);
    int e = json_is_string(ended) ? bc_cell_end_from_name(json_string_value(ended)) : -1;
    if (e < 0)
        return fail(m, in, field, "expected one of ran, first-failure, max-failures, "
                    "sut-unresponsive, interrupted, no-time");
    if (end_rank((bc_cell_end)e) > end_rank(c->end))
        c->end = (bc_cell_end)e;
    return 0;
}

static int read_cells(merger *m, input *in)
{
    json_t *cells = member(m, in, in->root, "", "cells", JSON_ARRAY, 0);
    if (!cells)
        return -1;
    unsigned char seen[BC_RULE_COUNT][BC_MAX_PROPERTIES] = {{0}};
    size_t i, count = 0;
    json_t *cell;
    json_array_foreach(cells, i, cell) {
        char where[48];
        snprintf(where, sizeof where, "cells[%zu]", i);
        bc_rule rule;
        int p;
        if (!json_is_object(cell))
            return fail(m, in, where, "expected an object, found %s", type_name(cell));
        if (cell_of(m, in, cell, where, &rule, &p) != 0)
            return -1;
        if (seen[rule][p])
            return fail(m, in, where, "cell %s x %s is listed twice", bc_rule_name(rule),
                        prop_name(p));
        seen[rule][p] = 1;
        count++;
        bc_cell *c = &m->res->cells[rule][p];
        if (in != m->in && !c->selected)
            return fail(m, in, where, "cell %s x %s is not in '%s' (the shards must check the "
                        "same cells)", bc_rule_name(rule), prop_name(p),
                        m->in[0].path);
        c->selected = 1;
        int64_t passed, failed, unsupported, known_failed = 0;
        if (json_object_get(cell, "known_failed") && /* since known divergences */
            (int_member(m, in, cell, where, "known_failed", 0, INT64_MAX, &known_failed) != 0 ||
             add_count(m, in, where, &c->known_failed, known_failed) != 0))
            return -1;
        if (int_member(m, in, cell, where, "passed", 0, INT64_MAX, &passed) != 0 ||
            int_member(m, in, cell, where, "failed", 0, INT64_MAX, &failed) != 0 ||
            int_member(m, in, cell, where, "unsupported", 0, INT64_MAX, &unsupported) != 0 ||
            add_count(m, in, where, &c->passed, passed) != 0 ||
            add_count(m, in, where, &c->failed, failed) != 0 ||
            add_count(m, in, where, &c->unsupported, unsupported) != 0)
            return -1;
        if (read_cell_end(m, in, cell, where, c) != 0)
            return -1;
        if (failed > 0)
            m->failed_here[rule][p] = in->shard;
    }
    /* Every cell seen is one the first file had; the same number means the same set. */
    size_t want = 0;
    for (int r = 0; r < BC_RULE_COUNT; r++)
        for (int p = 0; p < m->res->nproperties; p++)
            want += m->res->cells[r][p].selected;
    if (count != want)
        return fail(m, in, "cells", "%zu cells, but '%s' has %zu (the shards must check the "
                    "same cells)", count, m->in[0].path, want);
    return 0;
}

/* Coverage classes and reject kinds: name -> count maps.  A name this build
 * knows is summed into the result; another into `unknown`, which the JSON
 * report carries as it is. */
static int read_counts(merger *m, input *in, const char *key, int64_t *counts, int ncounts,
                       int (*index_of)(const char *), json_t *unknown)
{
    json_t *obj = member(m, in, in->root, "", key, JSON_OBJECT, 0);
    if (!obj)
        return -1;
    const char *name;
    json_t *v;
    json_object_foreach(obj, name, v) {
        int64_t count;
        if (int_member(m, in, obj, key, name, 0, INT64_MAX, &count) != 0)
            return -1;
        char field[160];
        snprintf(field, sizeof field, "%s.%s", key, name);
        int i = index_of(name);
        if (i >= 0 && i < ncounts) {
            if (add_count(m, in, field, &counts[i], count) != 0)
                return -1;
            continue;
        }
        int64_t sum = json_integer_value(json_object_get(unknown, name));
        if (add_count(m, in, field, &sum, count) != 0 ||
            json_object_set_new(unknown, name, json_integer(sum)) != 0)
            return fail(m, in, field, "out of memory");
    }
    return 0;
}

static int coverage_index(const char *name)
{
    for (int c = 0; c < BC_COV_COUNT; c++)
        if (strcmp(bc_coverage_name((bc_coverage)c), name) == 0)
            return c;
    return -1;
}

static int reject_index(const char *name)
{
    bc_error_kind k;
    return bc_error_kind_from_name(name, &k) == 0 ? (int)k : -1;
}

/* A failure's text fields must be what the run would have written: the
 * minimal case a vector line of its rule, the replay line exactly the one
 * for it (a report edited by hand, or forged, would otherwise hand a
 * reader a command line to paste into a shell). */
static int check_failure(merger *m, const input *in, json_t *f, const char *where, bc_rule rule,
                         int property)
{
    char field[96], why[512];
    const char *minimal = json_string_value(json_object_get(f, "minimal"));
    const char *replay = json_string_value(json_object_get(f, "replay"));
    if (minimal) {
        int parsed;
        bc_rule got = rule;
        if (bc_vector_line_is_partial(minimal)) { /* a partial property's case (RULES.md §14) */
            bc_pvector *v = malloc(sizeof *v);
            parsed = v ? bc_pvector_parse(minimal, v, why, sizeof why) : -1;
            got = v && parsed == 1 ? v->params.rule : rule;
            free(v);
        } else {
            bc_vector *v = malloc(sizeof *v);
            parsed = v ? bc_vector_parse(minimal, v, why, sizeof why) : -1;
            got = v && parsed == 1 ? v->params.rule : rule;
            free(v);
        }
        snprintf(field, sizeof field, "%s.minimal", where);
        if (parsed != 1)
            return fail(m, in, field, "not a vector line: %s", parsed < 0 ? why : "empty");
        if (got != rule)
            return fail(m, in, field, "a case of rule %s in a failure of rule %s",
                        bc_rule_name(got), bc_rule_name(rule));
    }
    if (replay || minimal) {
        const char *sut = json_string_value(json_object_get(json_object_get(in->root, "sut"),
                                                            "name"));
        const char *args = json_string_value(json_object_get(json_object_get(in->root, "sut"),
                                                             "args"));
        char *want = minimal && sut ? bc_replay_line(sut, args, prop_name(property), minimal)
                                    : NULL;
        int same = want && replay && strcmp(want, replay) == 0;
        free(want);
        snprintf(field, sizeof field, "%s.replay", where);
        if (!same)
            return fail(m, in, field, "is not the replay line of the failure's SUT, property "
                        "and minimal case");
    }
    json_t *stop = json_object_get(f, "shrink_end");
    snprintf(field, sizeof field, "%s.shrink_end", where);
    if (stop && (!json_is_string(stop) || bc_shrink_stop_from_name(json_string_value(stop)) < 0))
        return fail(m, in, field, "expected minimal, call-limit, time, sut-unresponsive or "
                    "interrupted");
    return 0;
}

static int read_failures(merger *m, input *in)
{
    json_t *corpus = member(m, in, in->root, "", "corpus", JSON_OBJECT, 0);
    int64_t replayed, failed;
    if (!corpus || int_member(m, in, corpus, "corpus", "replayed", 0, INT64_MAX, &replayed) ||
        int_member(m, in, corpus, "corpus", "failed", 0, INT64_MAX, &failed) ||
        add_count(m, in, "corpus.replayed", &m->res->corpus_replayed, replayed) ||
        add_count(m, in, "corpus.failed", &m->res->corpus_failed, failed))
        return -1;
    json_t *failures = member(m, in, in->root, "", "failures", JSON_ARRAY, 0);
    if (!failures)
        return -1;
    size_t i;
    json_t *f;
    json_array_foreach(failures, i, f) {
        char where[48];
        snprintf(where, sizeof where, "failures[%zu]", i);
        bc_rule rule;
        int p;
        int64_t index, calls, steps;
        if (!json_is_object(f))
            return fail(m, in, where, "expected an object, found %s", type_name(f));
        if (cell_of(m, in, f, where, &rule, &p) != 0 ||
            int_member(m, in, f, where, "case_index", -1, INT64_MAX, &index) != 0 ||
            int_member(m, in, f, where, "shrink_calls", 0, INT32_MAX, &calls) != 0 ||
            int_member(m, in, f, where, "shrink_steps", 0, INT32_MAX, &steps) != 0 ||
            !member(m, in, f, where, "detail", JSON_STRING, 0) ||
            !member(m, in, f, where, "original", JSON_STRING, 1) ||
            !member(m, in, f, where, "minimal", JSON_STRING, 1) ||
            !member(m, in, f, where, "replay", JSON_STRING, 1))
            return -1;
        if (!m->res->cells[rule][p].selected)
            return fail(m, in, where, "a failure of %s x %s, a cell the report does not list",
                        bc_rule_name(rule), prop_name(p));
        if (m->failed_here[rule][p] != in->shard)
            return fail(m, in, where, "a failure of %s x %s, whose cell in this report has no "
                        "failed case", bc_rule_name(rule), prop_name(p));
        if (check_failure(m, in, f, where, rule, p) != 0)
            return -1;
        int64_t line = INT64_MAX;
        json_t *jl = json_object_get(f, "corpus_line");
        if (index < 0 && json_is_integer(jl) && json_integer_value(jl) > 0)
            line = json_integer_value(jl);
        /* The runner's choice: the lowest case index, a corpus line (-1)
         * first, the earliest corpus line of all. */
        pick *best = &m->picks[rule][p];
        if (!best->failure || index < best->index ||
            (index == best->index && index < 0 && line < best->corpus_line)) {
            best->failure = f;
            best->index = index;
            best->corpus_line = line;
            best->position = (int)i;
        }
    }
    return 0;
}

/* How the run ended: the worst of the shards' ends, with that shard's
 * words (optional fields: older reports have none). */
static int read_run_ends(merger *m)
{
    static const int rank[BC_RUN_END_COUNT] = {
        [BC_RUN_COMPLETE] = 0, [BC_RUN_MAX_FAILURES] = 1, [BC_RUN_UNRESPONSIVE] = 2,
        [BC_RUN_INTERRUPTED] = 3,
    };
    bc_run_result *res = m->res;
    for (int i = 0; i < m->n; i++) {
        const input *in = &m->in[i];
        json_t *ended = json_object_get(in->root, "ended");
        if (!ended)
            continue;
        int e = json_is_string(ended) ? bc_run_end_from_name(json_string_value(ended)) : -1;
        if (e < 0)
            return fail(m, in, "ended", "expected complete, max-failures, sut-unresponsive or "
                        "interrupted");
        const char *detail = json_string_value(json_object_get(in->root, "ended_detail"));
        if (rank[e] > rank[res->end] || (!res->end_detail[0] && detail && detail[0])) {
            if (rank[e] >= rank[res->end])
                res->end = (bc_run_end)e;
            snprintf(res->end_detail, sizeof res->end_detail, "shard %d/%d: %s", in->shard,
                     m->shard_count, detail ? detail : bc_run_end_name((bc_run_end)e));
        }
    }
    return 0;
}

/* ---- the merged result --------------------------------------------------- */

static char *dup_or_null(const json_t *s)
{
    return json_is_string(s) ? strdup(json_string_value(s)) : NULL;
}

static int known_index(const bc_run_result *res, const char *id)
{
    for (int i = 0; id && i < res->nknown; i++)
        if (strcmp(res->known[i].id, id) == 0)
            return i;
    return -1;
}

static char *dup_text(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return strdup(s ? s : "");
}

/* The known divergences, as the first report declares them (every shard's
 * are the same, same_run checked), each with the outcome of the shard that
 * replayed it. */
static int collect_known(merger *m)
{
    bc_run_result *res = m->res;
    json_t *list = json_object_get(m->in[0].root, "known_divergences");
    size_t n = json_array_size(list);
    if (n == 0)
        return 0;
    res->known = calloc(n, sizeof *res->known);
    if (!res->known)
        return -1;
    res->nknown = (int)n;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(list, i), *reach = json_object_get(e, "reach");
        bc_known_result *k = &res->known[i];
        const char *klass = json_string_value(json_object_get(e, "class"));
        k->klass = klass && klass[0] ? klass[0] : '?';
        k->id = dup_text(e, "id");
        k->property = dup_text(e, "property");
        k->vector = dup_text(e, "case");
        k->link = dup_text(e, "link");
        k->note = dup_text(e, "note");
        k->reach = json_is_object(reach);
        k->reach_rules = dup_text(reach, "rules");
        k->reach_ops = dup_text(reach, "ops");
        k->reach_dtypes = dup_text(reach, "dtypes");
        k->reach_detail = dup_text(reach, "detail");
        k->reach_properties = dup_text(reach, "properties");
        k->reach_strided = json_is_true(json_object_get(reach, "strided"));
        k->reach_min_shapes = (int)json_integer_value(json_object_get(reach, "min_shapes"));
        k->reach_case = dup_text(reach, "case_line");
        if (!k->id || !k->property || !k->vector || !k->link || !k->note || !k->reach_rules ||
            !k->reach_ops || !k->reach_dtypes || !k->reach_detail || !k->reach_properties ||
            !k->reach_case)
            return -1;
        /* not checked: why, as the shard that replays it (i mod N) says (its
         * cell was not selected, the run stopped first), or that shard is
         * missing */
        k->status = BC_KNOWN_NOT_CHECKED;
        int owner = m->shard_count > 0 ? (int)(i % (size_t)m->shard_count) + 1 : 1;
        const char *why_not = NULL;
        for (int s = 0; s < m->n; s++)
            if (m->in[s].shard == owner)
                why_not = json_string_value(json_object_get(
                    json_array_get(json_object_get(m->in[s].root, "known_divergences"), i),
                    "detail"));
        snprintf(k->detail, sizeof k->detail, "%s",
                 why_not ? why_not : "its shard is missing from the merge");
        for (int s = 0; s < m->n; s++) {
            json_t *mine = json_array_get(json_object_get(m->in[s].root, "known_divergences"), i);
            json_int_t hits = json_integer_value(json_object_get(mine, "reach_hits"));
            if (hits > 0)
                k->reach_hits += hits;
            const char *status = json_string_value(json_object_get(mine, "status"));
            if (!status || strcmp(status, "not-checked") == 0)
                continue;
            k->status = strcmp(status, "xfail") == 0 ? BC_KNOWN_XFAIL : BC_KNOWN_XPASS;
            /* absent from a report of a broadcheck before it: the status
             * stands as that shard wrote it */
            k->case_replay =
                bc_case_replay_from_name(json_string_value(json_object_get(mine, "case_replay")));
            const char *detail = json_string_value(json_object_get(mine, "detail"));
            snprintf(k->detail, sizeof k->detail, "%s", detail ? detail : "");
        }
    }
    return 0;
}

/* The failures in the order the unsharded run records them: corpus
 * failures first, in their order in the report, then one per cell in
 * cell order (rule, then property). */
static int collect_failures(merger *m)
{
    bc_run_result *res = m->res;
    res->failures = calloc((size_t)BC_RULE_COUNT * BC_MAX_PROPERTIES, sizeof *res->failures);
    if (!res->failures)
        return -1;
    for (int pass = 0; pass < 2; pass++) {
        for (;;) {
            pick *next = NULL;
            int next_rule = 0, next_prop = 0;
            for (int r = 0; r < BC_RULE_COUNT; r++)
                for (int p = 0; p < res->nproperties; p++) {
                    pick *c = &m->picks[r][p];
                    if (!c->failure || res->cells[r][p].failure >= 0 || (c->index < 0) != !pass)
                        continue;
                    if (!next || (pass == 0 && (c->corpus_line < next->corpus_line ||
                                                (c->corpus_line == next->corpus_line &&
                                                 c->position < next->position))))
                        next = c, next_rule = r, next_prop = p;
                }
            if (!next)
                break;
            bc_failure *f = &res->failures[res->nfailures];
            const json_t *j = next->failure;
            f->property = next_prop;
            f->rule = (bc_rule)next_rule;
            f->case_index = next->index;
            f->original = dup_or_null(json_object_get(j, "original"));
            f->minimal = dup_or_null(json_object_get(j, "minimal"));
            f->replay = dup_or_null(json_object_get(j, "replay"));
            snprintf(f->detail, sizeof f->detail, "%s",
                     json_string_value(json_object_get(j, "detail")));
            f->shrink_calls = (int)json_integer_value(json_object_get(j, "shrink_calls"));
            f->shrink_steps = (int)json_integer_value(json_object_get(j, "shrink_steps"));
            const char *stop = json_string_value(json_object_get(j, "shrink_end"));
            f->shrink_stop = stop ? (bc_shrink_stop)bc_shrink_stop_from_name(stop)
                                  : BC_SHRINK_MINIMAL;
            f->flaky = json_is_true(json_object_get(j, "flaky"));
            const char *first = json_string_value(json_object_get(j, "first_detail"));
            snprintf(f->first_detail, sizeof f->first_detail, "%s", first ? first : f->detail);
            f->corpus_line = next->corpus_line == INT64_MAX ? -1 : next->corpus_line;
            f->known = known_index(res, json_string_value(json_object_get(j, "known")));
            if (f->known >= 0)
                res->known[f->known].explained++;
            res->cells[next_rule][next_prop].failure = res->nfailures++;
        }
    }
    return 0;
}

/* The JSON's merge object, and the warning for missing shards ("" if none):
 * "shards 2/4, 3/4 are missing from the merge: ...". */
static json_t *merge_object(const merger *m, char *warning, size_t cap)
{
    json_t *obj = json_object(), *inputs = json_array(), *missing = json_array();
    int nmissing = 0;
    char list[256] = "";
    size_t len = 0;
    for (int k = 1; k <= m->shard_count; k++) {
        int found = 0;
        for (int i = 0; i < m->n && !found; i++)
            found = m->in[i].shard == k;
        if (found)
            continue;
        json_array_append_new(missing, json_integer(k));
        if (len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%d/%d",
                                    nmissing ? ", " : "", k, m->shard_count);
        nmissing++;
    }
    warning[0] = '\0';
    if (nmissing > 0)
        snprintf(warning, cap, "shard%s %s %s missing from the merge: %s cases were not checked "
                 "(%d of %d shards merged)", nmissing > 1 ? "s" : "", list,
                 nmissing > 1 ? "are" : "is", nmissing > 1 ? "their" : "its",
                 m->shard_count - nmissing, m->shard_count);
    for (int i = 0; i < m->n; i++)
        json_array_append_new(inputs, json_string(m->in[i].path));
    json_object_set_new(obj, "shards", json_integer(m->shard_count));
    json_object_set_new(obj, "inputs", inputs);
    json_object_set_new(obj, "missing_shards", missing);
    return obj;
}

static int write_outputs(merger *m, const bc_merge_output *out)
{
    char warning[512];
    json_t *extra = json_object();
    json_t *mobj = merge_object(m, warning, sizeof warning);
    if (!extra || !mobj || json_object_set_new(extra, "merge", mobj) != 0) {
        json_decref(extra);
        snprintf(m->why, m->cap, "out of memory");
        return -1;
    }
    if (json_object_size(m->unknown_coverage) > 0)
        json_object_set(extra, "coverage", m->unknown_coverage);
    if (json_object_size(m->unknown_rejects) > 0)
        json_object_set(extra, "rejects", m->unknown_rejects);
    bc_report_notes notes = {warning[0] ? warning : NULL, warning[0] != '\0', extra};

    if (out->warnings) {
        if (notes.warning)
            fprintf(out->warnings, "broadcheck merge: warning: %s\n", notes.warning);
        const char *name;
        json_t *v;
        json_object_foreach(m->unknown_coverage, name, v)
            fprintf(out->warnings, "broadcheck merge: warning: coverage class '%s' is unknown "
                    "to this broadcheck: summed into the JSON report only\n", name);
        json_object_foreach(m->unknown_rejects, name, v)
            fprintf(out->warnings, "broadcheck merge: warning: reject kind '%s' is unknown to "
                    "this broadcheck: summed into the JSON report only\n", name);
    }

    m->verdict = bc_report_exit_code_noted(m->res, &notes);
    if (out->summary)
        bc_report_summary_noted(m->res, &notes, out->summary);
    int status = 0;
    if (out->json)
        status = bc_report_json_noted(m->res, &notes, out->json, m->why, m->cap);
    if (status == 0 && out->junit)
        status = bc_report_junit_noted(m->res, &notes, out->junit, m->why, m->cap);
    if (status == 0 && out->certificate)
        status = bc_report_certificate_noted(m->res, &notes, out->certificate, m->why, m->cap);
    json_decref(extra);
    return status;
}

static int merge(merger *m)
{
    bc_run_result *res = m->res;
    for (int i = 0; i < m->n; i++) {
        input *in = &m->in[i];
        if (load(m, in) != 0 || same_run(m, in) != 0 || read_cells(m, in) != 0 ||
            read_counts(m, in, "coverage", res->coverage, BC_COV_COUNT, coverage_index,
                        m->unknown_coverage) != 0 ||
            read_counts(m, in, "rejects", res->rejects, BC_ERR_KIND_COUNT, reject_index,
                        m->unknown_rejects) != 0 ||
            read_failures(m, in) != 0)
            return -1;
        /* the shards' checked output adds up (absent before it was counted) */
        json_t *totals = json_object_get(in->root, "totals");
        json_t *bytes = json_object_get(totals, "value_bytes");
        if (json_is_integer(bytes) && json_integer_value(bytes) > 0)
            res->value_bytes += (int64_t)json_integer_value(bytes);
        json_t *moved = json_object_get(totals, "value_moved_bytes");
        if (json_is_integer(moved) && json_integer_value(moved) > 0)
            res->value_moved_bytes += (int64_t)json_integer_value(moved);
        /* so do the questions answered only when asked again (absent before) */
        json_t *again = json_object_get(totals, "asked_again");
        if (json_is_integer(again) && json_integer_value(again) > 0)
            res->asked_again += (int64_t)json_integer_value(again);
    }
    /* Which run: the first file's fields, which every other file matched. */
    json_t *root = m->in[0].root, *sut = json_object_get(root, "sut"),
           *config = json_object_get(root, "config");
    snprintf(res->broadcheck_version, sizeof res->broadcheck_version, "%s",
             json_string_value(json_object_get(root, "broadcheck_version")));
    snprintf(res->sut_name, sizeof res->sut_name, "%s",
             json_string_value(json_object_get(sut, "name")));
    snprintf(res->sut_version, sizeof res->sut_version, "%s",
             json_string_value(json_object_get(sut, "version")));
    const char *args = json_string_value(json_object_get(sut, "args"));
    snprintf(res->sut_args, sizeof res->sut_args, "%s", args ? args : "");
    const char *seed = json_string_value(json_object_get(config, "seed"));
    char *end;
    errno = 0;
    res->seed = strtoull(seed, &end, 10);
    if (!seed[0] || *end || errno || seed[0] == '-' || seed[0] == '+' || seed[0] == ' ')
        return fail(m, &m->in[0], "config.seed", "'%s', expected an unsigned 64-bit integer "
                    "in decimal digits", seed);
    int64_t cases;
    if (int_member(m, &m->in[0], config, "config", "cases", 0, INT64_MAX, &cases) != 0)
        return -1;
    res->cases = cases;
    if (int_member(m, &m->in[0], config, "config", "value_cases", 0, INT64_MAX, &cases) != 0)
        return -1;
    res->value_cases = cases;
    /* partial_cases came later: a report without it ran no partial cell */
    json_t *partial = json_object_get(config, "partial_cases");
    if (partial && int_member(m, &m->in[0], config, "config", "partial_cases", 0, INT64_MAX,
                              &cases) != 0)
        return -1;
    res->partial_cases = partial ? cases : 0;
    for (int i = 1; i < m->n; i++) {
        json_t *other = json_object_get(json_object_get(m->in[i].root, "config"), "partial_cases");
        if (!json_equal(partial, other) && (partial || other))
            return fail(m, &m->in[i], "config.partial_cases", "differs from the first shard's: "
                        "the shards are not of one run");
    }
    res->seconds = json_number_value(json_object_get(config, "seconds"));
    if (!(res->seconds >= 0))
        return fail(m, &m->in[0], "config.seconds", "%g, expected seconds >= 0", res->seconds);
    /* All the shards together are the whole case stream: "1/1". */
    res->shard_index = 0;
    res->shard_count = 1;
    res->max_failures = (int)json_integer_value(json_object_get(config, "max_failures"));
    res->whole_cells = json_is_true(json_object_get(config, "whole_cells"));
    res->strict = json_is_true(json_object_get(config, "strict"));
    const char *tier = json_string_value(json_object_get(config, "value_tier"));
    if (tier && bc_value_tier_from_name(tier, &res->value_tier) != 0)
        return fail(m, m->in, "config.value_tier", "is '%s', not small, medium or huge", tier);
    json_t *max_bytes = json_object_get(config, "max_bytes");
    res->max_bytes = json_is_integer(max_bytes) &&
                             json_integer_value(max_bytes) != BC_VALUE_DEFAULT_MAX_BYTES
                         ? (int64_t)json_integer_value(max_bytes)
                         : 0;
    static const char *const about[] = {"broadcheck_commit", "platform", "started_at"};
    char *const about_out[] = {res->broadcheck_commit, res->platform, res->started_at};
    const size_t about_cap[] = {sizeof res->broadcheck_commit, sizeof res->platform,
                                sizeof res->started_at};
    for (int i = 0; i < 3; i++) { /* the first shard's: where and when one of them ran */
        const char *v = json_string_value(json_object_get(root, about[i]));
        snprintf(about_out[i], about_cap[i], "%s", v ? v : "");
    }
    const char *declared[3];
    static const char *const declared_keys[] = {"declared_name", "declared_version", "manifest"};
    for (int i = 0; i < 3; i++)
        declared[i] = json_string_value(json_object_get(sut, declared_keys[i]));
    if (declared[2]) {
        snprintf(res->declared_name, sizeof res->declared_name, "%s",
                 declared[0] ? declared[0] : "");
        snprintf(res->declared_version, sizeof res->declared_version, "%s",
                 declared[1] ? declared[1] : "");
        snprintf(res->manifest_path, sizeof res->manifest_path, "%s", declared[2]);
    }
    const char *semantics = json_string_value(json_object_get(sut, "semantics"));
    snprintf(res->semantics_text, sizeof res->semantics_text, "%s", semantics ? semantics : "");
    if (read_run_ends(m) != 0)
        return -1;
    if (collect_known(m) != 0 || collect_failures(m) != 0) {
        snprintf(m->why, m->cap, "out of memory");
        return -1;
    }
    /* the shard that replayed an entry may not be the one that saw it fail,
     * and its detail counts its own failures only */
    for (int i = 0; i < m->res->nknown; i++)
        bc_known_settle(&m->res->known[i]);
    return 0;
}

/* Before reading anything: every output writable, no output on an input
 * (it would be overwritten by a report built from it) or on another output. */
static int check_outputs(int ninputs, const char *const *inputs, const bc_merge_output *out,
                         char *why, size_t cap)
{
    const char *names[] = {"--json", "--junit", "--certificate"};
    const char *whats[] = {"JSON report", "JUnit report", "certificate report"};
    const char *paths[] = {out->json, out->junit, out->certificate};
    for (int i = 0; i < 3; i++) {
        if (!paths[i])
            continue;
        if (bc_output_check(whats[i], paths[i], why, cap) != 0)
            return -1;
        for (int j = 0; j < i; j++)
            if (paths[j] && bc_same_file(paths[i], paths[j])) {
                snprintf(why, cap, "%s '%s' and %s '%s' are one file: each report needs its own",
                         names[j], paths[j], names[i], paths[i]);
                return -1;
            }
        for (int k = 0; k < ninputs; k++)
            if (bc_same_file(paths[i], inputs[k])) {
                snprintf(why, cap, "%s '%s' is input %d '%s': the merged report would "
                         "overwrite a shard's report", names[i], paths[i], k + 1, inputs[k]);
                return -1;
            }
    }
    return 0;
}

int bc_merge_reports(int ninputs, const char *const *inputs, const bc_merge_output *out,
                     char *why, size_t cap)
{
    if (ninputs < 1) {
        snprintf(why, cap, "no reports to merge");
        return -1;
    }
    merger m;
    memset(&m, 0, sizeof m);
    m.n = ninputs;
    m.why = why;
    m.cap = cap;
    m.in = calloc((size_t)ninputs, sizeof *m.in);
    m.res = calloc(1, sizeof *m.res);
    m.unknown_coverage = json_object();
    m.unknown_rejects = json_object();
    int status = -1;
    if (!m.in || !m.res || !m.unknown_coverage || !m.unknown_rejects) {
        snprintf(why, cap, "out of memory");
        goto done;
    }
    bc_properties(&m.res->nproperties);
    if (m.res->nproperties > BC_MAX_PROPERTIES)
        m.res->nproperties = BC_MAX_PROPERTIES;
    for (int r = 0; r < BC_RULE_COUNT; r++)
        for (int p = 0; p < BC_MAX_PROPERTIES; p++)
            m.res->cells[r][p].failure = -1;
    for (int i = 0; i < ninputs; i++)
        m.in[i].path = inputs[i];
    if (check_outputs(ninputs, inputs, out, why, cap) == 0 && merge(&m) == 0 &&
        write_outputs(&m, out) == 0)
        status = m.verdict;
done:
    for (int i = 0; m.in && i < ninputs; i++)
        json_decref(m.in[i].root);
    free(m.in);
    bc_run_result_free(m.res);
    json_decref(m.unknown_coverage);
    json_decref(m.unknown_rejects);
    return status;
}
