/*
 * What a run result says of its known divergences (known.c fills it): the
 * part the report writers need, kept apart from the replaying so that the
 * writers' tests link without the property engine.
 */
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *bc_known_status_name(bc_known_status s)
{
    switch (s) {
    case BC_KNOWN_XFAIL: return "xfail";
    case BC_KNOWN_XPASS: return "xpass";
    default: return "not-checked";
    }
}

static const char *const case_replay_names[] = {"not-replayed", "fails", "passes",
                                                 "declined"};

const char *bc_case_replay_name(bc_case_replay r)
{
    return (unsigned)r < sizeof case_replay_names / sizeof *case_replay_names
               ? case_replay_names[r]
               : case_replay_names[0];
}

bc_case_replay bc_case_replay_from_name(const char *name)
{
    for (size_t i = 0; name && i < sizeof case_replay_names / sizeof *case_replay_names; i++)
        if (strcmp(name, case_replay_names[i]) == 0)
            return (bc_case_replay)i;
    return BC_CASE_NOT_REPLAYED;
}

static int compile_one(const char *text, void **out)
{
    if (!text || !text[0])
        return 0;
    regex_t *re = malloc(sizeof *re);
    if (!re || regcomp(re, text, REG_EXTENDED | REG_NOSUB) != 0) {
        free(re);
        return -1;
    }
    *out = re;
    return 0;
}

int bc_known_compile(bc_known_result *k)
{
    return compile_one(k->reach_detail, &k->detail_regex) != 0 ||
                   compile_one(k->reach_case, &k->case_regex) != 0
               ? -1
               : 0;
}

void bc_known_free(bc_run_result *res)
{
    for (int i = 0; i < res->nknown; i++) {
        bc_known_result *k = &res->known[i];
        free(k->id);
        free(k->property);
        free(k->vector);
        free(k->link);
        free(k->note);
        free(k->reach_rules);
        free(k->reach_ops);
        free(k->reach_dtypes);
        free(k->reach_detail);
        free(k->reach_properties);
        if (k->detail_regex)
            regfree(k->detail_regex);
        free(k->detail_regex);
        free(k->reach_case);
        if (k->case_regex)
            regfree(k->case_regex);
        free(k->case_regex);
    }
    free(res->known);
    res->known = NULL;
    res->nknown = 0;
}

int bc_run_known_count(const bc_run_result *r)
{
    return r->nknown;
}

bc_known_info bc_run_known(const bc_run_result *r, int i)
{
    const bc_known_result *k = &r->known[i];
    bc_known_info info;
    memset(&info, 0, sizeof info);
    info.entry = (bc_known_divergence){k->id,       k->klass,      k->property,
                                       k->vector,   k->link,       k->note,
                                       k->reach,    k->reach_rules, k->reach_ops,
                                       k->reach_dtypes, k->reach_detail,
                                       k->reach_properties, k->reach_strided,
                                       k->reach_min_shapes, k->reach_case};
    info.status = k->status;
    info.detail = k->detail;
    info.explained = k->explained;
    info.reach_hits = k->reach_hits;
    return info;
}

int bc_known_settle(bc_known_result *k)
{
    if (k->case_replay != BC_CASE_PASSES)
        return 0;
    const int64_t seen = k->reach_hits + k->explained;
    if (seen <= 0) {
        k->status = BC_KNOWN_XPASS;
        snprintf(k->detail, sizeof k->detail, "its case passes");
        return 0;
    }
    k->status = BC_KNOWN_XFAIL;
    snprintf(k->detail, sizeof k->detail,
             "its case passed when replayed, but %lld failing case%s of this run %s within it: "
             "it fails intermittently",
             (long long)seen, seen == 1 ? "" : "s", seen == 1 ? "lies" : "lie");
    return 1;
}

int bc_run_new_failures(const bc_run_result *r)
{
    int n = 0;
    for (int f = 0; f < r->nfailures; f++)
        n += r->failures[f].known < 0;
    return n;
}

int bc_run_xpass_count(const bc_run_result *r)
{
    int n = 0;
    for (int i = 0; i < r->nknown; i++)
        n += r->known[i].status == BC_KNOWN_XPASS;
    return n;
}
