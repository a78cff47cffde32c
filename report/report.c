/*
 * Reports: one bc_run_result turned into a human summary, a versioned JSON
 * document (jansson), JUnit XML (libxml2's xmlTextWriter) and a Markdown
 * certificate.  docs/REPORTS.md describes the JSON schema.
 *
 * Every report is first built whole in memory, then written by
 * bc_write_whole (properties/file_io.c): to a temporary file beside its
 * target, synced and renamed into place, so that a reader sees the old
 * report or the new one, never a part; or streamed to standard output.
 * Nothing here keeps state.
 */
#if !defined(_XOPEN_SOURCE) && !defined(_GNU_SOURCE) && !defined(_DEFAULT_SOURCE)
#define _XOPEN_SOURCE 700 /* mkstemp, fsync, fchmod, gmtime_r */
#endif

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <libxml/xmlwriter.h>

#include "broadcheck/report.h"
#include "broadcheck/sut_loader.h"
#include "internal.h"
#include "notes.h"
#include "text.h"

#define LL(x) ((long long)(x))

static const char *property_name(int i, char *buf, size_t cap)
{
    int n = 0;
    const bc_property_info *info = bc_properties(&n);
    if (info && i >= 0 && i < n && info[i].name)
        return info[i].name;
    snprintf(buf, cap, "property-%d", i);
    return buf;
}

static int nprops(const bc_run_result *r)
{
    int n = r->nproperties;
    if (n < 0)
        n = 0;
    return n > BC_MAX_PROPERTIES ? BC_MAX_PROPERTIES : n;
}

typedef enum verdict { V_PASS, V_FAIL, V_UNSUPPORTED, V_NOT_RUN, V_XFAIL } verdict;

/* 1 if the cell was cut short by how the run ended (not by its own
 * failure): --max-failures, a SUT given up on, a signal, no time left. */
static int cell_cut(const bc_cell *c)
{
    return c->end == BC_CELL_MAX_FAILURES || c->end == BC_CELL_UNRESPONSIVE ||
           c->end == BC_CELL_INTERRUPTED || c->end == BC_CELL_NO_TIME;
}

/* The known divergence that explains cell c's failure, or NULL. */
static const bc_known_result *cell_known(const bc_run_result *r, const bc_cell *c)
{
    if (c->failure < 0 || c->failure >= r->nfailures || !r->failures)
        return NULL;
    int k = r->failures[c->failure].known;
    return k >= 0 && k < r->nknown ? &r->known[k] : NULL;
}

static const bc_known_result *failure_known(const bc_run_result *r, const bc_failure *f)
{
    return f->known >= 0 && f->known < r->nknown ? &r->known[f->known] : NULL;
}

/* fail: some case failed; xfail: the cell's failure is a known divergence
 * (the cell stopped there, as at any failure); pass: none failed and some
 * passed; not-run: the run ended before the cell checked anything;
 * unsupported: none failed and none passed (the SUT declined every case, or
 * none ran).  An unsupported case is never a pass. */
static verdict cell_verdict(const bc_run_result *r, const bc_cell *c)
{
    if (c->failed > 0)
        return cell_known(r, c) ? V_XFAIL : V_FAIL;
    if (c->known_failed > 0)
        return V_XFAIL; /* every failing case within a known divergence's reach */
    if (c->passed > 0)
        return V_PASS;
    return cell_cut(c) && c->unsupported == 0 ? V_NOT_RUN : V_UNSUPPORTED;
}

static const char *verdict_name(verdict v)
{
    return v == V_FAIL      ? "fail"
           : v == V_XFAIL   ? "xfail"
           : v == V_PASS    ? "pass"
           : v == V_NOT_RUN ? "not-run"
                            : "unsupported";
}

/* 1 if part of what was asked for was not checked: the run ended early,
 * or some cell was cut short. */
static int run_incomplete(const bc_run_result *r)
{
    if (r->end == BC_RUN_INTERRUPTED || r->end == BC_RUN_UNRESPONSIVE)
        return 1;
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        for (int p = 0; p < BC_MAX_PROPERTIES && p < r->nproperties; p++)
            if (r->cells[rule][p].selected && cell_cut(&r->cells[rule][p]))
                return 1;
    return 0;
}

/* " (not 1-minimal: the time ran out)" for a shrink that stopped early. */
static const char *shrink_note(const bc_failure *f)
{
    switch (f->shrink_stop) {
    case BC_SHRINK_CALL_LIMIT: return " (not 1-minimal: --max-shrink-calls reached)";
    case BC_SHRINK_TIME: return " (not 1-minimal: the time ran out)";
    case BC_SHRINK_UNRESPONSIVE: return " (not 1-minimal: the SUT stopped answering)";
    case BC_SHRINK_INTERRUPTED: return " (not 1-minimal: the run was interrupted)";
    default: return "";
    }
}

typedef struct totals {
    int64_t passed, failed, unsupported, known_failed;
    int cells, failed_cells, unsupported_cells, xfail_cells;
} totals;

static totals count_totals(const bc_run_result *r)
{
    totals t = {0};
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        for (int p = 0; p < nprops(r); p++) {
            const bc_cell *c = &r->cells[rule][p];
            if (!c->selected)
                continue;
            t.passed += c->passed;
            t.failed += c->failed;
            t.unsupported += c->unsupported;
            t.known_failed += c->known_failed;
            t.cells++;
            verdict v = cell_verdict(r, c);
            t.failed_cells += v == V_FAIL;
            t.xfail_cells += v == V_XFAIL;
            t.unsupported_cells += v == V_UNSUPPORTED || v == V_NOT_RUN;
        }
    return t;
}

/* Known divergences that hold (XFAIL, or a failure of the run they explain). */
static int known_holding(const bc_run_result *r)
{
    int n = 0;
    for (int i = 0; i < r->nknown; i++)
        n += r->known[i].status == BC_KNOWN_XFAIL || r->known[i].explained > 0 ||
             r->known[i].reach_hits > 0;
    return n;
}

/* The run's verdict, in one place for every report that states it (the
 * summary's last line, the certificate's heading) and for the exit code:
 * CONFORMS, CONFORMS WITH KNOWN DIVERGENCES (0), DIVERGES and why (1), or
 * NOT CERTIFIED when too little was checked (3: a CI job must not pass on a
 * run that checked nothing, or stopped short, however clean it looks). */
static int run_verdict(const bc_run_result *r, const bc_report_notes *notes, char *buf,
                       size_t cap)
{
    totals t = count_totals(r);
    int nfail = t.failed_cells;
    int xpass = bc_run_xpass_count(r), known = known_holding(r);
    int incomplete = (notes && notes->incomplete) || run_incomplete(r);
    int checked = t.passed > 0 || t.xfail_cells > 0;
    if (nfail > 0)
        snprintf(buf, cap, "DIVERGES: %d new failure%s", nfail, nfail == 1 ? "" : "s");
    else if (r->strict && xpass > 0)
        snprintf(buf, cap, "DIVERGES: %d known divergence%s no longer fail%s (XPASS, --strict)",
                 xpass, xpass == 1 ? "" : "s", xpass == 1 ? "s" : "");
    else if (!checked)
        snprintf(buf, cap, "NOT CERTIFIED: nothing was checked");
    else if (incomplete)
        snprintf(buf, cap, "NOT CERTIFIED: incomplete");
    else if (known > 0 || t.xfail_cells > 0)
        snprintf(buf, cap, "CONFORMS WITH KNOWN DIVERGENCES (%d)", known);
    else
        snprintf(buf, cap, "CONFORMS");
    if (nfail > 0 || (r->strict && xpass > 0))
        return 1;
    return checked && !incomplete ? 0 : 3;
}

int bc_report_exit_code_noted(const bc_run_result *r, const bc_report_notes *notes)
{
    char text[128];
    return run_verdict(r, notes, text, sizeof text);
}

int bc_report_exit_code(const bc_run_result *r)
{
    return bc_report_exit_code_noted(r, NULL);
}

static int rule_selected(const bc_run_result *r, int rule)
{
    for (int p = 0; p < nprops(r); p++)
        if (r->cells[rule][p].selected)
            return 1;
    return 0;
}

static int property_selected(const bc_run_result *r, int p)
{
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        if (r->cells[rule][p].selected)
            return 1;
    return 0;
}

static void format_shard(const bc_run_result *r, char *buf, size_t cap)
{
    /* 1-based, as --shard K/N takes it */
    snprintf(buf, cap, "%d/%d", r->shard_index + 1, r->shard_count > 0 ? r->shard_count : 1);
}

static double finite_or_zero(double x)
{
    return isfinite(x) ? x : 0.0;
}

/* ---- the summary ------------------------------------------------------- */

/* Writes s with every line after the first indented, so that a value
 * holding newlines stays inside its block. */
static void sb_indented(sbuf *b, const char *s, const char *indent)
{
    if (!s) {
        sb_puts(b, "(none)");
        return;
    }
    char *c = clean_text(s, CLEAN_XML); /* no terminal escapes, valid UTF-8 */
    if (!c) {
        b->oom = 1;
        return;
    }
    for (const char *p = c; *p; p++) {
        sb_putn(b, p, 1);
        if (*p == '\n' && p[1])
            sb_puts(b, indent);
    }
    free(c);
}

static void cell_text(const bc_run_result *r, const bc_cell *c, char *buf, size_t cap)
{
    if (!c->selected) {
        snprintf(buf, cap, "-");
        return;
    }
    int n;
    switch (cell_verdict(r, c)) {
    case V_FAIL:
        n = snprintf(buf, cap, "FAIL %lld/%lld", LL(c->failed), LL(c->failed + c->passed));
        break;
    case V_XFAIL:
        if (c->failed > 0)
            n = snprintf(buf, cap, "xfail %lld/%lld (known %s)", LL(c->failed),
                         LL(c->failed + c->passed), cell_known(r, c)->id);
        else
            n = snprintf(buf, cap, "xfail %lld known, %lld passed", LL(c->known_failed),
                         LL(c->passed));
        break;
    case V_PASS:
        n = snprintf(buf, cap, "pass %lld", LL(c->passed));
        break;
    case V_NOT_RUN:
        snprintf(buf, cap, "not run (%s)", bc_cell_end_name(c->end));
        return;
    default:
        n = snprintf(buf, cap, "unsup %lld", LL(c->unsupported));
        break;
    }
    if (c->unsupported > 0 && cell_verdict(r, c) != V_UNSUPPORTED && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, " (+%lld unsup)", LL(c->unsupported));
    if (cell_cut(c) && n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " (cut short: %s)", bc_cell_end_name(c->end));
}

static void build_summary(const bc_run_result *r, const bc_report_notes *notes, sbuf *b)
{
    char shard[48], pbuf[32], cell[192];
    format_shard(r, shard, sizeof shard);
    sb_printf(b, "broadcheck %s: sut %s %s\nseed %" PRIu64 ", ", r->broadcheck_version,
              r->sut_name, r->sut_version, r->seed);
    sb_printf(b, "shard %s, jobs %d, %.2f s elapsed\n", shard, r->jobs, r->elapsed);
    if (r->manifest_path[0])
        sb_printf(b, "declared: %s %s (manifest %s)\n", r->declared_name, r->declared_version,
                  r->manifest_path);
    if (r->semantics_text[0])
        sb_printf(b, "value semantics: %s (checked as declared)\n", r->semantics_text);
    if (r->cases <= 0 && r->seconds > 0)
        sb_printf(b, "a budget of %g seconds\n", r->seconds);
    else
        sb_printf(b, "%lld cases per shape cell, %lld per value cell, %lld per partial cell\n",
                  LL(r->cases), LL(r->value_cases), LL(r->partial_cases));
    sb_printf(b, "value tier: %s", bc_value_tier_name(r->value_tier));
    if (r->max_bytes > 0)
        sb_printf(b, ", memory budget %lld bytes for the whole run", LL(r->max_bytes));
    if (r->value_bytes > 0) /* the run's throughput: the value-differential output it compared */
        sb_printf(b, ", %lld output bytes compared by value-differential (%.3g GB/s of the run's "
                     "wall time)", LL(r->value_bytes),
                  r->elapsed > 0 ? (double)r->value_bytes / r->elapsed / 1e9 : 0.0);
    sb_puts(b, "\n");
    if (notes && notes->warning) {
        sb_puts(b, "WARNING: ");
        sb_indented(b, notes->warning, "         ");
        sb_puts(b, "\n");
    }
    if (r->asked_again > 0) /* a slow machine, or a SUT slow at times: either way not failed */
        sb_printf(b, "NOTE: %lld question%s answered only when asked again, with %dx the time "
                     "limit (a busy machine?)\n",
                  LL(r->asked_again), r->asked_again == 1 ? "" : "s",
                  BC_SUT_RETRY_TIMEOUT_FACTOR);
    if (r->end != BC_RUN_COMPLETE || r->end_detail[0]) {
        sb_printf(b, "%s: ", r->end == BC_RUN_COMPLETE ? "NOTE" : "ENDED EARLY");
        sb_indented(b, r->end_detail[0] ? r->end_detail : bc_run_end_name(r->end), "  ");
        sb_puts(b, "\n");
    }

    /* The matrix: one block per rule, one line per property. */
    int np = nprops(r);
    int width = 8;
    for (int p = 0; p < np; p++)
        if (property_selected(r, p)) {
            int w = (int)strlen(property_name(p, pbuf, sizeof pbuf));
            if (w > width)
                width = w > 40 ? 40 : w;
        }
    for (int rule = 0; rule < BC_RULE_COUNT; rule++) {
        if (!rule_selected(r, rule))
            continue;
        int pass = 0, fail = 0, unsup = 0, not_run = 0, xfail = 0;
        for (int p = 0; p < np; p++) {
            const bc_cell *c = &r->cells[rule][p];
            if (!c->selected)
                continue;
            verdict v = cell_verdict(r, c);
            pass += v == V_PASS, fail += v == V_FAIL, unsup += v == V_UNSUPPORTED;
            not_run += v == V_NOT_RUN, xfail += v == V_XFAIL;
        }
        sb_printf(b, "\nrule %s: %d pass, %d FAIL, %d unsupported", bc_rule_name((bc_rule)rule),
                  pass, fail, unsup);
        if (xfail)
            sb_printf(b, ", %d known (xfail)", xfail);
        if (not_run)
            sb_printf(b, ", %d not run", not_run);
        sb_puts(b, "\n");
        for (int p = 0; p < np; p++) {
            if (!property_selected(r, p))
                continue;
            cell_text(r, &r->cells[rule][p], cell, sizeof cell);
            sb_printf(b, "  %-*s  %s\n", width, property_name(p, pbuf, sizeof pbuf), cell);
        }
    }

    sb_puts(b, "\ncoverage (cases checked):\n");
    for (int c = 0; c < BC_COV_COUNT; c++)
        sb_printf(b, "  %-20s %lld\n", bc_coverage_name((bc_coverage)c), LL(r->coverage[c]));
    sb_puts(b, "reference rejections by kind:\n");
    int any_reject = 0;
    for (int k = 1; k < BC_ERR_KIND_COUNT; k++)
        if (r->rejects[k] > 0) {
            sb_printf(b, "  %-20s %lld\n", bc_error_kind_name((bc_error_kind)k), LL(r->rejects[k]));
            any_reject = 1;
        }
    if (!any_reject)
        sb_puts(b, "  (none)\n");
    if (r->corpus_replayed > 0 || r->corpus_failed > 0)
        sb_printf(b, "corpus: %lld replayed, %lld failed\n", LL(r->corpus_replayed),
                  LL(r->corpus_failed));

    for (int i = 0; i < r->nfailures && r->failures; i++) {
        const bc_failure *f = &r->failures[i];
        const bc_known_result *k = failure_known(r, f);
        sb_printf(b, "\n%s %s on %s (", k ? "XFAIL" : "FAIL",
                  property_name(f->property, pbuf, sizeof pbuf), bc_rule_name(f->rule));
        if (f->case_index < 0)
            sb_puts(b, "corpus line)\n");
        else
            sb_printf(b, "case %lld)\n", LL(f->case_index));
        if (k) {
            sb_printf(b, "  known:    %s (class %c): ", k->id, k->klass);
            sb_indented(b, k->note, "            ");
            sb_puts(b, "\n");
        }
        sb_puts(b, "  minimal:  ");
        sb_indented(b, f->minimal, "            ");
        sb_puts(b, "\n  original: ");
        sb_indented(b, f->original, "            ");
        sb_puts(b, "\n  detail:   ");
        sb_indented(b, f->detail, "            ");
        sb_printf(b, "\n  shrink:   %d SUT calls, %d steps%s\n  replay:   ", f->shrink_calls,
                  f->shrink_steps, shrink_note(f));
        sb_indented(b, f->replay, "            ");
        sb_puts(b, "\n");
    }

    if (r->nknown > 0)
        sb_printf(b, "\nknown divergences (manifest %s):\n", r->manifest_path);
    for (int i = 0; i < r->nknown; i++) {
        const bc_known_result *k = &r->known[i];
        sb_printf(b, "  %-11s %s (class %c, %s): ", k->status == BC_KNOWN_XFAIL   ? "XFAIL"
                                                    : k->status == BC_KNOWN_XPASS ? "XPASS"
                                                                                  : "not checked",
                  k->id, k->klass, k->property);
        sb_indented(b, k->detail, "              ");
        if (k->explained > 0)
            sb_printf(b, "; explains %d failure%s of this run", k->explained,
                      k->explained == 1 ? "" : "s");
        if (k->reach_hits > 0)
            sb_printf(b, "; %lld failing case%s within its reach", LL(k->reach_hits),
                      k->reach_hits == 1 ? "" : "s");
        if (k->reach) {
            sb_printf(b, "; reach: rules %s, ops %s, dtypes %s",
                      k->reach_rules[0] ? k->reach_rules : "any",
                      k->reach_ops[0] ? k->reach_ops : "any",
                      k->reach_dtypes[0] ? k->reach_dtypes : "any");
            if (k->reach_detail[0])
                sb_printf(b, ", detail /%s/", k->reach_detail);
            if (k->reach_properties[0])
                sb_printf(b, ", also properties %s", k->reach_properties);
            if (k->reach_strided)
                sb_puts(b, ", strided inputs only");
            if (k->reach_min_shapes)
                sb_printf(b, ", cases of %d shapes or more", k->reach_min_shapes);
            if (k->reach_case[0])
                sb_printf(b, ", case lines /%s/", k->reach_case);
        }
        sb_puts(b, "\n");
    }
    if (bc_run_xpass_count(r) > 0)
        sb_printf(b, "%s: %d known divergence%s passed (XPASS): remove %s from the manifest%s\n",
                  r->strict ? "ERROR" : "WARNING", bc_run_xpass_count(r),
                  bc_run_xpass_count(r) == 1 ? "" : "s", bc_run_xpass_count(r) == 1 ? "it" : "them",
                  r->strict ? " (--strict)" : " (an error under --strict)");

    totals t = count_totals(r);
    char run_verdict_text[128];
    run_verdict(r, notes, run_verdict_text, sizeof run_verdict_text);
    sb_printf(b, "\n%lld passed, %lld failed, %lld unsupported", LL(t.passed), LL(t.failed),
              LL(t.unsupported));
    if (t.known_failed > 0)
        sb_printf(b, ", %lld known (within a known divergence's reach)", LL(t.known_failed));
    sb_printf(b, "\nverdict: %s\n", run_verdict_text);
}

void bc_report_summary(const bc_run_result *r, FILE *out)
{
    bc_report_summary_noted(r, NULL, out);
}

void bc_report_summary_noted(const bc_run_result *r, const bc_report_notes *notes, FILE *out)
{
    if (!r || !out)
        return;
    sbuf b = {0};
    build_summary(r, notes, &b);
    if (b.oom || !b.data)
        fputs("broadcheck: out of memory writing the summary\n", out);
    else
        fwrite(b.data, 1, b.len, out);
    fflush(out);
    free(b.data);
}

/* ---- JSON -------------------------------------------------------------- */

/* A JSON string of s (valid UTF-8 forced), or null for NULL. */
static json_t *jstr(const char *s)
{
    if (!s)
        return json_null();
    char *c = clean_text(s, CLEAN_JSON);
    if (!c)
        return NULL;
    json_t *j = json_string(c);
    free(c);
    return j;
}

/* Sets key; a NULL value (out of memory) counts as an error. */
static void jset(json_t *obj, const char *key, json_t *value, int *bad)
{
    if (!obj || json_object_set_new(obj, key, value) != 0)
        *bad = 1;
}

static void jappend(json_t *arr, json_t *value, int *bad)
{
    if (!arr || json_array_append_new(arr, value) != 0)
        *bad = 1;
}

/* Adds the notes' members to root; an object member goes into root's
 * object of that name (coverage classes this build does not know). */
static void add_json_notes(json_t *root, const bc_report_notes *notes, int *bad)
{
    if (!notes || !notes->json)
        return;
    const char *key;
    json_t *value;
    json_object_foreach(notes->json, key, value) {
        json_t *have = json_object_get(root, key);
        if (json_is_object(have) && json_is_object(value)) {
            if (json_object_update(have, value) != 0)
                *bad = 1;
        } else {
            jset(root, key, json_deep_copy(value), bad);
        }
    }
}

static json_t *build_json(const bc_run_result *r, const bc_report_notes *notes)
{
    int bad = 0;
    char buf[64], pbuf[32];
    json_t *root = json_object();
    if (!root)
        return NULL;
    jset(root, "schema", json_string("broadcheck-report"), &bad);
    jset(root, "schema_version", json_integer(BC_REPORT_SCHEMA_VERSION), &bad);
    jset(root, "broadcheck_version", jstr(r->broadcheck_version), &bad);
    jset(root, "broadcheck_commit", r->broadcheck_commit[0] ? jstr(r->broadcheck_commit) : json_null(),
         &bad);
    jset(root, "platform", r->platform[0] ? jstr(r->platform) : json_null(), &bad);
    jset(root, "started_at", r->started_at[0] ? jstr(r->started_at) : json_null(), &bad);

    json_t *sut = json_object();
    jset(sut, "name", jstr(r->sut_name), &bad);
    jset(sut, "version", jstr(r->sut_version), &bad);
    jset(sut, "args", jstr(r->sut_args), &bad); /* options a replay line repeats */
    /* what its manifest declares it is (null without one) */
    jset(sut, "declared_name", r->manifest_path[0] ? jstr(r->declared_name) : json_null(), &bad);
    jset(sut, "declared_version", r->manifest_path[0] ? jstr(r->declared_version) : json_null(),
         &bad);
    jset(sut, "manifest", r->manifest_path[0] ? jstr(r->manifest_path) : json_null(), &bad);
    /* the value semantics the oracle computed (docs/ENGINE.md), "" for its own */
    jset(sut, "semantics", jstr(r->semantics_text), &bad);
    jset(root, "sut", sut, &bad);

    json_t *config = json_object();
    snprintf(buf, sizeof buf, "%" PRIu64, r->seed);
    jset(config, "seed", json_string(buf), &bad);
    jset(config, "cases", json_integer(r->cases), &bad);
    jset(config, "value_cases", json_integer(r->value_cases), &bad);
    jset(config, "partial_cases", json_integer(r->partial_cases), &bad);
    jset(config, "seconds", json_real(finite_or_zero(r->seconds)), &bad);
    format_shard(r, buf, sizeof buf);
    jset(config, "shard", json_string(buf), &bad);
    jset(config, "jobs", json_integer(r->jobs), &bad);
    jset(config, "max_failures", json_integer(r->max_failures), &bad);
    jset(config, "whole_cells", json_boolean(r->whole_cells), &bad);
    jset(config, "strict", json_boolean(r->strict), &bad);
    /* how large the value cases were, and the memory a check could use */
    jset(config, "value_tier", json_string(bc_value_tier_name(r->value_tier)), &bad);
    jset(config, "max_bytes", json_integer(r->max_bytes > 0 ? r->max_bytes
                                                            : BC_VALUE_DEFAULT_MAX_BYTES), &bad);
    jset(root, "config", config, &bad);
    char verdict_text[128];
    jset(root, "conforms",
         json_boolean(run_verdict(r, notes, verdict_text, sizeof verdict_text) == 0), &bad);
    jset(root, "verdict", json_string(verdict_text), &bad);

    jset(root, "elapsed_seconds", json_real(finite_or_zero(r->elapsed)), &bad);
    jset(root, "ended", json_string(bc_run_end_name(r->end)), &bad);
    jset(root, "ended_detail", jstr(r->end_detail), &bad);

    totals t = count_totals(r);
    json_t *tot = json_object();
    jset(tot, "passed", json_integer(t.passed), &bad);
    jset(tot, "failed", json_integer(t.failed), &bad);
    jset(tot, "unsupported", json_integer(t.unsupported), &bad);
    jset(tot, "known_failed", json_integer(t.known_failed), &bad);
    jset(tot, "value_bytes", json_integer(r->value_bytes), &bad);
    jset(tot, "value_moved_bytes", json_integer(r->value_moved_bytes), &bad);
    jset(tot, "asked_again", json_integer(r->asked_again), &bad);
    jset(root, "totals", tot, &bad);

    json_t *cells = json_array();
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        for (int p = 0; p < nprops(r); p++) {
            const bc_cell *c = &r->cells[rule][p];
            if (!c->selected)
                continue;
            json_t *cell = json_object();
            jset(cell, "rule", json_string(bc_rule_name((bc_rule)rule)), &bad);
            jset(cell, "property", jstr(property_name(p, pbuf, sizeof pbuf)), &bad);
            jset(cell, "passed", json_integer(c->passed), &bad);
            jset(cell, "failed", json_integer(c->failed), &bad);
            jset(cell, "unsupported", json_integer(c->unsupported), &bad);
            jset(cell, "known_failed", json_integer(c->known_failed), &bad);
            jset(cell, "verdict", json_string(verdict_name(cell_verdict(r, c))), &bad);
            jset(cell, "ended", json_string(bc_cell_end_name(c->end)), &bad);
            jappend(cells, cell, &bad);
        }
    jset(root, "cells", cells, &bad);

    json_t *cov = json_object();
    for (int c = 0; c < BC_COV_COUNT; c++)
        jset(cov, bc_coverage_name((bc_coverage)c), json_integer(r->coverage[c]), &bad);
    jset(root, "coverage", cov, &bad);

    json_t *rejects = json_object();
    for (int k = 1; k < BC_ERR_KIND_COUNT; k++)
        jset(rejects, bc_error_kind_name((bc_error_kind)k), json_integer(r->rejects[k]), &bad);
    jset(root, "rejects", rejects, &bad);

    json_t *corpus = json_object();
    jset(corpus, "replayed", json_integer(r->corpus_replayed), &bad);
    jset(corpus, "failed", json_integer(r->corpus_failed), &bad);
    jset(root, "corpus", corpus, &bad);

    json_t *failures = json_array();
    for (int i = 0; i < r->nfailures && r->failures; i++) {
        const bc_failure *f = &r->failures[i];
        json_t *jf = json_object();
        jset(jf, "rule", json_string(bc_rule_name(f->rule)), &bad);
        jset(jf, "property", jstr(property_name(f->property, pbuf, sizeof pbuf)), &bad);
        jset(jf, "case_index", json_integer(f->case_index), &bad);
        jset(jf, "original", jstr(f->original), &bad);
        jset(jf, "minimal", jstr(f->minimal), &bad);
        jset(jf, "detail", jstr(f->detail), &bad);
        jset(jf, "replay", jstr(f->replay), &bad);
        jset(jf, "shrink_calls", json_integer(f->shrink_calls), &bad);
        jset(jf, "shrink_steps", json_integer(f->shrink_steps), &bad);
        jset(jf, "shrink_end", json_string(bc_shrink_stop_name(f->shrink_stop)), &bad);
        jset(jf, "flaky", json_boolean(f->flaky), &bad);
        jset(jf, "first_detail", jstr(f->first_detail), &bad);
        jset(jf, "corpus_line", f->corpus_line > 0 ? json_integer(f->corpus_line) : json_null(),
             &bad);
        const bc_known_result *k = failure_known(r, f);
        jset(jf, "known", k ? jstr(k->id) : json_null(), &bad);
        jappend(failures, jf, &bad);
    }
    jset(root, "failures", failures, &bad);

    json_t *known = json_array();
    for (int i = 0; i < r->nknown; i++) {
        const bc_known_result *k = &r->known[i];
        json_t *jk = json_object();
        char klass[2] = {k->klass, '\0'};
        jset(jk, "id", jstr(k->id), &bad);
        jset(jk, "class", json_string(klass), &bad);
        jset(jk, "property", jstr(k->property), &bad);
        jset(jk, "case", jstr(k->vector), &bad);
        jset(jk, "link", jstr(k->link), &bad);
        jset(jk, "note", jstr(k->note), &bad);
        if (k->reach) {
            json_t *reach = json_object();
            jset(reach, "rules", jstr(k->reach_rules), &bad);
            jset(reach, "ops", jstr(k->reach_ops), &bad);
            jset(reach, "dtypes", jstr(k->reach_dtypes), &bad);
            jset(reach, "detail", jstr(k->reach_detail), &bad);
            jset(reach, "properties", jstr(k->reach_properties), &bad);
            jset(reach, "strided", json_boolean(k->reach_strided), &bad);
            if (k->reach_min_shapes) /* left out when 0: reports before it stay as they were */
                jset(reach, "min_shapes", json_integer(k->reach_min_shapes), &bad);
            if (k->reach_case[0]) /* likewise */
                jset(reach, "case_line", jstr(k->reach_case), &bad);
            jset(jk, "reach", reach, &bad);
        } else {
            jset(jk, "reach", json_null(), &bad);
        }
        jset(jk, "status", json_string(bc_known_status_name(k->status)), &bad);
        jset(jk, "case_replay", json_string(bc_case_replay_name(k->case_replay)), &bad);
        jset(jk, "detail", jstr(k->detail), &bad);
        jset(jk, "explained", json_integer(k->explained), &bad);
        jset(jk, "reach_hits", json_integer(k->reach_hits), &bad);
        jappend(known, jk, &bad);
    }
    jset(root, "known_divergences", known, &bad);
    add_json_notes(root, notes, &bad);

    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int bc_report_json(const bc_run_result *r, const char *path, char *why, size_t cap)
{
    return bc_report_json_noted(r, NULL, path, why, cap);
}

int bc_report_json_noted(const bc_run_result *r, const bc_report_notes *notes, const char *path,
                         char *why, size_t cap)
{
    if (!r) {
        set_why(why, cap, "cannot write JSON report: no run result");
        return -1;
    }
    json_t *root = build_json(r, notes);
    char *text = root ? json_dumps(root, JSON_INDENT(2)) : NULL;
    json_decref(root);
    sbuf b = {0};
    if (text) {
        sb_puts(&b, text);
        sb_puts(&b, "\n");
        free(text);
    } else {
        b.oom = 1;
    }
    return write_sbuf(&b, path, "JSON", why, cap);
}

/* ---- JUnit XML --------------------------------------------------------- */

/* Each helper adds a failed libxml2 call to *bad. */
static void x_start(xmlTextWriterPtr w, const char *name, int *bad)
{
    if (xmlTextWriterStartElement(w, BAD_CAST name) < 0)
        *bad = 1;
}

static void x_end(xmlTextWriterPtr w, int *bad)
{
    if (xmlTextWriterEndElement(w) < 0)
        *bad = 1;
}

static void x_attr(xmlTextWriterPtr w, const char *name, const char *value, int *bad)
{
    char *c = clean_text(value, CLEAN_XML);
    if (!c || xmlTextWriterWriteAttribute(w, BAD_CAST name, BAD_CAST c) < 0)
        *bad = 1;
    free(c);
}

static void x_attr_int(xmlTextWriterPtr w, const char *name, long long value, int *bad)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", value);
    x_attr(w, name, buf, bad);
}

static void x_text(xmlTextWriterPtr w, const char *text, int *bad)
{
    char *c = clean_text(text, CLEAN_XML);
    if (!c || xmlTextWriterWriteString(w, BAD_CAST c) < 0)
        *bad = 1;
    free(c);
}

static void x_property(xmlTextWriterPtr w, const char *name, const char *value, int *bad)
{
    x_start(w, "property", bad);
    x_attr(w, "name", name, bad);
    x_attr(w, "value", value, bad);
    x_end(w, bad);
}

/* 1 if cell c failed because the SUT did not answer its minimal case: a
 * crash, a timeout, a protocol error or an exception, which every property
 * words as "internal error (...)" (property.c, partial.c): JUnit's
 * <error>, not a <failure>, a wrong answer. */
static int cell_errored(const bc_run_result *r, const bc_cell *c)
{
    if (c->failure < 0 || c->failure >= r->nfailures || !r->failures)
        return 0;
    return strstr(r->failures[c->failure].detail, "internal error (") != NULL;
}

static void build_junit_suite(const bc_run_result *r, const bc_report_notes *notes, int rule,
                              xmlTextWriterPtr w, int *bad)
{
    char name[96], buf[64], pbuf[32];
    int tests = 0, failures = 0, errors = 0, skipped = 0;
    for (int p = 0; p < nprops(r); p++) {
        const bc_cell *c = &r->cells[rule][p];
        if (!c->selected)
            continue;
        tests++;
        verdict v = cell_verdict(r, c);
        errors += v == V_FAIL && cell_errored(r, c);
        failures += v == V_FAIL && !cell_errored(r, c);
        skipped += v == V_UNSUPPORTED || v == V_NOT_RUN || v == V_XFAIL;
    }
    snprintf(name, sizeof name, "broadcheck.%s", bc_rule_name((bc_rule)rule));
    x_start(w, "testsuite", bad);
    x_attr(w, "name", name, bad);
    x_attr_int(w, "tests", tests, bad);
    x_attr_int(w, "failures", failures, bad);
    x_attr_int(w, "errors", errors, bad);
    x_attr_int(w, "skipped", skipped, bad);

    x_start(w, "properties", bad);
    snprintf(buf, sizeof buf, "%" PRIu64, r->seed);
    x_property(w, "seed", buf, bad);
    x_property(w, "sut", r->sut_name, bad);
    x_property(w, "sut_version", r->sut_version, bad);
    x_property(w, "broadcheck_version", r->broadcheck_version, bad);
    snprintf(buf, sizeof buf, "%lld", LL(r->cases));
    x_property(w, "cases", buf, bad);
    snprintf(buf, sizeof buf, "%lld", LL(r->value_cases));
    x_property(w, "value_cases", buf, bad);
    snprintf(buf, sizeof buf, "%lld", LL(r->partial_cases));
    x_property(w, "partial_cases", buf, bad);
    snprintf(buf, sizeof buf, "%g", finite_or_zero(r->seconds));
    x_property(w, "seconds", buf, bad);
    format_shard(r, buf, sizeof buf);
    x_property(w, "shard", buf, bad);
    if (notes && notes->warning)
        x_property(w, "warning", notes->warning, bad);
    x_end(w, bad);

    for (int p = 0; p < nprops(r); p++) {
        const bc_cell *c = &r->cells[rule][p];
        if (!c->selected)
            continue;
        const char *prop = property_name(p, pbuf, sizeof pbuf);
        x_start(w, "testcase", bad);
        x_attr(w, "name", prop, bad);
        x_attr(w, "classname", name, bad);
        verdict v = cell_verdict(r, c);
        const bc_failure *f = NULL;
        if (c->failure >= 0 && c->failure < r->nfailures && r->failures)
            f = &r->failures[c->failure];
        if (v == V_FAIL) {
            x_start(w, cell_errored(r, c) ? "error" : "failure", bad);
            char msg[160];
            snprintf(msg, sizeof msg, "%lld of %lld cases failed", LL(c->failed),
                     LL(c->failed + c->passed));
            x_attr(w, "message", f ? f->detail : msg, bad);
            x_attr(w, "type", prop, bad);
            sbuf t = {0};
            sb_printf(&t, "%s\n", msg);
            if (f) {
                sb_printf(&t, "minimal:  %s\noriginal: %s\n", f->minimal ? f->minimal : "(none)",
                          f->original ? f->original : "(none)");
                if (f->case_index >= 0)
                    sb_printf(&t, "case:     %lld\n", LL(f->case_index));
                else
                    sb_puts(&t, "case:     a corpus line\n");
                sb_printf(&t, "detail:   %s\nshrink:   %d SUT calls, %d steps%s\nreplay:   %s\n",
                          f->detail, f->shrink_calls, f->shrink_steps, shrink_note(f),
                          f->replay ? f->replay : "(none)");
            }
            if (t.oom)
                *bad = 1;
            else
                x_text(w, t.data, bad);
            free(t.data);
            x_end(w, bad);
        } else if (v == V_XFAIL) {
            /* a known divergence: skipped with its reason, never a pass */
            const bc_known_result *k = cell_known(r, c);
            sbuf t = {0};
            if (k)
                sb_printf(&t, "known divergence %s (class %c): %s", k->id, k->klass, k->note);
            else
                sb_printf(&t, "%lld failing cases, each within a known divergence's reach",
                          LL(c->known_failed));
            x_start(w, "skipped", bad);
            x_attr(w, "message", t.oom ? "known divergence" : t.data, bad);
            free(t.data);
            x_end(w, bad);
            sbuf o = {0};
            sb_printf(&o, "XFAIL: %lld of %lld cases failed\nminimal:  %s\ndetail:   %s\n"
                          "replay:   %s\n", LL(c->failed), LL(c->failed + c->passed),
                      f && f->minimal ? f->minimal : "(none)", f ? f->detail : "",
                      f && f->replay ? f->replay : "(none)");
            x_start(w, "system-out", bad);
            if (o.oom)
                *bad = 1;
            else
                x_text(w, o.data, bad);
            free(o.data);
            x_end(w, bad);
        } else if (v == V_UNSUPPORTED || v == V_NOT_RUN) {
            char msg[160];
            if (v == V_NOT_RUN)
                snprintf(msg, sizeof msg, "not run: %s", bc_cell_end_name(c->end));
            else if (c->unsupported > 0)
                snprintf(msg, sizeof msg, "unsupported by the SUT: %lld cases, none checked",
                         LL(c->unsupported));
            else
                snprintf(msg, sizeof msg, "no case ran");
            x_start(w, "skipped", bad);
            x_attr(w, "message", msg, bad);
            x_end(w, bad);
        } else {
            char msg[160];
            snprintf(msg, sizeof msg, "%lld cases passed, %lld unsupported\n", LL(c->passed),
                     LL(c->unsupported));
            x_start(w, "system-out", bad);
            x_text(w, msg, bad);
            x_end(w, bad);
        }
        x_end(w, bad); /* testcase */
    }
    x_end(w, bad); /* testsuite */
}

int bc_report_junit(const bc_run_result *r, const char *path, char *why, size_t cap)
{
    return bc_report_junit_noted(r, NULL, path, why, cap);
}

int bc_report_junit_noted(const bc_run_result *r, const bc_report_notes *notes, const char *path,
                          char *why, size_t cap)
{
    if (!r) {
        set_why(why, cap, "cannot write JUnit report: no run result");
        return -1;
    }
    int bad = 0;
    xmlBufferPtr xbuf = xmlBufferCreate();
    xmlTextWriterPtr w = xbuf ? xmlNewTextWriterMemory(xbuf, 0) : NULL;
    if (!w) {
        if (xbuf)
            xmlBufferFree(xbuf);
        set_why(why, cap, "cannot write JUnit report '%s': out of memory", path ? path : "");
        return -1;
    }
    if (xmlTextWriterSetIndent(w, 1) < 0 || xmlTextWriterSetIndentString(w, BAD_CAST "  ") < 0)
        bad = 1;
    if (xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL) < 0)
        bad = 1;

    totals t = count_totals(r);
    int errors = 0;
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        for (int p = 0; p < nprops(r); p++)
            errors += r->cells[rule][p].selected && cell_verdict(r, &r->cells[rule][p]) == V_FAIL &&
                      cell_errored(r, &r->cells[rule][p]);
    x_start(w, "testsuites", &bad);
    x_attr(w, "name", "broadcheck", &bad);
    x_attr_int(w, "tests", t.cells, &bad);
    x_attr_int(w, "failures", t.failed_cells - errors, &bad);
    x_attr_int(w, "errors", errors, &bad);
    x_attr_int(w, "skipped", t.unsupported_cells + t.xfail_cells, &bad);
    char tbuf[48];
    snprintf(tbuf, sizeof tbuf, "%.3f", finite_or_zero(r->elapsed));
    x_attr(w, "time", tbuf, &bad);
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        if (rule_selected(r, rule))
            build_junit_suite(r, notes, rule, w, &bad);
    x_end(w, &bad);
    if (xmlTextWriterEndDocument(w) < 0)
        bad = 1;
    xmlFreeTextWriter(w); /* flushes into xbuf */

    sbuf b = {0};
    if (bad)
        b.oom = 1;
    else
        sb_putn(&b, (const char *)xmlBufferContent(xbuf), (size_t)xmlBufferLength(xbuf));
    xmlBufferFree(xbuf);
    if (bad) {
        set_why(why, cap, "cannot write JUnit report '%s': building the XML failed",
                path ? path : "");
        free(b.data);
        return -1;
    }
    return write_sbuf(&b, path, "JUnit", why, cap);
}

/* ---- the Markdown certificate ------------------------------------------ */

/* Inline Markdown text: one line, its markup characters escaped. */
static void md_inline(sbuf *b, const char *s)
{
    char *c = clean_text(s, CLEAN_LINE);
    if (!c) {
        b->oom = 1;
        return;
    }
    for (const char *p = c; *p; p++) {
        if (strchr("\\`*_[]<>|~&", *p))
            sb_putn(b, "\\", 1);
        sb_putn(b, p, 1);
    }
    free(c);
}

/* A fenced code block holding s verbatim, its fence longer than any run
 * of backticks inside. */
static void md_code(sbuf *b, const char *s, const char *lang)
{
    char *c = clean_text(s ? s : "(none)", CLEAN_XML);
    if (!c) {
        b->oom = 1;
        return;
    }
    int run = 0, longest = 0;
    for (const char *p = c; *p; p++) {
        run = *p == '`' ? run + 1 : 0;
        if (run > longest)
            longest = run;
    }
    int fence = longest >= 3 ? longest + 1 : 3;
    for (int i = 0; i < fence; i++)
        sb_puts(b, "`");
    sb_printf(b, "%s\n%s", lang, c);
    if (!*c || c[strlen(c) - 1] != '\n')
        sb_puts(b, "\n");
    for (int i = 0; i < fence; i++)
        sb_puts(b, "`");
    sb_puts(b, "\n");
    free(c);
}

static void build_certificate(const bc_run_result *r, const bc_report_notes *notes, sbuf *b)
{
    char pbuf[32], shard[48], date[64];
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm);
    else
        snprintf(date, sizeof date, "unknown");
    format_shard(r, shard, sizeof shard);
    totals t = count_totals(r);
    int np = nprops(r);

    sb_puts(b, "# broadcheck certificate: ");
    md_inline(b, r->sut_name);
    sb_puts(b, " ");
    md_inline(b, r->sut_version);
    sb_puts(b, "\n\n");

    sb_printf(b, "- **Date (UTC):** %s\n", date);
    sb_puts(b, "- **broadcheck version:** ");
    md_inline(b, r->broadcheck_version);
    if (r->broadcheck_commit[0]) {
        sb_puts(b, " (commit ");
        md_inline(b, r->broadcheck_commit);
        sb_puts(b, ")");
    }
    if (r->platform[0]) {
        sb_puts(b, "\n- **Platform:** ");
        md_inline(b, r->platform);
    }
    if (r->started_at[0]) {
        sb_puts(b, "\n- **Started (UTC):** ");
        md_inline(b, r->started_at);
    }
    sb_puts(b, "\n- **System under test:** ");
    md_inline(b, r->sut_name);
    sb_puts(b, " ");
    md_inline(b, r->sut_version);
    if (r->manifest_path[0]) {
        sb_puts(b, "\n- **Declared by its manifest:** ");
        md_inline(b, r->declared_name);
        sb_puts(b, " ");
        md_inline(b, r->declared_version);
        sb_puts(b, " (`");
        md_inline(b, r->manifest_path);
        sb_printf(b, "`, %d known divergence%s%s)", r->nknown, r->nknown == 1 ? "" : "s",
                  r->strict ? ", --strict" : "");
    }
    if (r->semantics_text[0]) {
        sb_puts(b, "\n- **Value semantics (declared, checked):** `");
        md_inline(b, r->semantics_text);
        sb_puts(b, "`");
    }
    sb_printf(b, "\n- **Seed:** `%" PRIu64 "`\n", r->seed);
    sb_printf(b, "- **Value tier:** %s\n", bc_value_tier_name(r->value_tier));
    if (r->cases <= 0 && r->seconds > 0)
        sb_printf(b, "- **Budget:** %g seconds\n", r->seconds);
    else
        sb_printf(b, "- **Cases per rule x property:** %lld (shape properties), %lld (value "
                     "properties), %lld (partial properties)\n", LL(r->cases), LL(r->value_cases),
                  LL(r->partial_cases));
    sb_printf(b, "- **Shard:** %s (shard K of N, as `--shard K/N`), **jobs:** %d, **elapsed:** %.2f s\n",
              shard, r->jobs, r->elapsed);
    if (r->corpus_replayed > 0 || r->corpus_failed > 0)
        sb_printf(b, "- **Corpus:** %lld lines replayed, %lld failed\n", LL(r->corpus_replayed),
                  LL(r->corpus_failed));
    if (r->end != BC_RUN_COMPLETE || r->end_detail[0]) {
        sb_printf(b, "- **%s:** ", r->end == BC_RUN_COMPLETE ? "Note" : "Ended early");
        md_inline(b, r->end_detail[0] ? r->end_detail : bc_run_end_name(r->end));
        sb_puts(b, "\n");
    }
    sb_puts(b, "\n");
    if (notes && notes->warning) {
        sb_puts(b, "> **Warning:** ");
        md_inline(b, notes->warning);
        sb_puts(b, "\n\n");
    }

    char run_verdict_text[128];
    int certified = run_verdict(r, notes, run_verdict_text, sizeof run_verdict_text) == 0;
    sb_printf(b, "## Verdict: %s\n\n", run_verdict_text);
    if (certified && t.xfail_cells == 0 && known_holding(r) == 0)
        sb_printf(b, "Every property passed on every rule checked (%lld cases passed in %d "
                     "rule x property cells).\n\n",
                  LL(t.passed), t.cells - t.unsupported_cells);
    else if (certified)
        sb_printf(b, "Every failure is a known divergence the manifest declares (%d cell%s "
                     "with known failures; see *Known divergences*); %lld cases passed.\n\n",
                  t.xfail_cells, t.xfail_cells == 1 ? "" : "s", LL(t.passed));
    else if (t.failed_cells == 0 && r->strict && bc_run_xpass_count(r) > 0)
        sb_puts(b, "No new failure, but a known divergence's case passes (XPASS), an error "
                   "under --strict: update the manifest.\n\n");
    else if (t.failed == 0 && r->corpus_failed == 0 && t.passed > 0 && notes &&
             notes->incomplete)
        sb_puts(b, "No case failed, but part of the run is missing (see the warning above), "
                   "so its cases were not checked.\n\n");
    else if (t.failed == 0 && r->corpus_failed == 0 && t.passed > 0) {
        sb_puts(b, "No case failed, but the run ended before it checked everything: ");
        md_inline(b, r->end_detail[0] ? r->end_detail : "some cells were cut short");
        sb_puts(b, " (the cells marked *not run* or *cut short* below).\n\n");
    }
    else if (t.failed == 0 && r->corpus_failed == 0)
        sb_puts(b, "No case passed: every selected cell was unsupported or empty.\n\n");
    else
        sb_printf(b, "%d of %d rule x property cells failed (%lld failing cases, %lld "
                     "passing).\n\n",
                  t.failed_cells, t.cells, LL(t.failed), LL(t.passed));

    sb_printf(b, "## Replaying this run\n\n"
                 "The same broadcheck version, SUT, seed, case count (or time budget) and "
                 "shard give the same cases, counts and case ids, whatever the number of "
                 "jobs: rerun with seed `%" PRIu64 "`, ",
              r->seed);
    if (r->cases <= 0 && r->seconds > 0)
        sb_printf(b, "%g seconds", r->seconds);
    else
        sb_printf(b, "%lld cases per shape cell, %lld per value cell and %lld per partial cell",
                  LL(r->cases), LL(r->value_cases), LL(r->partial_cases));
    sb_printf(b, " and shard `%s`, selecting the rules and properties of the table below. "
                 "Each failure below has its own replay line.\n\n",
              shard);

    sb_puts(b, "## Results\n\n| rule |");
    for (int p = 0; p < np; p++)
        if (property_selected(r, p)) {
            sb_puts(b, " ");
            md_inline(b, property_name(p, pbuf, sizeof pbuf));
            sb_puts(b, " |");
        }
    sb_puts(b, "\n|---|");
    for (int p = 0; p < np; p++)
        if (property_selected(r, p))
            sb_puts(b, "---|");
    sb_puts(b, "\n");
    for (int rule = 0; rule < BC_RULE_COUNT; rule++) {
        if (!rule_selected(r, rule))
            continue;
        sb_puts(b, "| ");
        md_inline(b, bc_rule_name((bc_rule)rule));
        sb_puts(b, " |");
        for (int p = 0; p < np; p++) {
            if (!property_selected(r, p))
                continue;
            const bc_cell *c = &r->cells[rule][p];
            if (!c->selected)
                sb_puts(b, " – |");
            else if (cell_verdict(r, c) == V_FAIL)
                sb_printf(b, " ❌ %lld/%lld |", LL(c->failed), LL(c->failed + c->passed));
            else if (cell_verdict(r, c) == V_XFAIL && cell_known(r, c)) {
                sb_puts(b, " ⚠️ known `");
                md_inline(b, cell_known(r, c)->id);
                sb_puts(b, "` |");
            } else if (cell_verdict(r, c) == V_XFAIL)
                sb_printf(b, " ⚠️ %lld known, ✅ %lld |", LL(c->known_failed), LL(c->passed));
            else if (cell_verdict(r, c) == V_PASS)
                sb_printf(b, " ✅ %lld%s |", LL(c->passed), cell_cut(c) ? " (cut short)" : "");
            else if (cell_verdict(r, c) == V_NOT_RUN)
                sb_puts(b, " not run |");
            else
                sb_puts(b, " unsupported |");
        }
        sb_puts(b, "\n");
    }
    sb_printf(b, "\n✅ N: N cases passed. ❌ n/N: n of N checked cases failed. ⚠️ known: the "
                 "cell failed on a known divergence and stopped there (its other cases were "
                 "not examined); ⚠️ n known, ✅ N: n failing cases within a known divergence's "
                 "reach (the cell went on), N passed. unsupported: the SUT declined every case. not run: the run "
                 "ended before the cell was checked. –: not selected.\n\n"
                 "Totals: %lld passed, %lld failed, %lld unsupported.\n\n",
              LL(t.passed), LL(t.failed), LL(t.unsupported));
    if (r->nknown > 0) {
        sb_puts(b, "## Known divergences\n\n| id | class | property | status | explains | "
                   "case | note |\n|---|---|---|---|---:|---|---|\n");
        for (int i = 0; i < r->nknown; i++) {
            const bc_known_result *k = &r->known[i];
            sb_puts(b, "| `");
            md_inline(b, k->id);
            sb_printf(b, "` | %c | ", k->klass);
            md_inline(b, k->property);
            sb_printf(b, " | %s | %lld | `", k->status == BC_KNOWN_XFAIL   ? "XFAIL"
                                             : k->status == BC_KNOWN_XPASS ? "**XPASS**"
                                                                           : "not checked",
                      LL(k->explained + k->reach_hits));
            md_inline(b, k->vector);
            sb_puts(b, "` | ");
            md_inline(b, k->note);
            if (k->reach) {
                sb_puts(b, " (reach: rules ");
                md_inline(b, k->reach_rules[0] ? k->reach_rules : "any");
                sb_puts(b, ", ops ");
                md_inline(b, k->reach_ops[0] ? k->reach_ops : "any");
                sb_puts(b, ", dtypes ");
                md_inline(b, k->reach_dtypes[0] ? k->reach_dtypes : "any");
                if (k->reach_properties[0]) {
                    sb_puts(b, ", also properties ");
                    md_inline(b, k->reach_properties);
                }
                if (k->reach_detail[0]) {
                    sb_puts(b, ", detail `");
                    md_inline(b, k->reach_detail);
                    sb_puts(b, "`");
                }
                if (k->reach_strided)
                    sb_puts(b, ", strided inputs only");
                if (k->reach_min_shapes)
                    sb_printf(b, ", cases of %d shapes or more", k->reach_min_shapes);
                if (k->reach_case[0]) {
                    sb_puts(b, ", case lines `");
                    md_inline(b, k->reach_case);
                    sb_puts(b, "`");
                }
                sb_puts(b, ")");
            }
            if (k->link[0]) {
                sb_puts(b, " ");
                md_inline(b, k->link);
            }
            sb_puts(b, " |\n");
        }
        sb_puts(b, "\nClass a: a bug of the SUT; b: a declared limit; c: a legitimate variant "
                   "of the rule. XFAIL: its case still fails, as declared. XPASS: it passes "
                   "(or is declined) now, so the entry is stale.\n\n");
    }

    sb_puts(b, "## Coverage\n\n| class | cases |\n|---|---:|\n");
    for (int c = 0; c < BC_COV_COUNT; c++)
        sb_printf(b, "| %s | %lld |\n", bc_coverage_name((bc_coverage)c), LL(r->coverage[c]));
    sb_puts(b, "\n| reference rejection | cases |\n|---|---:|\n");
    for (int k = 1; k < BC_ERR_KIND_COUNT; k++)
        sb_printf(b, "| %s | %lld |\n", bc_error_kind_name((bc_error_kind)k), LL(r->rejects[k]));
    sb_puts(b, "\n");

    sb_puts(b, "## Failures\n\n");
    if (r->nfailures <= 0 || !r->failures)
        sb_puts(b, "None.\n\n");
    for (int i = 0; i < r->nfailures && r->failures; i++) {
        const bc_failure *f = &r->failures[i];
        sb_printf(b, "### %d. %s", i + 1, failure_known(r, f) ? "(known) " : "");
        md_inline(b, property_name(f->property, pbuf, sizeof pbuf));
        sb_puts(b, " on ");
        md_inline(b, bc_rule_name(f->rule));
        if (f->case_index >= 0)
            sb_printf(b, " (case %lld)\n\n", LL(f->case_index));
        else
            sb_puts(b, " (corpus line)\n\n");
        sb_puts(b, "What disagreed:\n\n");
        md_code(b, f->detail, "");
        sb_printf(b, "\nMinimal case (after %d SUT calls, %d simplifications%s):\n\n",
                  f->shrink_calls, f->shrink_steps, shrink_note(f));
        md_code(b, f->minimal, "");
        sb_puts(b, "\nOriginal case:\n\n");
        md_code(b, f->original, "");
        sb_puts(b, "\nReplay:\n\n");
        md_code(b, f->replay, "sh");
        sb_puts(b, "\n");
    }

    sb_puts(b, "## What was not checked\n\n");
    int any = 0;
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        for (int p = 0; p < np; p++) {
            const bc_cell *c = &r->cells[rule][p];
            if (!c->selected ||
                (c->unsupported <= 0 && cell_verdict(r, c) != V_UNSUPPORTED && !cell_cut(c)))
                continue;
            any = 1;
            sb_puts(b, "- ");
            md_inline(b, property_name(p, pbuf, sizeof pbuf));
            sb_puts(b, " on ");
            md_inline(b, bc_rule_name((bc_rule)rule));
            if (cell_cut(c))
                sb_printf(b, ": %s (%s)\n", cell_verdict(r, c) == V_NOT_RUN ? "not run" : "cut short",
                          bc_cell_end_name(c->end));
            else if (cell_verdict(r, c) == V_UNSUPPORTED)
                sb_printf(b, ": unsupported (%lld cases declined by the SUT, none checked)\n",
                          LL(c->unsupported));
            else
                sb_printf(b, ": %lld of its cases were unsupported and not checked\n",
                          LL(c->unsupported));
        }
    if (!any)
        sb_puts(b, "Every selected cell was checked; no case was unsupported.\n");
    sb_puts(b, "\nRule x property cells marked – were not selected for this run and were not "
               "checked.\n");
}

int bc_report_certificate(const bc_run_result *r, const char *path, char *why, size_t cap)
{
    return bc_report_certificate_noted(r, NULL, path, why, cap);
}

int bc_report_certificate_noted(const bc_run_result *r, const bc_report_notes *notes,
                                const char *path, char *why, size_t cap)
{
    if (!r) {
        set_why(why, cap, "cannot write certificate: no run result");
        return -1;
    }
    sbuf b = {0};
    build_certificate(r, notes, &b);
    return write_sbuf(&b, path, "certificate", why, cap);
}
