/*
 * broadcheck/properties.h: properties, the runner, and its reports.
 *
 * A run generates cases for every selected rule x property cell from a
 * seed, checks each against a SUT, shrinks the first failure of each cell to
 * a 1-minimal case with a replay line, and reports.  The same seed and
 * version give the same cases, counts and case ids, whatever --jobs is.
 */
#ifndef BROADCHECK_PROPERTIES_H
#define BROADCHECK_PROPERTIES_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "broadcheck/shape.h"
#include "broadcheck/sut.h"
#include "broadcheck/vector.h"

#ifdef __cplusplus
extern "C" {
#endif

#define BC_REPORT_SCHEMA_VERSION 1

/* ---- properties ------------------------------------------------------ */

typedef struct bc_property_info {
    const char *name;    /* e.g. "shape-differential" */
    const char *kind;    /* "differential" or "metamorphic" */
    const char *checks;  /* one sentence: what it checks */
    const char *why;     /* one sentence: the bug it catches */
    unsigned rules;      /* bit (1u << bc_rule) for each rule it applies to */
    int values;          /* 1: its cases compute values on tensors (run_config.value_cases) */
    int partial;         /* 1: its cases are partial shapes (RULES.md §14; bc_pvector) */
} bc_property_info;

/* Every property, in a fixed order (their index is their id). */
const bc_property_info *bc_properties(int *count);
int bc_property_from_name(const char *name); /* index, or -1 */

/* ---- value tiers (docs/PROPERTIES.md "Value tiers") ----------------------- */

/* How large the value cases a run generates are.  A case line names its
 * shapes, so the tier only chooses what is generated: any value line
 * replays at any tier, within the memory budget (max_bytes). */
typedef enum bc_value_tier {
    BC_TIER_SMALL,  /* at most 64 elements per operand (the default) */
    BC_TIER_MEDIUM, /* 10^3 to 2^20 elements per result, lengths crossing vector
                       widths, cache blocks and thread grains with odd tails */
    BC_TIER_HUGE,   /* results past 2^31 elements of 1-byte dtypes: opt-in, within
                       an explicit memory budget, in-process SUTs only */
    BC_TIER_COUNT
} bc_value_tier;

const char *bc_value_tier_name(bc_value_tier t); /* "small", "medium", "huge" */
int bc_value_tier_from_name(const char *name, bc_value_tier *out); /* 0, or -1 unknown */

/* Whether a run at tier t can go, with memory budget max_bytes (0: the
 * default) and questions of at most max_question_bytes (0: no limit, an
 * in-process SUT): 0, or -1 with why, naming the budget the tier needs.
 * The huge tier needs an explicit budget of at least BC_HUGE_MIN_BYTES and
 * an in-process SUT; bc_run refuses (returns NULL) with the same why. */
int bc_value_tier_refusal(bc_value_tier t, int64_t max_bytes, int64_t max_question_bytes,
                          char *why, size_t cap);

/* The memory budget of one value check when none is given: enough for
 * every small and medium case.  The huge tier needs one given, of at least
 * BC_HUGE_MIN_BYTES (its smallest case: a 2^31-element result twice, the
 * SUT's output and the oracle's). */
#define BC_VALUE_DEFAULT_MAX_BYTES ((int64_t)1 << 30)
#define BC_HUGE_MIN_BYTES ((int64_t)5 << 30)

/* Result elements past which the fast engine, not the naive oracle,
 * computes a value-differential expectation (docs/PROPERTIES.md).  Every
 * small-tier case is below it. */
#define BC_VALUE_NAIVE_MAX_NUMEL 4096

/* ---- known divergences (docs/MANIFEST.md) ------------------------------- */

/* A difference between a SUT and the reference that its maintainer has
 * declared (in a manifest, include/broadcheck/manifest.h): a replay-exact
 * case, checked on every run.  The strings belong to whoever fills it. */
typedef struct bc_known_divergence {
    const char *id;       /* unique within its manifest, e.g. "int-div-floors" */
    char klass;           /* 'a' a bug of the SUT, 'b' a declared limit, 'c' a
                             legitimate variant of the rule */
    const char *property; /* the property it fails, by name */
    const char *vector;   /* the case, a vector line (its expectation is ignored) */
    const char *link;     /* "" or where it is reported or documented */
    const char *note;     /* one sentence */
    /* Which failures it explains: its own case always; with `reach`, also
     * every failing case of `property` (or of a property reach_properties
     * names) whose rule, op= and dtype= are in
     * these comma-separated lists ("" or NULL: any) and whose detail
     * matches reach_detail (a POSIX extended regular expression; "" or
     * NULL: any); with reach_strided, only a value case whose inputs are
     * strided (its line has layout=); with reach_min_shapes > 0, only a
     * case of at least that many shapes; with reach_case, only a case whose
     * line (as found, not shrunk) matches it (a POSIX extended regular
     * expression: what only the shapes can say, a contracted dim of 0).  A failing case within a reach is counted as known when
     * it is checked, and its cell goes on (it is not shrunk).  The wider
     * the reach, the more a new bug there can hide: the reports print it. */
    int reach;
    const char *reach_rules, *reach_ops, *reach_dtypes, *reach_detail, *reach_properties;
    int reach_strided;
    int reach_min_shapes; /* 0: any number of shapes */
    const char *reach_case; /* "" or NULL: any case line */
} bc_known_divergence;

typedef enum bc_known_status {
    BC_KNOWN_NOT_CHECKED, /* its cell was not run here (not selected, another shard,
                             or the run stopped first) */
    BC_KNOWN_XFAIL,       /* its case fails, as declared */
    BC_KNOWN_XPASS        /* its case passes (or the SUT declines it): the entry is stale */
} bc_known_status;

const char *bc_known_status_name(bc_known_status s); /* "not-checked", "xfail", "xpass" */

/* The canonical form of a case for matching: the line parsed and written
 * back without its expectation.  0, or -1 with why (a syntax error). */
int bc_case_key(const char *line, char *buf, size_t cap, char *why, size_t why_cap);

/* Which of entries (a manifest's, n of them) explains a failure of property
 * on case line, whose check showed detail, as a run counts it: the entry
 * whose own case it is, else the first whose reach takes it.  Its index,
 * or -1 (none explains it, or out of memory). */
int bc_known_find(const bc_known_divergence *entries, int n, int property, const char *line,
                  const char *detail);

/* ---- running ---------------------------------------------------------- */

/* Where a run is, as it goes: what a progress line shows (progress.h). */
typedef struct bc_run_progress {
    int cells;         /* rule x property cells selected */
    int cells_done;    /* cells whose cases are all checked */
    int64_t cases;     /* cases checked so far (passed, failed or unsupported) */
    int64_t planned;   /* cases the run checks in all (under --time: 0, unknown) */
    int64_t failures;  /* failing cases so far */
    double seconds;    /* the --time budget; 0 under --cases */
    int shrinking;     /* 0 while checking; then k: shrinking failing cell k of to_shrink */
    int to_shrink;
} bc_run_progress;

/* Called by the runner as it hands out each chunk of cases or shrink,
 * from a worker thread, never by two threads at once; it must return
 * quickly (it holds up the workers). */
typedef void (*bc_run_progress_fn)(void *ctx, const bc_run_progress *progress);

typedef struct bc_run_config {
    const bc_sut *sut;        /* required */
    unsigned rules;           /* bit per bc_rule; 0 = all */
    uint64_t properties;      /* bit per property index; 0 = all */
    int64_t cases;            /* per rule x property cell of a shape property */
    int64_t value_cases;      /* per cell of a value property (they cost more) */
    double seconds;           /* > 0: run each cell for its share of this instead */
    uint64_t seed;
    int shard_index;          /* this machine's shard K of N, 0-based; */
    int shard_count;          /* cases with index % N == K run here (1 = all) */
    int jobs;                 /* worker threads (>= 1) */
    int max_shrink_calls;     /* SUT calls a shrink may make */
    const char *corpus_path;  /* NULL: no corpus; else replayed first, failures appended */
    bc_run_progress_fn progress; /* NULL: none */
    void *progress_ctx;          /* its first argument */
    int64_t partial_cases;    /* per cell of a partial property (RULES.md §14) */
    /* Stopping early (docs/PROPERTIES.md, "When a run stops"): */
    int whole_cells;          /* 0: a cell stops at its first failing case (its counts are
                                 of the cases up to it); 1: every cell runs its budget */
    int max_failures;         /* > 0: the cells after the N-th failing one (in cell order)
                                 are not run; 0: no limit */
    int unresponsive_after;   /* K > 0: after K consecutive questions that timed out or
                                 crashed, the cells in progress end ("SUT unresponsive");
                                 one more such question with no answer between ends the
                                 run; 0: never */
    const volatile sig_atomic_t *interrupt; /* NULL, or set to a signal number (by a
                                 handler, with bc_sut_interrupt) to stop the run: the result
                                 holds what was found so far, marked interrupted */
    const char *sut_args;     /* NULL, or the options that opened the SUT, as a replay line
                                 must repeat them ("--timeout-ms 150"): put after --sut;
                                 bc_run adds --value-tier and --max-bytes when not default */
    /* Known divergences (the manifest's): each case is replayed after the
     * run (on shard i mod N), and a failure they explain is "known", not a
     * divergence.  strict: a known case that passes (XPASS) fails the run. */
    const bc_known_divergence *known;
    int nknown;
    int strict;
    const char *manifest_path;    /* NULL, or the manifest's file, for the reports */
    const char *declared_name;    /* NULL, or the SUT's name and version as the */
    const char *declared_version; /* manifest declares them, for the reports */
    bc_semantics semantics;       /* the value semantics the SUT declares (its manifest's):
                                     the oracle computes them (docs/ENGINE.md) */
    const char *broadcheck_commit; /* NULL, or the commit this broadcheck was built from */
    bc_value_tier value_tier;     /* how large the value cases are (BC_TIER_SMALL) */
    int64_t max_bytes;            /* the memory the run's value checks may use together,
                                     shared by its jobs (0: the default,
                                     BC_VALUE_DEFAULT_MAX_BYTES); a case whose check alone
                                     needs more is "unsupported" (not examined), never
                                     passed or failed */
    int64_t max_question_bytes;   /* 0, or the most bytes one question may carry to the SUT
                                     (an out-of-process SUT's frame limit): a case past it is
                                     not examined either */
} bc_run_config;

bc_run_config bc_run_config_default(void);

typedef struct bc_run_result bc_run_result; /* opaque */

/* Runs; returns NULL and writes why[cap] on an environment error (the
 * corpus cannot be read or is malformed, out of memory). */
bc_run_result *bc_run(const bc_run_config *config, char *why, size_t cap);
void bc_run_result_free(bc_run_result *r);

/* 0 the SUT conforms (every failure is a known divergence; under strict,
 * no known case passes), 1 it diverges (BC_EXIT_* of the CLI). */
int bc_run_exit_code(const bc_run_result *r);

/* Failures no known divergence explains, and known cases that passed. */
int bc_run_new_failures(const bc_run_result *r);
int bc_run_xpass_count(const bc_run_result *r);

/* The output bytes value-differential compared over the run (the JSON
 * report's totals.value_bytes) and, in *moved_bytes when not NULL, those
 * questions' input and output bytes (totals.value_moved_bytes). */
int64_t bc_run_value_bytes(const bc_run_result *r, int64_t *moved_bytes);

/* The cases the run examined, every cell's passed, failed, unsupported and
 * known-failed together (the JSON report's totals summed): what a rate is
 * of, since shape, value and partial cells have budgets of their own. */
int64_t bc_run_case_count(const bc_run_result *r);

/* The signal that interrupted the run (config.interrupt), or 0. */
int bc_run_interrupted(const bc_run_result *r);

/* NULL, or why the run's new failures could not be appended to the corpus
 * (a full disk): the result is whole, the corpus as it was before. */
const char *bc_run_corpus_error(const bc_run_result *r);

/* A shrunk failure of a run (one per failing cell, in cell order).  The
 * strings belong to the result. */
typedef struct bc_failure_info {
    const char *property;
    bc_rule rule;
    int64_t case_index;  /* within its cell; -1 for a corpus line */
    const char *original; /* the failing case as generated, a vector line */
    const char *minimal;  /* after shrinking */
    const char *detail;   /* what disagreed on the minimal case */
    const char *replay;   /* the command line that reproduces it */
    int shrink_calls;     /* SUT calls the shrink made */
    int minimal_reached;  /* 0: the shrink stopped early (call limit, time, interrupt,
                             SUT unresponsive): a failing case, maybe not 1-minimal */
    int flaky;            /* 1: the case passed when checked again */
    const char *known;    /* NULL, or the id of the known divergence that explains it */
} bc_failure_info;

int bc_run_failure_count(const bc_run_result *r);
/* Failure i, 0 <= i < bc_run_failure_count(r). */
bc_failure_info bc_run_failure(const bc_run_result *r, int i);

/* Known divergence i of the run, 0 <= i < bc_run_known_count(r), with its
 * outcome.  The strings belong to the result. */
typedef struct bc_known_info {
    bc_known_divergence entry;
    bc_known_status status;
    const char *detail;   /* what its replay showed */
    int explained;        /* shrunk failures of the run it explains */
    int64_t reach_hits;   /* failing cases within its reach, counted as checked */
} bc_known_info;

int bc_run_known_count(const bc_run_result *r);
bc_known_info bc_run_known(const bc_run_result *r, int i);

/* ---- the files a run writes (properties/file_io.c, corpus.c) -------------- */

/* 1 if path means standard output: "-" or "/dev/stdout". */
int bc_output_is_stdout(const char *path);

/* Whether a report (named `what`, e.g. "JSON report") can be written at
 * path, said before a run that may take hours: standard output, or a
 * regular file or a free name (a symbolic link to a regular file is
 * followed) in a writable folder.  A folder, FIFO, device, socket or
 * symbolic link to nothing is refused, never replaced.  0, or -1 with why. */
int bc_output_check(const char *what, const char *path, char *why, size_t cap);

/* Writes data[len] at path whole or not at all: built elsewhere, written
 * to an unnamed temporary file in the target's folder, synced and renamed
 * over the target; or streamed to standard output for "-"/"/dev/stdout".
 * The same refusals as bc_output_check.  0, or -1 with why (naming what,
 * the path and the system's reason); nothing is left behind on failure. */
int bc_write_whole(const char *what, const char *path, const char *data, size_t len, char *why,
                   size_t cap);

/* 1 if a and b name one file: the same existing file (even through other
 * names or links), the same free name once folders are resolved, or both
 * standard output. */
int bc_same_file(const char *a, const char *b);

/* Whether path can be used as a corpus: a regular file that can be read
 * and appended to, or a free name in a writable folder.  0, or -1 with why.
 * bc_run checks it before any case runs. */
int bc_corpus_check(const char *path, char *why, size_t cap);

/* ---- replay -------------------------------------------------------------- */

/* Checks one case (a vector line; its expectation is ignored) under one
 * property against a SUT, exactly as the runner did, under the value
 * semantics the SUT declares (NULL: the reference's own).  Returns 0 pass,
 * 1 fail (detail written), 2 unsupported or not applicable (detail says why). */
int bc_replay(const bc_sut *sut, const bc_semantics *semantics, int property, const bc_vector *c,
              char *detail, size_t cap);
/* bc_replay within a memory budget (max_bytes; 0: the default) and a
 * question size limit (max_question_bytes; 0: none), as bc_run_config's. */
int bc_replay_within(const bc_sut *sut, const bc_semantics *semantics, int64_t max_bytes,
                     int64_t max_question_bytes, int property, const bc_vector *c, char *detail,
                     size_t cap);
/* The same for a partial case (a property with bc_property_info.partial). */
int bc_replay_partial(const bc_sut *sut, int property, const bc_pvector *c, char *detail,
                      size_t cap);

#ifdef __cplusplus
}
#endif
#endif
