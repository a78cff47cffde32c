/*
 * broadcheck/merge.h: one result from the reports of a run's shards.
 *
 * 'broadcheck run --shard K/N --json F' on N machines gives N JSON reports;
 * merging them gives the report the unsharded run would have given (every
 * count, coverage class and failure), written by the same report writers
 * (properties.h).
 */
#ifndef BROADCHECK_MERGE_H
#define BROADCHECK_MERGE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

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

#ifdef __cplusplus
}
#endif
#endif
