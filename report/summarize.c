/*
 * broadcheck summarize: the JSON reports of several SUTs (one each, as
 * scripts/certify-libraries.sh writes them) as one Markdown table and one
 * self-contained HTML page: a row per SUT with its verdict and known
 * divergences, then per SUT its rule x property matrix, each failing cell
 * linked to its minimal case and replay line.  Every figure comes from the
 * reports; nothing is typed by hand.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "broadcheck/report.h"
#include "internal.h"
#include "text.h"

typedef struct sut_report {
    const char *path;
    json_t *root;
    const char *name, *version, *verdict;
    int conforms;
    int pass, fail, xfail, unsupported, not_run; /* cells */
} sut_report;

static const char *text_of(json_t *obj, const char *key)
{
    const char *s = json_string_value(json_object_get(obj, key));
    return s ? s : "";
}

static int load(sut_report *s, char *why, size_t cap)
{
    json_error_t err;
    s->root = json_load_file(s->path, 0, &err);
    if (!s->root) {
        set_why(why, cap, "'%s': line %d: %s", s->path, err.line, err.text);
        return -1;
    }
    json_t *sut = json_object_get(s->root, "sut");
    if (strcmp(text_of(s->root, "schema"), "broadcheck-report") != 0 ||
        json_integer_value(json_object_get(s->root, "schema_version")) != BC_REPORT_SCHEMA_VERSION) {
        set_why(why, cap, "'%s': not a broadcheck report of schema version %d", s->path,
                BC_REPORT_SCHEMA_VERSION);
        return -1;
    }
    if (!json_is_string(json_object_get(s->root, "verdict")) ||
        !json_is_array(json_object_get(s->root, "cells")) || !json_is_object(sut)) {
        set_why(why, cap, "'%s': no verdict, cells or sut: a report of an older broadcheck "
                "(rerun it)", s->path);
        return -1;
    }
    s->name = json_is_string(json_object_get(sut, "declared_name"))
                  ? text_of(sut, "declared_name") : text_of(sut, "name");
    s->version = json_is_string(json_object_get(sut, "declared_version"))
                     ? text_of(sut, "declared_version") : text_of(sut, "version");
    s->verdict = text_of(s->root, "verdict");
    s->conforms = json_is_true(json_object_get(s->root, "conforms"));
    size_t i;
    json_t *cell;
    json_array_foreach(json_object_get(s->root, "cells"), i, cell) {
        const char *v = text_of(cell, "verdict");
        s->pass += strcmp(v, "pass") == 0;
        s->fail += strcmp(v, "fail") == 0;
        s->xfail += strcmp(v, "xfail") == 0;
        s->unsupported += strcmp(v, "unsupported") == 0;
        s->not_run += strcmp(v, "not-run") == 0;
    }
    return 0;
}

/* The cell of rule x property in report s, or NULL. */
static json_t *cell_of(const sut_report *s, const char *rule, const char *property)
{
    size_t i;
    json_t *cell;
    json_array_foreach(json_object_get(s->root, "cells"), i, cell)
        if (strcmp(text_of(cell, "rule"), rule) == 0 &&
            strcmp(text_of(cell, "property"), property) == 0)
            return cell;
    return NULL;
}

/* The index of the failure of rule x property in s's failures, or -1. */
static int failure_of(const sut_report *s, const char *rule, const char *property)
{
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(s->root, "failures"), i, f)
        if (strcmp(text_of(f, "rule"), rule) == 0 &&
            strcmp(text_of(f, "property"), property) == 0)
            return (int)i;
    return -1;
}

/* 1 if some report has a cell of rule (or of property, with rule NULL). */
static int any_cell(const sut_report *s, int n, const char *rule, const char *property)
{
    for (int k = 0; k < n; k++) {
        size_t i;
        json_t *cell;
        json_array_foreach(json_object_get(s[k].root, "cells"), i, cell)
            if ((!rule || strcmp(text_of(cell, "rule"), rule) == 0) &&
                (!property || strcmp(text_of(cell, "property"), property) == 0))
                return 1;
    }
    return 0;
}

/* The semantics the report's SUT declared and was checked under ("" for
 * the reference's own: docs/ENGINE.md "Value semantics"). */
static const char *semantics_of(const sut_report *s)
{
    return text_of(json_object_get(s->root, "sut"), "semantics");
}

/* ---- Markdown ------------------------------------------------------------ */

/* One line of Markdown table text: | and newlines made harmless. */
static void md_text(sbuf *b, const char *s)
{
    char *c = clean_text(s, CLEAN_LINE);
    if (!c) {
        b->oom = 1;
        return;
    }
    for (const char *p = c; *p; p++)
        if (*p == '|')
            sb_puts(b, "\\|");
        else
            sb_putn(b, p, 1);
    free(c);
}

static const char *md_symbol(const char *verdict)
{
    return strcmp(verdict, "pass") == 0    ? "✅"
           : strcmp(verdict, "fail") == 0  ? "❌"
           : strcmp(verdict, "xfail") == 0 ? "⚠️"
           : strcmp(verdict, "not-run") == 0 ? "not run"
                                              : "unsup";
}

/* The declared semantics as a table cell: `...`, or – for the reference's own. */
static void md_semantics(sbuf *b, const sut_report *s)
{
    if (!semantics_of(s)[0]) {
        sb_puts(b, "–");
        return;
    }
    sb_puts(b, "`");
    md_text(b, semantics_of(s));
    sb_puts(b, "`");
}

/* One cell of a page's matrix: its symbol and counts. */
static void md_cell_counts(sbuf *b, json_t *cell)
{
    const char *v = text_of(cell, "verdict");
    long long passed = json_integer_value(json_object_get(cell, "passed"));
    long long failed = json_integer_value(json_object_get(cell, "failed"));
    long long known = json_integer_value(json_object_get(cell, "known_failed"));
    long long unsup = json_integer_value(json_object_get(cell, "unsupported"));
    if (strcmp(v, "fail") == 0)
        sb_printf(b, "❌ %lld/%lld", failed, passed + failed + known);
    else if (strcmp(v, "xfail") == 0)
        sb_printf(b, "⚠️ %lld (%lld known)", passed, known);
    else if (strcmp(v, "pass") == 0)
        sb_printf(b, "✅ %lld", passed);
    else
        sb_puts(b, md_symbol(v));
    if (unsup > 0 && strcmp(v, "unsupported") != 0)
        sb_printf(b, " +%lld unsup", unsup);
}

/* A report's rule x property matrix: symbols only, or (counts) with each
 * cell's cases. */
static void md_matrix(sbuf *b, const sut_report *s, int counts)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    sb_puts(b, "| rule |");
    for (int p = 0; p < count; p++)
        if (any_cell(s, 1, NULL, props[p].name))
            sb_printf(b, " %s |", props[p].name);
    sb_puts(b, "\n|---|");
    for (int p = 0; p < count; p++)
        if (any_cell(s, 1, NULL, props[p].name))
            sb_puts(b, "---|");
    sb_puts(b, "\n");
    for (int r = 0; r < BC_RULE_COUNT; r++) {
        const char *rule = bc_rule_name((bc_rule)r);
        if (!any_cell(s, 1, rule, NULL))
            continue;
        sb_printf(b, "| %s |", rule);
        for (int p = 0; p < count; p++) {
            if (!any_cell(s, 1, NULL, props[p].name))
                continue;
            json_t *cell = cell_of(s, rule, props[p].name);
            sb_puts(b, " ");
            if (!cell)
                sb_puts(b, "–");
            else if (counts)
                md_cell_counts(b, cell);
            else
                sb_puts(b, md_symbol(text_of(cell, "verdict")));
            sb_puts(b, " |");
        }
        sb_puts(b, "\n");
    }
}

/* What a docs/certifications page holds between its "generated by broadcheck
 * summarize" markers: the run it comes from, its matrix with counts, and
 * its totals. */
static void page_matrix(const sut_report *s, sbuf *b)
{
    json_t *totals = json_object_get(s->root, "totals");
    sb_puts(b, "The rule × property matrix of the stored report (");
    md_text(b, s->name);
    sb_puts(b, " ");
    md_text(b, s->version);
    sb_puts(b, "; broadcheck ");
    md_text(b, text_of(s->root, "broadcheck_version"));
    if (text_of(s->root, "broadcheck_commit")[0]) {
        sb_puts(b, " at ");
        md_text(b, text_of(s->root, "broadcheck_commit"));
    }
    sb_puts(b, ", seed ");
    md_text(b, text_of(json_object_get(s->root, "config"), "seed"));
    sb_puts(b, ", ");
    md_text(b, text_of(s->root, "started_at"));
    sb_puts(b, "): **");
    md_text(b, s->verdict);
    sb_puts(b, "**; declared semantics: ");
    md_semantics(b, s);
    sb_puts(b, ".\n\n");
    md_matrix(b, s, 1);
    sb_printf(b, "\nCases: %lld passed, %lld failed, %lld known, %lld unsupported. ✅ passed "
                 "(cases), ❌ a new divergence (failing/checked), ⚠️ known divergences only, "
                 "unsup: the SUT declined every case, +N unsup: cases declined, –: not a cell of "
                 "this run.\n",
              (long long)json_integer_value(json_object_get(totals, "passed")),
              (long long)json_integer_value(json_object_get(totals, "failed")),
              (long long)json_integer_value(json_object_get(totals, "known_failed")),
              (long long)json_integer_value(json_object_get(totals, "unsupported")));
}

static void markdown(const sut_report *s, int n, const char *title, sbuf *b)
{
    sb_printf(b, "# %s\n\nGenerated by `broadcheck summarize` from %d JSON report%s; every "
                 "verdict and figure is the report's own. Cells: ✅ passed, ❌ a new "
                 "divergence, ⚠️ known divergences only, unsup: the SUT declined every case, "
                 "–: not checked.\n\n",
              title, n, n == 1 ? "" : "s");
    sb_puts(b, "| SUT | version | verdict | semantics | cells ✅ | ❌ | ⚠️ | unsup | known "
               "divergences |\n|---|---|---|---|---:|---:|---:|---:|---|\n");
    for (int k = 0; k < n; k++) {
        sb_puts(b, "| ");
        md_text(b, s[k].name);
        sb_puts(b, " | ");
        md_text(b, s[k].version);
        sb_puts(b, " | ");
        md_text(b, s[k].verdict);
        sb_puts(b, " | ");
        md_semantics(b, &s[k]);
        sb_printf(b, " | %d | %d | %d | %d | ", s[k].pass, s[k].fail, s[k].xfail,
                  s[k].unsupported + s[k].not_run);
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(s[k].root, "known_divergences"), i, e) {
            sb_puts(b, i ? ", `" : "`");
            md_text(b, text_of(e, "id"));
            sb_printf(b, "` (%s, %s)", text_of(e, "class"), text_of(e, "status"));
        }
        sb_puts(b, " |\n");
    }
    for (int k = 0; k < n; k++) {
        sb_puts(b, "\n## ");
        md_text(b, s[k].name);
        sb_puts(b, " ");
        md_text(b, s[k].version);
        sb_puts(b, "\n\n`");
        md_text(b, text_of(json_object_get(s[k].root, "sut"), "name"));
        sb_printf(b, "`, seed %s, broadcheck %s: **", text_of(json_object_get(s[k].root, "config"), "seed"),
                  text_of(s[k].root, "broadcheck_version"));
        md_text(b, s[k].verdict);
        sb_puts(b, "**\n\n");
        md_matrix(b, &s[k], 0);
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(s[k].root, "failures"), i, f) {
            const char *known = json_string_value(json_object_get(f, "known"));
            sb_printf(b, "\n%s %s on %s", known ? "Known" : "**New**", text_of(f, "property"),
                      text_of(f, "rule"));
            if (known) {
                sb_puts(b, " (`");
                md_text(b, known);
                sb_puts(b, "`)");
            }
            sb_puts(b, ": ");
            md_text(b, text_of(f, "detail"));
            sb_puts(b, "\n\n```\n");
            char *replay = clean_text(text_of(f, "replay"), CLEAN_LINE);
            sb_puts(b, replay ? replay : "");
            free(replay);
            sb_puts(b, "\n```\n");
        }
    }
}

/* ---- HTML ---------------------------------------------------------------- */

static void html_text(sbuf *b, const char *s)
{
    char *c = clean_text(s, CLEAN_XML);
    if (!c) {
        b->oom = 1;
        return;
    }
    for (const char *p = c; *p; p++)
        switch (*p) {
        case '<': sb_puts(b, "&lt;"); break;
        case '>': sb_puts(b, "&gt;"); break;
        case '&': sb_puts(b, "&amp;"); break;
        case '"': sb_puts(b, "&quot;"); break;
        default: sb_putn(b, p, 1);
        }
    free(c);
}

static const char *html_class(const char *verdict)
{
    return strcmp(verdict, "pass") == 0    ? "pass"
           : strcmp(verdict, "fail") == 0  ? "fail"
           : strcmp(verdict, "xfail") == 0 ? "xfail"
           : strcmp(verdict, "not-run") == 0 ? "notrun"
                                              : "unsup";
}

/* The declared semantics: <code>...</code>, or "the reference's own". */
static void html_semantics(sbuf *b, const sut_report *s)
{
    if (!semantics_of(s)[0]) {
        sb_puts(b, "the reference's own");
        return;
    }
    sb_puts(b, "<code>");
    html_text(b, semantics_of(s));
    sb_puts(b, "</code>");
}

static void html(const sut_report *s, int n, const char *title, sbuf *b)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    sb_puts(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
    html_text(b, title);
    sb_puts(b, "</title>\n<style>\n"
               "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
               "table{border-collapse:collapse;margin:1em 0}\n"
               "th,td{border:1px solid #bbb;padding:4px 8px;text-align:center}\n"
               "th.rule,td.name{text-align:left}\n"
               "td.pass{background:#c8efc8}td.fail{background:#f4b6b6;font-weight:bold}\n"
               "td.xfail{background:#fde3a7}td.unsup{background:#e4e4e4;color:#666}\n"
               "td.notrun{background:#e4e4e4;color:#666}td.none{color:#aaa}\n"
               ".v-conforms{color:#176b17;font-weight:bold}.v-diverges{color:#a30d0d;"
               "font-weight:bold}.v-other{color:#7a5a00;font-weight:bold}\n"
               "pre{background:#f4f4f4;padding:6px;overflow-x:auto;white-space:pre-wrap}\n"
               "</style>\n</head>\n<body>\n<h1>");
    html_text(b, title);
    sb_printf(b, "</h1>\n<p>Generated by <code>broadcheck summarize</code> from %d JSON "
                 "report%s; every verdict and figure is the report's own.</p>\n",
              n, n == 1 ? "" : "s");
    sb_puts(b, "<table id=\"summary\">\n<tr><th class=\"rule\">SUT</th><th>version</th>"
               "<th>verdict</th><th>semantics</th><th>pass</th><th>fail</th><th>known</th>"
               "<th>unsup</th><th>known divergences</th></tr>\n");
    for (int k = 0; k < n; k++) {
        const char *vclass = s[k].conforms ? "v-conforms"
                             : strncmp(s[k].verdict, "DIVERGES", 8) == 0 ? "v-diverges"
                                                                         : "v-other";
        sb_printf(b, "<tr><td class=\"name\"><a href=\"#sut-%d\">", k);
        html_text(b, s[k].name);
        sb_puts(b, "</a></td><td>");
        html_text(b, s[k].version);
        sb_printf(b, "</td><td class=\"%s\">", vclass);
        html_text(b, s[k].verdict);
        sb_puts(b, "</td><td class=\"semantics\">");
        html_semantics(b, &s[k]);
        sb_printf(b, "</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>", s[k].pass,
                  s[k].fail, s[k].xfail, s[k].unsupported + s[k].not_run);
        size_t i;
        json_t *e;
        json_array_foreach(json_object_get(s[k].root, "known_divergences"), i, e) {
            sb_puts(b, i ? ", <code>" : "<code>");
            html_text(b, text_of(e, "id"));
            sb_puts(b, "</code> (");
            html_text(b, text_of(e, "class"));
            sb_puts(b, ", ");
            html_text(b, text_of(e, "status"));
            sb_puts(b, ")");
        }
        sb_puts(b, "</td></tr>\n");
    }
    sb_puts(b, "</table>\n");
    for (int k = 0; k < n; k++) {
        sb_printf(b, "<h2 id=\"sut-%d\">", k);
        html_text(b, s[k].name);
        sb_puts(b, " ");
        html_text(b, s[k].version);
        sb_puts(b, "</h2>\n<p><code>");
        html_text(b, text_of(json_object_get(s[k].root, "sut"), "name"));
        sb_puts(b, "</code>: ");
        html_text(b, s[k].verdict);
        sb_puts(b, "; declared semantics: ");
        html_semantics(b, &s[k]);
        sb_printf(b, "</p>\n<table class=\"matrix\" id=\"matrix-%d\">\n<tr><th class=\"rule\">rule"
                     "</th>", k);
        for (int p = 0; p < count; p++)
            if (any_cell(&s[k], 1, NULL, props[p].name))
                sb_printf(b, "<th>%s</th>", props[p].name);
        sb_puts(b, "</tr>\n");
        for (int r = 0; r < BC_RULE_COUNT; r++) {
            const char *rule = bc_rule_name((bc_rule)r);
            if (!any_cell(&s[k], 1, rule, NULL))
                continue;
            sb_printf(b, "<tr><th class=\"rule\">%s</th>", rule);
            for (int p = 0; p < count; p++) {
                if (!any_cell(&s[k], 1, NULL, props[p].name))
                    continue;
                json_t *cell = cell_of(&s[k], rule, props[p].name);
                if (!cell) {
                    sb_puts(b, "<td class=\"none\">–</td>");
                    continue;
                }
                const char *v = text_of(cell, "verdict");
                int f = failure_of(&s[k], rule, props[p].name);
                sb_printf(b, "<td class=\"%s\" title=\"%lld passed, %lld failed, %lld known, "
                             "%lld unsupported\">", html_class(v),
                          (long long)json_integer_value(json_object_get(cell, "passed")),
                          (long long)json_integer_value(json_object_get(cell, "failed")),
                          (long long)json_integer_value(json_object_get(cell, "known_failed")),
                          (long long)json_integer_value(json_object_get(cell, "unsupported")));
                if (f >= 0)
                    sb_printf(b, "<a href=\"#sut-%d-failure-%d\">%s</a></td>", k, f, v);
                else
                    sb_printf(b, "%s</td>", v);
            }
            sb_puts(b, "</tr>\n");
        }
        sb_puts(b, "</table>\n");
        size_t i;
        json_t *f;
        json_array_foreach(json_object_get(s[k].root, "failures"), i, f) {
            const char *known = json_string_value(json_object_get(f, "known"));
            sb_printf(b, "<h3 id=\"sut-%d-failure-%zu\">%s %s on %s", k, i,
                      known ? "Known" : "New", text_of(f, "property"), text_of(f, "rule"));
            if (known) {
                sb_puts(b, " (<code>");
                html_text(b, known);
                sb_puts(b, "</code>)");
            }
            sb_puts(b, "</h3>\n<p>");
            html_text(b, text_of(f, "detail"));
            sb_puts(b, "</p>\n<pre>");
            html_text(b, text_of(f, "minimal"));
            sb_puts(b, "\n");
            html_text(b, text_of(f, "replay"));
            sb_puts(b, "</pre>\n");
        }
    }
    sb_puts(b, "</body>\n</html>\n");
}

int bc_summarize_reports(int ninputs, const char *const *inputs, const bc_summary_output *out,
                         char *why, size_t cap)
{
    if (ninputs <= 0) {
        set_why(why, cap, "no report given");
        return -1;
    }
    sut_report *s = calloc((size_t)ninputs, sizeof *s);
    if (!s) {
        set_why(why, cap, "out of memory");
        return -1;
    }
    int status = 0;
    for (int k = 0; k < ninputs && status == 0; k++) {
        s[k].path = inputs[k];
        status = load(&s[k], why, cap);
    }
    if (status == 0 && out->matrix && ninputs != 1) {
        set_why(why, cap, "a page's matrix is one report's: give exactly one with --matrix "
                "(%d given)", ninputs);
        status = -1;
    }
    const char *title = out->title ? out->title : "broadcheck certifications";
    if (status == 0 && out->markdown) {
        sbuf b = {0};
        markdown(s, ninputs, title, &b);
        status = write_sbuf(&b, out->markdown, "Markdown summary", why, cap);
    }
    if (status == 0 && out->matrix) {
        sbuf b = {0};
        page_matrix(&s[0], &b);
        status = write_sbuf(&b, out->matrix, "page matrix", why, cap);
    }
    if (status == 0 && out->html) {
        sbuf b = {0};
        html(s, ninputs, title, &b);
        status = write_sbuf(&b, out->html, "HTML summary", why, cap);
    }
    int diverges = 0;
    for (int k = 0; k < ninputs; k++) {
        diverges |= s[k].root && !s[k].conforms;
        json_decref(s[k].root);
    }
    free(s);
    return status != 0 ? -1 : diverges;
}
