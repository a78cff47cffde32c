/*
 * Private to properties/: the run result the reports read, coverage
 * classes, and the pieces the runner is made of.
 */
#ifndef BROADCHECK_PROPERTIES_INTERNAL_H
#define BROADCHECK_PROPERTIES_INTERNAL_H

#include "broadcheck/properties.h"
#include "prng.h"

#define BC_MAX_PROPERTIES 32

/* Coverage classes, counted per run from the cases actually checked (the
 * reference's verdict on each), not from what a generator meant to make. */
typedef enum bc_coverage {
    BC_COV_ACCEPT,         /* the reference accepts the case */
    BC_COV_REJECT,         /* the reference rejects it (per kind below) */
    BC_COV_RANK_0,         /* some operand is a scalar */
    BC_COV_SIZE_0,         /* some operand has a 0 dim */
    BC_COV_STRETCH,        /* accepted, and some operand's 1 stretches to a dim != 1 */
    BC_COV_STRETCH_FIRST,  /* ... at the result's first axis */
    BC_COV_STRETCH_MIDDLE, /* ... at an axis strictly between first and last */
    BC_COV_STRETCH_LAST,   /* ... at the result's last axis */
    BC_COV_STRETCH_TO_0,   /* ... a 1 stretched to 0 */
    BC_COV_RANK_GAP,       /* operands of different ranks */
    BC_COV_MAX_RANK,       /* an operand of rank BC_MAX_RANK */
    BC_COV_MANY_OPERANDS,  /* more than 2 operands */
    BC_COV_MAX_OPERANDS,   /* exactly BC_MAX_OPERANDS operands */
    BC_COV_HUGE_DIM,       /* a dim above 2^32 */
    BC_COV_VALUE,          /* a value case (tensors computed) */
    BC_COV_VALUE_SIZE_0,   /* ... with a 0 dim in some operand: no elements */
    BC_COV_VALUE_STRIDED,  /* ... with non-contiguous inputs */
    BC_COV_VALUE_NARY,     /* ... elementwise on 3 or more operands */
    BC_COV_VALUE_SELECT,   /* ... where */
    BC_COV_VALUE_BROADCAST,   /* ... broadcast */
    BC_COV_VALUE_SUM_TO_SHAPE, /* ... sum-to-shape */
    BC_COV_VALUE_HIGH_RANK,    /* ... an operand of rank 7 or more (past many kernels' 6) */
    BC_COV_VALUE_MANY_OPERANDS, /* ... elementwise on 5 or more operands */
    BC_COV_PARTIAL,            /* a partial-shape case (RULES.md §14) */
    BC_COV_PARTIAL_DYNAMIC,    /* ... with a ? dim */
    BC_COV_PARTIAL_INTERVAL,   /* ... with a bounded interval */
    BC_COV_PARTIAL_UNBOUNDED,  /* ... with an interval LO.. */
    BC_COV_PARTIAL_SYMBOL,     /* ... with a symbol */
    BC_COV_PARTIAL_SYMBOL_SHARED, /* ... a symbol on two dims or more */
    BC_COV_PARTIAL_DYNAMIC_RANK,  /* ... with a shape of unknown rank */
    BC_COV_PARTIAL_REJECT,     /* ... that the partial reference rejects */
    BC_COV_PAST_64_OPERANDS,   /* more than 64 operands (RULES.md §9.5) */
    BC_COV_NO_OPERANDS,        /* no operand at all (numpy-empty-fold, RULES.md §3.1) */
    BC_COV_COUNT
} bc_coverage;

const char *bc_coverage_name(bc_coverage c);

/* Why a selected cell checked no more than it did (BC_CELL_RAN: all of its
 * budget, cases or its share of --time). */
typedef enum bc_cell_end {
    BC_CELL_RAN,
    BC_CELL_FIRST_FAILURE, /* stopped at its first failing case (the per-cell stop) */
    BC_CELL_MAX_FAILURES,  /* after the run's N-th failing cell (--max-failures): not run */
    BC_CELL_UNRESPONSIVE,  /* the SUT stopped answering (--unresponsive-after) */
    BC_CELL_INTERRUPTED,   /* a signal stopped the run */
    BC_CELL_NO_TIME,       /* --time ran out before it was reached */
    BC_CELL_END_COUNT
} bc_cell_end;

/* "ran", "first-failure", "max-failures", ... as the reports spell them. */
const char *bc_cell_end_name(bc_cell_end e);
int bc_cell_end_from_name(const char *name); /* -1 if unknown */

/* Why a run ended before every cell ran its budget. */
typedef enum bc_run_end {
    BC_RUN_COMPLETE,
    BC_RUN_MAX_FAILURES,
    BC_RUN_UNRESPONSIVE,
    BC_RUN_INTERRUPTED,
    BC_RUN_END_COUNT
} bc_run_end;

const char *bc_run_end_name(bc_run_end e); /* "complete", "max-failures", ... */
int bc_run_end_from_name(const char *name);

typedef struct bc_cell {
    int selected;        /* the run checks this rule x property */
    int64_t passed, failed, unsupported;
    int64_t known_failed; /* failing cases within a known divergence's reach (not in failed) */
    int failure;         /* index into failures[], or -1 */
    bc_cell_end end;
} bc_cell;

/* Why a shrink stopped before its case was 1-minimal. */
typedef enum bc_shrink_stop {
    BC_SHRINK_MINIMAL,     /* it is 1-minimal (or nothing was shrunk: a corpus line) */
    BC_SHRINK_CALL_LIMIT,  /* --max-shrink-calls */
    BC_SHRINK_TIME,        /* --time ran out */
    BC_SHRINK_UNRESPONSIVE,
    BC_SHRINK_INTERRUPTED,
    BC_SHRINK_STOP_COUNT
} bc_shrink_stop;

const char *bc_shrink_stop_name(bc_shrink_stop s); /* "minimal", "call-limit", ... */
int bc_shrink_stop_from_name(const char *name);

typedef struct bc_failure {
    int property;
    bc_rule rule;
    int64_t case_index;  /* within its cell's stream; -1 for a corpus line */
    char *original;      /* the failing case as generated, a vector line */
    char *minimal;       /* after shrinking, a vector line (reference's expectation) */
    char *replay;        /* the command line that reproduces it */
    char detail[512];    /* what disagreed, on the minimal case */
    int shrink_calls;    /* SUT calls the shrink made */
    int shrink_steps;    /* successful simplifications */
    bc_shrink_stop shrink_stop;
    int flaky;             /* the case passed when checked again */
    char first_detail[512]; /* what the first check of the original case showed */
    int64_t corpus_line;   /* for a corpus failure: its line number (1-based); else -1 */
    int known;             /* -1, or the index of the known divergence that explains it */
} bc_failure;

/* What replaying a known divergence's case showed (reports: case_replay).
 * The status follows from it and the run's failures (bc_known_settle); the
 * merge reads it back from the shard that replayed the entry, so the two
 * decide alike without reading the detail's prose. */
typedef enum bc_case_replay {
    BC_CASE_NOT_REPLAYED, /* another shard's, its cell not selected, the run stopped, ... */
    BC_CASE_FAILS,
    BC_CASE_PASSES,
    BC_CASE_DECLINED      /* the SUT declines it now */
} bc_case_replay;
const char *bc_case_replay_name(bc_case_replay r); /* "not-replayed", "fails", ... */
/* r's value for name; BC_CASE_NOT_REPLAYED for NULL or a name it does not know */
bc_case_replay bc_case_replay_from_name(const char *name);

/* A known divergence of the run (bc_run_config.known), with its outcome;
 * every string owned (strdup). */
typedef struct bc_known_result {
    char *id, *property, *vector, *link, *note, *reach_rules, *reach_ops, *reach_dtypes,
        *reach_detail, *reach_properties;
    int reach_strided;      /* the reach takes strided value cases only */
    int reach_min_shapes;   /* the reach takes cases of at least this many shapes (0: any) */
    char *reach_case;       /* "" or a regular expression the case line must match */
    void *case_regex;       /* reach_case compiled (regex_t), or NULL */
    char klass;
    int reach;
    void *detail_regex; /* a compiled reach_detail (regex_t), or NULL */
    bc_known_status status;
    bc_case_replay case_replay; /* what its case's replay showed, whatever the status */
    char detail[512];
    int explained;      /* shrunk failures it explains */
    int64_t reach_hits; /* failing cases within its reach, counted as checked */
} bc_known_result;

/* The status and detail of an entry whose case passed when replayed: XPASS,
 * unless failures of the run lie within it (its reach, or a shrink that
 * ended on its case): then XFAIL, it fails intermittently.  An unwritten
 * output shows only on dirty memory (ort-web's R7 passed its replay in 1 of
 * 3 to 5 runs that each failed hundreds of cases within it), and XPASS
 * would tell its maintainer to delete the entry of a bug seen in that very
 * run.  Decided by k->case_replay alone, never by the detail's text, and
 * again on a merge with the failures of every shard.  Returns 1 if k is
 * such an intermittent XFAIL; any other entry is left as it is. */
int bc_known_settle(bc_known_result *k);

/* Copies entries into res->known (0, or -1 out of memory); matches res's
 * failures against them; replays each one this shard owns (known.c). */
int bc_known_copy(bc_run_result *res, const bc_known_divergence *entries, int n);
int bc_known_match(bc_run_result *res);
/* The known divergence whose reach holds failing case `line` of property
 * (its detail as checked), or -1.  Safe from any thread. */
int bc_known_reach(const bc_run_result *res, int property, const char *line, const char *detail);
void bc_known_replay(bc_run_result *res, const bc_sut *sut, int (*stop)(void *), void *stop_ctx);
void bc_known_free(bc_run_result *res);
/* Compiles k->reach_detail into k->detail_regex and k->reach_case into
 * k->case_regex (each when not ""): 0, or -1 (a bad expression). */
int bc_known_compile(bc_known_result *k);

struct bc_run_result {
    char broadcheck_version[32];
    char sut_name[128];
    char sut_version[128];
    char sut_args[4200];     /* the SUT's limits (and manifest) in replay lines (bc_run_config.sut_args) */
    uint64_t seed;
    int64_t cases;           /* per shape-property cell, as configured (0 with seconds) */
    int64_t value_cases;     /* per value-property cell, as configured (0 with seconds) */
    int64_t partial_cases;   /* per partial-property cell, as configured (0 with seconds) */
    double seconds;          /* as configured */
    int shard_index, shard_count, jobs;
    double elapsed;          /* wall seconds */
    int nproperties;
    bc_cell cells[BC_RULE_COUNT][BC_MAX_PROPERTIES];
    int64_t coverage[BC_COV_COUNT];
    int64_t rejects[BC_ERR_KIND_COUNT]; /* reference rejections by kind */
    int nfailures;
    bc_failure *failures;
    int64_t corpus_replayed; /* corpus lines run before generation */
    int64_t corpus_failed;
    char corpus_error[1024]; /* "" or why the new failures could not be appended */
    bc_run_end end;          /* why it ended (BC_RUN_COMPLETE: every cell ran) */
    char end_detail[512];    /* one sentence on that ("" when complete) */
    int signal;              /* with BC_RUN_INTERRUPTED: the signal */
    int max_failures;        /* as configured (0: no limit) */
    int whole_cells;         /* 1: no per-cell stop (--whole-cells) */
    int nknown;
    bc_known_result *known;  /* the manifest's known divergences, with outcomes */
    int strict;              /* --strict: an XPASS fails the run */
    char manifest_path[512]; /* "" or the manifest's file */
    char declared_name[128]; /* "" or the manifest's name and version */
    char declared_version[128];
    bc_semantics semantics;      /* the SUT's declared value semantics (config) */
    bc_value_tier value_tier;    /* how large its value cases were (config) */
    int64_t max_bytes;           /* a value check's memory budget (config; 0: the default) */
    int64_t max_question_bytes;  /* (config) */
    int64_t value_bytes;         /* output bytes value-differential compared, every case checked */
    int64_t value_moved_bytes;   /* the same questions' input and output bytes */
    int64_t asked_again;         /* questions an external SUT answered only when asked again,
                                    after a timeout (BC_SUT_RETRY_TIMEOUT_FACTOR) */
    char semantics_text[160];    /* bc_semantics_format of them, or as a merge read them */
    char broadcheck_commit[64]; /* "" if unknown */
    char platform[192];         /* the machine the run ran on (uname), "" if unknown */
    char started_at[32];        /* when, UTC, ISO 8601 */
};

/* Writes len bytes to fd, retrying short writes and EINTR (file_io.c).
 * Returns 0, or -1 with errno set. */
int bc_write_all(int fd, const char *data, size_t len);
/* "a FIFO", "a directory", ... for messages (file_io.c). */
const char *bc_file_kind(unsigned mode);

/* The vector line of c with the reference's expectation (c's expect fields
 * are set to it), malloc'd; NULL when out of memory. */
char *bc_vector_line_of(bc_vector *c);

/* The replay line of a failure; sut_args (NULL or "") follow --sut NAME. */
/* bc_replay and bc_replay_partial, also saying whether some question went
 * unanswered in time (*timed_out: a timeout or an interruption, not the
 * SUT's answer), so that a known divergence is not confirmed by one. */
int bc_replay_watched(const bc_sut *sut, const bc_semantics *semantics, int64_t max_bytes,
                      int64_t max_question_bytes, int property, const bc_vector *c, char *detail,
                      size_t cap, int *timed_out);
int bc_replay_partial_watched(const bc_sut *sut, int property, const bc_pvector *c, char *detail,
                              size_t cap, int *timed_out);
char *bc_replay_line(const char *sut_name, const char *sut_args, const char *property,
                     const char *vector_line);
/* 1 if property applies to rule. */
int bc_property_applies(int property, bc_rule rule);

/* ---- properties (property.c) ----------------------------------------- */

typedef enum bc_check {
    BC_CHECK_PASS,
    BC_CHECK_FAIL,
    BC_CHECK_UNSUPPORTED, /* the SUT declines a query the property needs */
    BC_CHECK_INVALID      /* the case is not one broadcheck computes (bc_value_case_check):
                             whoever made it has a bug; never the SUT's failure */
} bc_check;

typedef struct bc_arena bc_arena; /* value.h */
typedef struct bc_budget bc_budget; /* budget.h */

typedef struct bc_check_ctx {
    const bc_sut *sut;
    bc_semantics semantics; /* the SUT's declared value semantics: the oracle computes them */
    int64_t sut_calls; /* every query the property made */
    bc_arena *arena;   /* scratch for value properties: made on first use, reset per check */
    /* The runner's hooks (NULL outside a run, as in replay): every answer
     * the SUT gives is shown to `answered`; `stop` is asked before every
     * question (one the run is stopping for is not asked: `stopped` then
     * says why, and the check must be thrown away) and by a shrink after
     * each candidate, which then ends early. */
    void (*answered)(void *hook, const bc_sut_answer *a);
    bc_shrink_stop (*stop)(void *hook);
    /* Asked by a shrink of every failing candidate that fails as the case
     * it started from did (one of v or pv is given): 0 keeps it from
     * stepping there, as if it passed.  The run keeps shrinks off the
     * failures a known divergence's reach explains. */
    int (*takes)(void *hook, bc_vector *v, bc_pvector *pv, const char *detail);
    void *hook;
    bc_shrink_stop stopped; /* why a question was not asked or a shrink ended early */
    int64_t max_bytes;      /* a value check's memory budget (0: BC_VALUE_DEFAULT_MAX_BYTES) */
    int64_t max_question_bytes; /* 0, or the largest question the SUT takes */
    int64_t compared_bytes; /* output bytes value-differential compared (a throughput figure) */
    int64_t moved_bytes;    /* those questions' input elements' bytes and their outputs' */
    /* The run's --max-bytes, shared by its jobs (budget.h): a value check
     * larger than BC_BUDGET_SHARED_MIN takes its bytes from it before it
     * allocates, waiting for other jobs' checks to give theirs back.  NULL:
     * no sharing (replay, tests): the budget is per check. */
    bc_budget *budget;
    /* What bc_property_fits found for the case bc_property_check is on
     * (`fitted`, by `fitted_property`), so that the check's own budget
     * test does not compute it again; NULL outside bc_property_check. */
    const bc_vector *fitted;
    int fitted_property, fitted_ok;
    int64_t fitted_bytes, fitted_question;
} bc_check_ctx;

/* Frees what checking with ctx allocated (its arena). */
void bc_check_ctx_release(bc_check_ctx *ctx);

/* Shows an answer to ctx->answered, and notes in ctx->stopped an answer
 * that is not the question's: one cut short by an interrupt, or a question
 * never asked because no worker could be started.  Judging either would
 * charge an innocent case, so the check is thrown away (and a shrink ends). */
void bc_check_answered(bc_check_ctx *ctx, const bc_sut_answer *a);

/* Generates the case that `property` checks on `rule` from r; value cases
 * ask mostly for what caps says the SUT computes. */
void bc_property_gen(int property, bc_rule rule, const bc_sut_value_caps *caps,
                     const bc_semantics *semantics, bc_prng *r, bc_vector *c);
/* The same, its value cases of a tier (bc_property_gen is the small one);
 * shape and partial cases do not depend on it. */
void bc_property_gen_tier(int property, bc_rule rule, const bc_sut_value_caps *caps,
                          const bc_semantics *semantics, bc_value_tier tier, bc_prng *r,
                          bc_vector *c);
/* The same within a memory budget (max_bytes, 0: none given) and a SUT's
 * question limit (max_question_bytes, 0: none): a huge-tier case whose
 * check needs more (bc_property_fits), or whose result is not past 2^31
 * elements, is drawn again from r, up to BC_HUGE_DRAWS draws in all.  Kept:
 * the first draw that fits and is past 2^31 (or a first draw the rule
 * rejects), else the first that fits, else the last, whose check then says
 * "not examined" with the bytes.  Other tiers, and no budget, draw once.
 * Returns which draw was kept (1: the first). */
#define BC_HUGE_DRAWS 64
int bc_property_gen_within(int property, bc_rule rule, const bc_sut_value_caps *caps,
                           const bc_semantics *semantics, bc_value_tier tier, int64_t max_bytes,
                           int64_t max_question_bytes, bc_prng *r, bc_vector *c);
/* The bytes one check of value case c by property needs (-1: an element
 * count past BC_VALUE_MAX_NUMEL; 0: the property passes c unexamined), the
 * largest question's bytes in *question: what decides "not examined". */
int64_t bc_property_check_bytes(int property, const bc_semantics *semantics, const bc_vector *c,
                                int64_t *question);
/* 1 if a check of c by property fits max_bytes (0: the default budget) and
 * max_question_bytes (0: no limit); *bytes and *question as above. */
int bc_property_fits(int property, const bc_semantics *semantics, int64_t max_bytes,
                     int64_t max_question_bytes, const bc_vector *c, int64_t *bytes,
                     int64_t *question);
/* Checks one case; on failure writes what disagreed into detail. */
bc_check bc_property_check(int property, bc_check_ctx *ctx, const bc_vector *c, char *detail,
                           size_t cap);

/* ---- partial-shape cases (partial.c) ------------------------------------ */

/* The partial properties (bc_property_info.partial): their cases, checks
 * and shrinking, by property index (property.c). */
void bc_pproperty_gen(int property, bc_rule rule, unsigned partial_caps, unsigned profiles,
                      bc_prng *r, bc_pvector *c);
bc_check bc_pproperty_check(int property, bc_check_ctx *ctx, const bc_pvector *c, char *detail,
                            size_t cap);
int bc_pproperty_shrink(int property, bc_check_ctx *ctx, bc_pvector *c, int64_t max_calls,
                        char *detail, size_t cap);

typedef enum bc_partial_mode {
    BC_PMODE_SOUNDNESS, /* partial-soundness */
    BC_PMODE_PRECISION, /* partial-precision */
    BC_PMODE_SYMBOLS,   /* partial-symbols */
    BC_PMODE_STATIC     /* partial-static-agrees */
} bc_partial_mode;

/* Generates a partial case for `mode` on `rule` from r: a static case whose
 * dims are forgotten (?), widened (LO..HI) and named (symbols), as far as
 * caps (BC_PARTIAL_*) lets the SUT take them; profiles (bits of bc_profile)
 * are those the SUT declares: pytorch-expand, openvino-explicit and
 * numpy-empty-fold are drawn only when declared. */
void bc_pgen_case(bc_prng *r, bc_rule rule, unsigned caps, unsigned profiles,
                  bc_partial_mode mode, bc_pvector *c);
bc_check bc_partial_check(bc_partial_mode mode, bc_check_ctx *ctx, const bc_pvector *c,
                          char *detail, size_t cap);
void bc_pclassify(const bc_pvector *c, int64_t coverage[BC_COV_COUNT],
                  int64_t rejects[BC_ERR_KIND_COUNT]);
/* partial-precision's judgement of acceptance q of an explicit case whose
 * axes_mapping is unknown (RULES.md §14.9): by the check's own method (one
 * target axis at a time), or by the full walk of every mapping (no cap),
 * for tests (properties/partial.c says why the two agree). */
typedef enum bc_umap_method {
    BC_UMAP_BY_AXIS,
    BC_UMAP_FULL_WALK
} bc_umap_method;
bc_check bc_unknown_mapping_precision(const bc_pvector *c, const bc_pshape *q,
                                      bc_umap_method method, char *detail, size_t cap);
/* The method by axis with another rule for which blocks of the splits
 * (input axes i..j-1 onto target axis k) it takes, so that a test can plant
 * a wrong one and see the full walk tell it apart; the check's own rule is
 * bc_umap_block_in_split.  What a rule may ask of the splits: */
typedef struct bc_umap_splits bc_umap_splits;
/* input axes 0..i-1 split onto target axes 0..k-1 */
int bc_umap_prefix(const bc_umap_splits *s, int k, int i);
/* input axes i..j-1 onto target axis k is an accepted block */
int bc_umap_block(const bc_umap_splits *s, int k, int i, int j);
/* input axes j.. split onto target axes k.. */
int bc_umap_suffix(const bc_umap_splits *s, int k, int j);
typedef int (*bc_umap_block_rule)(const bc_umap_splits *s, int k, int i, int j);
int bc_umap_block_in_split(const bc_umap_splits *s, int k, int i, int j);
bc_check bc_unknown_mapping_precision_by(const bc_pvector *c, const bc_pshape *q,
                                         bc_umap_block_rule takes, char *detail, size_t cap);
/* partial-soundness's judgement of answer a on such a case (for tests). */
bc_check bc_unknown_mapping_soundness(const bc_pvector *c, const bc_sut_panswer *a, char *detail,
                                     size_t cap);
/* As bc_shrink and bc_shrink_candidate, for a partial case. */
int bc_pshrink(bc_partial_mode mode, bc_check_ctx *ctx, bc_pvector *c, int64_t max_calls,
               char *detail, size_t cap);
int bc_pshrink_candidate(const bc_pvector *c, long idx, bc_pvector *out);

/* ---- shrinking (shrink.c) --------------------------------------------- */

/* Shrinks c, which fails `property` on ctx->sut, in place to a 1-minimal
 * case: no single simplification (drop an operand, an axis, an option, an
 * axes entry; lower a dim to 0, 1, 2, half or one less; a negative dim to
 * -1; a value case's layout and values to 0, its dtype to int32, its op to
 * add) still fails.  Stops early after max_calls SUT calls, or when
 * ctx->stop says so (ctx->stopped says why).  detail holds what c's
 * failure showed on entry (each step keeps that kind of failure, see
 * bc_same_failure; "": any failure); on return, the failure detail of the final
 * case (checked again, unless stopped early: then the last one seen), or
 * "" if it passed when checked again (a flaky SUT).  Returns the
 * simplifications made. */
int bc_shrink(int property, bc_check_ctx *ctx, bc_vector *c, int64_t max_calls, char *detail,
              size_t cap);
/* One kind of case to shrink (bc_vector for bc_shrink, bc_pvector for
 * bc_pshrink), so that both walk the one greedy loop: the same rule for
 * which step is taken, when the shrink stops, and the final check again. */
typedef struct bc_shrink_kind {
    size_t size; /* of one case: a step copies the candidate over the case */
    /* The idx-th simplification of c into cand, as bc_shrink_candidate. */
    int (*candidate)(void *self, const void *c, long idx, void *cand);
    bc_check (*check)(void *self, bc_check_ctx *ctx, const void *c, char *detail, size_t cap);
    /* ctx->takes (not NULL) asked of the candidate */
    int (*takes)(bc_check_ctx *ctx, void *cand, const char *detail);
    void *self;
} bc_shrink_kind;
/* bc_shrink's loop and contract for any kind of case. */
int bc_shrink_greedy(const bc_shrink_kind *k, bc_check_ctx *ctx, void *c, int64_t max_calls,
                     char *detail, size_t cap);
/* 1 if two failure details show the same kind of failure: the same text
 * once every shape, number and name in it is left out.  A shrink steps only
 * onto candidates that fail as its case did on entry, so that it cannot
 * slide from one bug to another (Hypothesis shrinks each distinct failure
 * apart for the same reason), least of all onto a known divergence's case. */
int bc_same_failure(const char *a, const char *b);
/* The idx-th simplification of c, written into out: 1 if there is one (out
 * differs from c), 0 if this one does not apply, -1 past the end of the
 * list.  Exposed so a test can prove a shrunk case 1-minimal. */
int bc_shrink_candidate(const bc_vector *c, long idx, bc_vector *out);
/* The simplifications of c's axes the partial shrinker shares (they read
 * only the ranks and the options): drop a block of frame axes, one frame
 * axis, or explicit's input axis with its axes-mapping entry, in the
 * order and with the renumbering bc_shrink_candidate's steps 2, 7 and 7b
 * use.  Returns as bc_shrink_candidate (-1 from idx BC_SHRINK_AXES_STEPS on);
 * out's dims are c's, some dropped. */
#define BC_SHRINK_AXES_STEPS ((2L << 6) - 2 + 2L * BC_MAX_RANK)
int bc_shrink_axes_candidate(const bc_vector *c, long idx, bc_vector *out);
/* The which-th value a dim d may be lowered to, simplest first (0, 1, 2,
 * half, then d - 2^k bisecting toward a threshold): 1 and *out, or 0 if
 * that one does not apply. */
#define BC_SHRINK_LOWER_DIM_CANDIDATES 66
int bc_shrink_lower_dim(int64_t d, int which, int64_t *out);

/* ---- alignment (align.c) ---------------------------------------------- */

/* How operand i of c lines up under its rule: axis_of[k] is the frame axis
 * its axis k lands on, -1 if none (outside a pdpd window, an explicit axis
 * out of range).  The frame is the axes of the result the rule gives when it
 * accepts (the largest rank; pdpd's A, or the larger operand for paddle;
 * explicit's target); c need not be accepted.  Returns the frame's rank. */
int bc_align(const bc_vector *c, int i, int axis_of[BC_MAX_RANK]);

/* src into dst[cap], cut to fit: snprintf's "%s" without the formatter
 * (run.c; the partial properties copy every answer's message with it). */
void bc_set_text(char *dst, size_t cap, const char *src);

/* ---- coverage (classify.c) ------------------------------------------- */

/* Adds the classes of case c (judged by the reference) to the counters. */
void bc_classify(const bc_vector *c, int64_t coverage[BC_COV_COUNT],
                 int64_t rejects[BC_ERR_KIND_COUNT]);

/* ---- corpus (corpus.c) ------------------------------------------------ */

#define BC_CORPUS_VERSION 1

typedef struct bc_corpus {
    int count;
    char **lines; /* canonical vector lines */
} bc_corpus;

/* Reads a corpus; a missing file is an empty corpus.  Returns -1 with why
 * (naming FILE:LINE) on a malformed line or a newer corpus version. */
int bc_corpus_read(const char *path, bc_corpus *corpus, char *why, size_t cap);
/* Appends the lines not already in the file, under an exclusive lock, in
 * one write (a last line without its newline is ended first); on failure
 * the file is cut back to its old length.  Returns -1 with why. */
int bc_corpus_append(const char *path, const char *const *lines, int count, char *why,
                     size_t cap);
void bc_corpus_free(bc_corpus *corpus);

#endif
