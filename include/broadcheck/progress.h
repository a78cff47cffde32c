/*
 * broadcheck/progress.h: a run's progress on a terminal or in a log.
 *
 * The runner reports where it is (properties.h, bc_run_progress) after each
 * chunk of cases; a bc_progress turns that into
 *   - on a terminal, one line redrawn in place (by default 4 times a
 *     second): cells done, cases, failures, cases a second and the time
 *     left, the failures in red unless NO_COLOR is set;
 *   - elsewhere (a CI log, a pipe), the same as a plain line every
 *     `interval` seconds (by default 10), so that a long run shows it is
 *     alive without flooding the log.
 * An interval of 0 prints on every report, synchronously (a test's
 * deterministic mode).
 *
 *   bc_progress *p = bc_progress_start(&opts);   (opts from bc_progress_options_for)
 *   config.progress = bc_progress_report; config.progress_ctx = p;
 *   bc_run(&config, ...);
 *   bc_progress_stop(p);                          (clears the live line)
 */
#ifndef BROADCHECK_PROGRESS_H
#define BROADCHECK_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#include "broadcheck/properties.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BC_PROGRESS_LIVE_INTERVAL 0.25  /* seconds between redraws on a terminal */
#define BC_PROGRESS_PLAIN_INTERVAL 10.0 /* seconds between plain lines */

typedef struct bc_progress_options {
    FILE *out;         /* where the lines go (stderr) */
    int live;          /* 1: one line redrawn in place (a terminal); 0: plain lines */
    int color;         /* live line: failures in red */
    int columns;       /* live line: cut to this width (0: no limit) */
    double interval;   /* seconds between lines or redraws; 0: one per report */
    const char *label; /* starts each line, e.g. "broadcheck run" */
} bc_progress_options;

/* The options for `out` in this environment: live, with the terminal's
 * width, when out is a terminal; color when live and NO_COLOR is unset or
 * empty and TERM is not "dumb"; interval the default of the mode when
 * `interval` < 0. */
bc_progress_options bc_progress_options_for(FILE *out, double interval, const char *label);

typedef struct bc_progress bc_progress; /* opaque */

/* Starts showing progress (a thread that prints every interval, unless the
 * interval is 0).  NULL when out of memory: the run then goes without. */
bc_progress *bc_progress_start(const bc_progress_options *options);

/* A bc_run_progress_fn: ctx is the bc_progress (NULL is ignored). */
void bc_progress_report(void *ctx, const bc_run_progress *progress);

/* Stops the thread and clears the live line.  NULL is ignored. */
void bc_progress_stop(bc_progress *p);

/* One progress line (no label, no newline) for `elapsed` seconds into the
 * run, with the failures in red when color; the number of bytes it needs,
 * as snprintf. */
int bc_progress_format(const bc_run_progress *progress, double elapsed, int color, char *buf,
                       size_t cap);

#ifdef __cplusplus
}
#endif
#endif
