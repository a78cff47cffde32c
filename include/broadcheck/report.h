/*
 * broadcheck/report.h: the reports of a run, and merging shards' reports.
 *
 * A run result (properties.h) is shown as a plain-text summary, a JSON
 * report (docs/REPORTS.md), JUnit XML and a Markdown certificate, each file
 * written whole or not at all.  'broadcheck run --shard K/N --json F' on N
 * machines gives N JSON reports; merging them gives the report the unsharded
 * run would have given (every count, coverage class and failure), written by
 * the same writers.
 */
#ifndef BROADCHECK_REPORT_H
#define BROADCHECK_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "broadcheck/properties.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- reports: each written whole or not at all (a temporary file renamed
 * into place).  Return 0, or -1 with why. ------------------------------------ */

void bc_report_summary(const bc_run_result *r, FILE *out);
int bc_report_json(const bc_run_result *r, const char *path, char *why, size_t cap);
int bc_report_junit(const bc_run_result *r, const char *path, char *why, size_t cap);
int bc_report_certificate(const bc_run_result *r, const char *path, char *why, size_t cap);

/* ---- merging shards' reports ---------------------------------------------- */

/* Where the merged result goes; each NULL field is skipped. */
typedef struct bc_merge_output {
    const char *json;        /* the JSON report (docs/REPORTS.md) */
    const char *junit;       /* JUnit XML */
    const char *certificate; /* the Markdown certificate */
    FILE *summary;           /* the plain-text summary */
    FILE *warnings;          /* one line per warning (a missing shard) */
} bc_merge_output;

/* Reads the JSON reports of shards of one run (the same broadcheck version,
 * schema, SUT, seed, cases or seconds, and shard count; distinct shards),
 * merges them and writes the outputs.  Nothing is written unless every input
 * is valid.  Returns 0 when no merged cell failed, 1 when one did, -1 with
 * why (naming the file and the field) on bad input or an unwritable report. */
int bc_merge_reports(int ninputs, const char *const *inputs, const bc_merge_output *out, char *why,
                     size_t cap);

/* ---- a summary across SUTs (broadcheck summarize) ------------------------- */

typedef struct bc_summary_output {
    const char *markdown; /* NULL: none */
    const char *html;     /* a self-contained page; NULL: none */
    const char *title;    /* NULL: "broadcheck certifications" */
} bc_summary_output;

/* Reads the JSON reports of runs of several SUTs (one each) and writes one
 * Markdown table and one HTML page: a row per SUT (its declared name and
 * version, verdict, cell counts, known divergences), then its rule x
 * property matrix and each failure's minimal case and replay line.  Returns
 * 0 when every SUT conforms, 1 when one diverges, -1 with why on bad input
 * or an unwritable output (nothing is written then). */
int bc_summarize_reports(int ninputs, const char *const *inputs, const bc_summary_output *out,
                         char *why, size_t cap);

#ifdef __cplusplus
}
#endif
#endif
