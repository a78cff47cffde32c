/*
 * Known divergences: what a SUT's maintainer declared (docs/MANIFEST.md),
 * checked on every run.  Each entry's case is replayed in process after the
 * run: one that fails is XFAIL, as declared; one that passes (or that the SUT
 * now declines) is XPASS, a stale entry.  A failing case is "known" when
 * it lies within an entry's declared reach (counted as it is checked, or a
 * corpus line), or when the shrink of a failure ends on an entry's case;
 * every other failure is a divergence.
 *
 * A shrink must not slide from one bug onto another's known case, or the new
 * bug hides behind the old (a wrong verdict): a shrink keeps the kind of
 * failure it started from (shrink.c), and the run keeps it off the cases a
 * reach explains (run.c).
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The part of a canonical line before its expectation. */
static void cut_expectation(char *line)
{
    char *arrow = strstr(line, " -> ");
    if (arrow)
        *arrow = '\0';
}

int bc_case_key(const char *line, char *buf, size_t cap, char *why, size_t why_cap)
{
    int status = -1;
    if (bc_vector_line_is_partial(line)) {
        bc_pvector *v = malloc(sizeof *v);
        if (!v) {
            snprintf(why, why_cap, "out of memory");
            return -1;
        }
        int parsed = bc_pvector_parse(line, v, why, why_cap);
        if (parsed == 1 && (size_t)bc_pvector_format(v, buf, cap) < cap)
            status = 0;
        else if (parsed == 0)
            snprintf(why, why_cap, "a comment or blank line, not a case");
        else if (parsed == 1)
            snprintf(why, why_cap, "the case is too long");
        free(v);
    } else {
        bc_vector *v = malloc(sizeof *v);
        if (!v) {
            snprintf(why, why_cap, "out of memory");
            return -1;
        }
        int parsed = bc_vector_parse(line, v, why, why_cap);
        if (parsed == 1 && (size_t)bc_vector_format(v, buf, cap) < cap)
            status = 0;
        else if (parsed == 0)
            snprintf(why, why_cap, "a comment or blank line, not a case");
        else if (parsed == 1)
            snprintf(why, why_cap, "the case is too long");
        free(v);
    }
    if (status == 0)
        cut_expectation(buf);
    return status;
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

int bc_known_copy(bc_run_result *res, const bc_known_divergence *entries, int n)
{
    if (n <= 0)
        return 0;
    res->known = calloc((size_t)n, sizeof *res->known);
    if (!res->known)
        return -1;
    res->nknown = n;
    for (int i = 0; i < n; i++) {
        const bc_known_divergence *e = &entries[i];
        bc_known_result *k = &res->known[i];
        k->id = dup_or_empty(e->id);
        k->property = dup_or_empty(e->property);
        k->vector = dup_or_empty(e->vector);
        k->link = dup_or_empty(e->link);
        k->note = dup_or_empty(e->note);
        k->reach_rules = dup_or_empty(e->reach_rules);
        k->reach_ops = dup_or_empty(e->reach_ops);
        k->reach_dtypes = dup_or_empty(e->reach_dtypes);
        k->reach_detail = dup_or_empty(e->reach_detail);
        k->reach_properties = dup_or_empty(e->reach_properties);
        k->klass = e->klass;
        k->reach = e->reach;
        k->reach_strided = e->reach_strided;
        k->reach_min_shapes = e->reach_min_shapes;
        k->reach_case = dup_or_empty(e->reach_case);
        if (!k->id || !k->property || !k->vector || !k->link || !k->note || !k->reach_rules ||
            !k->reach_ops || !k->reach_dtypes || !k->reach_detail || !k->reach_properties ||
            !k->reach_case)
            return -1;
        if (bc_known_compile(k) != 0)
            return -1; /* the manifest checked it compiles: out of memory */
    }
    return 0;
}

/* 1 if list ("a,b,c"; "" is any) names word. */
static int in_list(const char *list, const char *word)
{
    if (!list[0])
        return 1;
    size_t n = strlen(word);
    for (const char *p = list; *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && strncmp(p, word, n) == 0)
            return 1;
        p += len + (comma != NULL);
    }
    return 0;
}

/* What a reach looks at in a failing case, read once from its line. */
typedef struct case_facts {
    int parsed;
    const char *rule;
    const char *op;    /* NULL: not a value case (a shape or partial line) */
    const char *dtype;
    int strided;       /* a value case with layout= */
    int nshapes;       /* the shapes of the line */
    const char *line;  /* the line itself */
} case_facts;

static case_facts facts_of(const char *line)
{
    case_facts f = {0, NULL, NULL, NULL, 0, 0, line};
    char why[256];
    if (bc_vector_line_is_partial(line)) {
        bc_pvector *v = malloc(sizeof *v);
        if (v && bc_pvector_parse(line, v, why, sizeof why) == 1)
            f = (case_facts){1, bc_rule_name(v->params.rule), NULL, NULL, 0, v->nshapes, line};
        free(v);
        return f;
    }
    bc_vector *v = malloc(sizeof *v);
    if (v && bc_vector_parse(line, v, why, sizeof why) == 1)
        f = (case_facts){1, bc_rule_name(v->params.rule),
                         v->value.present ? bc_value_case_op_name(&v->value) : NULL,
                         v->value.present ? bc_dtype_name(v->value.dtype) : NULL,
                         v->value.present && v->value.layout != 0, v->nshapes, line};
    free(v);
    return f;
}

/* 1 if a failing case (its facts, and detail: what it showed) lies within
 * k's reach. */
static int within_reach(const bc_known_result *k, const case_facts *f, const char *detail)
{
    if (!k->reach || !f->parsed || !in_list(k->reach_rules, f->rule) ||
        (k->reach_strided && !f->strided) || f->nshapes < k->reach_min_shapes)
        return 0;
    if (k->detail_regex && regexec(k->detail_regex, detail, 0, NULL, 0) != 0)
        return 0;
    if (k->case_regex && regexec(k->case_regex, f->line, 0, NULL, 0) != 0)
        return 0;
    if (!k->reach_ops[0] && !k->reach_dtypes[0])
        return 1;
    /* op= and dtype= lists take value cases only */
    return f->op && in_list(k->reach_ops, f->op) && in_list(k->reach_dtypes, f->dtype);
}

/* 1 if k's reach takes failures of the property named name. */
static int reaches_property(const bc_known_result *k, const char *name)
{
    return k->reach && (strcmp(k->property, name) == 0 ||
                        (k->reach_properties[0] && in_list(k->reach_properties, name)));
}

int bc_known_match(bc_run_result *res)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    enum { KEY = 16384 };
    char *key = malloc(KEY), *entry_key = malloc(KEY), why[256];
    if (!key || !entry_key) {
        free(key);
        free(entry_key);
        return -1;
    }
    for (int f = 0; f < res->nfailures; f++) {
        bc_failure *fl = &res->failures[f];
        fl->known = -1;
        if (!fl->minimal || bc_case_key(fl->minimal, key, KEY, why, sizeof why) != 0)
            continue;
        /* A reach takes the case as found (a corpus line; a generated case
         * within a reach was counted as checked), never the minimal one: a
         * shrink may leave the failure it started from. */
        case_facts facts = fl->original ? facts_of(fl->original) : (case_facts){0};
        /* an exact case first, then a reach */
        for (int pass = 0; pass < 2 && fl->known < 0; pass++)
            for (int i = 0; i < res->nknown && fl->known < 0; i++) {
                bc_known_result *k = &res->known[i];
                if (pass == 0 ? strcmp(k->property, props[fl->property].name) == 0 &&
                                    bc_case_key(k->vector, entry_key, KEY, why, sizeof why) == 0 &&
                                    strcmp(key, entry_key) == 0
                              : reaches_property(k, props[fl->property].name) &&
                                    within_reach(k, &facts, fl->first_detail)) {
                    fl->known = i;
                    k->explained++;
                }
            }
    }
    free(key);
    free(entry_key);
    return 0;
}

int bc_known_find(const bc_known_divergence *entries, int n, int property, const char *line,
                  const char *detail)
{
    /* the run's own matching, on a run result holding only the entries and
     * this one failure, so that replay and run can never disagree */
    bc_run_result *res = calloc(1, sizeof *res);
    if (!res)
        return -1;
    bc_failure failure = {.property = property, .original = (char *)line,
                          .minimal = (char *)line, .known = -1};
    snprintf(failure.first_detail, sizeof failure.first_detail, "%s", detail ? detail : "");
    int found = -1;
    if (bc_known_copy(res, entries, n) == 0) {
        res->failures = &failure;
        res->nfailures = 1;
        if (bc_known_match(res) == 0)
            found = failure.known;
        res->failures = NULL;
        res->nfailures = 0;
    }
    bc_known_free(res);
    free(res);
    return found;
}

int bc_known_reach(const bc_run_result *res, int property, const char *line, const char *detail)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    case_facts facts = {0, NULL, NULL, NULL, 0, 0, NULL};
    for (int i = 0; i < res->nknown; i++) {
        const bc_known_result *k = &res->known[i];
        if (!reaches_property(k, props[property].name))
            continue;
        if (!facts.parsed) /* the line is read once, and only if some reach may take it */
            facts = facts_of(line);
        if (within_reach(k, &facts, detail))
            return i;
    }
    return -1;
}

void bc_known_replay(bc_run_result *res, const bc_sut *sut, int (*stop)(void *), void *stop_ctx)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    for (int i = 0; i < res->nknown; i++) {
        bc_known_result *k = &res->known[i];
        k->status = BC_KNOWN_NOT_CHECKED;
        k->case_replay = BC_CASE_NOT_REPLAYED;
        int p = bc_property_from_name(k->property);
        if (p < 0 || i % (res->shard_count > 0 ? res->shard_count : 1) != res->shard_index) {
            snprintf(k->detail, sizeof k->detail, "replayed on shard %d",
                     i % (res->shard_count > 0 ? res->shard_count : 1) + 1);
            continue;
        }
        if (stop && stop(stop_ctx)) {
            snprintf(k->detail, sizeof k->detail, "not replayed: the run stopped first");
            continue;
        }
        char detail[1024] = "", why[256];
        int verdict = -2, timed_out = 0;
        /* A replay in which a question went unanswered in time (a slow
         * start, a saturated machine) confirms nothing: asked once more,
         * and if it times out again the entry is left not checked. */
        for (int attempt = 0; attempt < 2 && (attempt == 0 || timed_out); attempt++) {
            if (props[p].partial) {
                bc_pvector *v = malloc(sizeof *v);
                verdict = !v ? -1
                          : bc_pvector_parse(k->vector, v, why, sizeof why) != 1 ? -2
                          : res->cells[v->params.rule][p].selected
                              ? bc_replay_partial_watched(sut, p, v, detail, sizeof detail,
                                                          &timed_out)
                              : -3;
                free(v);
            } else {
                bc_vector *v = malloc(sizeof *v);
                verdict = !v ? -1
                          : bc_vector_parse(k->vector, v, why, sizeof why) != 1 ? -2
                          : res->cells[v->params.rule][p].selected
                              ? bc_replay_watched(sut, &res->semantics, res->max_bytes,
                                                  res->max_question_bytes, p, v, detail,
                                                  sizeof detail, &timed_out)
                              : -3;
                free(v);
            }
        }
        if (timed_out && verdict >= 0)
            verdict = -4;
        /* the detail cut to fit the entry's (a replay's may be longer) */
        const int fit = (int)sizeof k->detail - 32;
        switch (verdict) {
        case 1:
            k->status = BC_KNOWN_XFAIL;
            k->case_replay = BC_CASE_FAILS;
            snprintf(k->detail, sizeof k->detail, "%.*s", fit, detail);
            break;
        case 0:
            k->case_replay = BC_CASE_PASSES;
            bc_known_settle(k);
            break;
        case 2:
            k->status = BC_KNOWN_XPASS;
            k->case_replay = BC_CASE_DECLINED;
            snprintf(k->detail, sizeof k->detail, "its case is not checked: %.*s", fit, detail);
            break;
        case -3:
            snprintf(k->detail, sizeof k->detail, "its cell (%s) was not selected",
                     k->property);
            break;
        case -4:
            snprintf(k->detail, sizeof k->detail,
                     "not confirmed: a question of its replay went unanswered in time, twice "
                     "(%.*s)", fit - 80, detail);
            break;
        default:
            snprintf(k->detail, sizeof k->detail, "not replayed: %s",
                     verdict == -1 ? "out of memory" : why);
            break;
        }
    }
}
