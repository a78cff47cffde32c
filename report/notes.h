/*
 * Private to report/: what a merged result carries beyond a run result
 * (merge.c), and the report writers that show it (report.c).  Include after
 * internal.h.
 */
#ifndef BROADCHECK_REPORT_NOTES_H
#define BROADCHECK_REPORT_NOTES_H

#include <stdio.h>

#include <jansson.h>

#include "broadcheck/report.h"

/* Notes on a result that did not come from one run. */
typedef struct bc_report_notes {
    /* NULL, or one paragraph that every report shows as a warning (shards
     * missing from a merge). */
    const char *warning;
    /* 1: part of the run is missing, so the certificate certifies nothing. */
    int incomplete;
    /* NULL, or members added to the JSON report's top-level object; where
     * both are objects (coverage, rejects) the members are added into it. */
    json_t *json;
} bc_report_notes;

/* bc_report_* of properties.h, with notes (NULL: none). */
void bc_report_summary_noted(const bc_run_result *r, const bc_report_notes *notes, FILE *out);
int bc_report_json_noted(const bc_run_result *r, const bc_report_notes *notes, const char *path,
                         char *why, size_t cap);
int bc_report_junit_noted(const bc_run_result *r, const bc_report_notes *notes, const char *path,
                          char *why, size_t cap);
int bc_report_certificate_noted(const bc_run_result *r, const bc_report_notes *notes,
                                const char *path, char *why, size_t cap);

/* bc_report_exit_code of report.h, with notes (NULL: none). */
int bc_report_exit_code_noted(const bc_run_result *r, const bc_report_notes *notes);

#endif
