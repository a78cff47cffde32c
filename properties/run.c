/*
 * The runner.  Every rule x property cell has its own stream of cases; case
 * i of a cell is generated from (seed, cell, i) alone, so counts, case ids
 * and failures are the same for any --jobs, and the shards of --shard K/N
 * add up to the whole (docs/PROPERTIES.md says how the per-cell stop
 * changes that for a failing cell).
 *
 * Worker threads take chunks of CHUNK case ids, cell after cell.  What a
 * chunk found is folded into its cell in chunk order (a chunk that ends
 * before an earlier one waits), so a cell's counts never depend on which
 * thread finished first.  A cell stops at its first failing case: its
 * counts are those of the cases up to that one, and chunks past it are
 * dropped.  Once a cell's first failure is final (every chunk before it
 * folded) a thread shrinks it, before taking more chunks; the shrink is a
 * function of the case and the SUT, so it too is the same for any --jobs.
 *
 * The run stops early, keeping everything found so far, on a signal
 * (config.interrupt), on a SUT that stopped answering (--unresponsive-after),
 * when --time is up (checked before every case and every shrink candidate,
 * so the run ends within one question of its budget), and after
 * --max-failures failing cells.
 */
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "broadcheck/sut_loader.h"
#include "budget.h"
#include "internal.h"
#include "value.h"

#define CHUNK 2048
/* Under --time, a cell whose first this many chunks the SUT declined
 * entirely ends early (see next_item). */
#define DECLINED_CHUNKS 2
#define NO_CHUNK INT64_MAX

/* What a chunk of a cell found; folded into the cell in chunk order. */
typedef struct chunk_result {
    int cell;
    int64_t chunk;
    int64_t passed, failed, unsupported;
    int64_t known_failed;  /* failing cases within a known divergence's reach (not in failed) */
    int64_t *reach_hits;   /* per known divergence (NULL: none yet) */
    int64_t first_failure; /* its lowest failing case id, or -1 */
    char first_detail[1024]; /* as a check writes it: a shrink keeps its kind */
    int64_t coverage[BC_COV_COUNT];
    int64_t rejects[BC_ERR_KIND_COUNT];
    int64_t value_bytes; /* output bytes value-differential compared */
    int64_t value_moved_bytes; /* their questions' inputs and outputs */
    int halted;          /* 1: it ended early because the run stopped (a signal, the SUT
                            given up on), its cases not all checked */
} chunk_result;

typedef enum shrink_state { SHRINK_NONE, SHRINK_PENDING, SHRINK_RUNNING, SHRINK_DONE } shrink_state;

typedef struct cell_run {
    bc_rule rule;
    int property;
    uint64_t stream;
    int64_t cases; /* its budget without --time */
    /* handing out chunks (under the runner's lock) */
    int64_t next_chunk;
    int chunks_done, in_flight;
    int64_t checked;    /* cases passed or failed so far, corpus lines included */
    double deadline;    /* --time: the end of its share */
    int closed;         /* for good: stopped at a failure, declined, or cut */
    bc_cell_end end;    /* set when it was cut (the SUT stopped answering) */
    _Atomic int64_t stop_chunk; /* the lowest chunk known to hold a failing case */
    atomic_int cut;     /* its chunks stop now */
    /* folded, in chunk order */
    int64_t folded;
    int halted;         /* a folded chunk ended early as the run stopped */
    int64_t passed, failed, unsupported, first_failure, known_failed;
    char first_detail[1024];
    int64_t coverage[BC_COV_COUNT];
    int64_t rejects[BC_ERR_KIND_COUNT];
    /* its failure */
    int corpus_failed;  /* a corpus line failed it (that failure is in res) */
    shrink_state shrink;
    bc_failure failure; /* with SHRINK_DONE */
} cell_run;

typedef struct runner {
    const bc_run_config *config;
    bc_run_result *res;
    int ncells;
    cell_run *cells;
    pthread_mutex_t lock;
    /* --max-bytes, shared by the jobs' value checks (budget.h).  Also with
     * one job: a large check then unmaps the last one's buffers before it
     * allocates (a run of --jobs 1 --max-bytes 5G held 6.3 GB without). */
    bc_budget budget;
    bc_budget *shared;
    int next_cell;
    int entering; /* 1: next_cell's share of time is still to be set */
    int round;    /* --time: passes over the cells so far, from 0 */
    double start, end; /* end: start + --time (or infinity) */
    chunk_result **pending; /* folded when the chunks before them are */
    int npending, pending_cap;
    int cutoff; /* --max-failures: the last cell that may run */
    bc_sut_value_caps caps; /* the SUT's, for the value generators */
    unsigned partial_caps;  /* the SUT's BC_PARTIAL_*, for the partial generators */
    /* what a progress line shows */
    int64_t cases_done, failures_seen;
    bc_run_progress progress; /* what cfg->progress is told */
    /* stopping */
    atomic_int consecutive_faults; /* questions in a row that timed out or crashed */
    atomic_int unresponsive_events; /* times the SUT was given up on */
    atomic_int halted;              /* a bc_run_end: the whole run stops */
    atomic_llong asked_again_answered; /* questions that timed out once, then were answered */
    char unresponsive_why[400];
    int oom;
    /* A case the generator made that broadcheck does not compute (a bug in
     * broadcheck, never the SUT's failure): the first one seen. */
    int invalid_cell;
    int64_t invalid_case;
    char invalid_detail[1024];
} runner;

typedef struct work_item {
    int shrink; /* 1: shrink the cell's first failure; 0: check a chunk */
    int cell;
    int64_t chunk;
} work_item;

/* One generated case: a vector, or a partial vector for the partial
 * properties (RULES.md §14). */
typedef struct run_case {
    bc_vector *v;
    bc_pvector *pv;
} run_case;

typedef struct worker {
    runner *run;
    run_case scratch;
    /* value checks' memory, kept from chunk to chunk: a fresh arena per
     * chunk faulted in its guarded buffers' pages again, a sixth of a
     * medium-tier run (the pool unmaps what goes unused, guard.c) */
    bc_arena *arena;
} worker;

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* FNV-1a of "rule/property": a cell's stream id, stable when properties are
 * added or reordered. */
static uint64_t stream_of(bc_rule rule, int property)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    uint64_t h = 0xcbf29ce484222325u;
    const char *parts[3] = {bc_rule_name(rule), "/", props[property].name};
    for (int p = 0; p < 3; p++)
        for (const char *s = parts[p]; *s; s++)
            h = (h ^ (uint8_t)*s) * 0x100000001b3u;
    return h;
}

bc_run_config bc_run_config_default(void)
{
    bc_run_config c;
    memset(&c, 0, sizeof c);
    c.cases = 50000;       /* x 21 shape cells: over 10^6 shape cases by default */
    c.value_cases = 10000; /* x 17 value cells: over 10^5 value cases */
    c.partial_cases = 5000; /* x 28 partial cells: 140,000 partial cases */
    c.seed = 1;
    c.shard_count = 1;
    c.jobs = 1;
    c.max_shrink_calls = 2000;
    c.unresponsive_after = 5;
    return c;
}

void bc_set_text(char *dst, size_t cap, const char *src)
{
    size_t n = strnlen(src, cap - 1);
    memcpy(dst, src, n);
    dst[n] = '\0';
}

char *bc_vector_line_of(bc_vector *c)
{
    bc_error_kind kind = bc_infer(&c->params, c->nshapes, c->shapes, &c->expect_shape, NULL);
    c->expect = kind == BC_OK ? BC_EXPECT_SHAPE : BC_EXPECT_ERROR;
    c->expect_kind = kind;
    int len = bc_vector_format(c, NULL, 0);
    char *line = malloc((size_t)len + 1);
    if (line)
        bc_vector_format(c, line, (size_t)len + 1);
    return line;
}

/* The line of partial case c with the partial reference's expectation. */
static char *pvector_line(bc_pvector *c)
{
    bc_error_kind kind =
        bc_pinfer(&c->params, c->nshapes, c->shapes, &c->syms, &c->expect_shape, NULL);
    c->expect = kind == BC_OK ? BC_EXPECT_SHAPE : BC_EXPECT_ERROR;
    c->expect_kind = kind;
    int len = bc_pvector_format(c, NULL, 0);
    char *line = malloc((size_t)len + 1);
    if (line)
        bc_pvector_format(c, line, (size_t)len + 1);
    return line;
}

static int is_partial(int property)
{
    int count;
    return bc_properties(&count)[property].partial;
}

/* ---- one case, static or partial ------------------------------------------ */

static int case_alloc(run_case *c)
{
    c->v = malloc(sizeof *c->v);
    c->pv = malloc(sizeof *c->pv);
    return c->v && c->pv ? 0 : -1;
}

static void case_free(run_case *c)
{
    free(c->v);
    free(c->pv);
    c->v = NULL;
    c->pv = NULL;
}

static void case_gen(const runner *run, int property, bc_rule rule, bc_prng *g, run_case *c)
{
    if (is_partial(property))
        bc_pproperty_gen(property, rule, run->partial_caps, run->caps.profiles, g, c->pv);
    else
        bc_property_gen_within(property, rule, &run->caps, &run->config->semantics,
                               run->config->value_tier, run->config->max_bytes,
                               run->config->max_question_bytes, g, c->v);
}

static bc_check case_check(int property, bc_check_ctx *ctx, const run_case *c, char *detail,
                           size_t cap)
{
    return is_partial(property) ? bc_pproperty_check(property, ctx, c->pv, detail, cap)
                                : bc_property_check(property, ctx, c->v, detail, cap);
}

static void case_classify(int property, const run_case *c, int64_t *coverage, int64_t *rejects)
{
    if (is_partial(property))
        bc_pclassify(c->pv, coverage, rejects);
    else
        bc_classify(c->v, coverage, rejects);
}

/* The case's line with the reference's expectation (malloc'd; NULL: out of memory). */
static char *case_line(int property, run_case *c)
{
    return is_partial(property) ? pvector_line(c->pv) : bc_vector_line_of(c->v);
}

static int case_shrink(int property, bc_check_ctx *ctx, run_case *c, int max_calls,
                       char *detail, size_t cap)
{
    return is_partial(property)
               ? bc_pproperty_shrink(property, ctx, c->pv, max_calls, detail, cap)
               : bc_shrink(property, ctx, c->v, max_calls, detail, cap);
}

/* ---- stopping ------------------------------------------------------------- */

static void halt(runner *run, bc_run_end why)
{
    int none = BC_RUN_COMPLETE;
    atomic_compare_exchange_strong(&run->halted, &none, (int)why);
}

static int interrupted(runner *run)
{
    const volatile sig_atomic_t *flag = run->config->interrupt;
    if (flag && *flag) {
        halt(run, BC_RUN_INTERRUPTED);
        return 1;
    }
    return 0;
}

/* 1 if the run stops now (a signal, a SUT given up on, --time). */
static int stopping(runner *run)
{
    return interrupted(run) || atomic_load(&run->halted) != BC_RUN_COMPLETE ||
           (run->config->seconds > 0 && now_seconds() >= run->end);
}

/* ctx.answered: counts the questions in a row that got no answer of the
 * SUT's own (a timeout, a crash, a broken frame).  At K the cells in
 * progress end; one more without an answer between ends the run. */
static void answered(void *hook, const bc_sut_answer *a)
{
    runner *run = hook;
    const int k = run->config->unresponsive_after;
    if (a->asked_again && a->fault == BC_SUT_FAULT_NONE)
        atomic_fetch_add(&run->asked_again_answered, 1); /* the machine was slow */
    if (a->status == BC_SUT_UNSUPPORTED)
        return; /* neutral: often declined by the harness from the SUT's scope, unasked */
    if (a->status != BC_SUT_INTERNAL_ERROR || a->fault == BC_SUT_FAULT_NONE) {
        atomic_store(&run->consecutive_faults, 0);
        return;
    }
    if (a->fault == BC_SUT_FAULT_INTERRUPTED || k <= 0)
        return;
    int n = atomic_fetch_add(&run->consecutive_faults, 1) + 1;
    if (n < k)
        return;
    pthread_mutex_lock(&run->lock);
    if (n == k) {
        snprintf(run->unresponsive_why, sizeof run->unresponsive_why,
                 "%d questions in a row got no answer (the last: %s)", k, a->message);
        for (int c = 0; c < run->ncells; c++) {
            cell_run *cr = &run->cells[c];
            if (cr->in_flight > 0) {
                atomic_store(&cr->cut, 1);
                cr->closed = 1;
                cr->end = BC_CELL_UNRESPONSIVE;
            }
        }
        atomic_fetch_add(&run->unresponsive_events, 1);
    } else {
        snprintf(run->unresponsive_why, sizeof run->unresponsive_why,
                 "%d questions in a row got no answer, across cells (the last: %s)", n,
                 a->message);
        halt(run, BC_RUN_UNRESPONSIVE);
    }
    pthread_mutex_unlock(&run->lock);
}

/* 1 if a check was thrown away only because a question of it could not
 * be asked (no worker started), while the run and its cells go on: the
 * case is skipped, not counted, and the SUT's streak of unanswered
 * questions (answered) decides when to give up on it. */
static int unasked(runner *run, const bc_check_ctx *ctx)
{
    return ctx->stopped == BC_SHRINK_UNRESPONSIVE && !interrupted(run) &&
           atomic_load(&run->halted) == BC_RUN_COMPLETE;
}

/* ctx.stop of a check: whether its next question is still asked.  Not
 * after a signal, once the SUT was given up on, past --time, nor in a
 * cell that was cut: such a question could cost a whole timeout. */
typedef struct check_hook {
    runner *run;
    cell_run *cell; /* NULL for the corpus */
} check_hook;

static void check_answered(void *hook, const bc_sut_answer *a)
{
    answered(((check_hook *)hook)->run, a);
}

static bc_shrink_stop check_stop(void *hook)
{
    check_hook *h = hook;
    runner *run = h->run;
    if (interrupted(run) || atomic_load(&run->halted) == BC_RUN_INTERRUPTED)
        return BC_SHRINK_INTERRUPTED;
    if (atomic_load(&run->halted) == BC_RUN_UNRESPONSIVE || (h->cell && atomic_load(&h->cell->cut)))
        return BC_SHRINK_UNRESPONSIVE;
    if (run->config->seconds > 0 && now_seconds() >= run->end)
        return BC_SHRINK_TIME;
    return BC_SHRINK_MINIMAL;
}

/* ---- handing out work --------------------------------------------------------- */

/* 1 if cell c is known to fail (a corpus line, or a failing case found). */
static int known_failing(cell_run *cr)
{
    return cr->corpus_failed || atomic_load(&cr->stop_chunk) != NO_CHUNK;
}

/* --max-failures: the last cell that may still run is the N-th one known
 * to fail (in cell order); cells after it are not needed whatever the
 * cells before it still find.  Under the lock. */
static void update_cutoff(runner *run)
{
    const int n = run->config->max_failures;
    if (n <= 0)
        return;
    int seen = 0;
    for (int c = 0; c < run->ncells; c++)
        if (known_failing(&run->cells[c]) && ++seen == n) {
            run->cutoff = c;
            return;
        }
}

/* The cells from c on that the next share of time is divided among: in the
 * first round every one; in later rounds those that checked something. */
static int cells_sharing(const runner *run, int c)
{
    if (run->round == 0)
        return run->ncells - c;
    int live = 0;
    for (int k = c; k < run->ncells; k++)
        live += run->cells[k].checked > 0 && !run->cells[k].closed;
    return live > 0 ? live : 1;
}

/* Under --time: whether the cells get another round when the last one is
 * done early (cells the SUT declined ended after two chunks, and their
 * time is left over).  Not for a sliver of time. */
static int another_round(const runner *run)
{
    const double left = run->end - now_seconds();
    if (left < 0.1 || left < run->config->seconds / 100)
        return 0;
    for (int k = 0; k <= run->cutoff && k < run->ncells; k++)
        if (run->cells[k].checked > 0 && !run->cells[k].closed)
            return 1;
    return 0;
}

/* The cases this shard checks of a cell of n cases: i < n with
 * i mod shard_count == shard_index. */
static int64_t shard_cases(const bc_run_config *cfg, int64_t n)
{
    int64_t count = cfg->shard_count, k = cfg->shard_index;
    return n / count + (k < n % count ? 1 : 0);
}

/* Tells cfg->progress where the run is; under run->lock (so never from two
 * threads at once).  shrinking: 1 when a shrink is being handed out. */
static void report_progress(runner *run, int shrinking)
{
    const bc_run_config *cfg = run->config;
    if (!cfg->progress)
        return;
    bc_run_progress *p = &run->progress;
    p->cells = run->ncells;
    p->cells_done = 0;
    p->to_shrink = 0;
    int shrinks_started = 0;
    for (int c = 0; c < run->ncells; c++) {
        const cell_run *cr = &run->cells[c];
        /* no chunk in flight and none to come */
        int all_out = cr->closed || (cfg->seconds <= 0 && cr->next_chunk * CHUNK >= cr->cases);
        p->cells_done += all_out && cr->in_flight == 0;
        p->to_shrink += cr->shrink != SHRINK_NONE;
        shrinks_started += cr->shrink == SHRINK_RUNNING || cr->shrink == SHRINK_DONE;
    }
    p->cases = run->cases_done;
    p->failures = run->failures_seen;
    p->seconds = cfg->seconds;
    p->shrinking = shrinking ? shrinks_started : 0;
    cfg->progress(cfg->progress_ctx, p);
}

/* Takes the next piece of work: a shrink that is due, else a chunk.
 * Returns 0 when there is no more. */
static int next_item(runner *run, work_item *item)
{
    const bc_run_config *cfg = run->config;
    pthread_mutex_lock(&run->lock);
    int found = 0;
    while (!found && !stopping(run)) {
        for (int c = 0; c < run->ncells && c <= run->cutoff && !found; c++)
            if (run->cells[c].shrink == SHRINK_PENDING) {
                run->cells[c].shrink = SHRINK_RUNNING;
                *item = (work_item){1, c, 0};
                found = 1;
            }
        if (found)
            break;
        if (run->next_cell >= run->ncells || run->next_cell > run->cutoff) {
            if (cfg->seconds <= 0 || !another_round(run))
                break;
            run->round++;
            run->next_cell = 0;
            run->entering = 1;
        }
        const int c = run->next_cell;
        cell_run *cr = &run->cells[c];
        int more;
        if (cr->closed || (!cfg->whole_cells && known_failing(cr))) {
            more = 0; /* stopped at its first failure, declined, or cut */
        } else if (cfg->seconds <= 0) {
            more = cr->next_chunk * CHUNK < cr->cases;
        } else if (run->round > 0 && cr->checked == 0) {
            more = 0; /* declined throughout its first round */
        } else if (run->entering) {
            /* Entering a cell: it gets an equal share of the time left. */
            double t = now_seconds(), left = run->end - t;
            cr->deadline = t + (left > 0 ? left / cells_sharing(run, c) : 0);
            run->entering = 0;
            more = left > 0;
        } else {
            /* A cell the SUT declined throughout so far (a rule or kind it
             * does not declare) ends early; its time goes to the others. */
            more = now_seconds() < cr->deadline &&
                   !(cr->chunks_done >= DECLINED_CHUNKS && cr->checked == 0);
            if (cr->chunks_done >= DECLINED_CHUNKS && cr->checked == 0 && !cr->corpus_failed)
                cr->closed = 1;
        }
        if (more) {
            *item = (work_item){0, c, cr->next_chunk++};
            cr->in_flight++;
            found = 1;
            break;
        }
        run->next_cell++;
        run->entering = 1;
    }
    if (found && item->shrink)
        report_progress(run, 1);
    pthread_mutex_unlock(&run->lock);
    return found;
}

/* ---- folding what chunks found ---------------------------------------------- */

static void fold(runner *run, cell_run *cr, const chunk_result *r)
{
    cr->passed += r->passed;
    cr->failed += r->failed;
    cr->unsupported += r->unsupported;
    cr->known_failed += r->known_failed;
    for (int i = 0; r->reach_hits && i < run->res->nknown; i++)
        run->res->known[i].reach_hits += r->reach_hits[i];
    for (int k = 0; k < BC_COV_COUNT; k++)
        cr->coverage[k] += r->coverage[k];
    for (int k = 0; k < BC_ERR_KIND_COUNT; k++)
        cr->rejects[k] += r->rejects[k];
    cr->folded = r->chunk + 1;
    cr->halted |= r->halted;
    if (r->first_failure >= 0 && cr->first_failure < 0) {
        /* Every chunk before this one is folded: this is the cell's first
         * failure, for good.  Shrink it (unless a corpus line already
         * showed the cell failing), and stop the cell there. */
        cr->first_failure = r->first_failure;
        memcpy(cr->first_detail, r->first_detail, sizeof cr->first_detail);
        if (!cr->corpus_failed)
            cr->shrink = SHRINK_PENDING;
        if (!run->config->whole_cells)
            cr->closed = 1;
    }
}

static void free_chunk(chunk_result *r)
{
    if (r)
        free(r->reach_hits);
    free(r);
}

/* Under the lock: a chunk is done.  It is folded if every chunk before it
 * is, then so are the pending ones it was holding up; a chunk past the
 * cell's first failure is dropped. */
static void chunk_done(runner *run, chunk_result *r)
{
    const int r_cell = r->cell;
    cell_run *cr = &run->cells[r_cell];
    cr->in_flight--;
    cr->chunks_done++;
    cr->checked += r->passed + r->failed + r->known_failed;
    run->cases_done += r->passed + r->failed + r->unsupported + r->known_failed;
    run->res->value_bytes += r->value_bytes; /* before a chunk is dropped: all the work done */
    run->res->value_moved_bytes += r->value_moved_bytes;
    run->failures_seen += r->failed;
    if (r->first_failure >= 0)
        update_cutoff(run);
    if (!run->config->whole_cells && r->chunk > atomic_load(&cr->stop_chunk)) {
        free_chunk(r);
        return;
    }
    if (r->chunk != cr->folded) {
        if (run->npending == run->pending_cap) {
            int cap = run->pending_cap ? 2 * run->pending_cap : 16;
            chunk_result **grown = realloc(run->pending, (size_t)cap * sizeof *grown);
            if (!grown) {
                run->oom = 1;
                halt(run, BC_RUN_INTERRUPTED);
                free_chunk(r);
                return;
            }
            run->pending = grown;
            run->pending_cap = cap;
        }
        run->pending[run->npending++] = r;
        return;
    }
    fold(run, cr, r);
    free_chunk(r);
    /* The pending chunks this one held up, in order; none past a failure
     * that stops the cell. */
    while (run->config->whole_cells || cr->first_failure < 0) {
        int i = 0;
        while (i < run->npending &&
               (run->pending[i]->cell != r_cell || run->pending[i]->chunk != cr->folded))
            i++;
        if (i == run->npending)
            break;
        chunk_result *p = run->pending[i];
        run->pending[i] = run->pending[--run->npending];
        fold(run, cr, p);
        free_chunk(p);
    }
}

/* 1 if failing case c of cell cr lies within a known divergence's reach
 * (properties.h): counted in r as known, not as a failure. */
static int known_reach(runner *run, const cell_run *cr, run_case *c, const char *detail,
                       chunk_result *r)
{
    bc_run_result *res = run->res;
    if (res->nknown == 0)
        return 0;
    char *line = case_line(cr->property, c);
    int k = line ? bc_known_reach(res, cr->property, line, detail) : -1;
    free(line);
    if (k < 0)
        return 0;
    if (!r->reach_hits && !(r->reach_hits = calloc((size_t)res->nknown, sizeof *r->reach_hits)))
        return 0; /* out of memory: then it is a failure, shrunk and reported */
    r->reach_hits[k]++;
    r->known_failed++;
    return 1;
}

/* Checks the cases of one chunk. */
static void check_chunk(worker *w, int cell, int64_t chunk)
{
    runner *run = w->run;
    const bc_run_config *cfg = run->config;
    cell_run *cr = &run->cells[cell];
    chunk_result *r = calloc(1, sizeof *r);
    if (!r) {
        pthread_mutex_lock(&run->lock);
        cr->in_flight--;
        run->oom = 1;
        halt(run, BC_RUN_INTERRUPTED);
        pthread_mutex_unlock(&run->lock);
        return;
    }
    r->cell = cell;
    r->chunk = chunk;
    r->first_failure = -1;
    char detail[1024];
    check_hook hook = {run, cr};
    bc_check_ctx ctx = {.sut = cfg->sut,
                        .semantics = cfg->semantics,
                        .max_bytes = cfg->max_bytes,
                        .max_question_bytes = cfg->max_question_bytes,
                        .answered = check_answered,
                        .stop = check_stop,
                        .hook = &hook,
                        .arena = w->arena,
                        .budget = run->shared};
    int64_t end = (chunk + 1) * CHUNK;
    if (cfg->seconds <= 0 && end > cr->cases)
        end = cr->cases;
    for (int64_t i = chunk * CHUNK; i < end; i++) {
        if (i % cfg->shard_count != cfg->shard_index)
            continue;
        if (atomic_load(&run->halted) != BC_RUN_COMPLETE || atomic_load(&cr->cut) ||
            (!cfg->whole_cells && atomic_load(&cr->stop_chunk) < chunk)) {
            r->halted = atomic_load(&run->halted) != BC_RUN_COMPLETE;
            break; /* the run stops, the cell is cut, or it failed earlier */
        }
        if (cfg->seconds > 0) {
            double t = now_seconds();
            if (t >= cr->deadline || t >= run->end)
                break;
        }
        bc_prng g;
        bc_prng_init(&g, cfg->seed, cr->stream, (uint64_t)i);
        case_gen(run, cr->property, cr->rule, &g, &w->scratch);
        ctx.stopped = BC_SHRINK_MINIMAL;
        bc_check verdict = case_check(cr->property, &ctx, &w->scratch, detail, sizeof detail);
        if (unasked(run, &ctx))
            continue; /* no worker could be started for it: the next case tries again */
        if (ctx.stopped != BC_SHRINK_MINIMAL || interrupted(run)) {
            /* (not --time's end: a cell is not cut short by it) */
            r->halted = atomic_load(&run->halted) != BC_RUN_COMPLETE;
            break; /* the run stopped inside this check (an answer may be the interrupt's
                      doing, a question was not asked): it is not counted */
        }
        if (verdict == BC_CHECK_INVALID) { /* the run fails as broadcheck's bug */
            pthread_mutex_lock(&run->lock);
            if (run->invalid_cell < 0) {
                run->invalid_cell = cell;
                run->invalid_case = i;
                bc_set_text(run->invalid_detail, sizeof run->invalid_detail, detail);
            }
            pthread_mutex_unlock(&run->lock);
            halt(run, BC_RUN_INTERRUPTED);
            break;
        }
        if (verdict != BC_CHECK_UNSUPPORTED) /* coverage: what was checked */
            case_classify(cr->property, &w->scratch, r->coverage, r->rejects);
        if (verdict == BC_CHECK_PASS) {
            r->passed++;
        } else if (verdict == BC_CHECK_UNSUPPORTED) {
            r->unsupported++;
        } else if (known_reach(run, cr, &w->scratch, detail, r)) {
            continue; /* a known divergence: counted, and the cell goes on */
        } else {
            r->failed++;
            if (r->first_failure < 0) {
                r->first_failure = i;
                bc_set_text(r->first_detail, sizeof r->first_detail, detail);
                int64_t known = atomic_load(&cr->stop_chunk);
                while (chunk < known &&
                       !atomic_compare_exchange_weak(&cr->stop_chunk, &known, chunk))
                    continue;
            }
            if (!cfg->whole_cells)
                break; /* the cell stops at its first failing case */
        }
    }
    r->value_bytes = ctx.compared_bytes;
    r->value_moved_bytes = ctx.moved_bytes;
    w->arena = ctx.arena; /* for the next chunk; freed with the worker */
    pthread_mutex_lock(&run->lock);
    chunk_done(run, r);
    report_progress(run, 0);
    pthread_mutex_unlock(&run->lock);
}

/* ---- shrinking --------------------------------------------------------------------- */

typedef struct shrink_hook {
    runner *run;
    cell_run *cell;
    int events; /* run->unresponsive_events when the shrink began */
} shrink_hook;

static void shrink_answered(void *hook, const bc_sut_answer *a)
{
    answered(((shrink_hook *)hook)->run, a);
}

static bc_shrink_stop shrink_stop(void *hook)
{
    shrink_hook *h = hook;
    runner *run = h->run;
    if (interrupted(run) || atomic_load(&run->halted) == BC_RUN_INTERRUPTED)
        return BC_SHRINK_INTERRUPTED;
    if (atomic_load(&run->halted) == BC_RUN_UNRESPONSIVE ||
        atomic_load(&run->unresponsive_events) != h->events)
        return BC_SHRINK_UNRESPONSIVE;
    if (run->config->seconds > 0 && now_seconds() >= run->end)
        return BC_SHRINK_TIME;
    return BC_SHRINK_MINIMAL;
}

/* Keeps a shrink off the failures a known divergence's reach explains:
 * counted as known when checked, they are not the failure being shrunk. */
static int shrink_takes(void *hook, bc_vector *v, bc_pvector *pv, const char *detail)
{
    shrink_hook *h = hook;
    if (h->run->res->nknown == 0)
        return 1;
    char *line = v ? bc_vector_line_of(v) : pvector_line(pv);
    int takes = line && bc_known_reach(h->run->res, h->cell->property, line, detail) < 0;
    free(line);
    return takes;
}

/* Fills f with the failure of case `index` of cr: original is the case as
 * generated, minimal the line of the case the shrink ended with (f takes it;
 * NULL: out of memory). */
static int make_failure(runner *run, cell_run *cr, bc_failure *f, int64_t index,
                        const char *original, char *minimal, const char *detail, int calls,
                        int steps, bc_shrink_stop stop)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    memset(f, 0, sizeof *f);
    f->property = cr->property;
    f->rule = cr->rule;
    f->case_index = index;
    f->corpus_line = -1;
    f->known = -1;
    f->original = strdup(original);
    f->minimal = minimal;
    f->replay = f->minimal ? bc_replay_line(run->res->sut_name, run->res->sut_args,
                                            props[cr->property].name, f->minimal)
                           : NULL;
    f->shrink_calls = calls;
    f->shrink_steps = steps;
    f->shrink_stop = stop;
    bc_set_text(f->first_detail, sizeof f->first_detail, cr->first_detail);
    if (detail[0]) {
        bc_set_text(f->detail, sizeof f->detail, detail);
    } else {
        /* It passed when checked again: keep what it did the first time. */
        char text[sizeof f->detail + 64];
        snprintf(text, sizeof text, "flaky: it passed when checked again; when first "
                 "checked: %.*s", (int)sizeof f->detail, cr->first_detail);
        f->flaky = 1;
        bc_set_text(f->detail, sizeof f->detail, text);
    }
    return f->original && f->minimal && f->replay ? 0 : -1;
}

static void shrink_cell(worker *w, int cell)
{
    runner *run = w->run;
    const bc_run_config *cfg = run->config;
    cell_run *cr = &run->cells[cell];
    run_case *v = &w->scratch;
    bc_prng g;
    bc_prng_init(&g, cfg->seed, cr->stream, (uint64_t)cr->first_failure);
    case_gen(run, cr->property, cr->rule, &g, v);
    char *original = case_line(cr->property, v), detail[1024];
    bc_set_text(detail, sizeof detail, cr->first_detail);
    shrink_hook hook = {run, cr, atomic_load(&run->unresponsive_events)};
    bc_check_ctx ctx = {.sut = cfg->sut,
                        .semantics = cfg->semantics,
                        .max_bytes = cfg->max_bytes,
                        .max_question_bytes = cfg->max_question_bytes,
                        .answered = shrink_answered,
                        .stop = shrink_stop,
                        .takes = shrink_takes,
                        .hook = &hook,
                        .budget = run->shared};
    bc_shrink_stop stop = shrink_stop(&hook);
    int steps = 0;
    if (stop == BC_SHRINK_MINIMAL) { /* no shrink once the run stops: the case as found */
        steps = case_shrink(cr->property, &ctx, v, cfg->max_shrink_calls, detail, sizeof detail);
        stop = ctx.stopped;
    }
    bc_check_ctx_release(&ctx);
    int bad = !original || make_failure(run, cr, &cr->failure, cr->first_failure, original,
                                        case_line(cr->property, v), detail, (int)ctx.sut_calls,
                                        steps, stop);
    free(original);
    pthread_mutex_lock(&run->lock);
    cr->shrink = SHRINK_DONE;
    if (bad)
        run->oom = 1;
    pthread_mutex_unlock(&run->lock);
}

static void *work(void *arg)
{
    worker *w = arg;
    work_item item;
    while (next_item(w->run, &item)) {
        if (item.shrink)
            shrink_cell(w, item.cell);
        else
            check_chunk(w, item.cell, item.chunk);
    }
    return NULL;
}

/* ---- the corpus ------------------------------------------------------------------ */

static cell_run *cell_of(runner *run, bc_rule rule, int property)
{
    for (int c = 0; c < run->ncells; c++)
        if (run->cells[c].rule == rule && run->cells[c].property == property)
            return &run->cells[c];
    return NULL;
}

/* Adds a corpus failure to res (in the order they occur). */
static int record_corpus_failure(runner *run, cell_run *cr, long line, const char *text,
                                 char *minimal, const char *detail)
{
    bc_run_result *res = run->res;
    bc_failure *grown = realloc(res->failures, (size_t)(res->nfailures + 1) * sizeof *grown);
    if (!grown) {
        free(minimal);
        return -1;
    }
    res->failures = grown;
    bc_failure *f = &res->failures[res->nfailures];
    bc_set_text(cr->first_detail, sizeof cr->first_detail, detail);
    int status = make_failure(run, cr, f, -1, text, minimal, detail, 0, 0, BC_SHRINK_MINIMAL);
    f->corpus_line = line;
    res->cells[cr->rule][cr->property].failure = res->nfailures++;
    return status;
}

/* Replays the corpus before generating anything: line l on shard
 * (l mod N) + 1, as cases are, so that merged shards count each line once. */
static int replay_corpus(runner *run, char *why, size_t cap)
{
    const bc_run_config *cfg = run->config;
    bc_run_result *res = run->res;
    bc_corpus corpus;
    if (bc_corpus_read(cfg->corpus_path, &corpus, why, cap) != 0)
        return -1;
    run_case c;
    if (case_alloc(&c) != 0) {
        case_free(&c);
        bc_corpus_free(&corpus);
        snprintf(why, cap, "out of memory");
        return -1;
    }
    char detail[1024], syntax[256];
    int status = 0, count;
    const bc_property_info *props = bc_properties(&count);
    check_hook hook = {run, NULL};
    bc_check_ctx ctx = {.sut = cfg->sut,
                        .semantics = cfg->semantics,
                        .max_bytes = cfg->max_bytes,
                        .max_question_bytes = cfg->max_question_bytes,
                        .answered = check_answered,
                        .stop = check_stop,
                        .hook = &hook,
                        .budget = run->shared};
    for (int l = 0; l < corpus.count && status == 0 && !stopping(run); l++) {
        if (l % cfg->shard_count != cfg->shard_index)
            continue;
        /* read back what bc_corpus_read already checked: a partial line
         * (RULES.md §14) goes to the partial properties, a value line to the
         * value properties, a shape line to the others */
        int partial = bc_vector_line_is_partial(corpus.lines[l]);
        if (partial ? bc_pvector_parse(corpus.lines[l], c.pv, syntax, sizeof syntax) != 1
                    : bc_vector_parse(corpus.lines[l], c.v, syntax, sizeof syntax) != 1)
            continue;
        bc_rule rule = partial ? c.pv->params.rule : c.v->params.rule;
        for (int p = 0; p < res->nproperties && status == 0; p++) {
            bc_cell *cell = &res->cells[rule][p];
            cell_run *cr = cell_of(run, rule, p);
            if (!cell->selected || !cr || props[p].partial != partial ||
                (!partial && props[p].values != c.v->value.present))
                continue;
            ctx.stopped = BC_SHRINK_MINIMAL;
            bc_check k = case_check(p, &ctx, &c, detail, sizeof detail);
            if (unasked(run, &ctx))
                continue;
            if (ctx.stopped != BC_SHRINK_MINIMAL || interrupted(run))
                break;
            res->corpus_replayed++;
            if (k == BC_CHECK_PASS) {
                cell->passed++;
                cr->checked++;
            } else if (k == BC_CHECK_UNSUPPORTED || k == BC_CHECK_INVALID) {
                cell->unsupported++; /* invalid: never, bc_corpus_read refuses such lines */
            } else {
                cell->failed++;
                cr->checked++;
                res->corpus_failed++;
                if (!cr->corpus_failed &&
                    record_corpus_failure(run, cr, l + 1, corpus.lines[l], case_line(p, &c),
                                          detail) != 0)
                    status = -1;
                cr->corpus_failed = 1;
                update_cutoff(run);
            }
        }
    }
    bc_check_ctx_release(&ctx);
    case_free(&c);
    bc_corpus_free(&corpus);
    if (status)
        snprintf(why, cap, "out of memory");
    return status;
}

/* ---- the result ---------------------------------------------------------------- */

static void free_failure(bc_failure *f)
{
    free(f->original);
    free(f->minimal);
    free(f->replay);
    f->original = f->minimal = f->replay = NULL;
}

/* How cell c ended, when it did not run its whole budget. */
static bc_cell_end cell_end(const runner *run, const cell_run *cr, bc_run_end halted)
{
    const bc_run_config *cfg = run->config;
    if (!cfg->whole_cells && (cr->corpus_failed || cr->first_failure >= 0))
        return BC_CELL_FIRST_FAILURE;
    if (cr->end != BC_CELL_RAN)
        return cr->end;
    /* With --time, a cell whose chunk started as the budget ran out (a
     * thread descheduled on a saturated machine) checked nothing either:
     * it says so, like one that never started. */
    /* (an interrupted last chunk is folded too: it says it was cut) */
    int cut_short = cr->halted ||
                    (cfg->seconds > 0 ? cr->passed + cr->failed + cr->unsupported +
                                                cr->known_failed == 0
                                      : cr->folded * CHUNK < cr->cases);
    if (!cut_short || cr->closed)
        return BC_CELL_RAN;
    switch (halted) {
    case BC_RUN_INTERRUPTED: return BC_CELL_INTERRUPTED;
    case BC_RUN_UNRESPONSIVE: return BC_CELL_UNRESPONSIVE;
    default: return cfg->seconds > 0 ? BC_CELL_NO_TIME : BC_CELL_RAN;
    }
}

/* Everything the threads found, into res: counts and coverage per cell in
 * cell order up to the --max-failures cutoff, then the failures (corpus
 * failures first, then one per failing cell). */
static int assemble(runner *run)
{
    const bc_run_config *cfg = run->config;
    bc_run_result *res = run->res;
    bc_run_end halted = (bc_run_end)atomic_load(&run->halted);
    /* Pending chunks of a stopped run: folded in their order, gaps and all. */
    for (int c = 0; c < run->ncells; c++) {
        cell_run *cr = &run->cells[c];
        for (int found = 1; found;) {
            found = 0;
            int best = -1;
            for (int i = 0; i < run->npending; i++)
                if (run->pending[i]->cell == c &&
                    (best < 0 || run->pending[i]->chunk < run->pending[best]->chunk))
                    best = i;
            if (best >= 0) {
                chunk_result *p = run->pending[best];
                run->pending[best] = run->pending[--run->npending];
                if (cfg->whole_cells || cr->first_failure < 0)
                    fold(run, cr, p);
                free_chunk(p);
                found = 1;
            }
        }
    }
    /* --max-failures: the cells after the N-th failing one are not run. */
    int cutoff = run->ncells - 1, failing = 0;
    for (int c = 0; c < run->ncells && cfg->max_failures > 0; c++) {
        const cell_run *cr = &run->cells[c];
        if ((cr->corpus_failed || cr->first_failure >= 0) && ++failing == cfg->max_failures) {
            cutoff = c;
            break;
        }
    }
    int kept = 0;
    for (int f = 0; f < res->nfailures; f++) { /* corpus failures past the cutoff go */
        bc_failure *fl = &res->failures[f];
        int c = (int)(cell_of(run, fl->rule, fl->property) - run->cells);
        if (c > cutoff) {
            free_failure(fl);
            continue;
        }
        res->failures[kept] = *fl;
        res->cells[fl->rule][fl->property].failure = kept++;
    }
    res->nfailures = kept;
    for (int c = 0; c < run->ncells; c++) {
        cell_run *cr = &run->cells[c];
        bc_cell *cell = &res->cells[cr->rule][cr->property];
        if (c > cutoff) {
            cell->passed = cell->failed = cell->unsupported = cell->known_failed = 0;
            cell->failure = -1;
            cell->end = BC_CELL_MAX_FAILURES;
            if (cr->shrink == SHRINK_DONE)
                free_failure(&cr->failure);
            continue;
        }
        cell->passed += cr->passed;
        cell->failed += cr->failed;
        cell->unsupported += cr->unsupported;
        cell->known_failed += cr->known_failed;
        cell->end = cell_end(run, cr, halted);
        for (int k = 0; k < BC_COV_COUNT; k++)
            res->coverage[k] += cr->coverage[k];
        for (int k = 0; k < BC_ERR_KIND_COUNT; k++)
            res->rejects[k] += cr->rejects[k];
        if (cr->first_failure < 0 || cell->failure >= 0) {
            if (cr->shrink == SHRINK_DONE)
                free_failure(&cr->failure); /* a corpus line showed it first */
            continue;
        }
        bc_failure *grown = realloc(res->failures, (size_t)(res->nfailures + 1) * sizeof *grown);
        if (!grown)
            return -1;
        res->failures = grown;
        bc_failure *f = &res->failures[res->nfailures];
        if (cr->shrink == SHRINK_DONE) {
            *f = cr->failure; /* res owns its strings now */
            cr->failure.original = cr->failure.minimal = cr->failure.replay = NULL;
        } else {
            /* The run stopped before its shrink: the case as found. */
            bc_prng g;
            bc_prng_init(&g, cfg->seed, cr->stream, (uint64_t)cr->first_failure);
            run_case found;
            char *original = NULL;
            if (case_alloc(&found) == 0) {
                case_gen(run, cr->property, cr->rule, &g, &found);
                original = case_line(cr->property, &found);
            }
            bc_shrink_stop why = halted == BC_RUN_UNRESPONSIVE ? BC_SHRINK_UNRESPONSIVE
                                 : halted == BC_RUN_INTERRUPTED ? BC_SHRINK_INTERRUPTED
                                                                : BC_SHRINK_TIME;
            int bad = !original || make_failure(run, cr, f, cr->first_failure, original,
                                                case_line(cr->property, &found), cr->first_detail,
                                                0, 0, why);
            free(original);
            case_free(&found);
            if (bad) {
                free_failure(f);
                return -1;
            }
        }
        cell->failure = res->nfailures++;
    }
    /* How the run ended. */
    res->end = halted;
    if (halted == BC_RUN_COMPLETE && cutoff < run->ncells - 1)
        res->end = BC_RUN_MAX_FAILURES;
    switch (res->end) {
    case BC_RUN_INTERRUPTED:
        snprintf(res->end_detail, sizeof res->end_detail,
                 "interrupted by signal %d after %.1f s: the results so far", res->signal,
                 now_seconds() - run->start);
        break;
    case BC_RUN_UNRESPONSIVE:
        snprintf(res->end_detail, sizeof res->end_detail, "the SUT stopped answering: %s",
                 run->unresponsive_why);
        break;
    case BC_RUN_MAX_FAILURES:
        snprintf(res->end_detail, sizeof res->end_detail,
                 "%d failing cell%s (--max-failures %d): the cells after it were not run",
                 cfg->max_failures, cfg->max_failures == 1 ? "" : "s", cfg->max_failures);
        break;
    default:
        if (run->unresponsive_why[0])
            snprintf(res->end_detail, sizeof res->end_detail,
                     "the SUT stopped answering for a while: %s; the cells in progress then "
                     "were ended", run->unresponsive_why);
        break;
    }
    return 0;
}

/* Appends the run's failures to the corpus; a failure to do so (a full
 * disk) costs the run nothing: the result stands, and corpus_error says
 * why the corpus is as it was. */
static void append_corpus(const bc_run_config *cfg, bc_run_result *res)
{
    if (!cfg->corpus_path || res->nfailures == 0)
        return;
    const char **lines = calloc((size_t)res->nfailures, sizeof *lines);
    if (!lines) {
        snprintf(res->corpus_error, sizeof res->corpus_error, "corpus '%s': out of memory",
                 cfg->corpus_path);
        return;
    }
    for (int f = 0; f < res->nfailures; f++)
        lines[f] = res->failures[f].minimal;
    if (bc_corpus_append(cfg->corpus_path, lines, res->nfailures, res->corpus_error,
                         sizeof res->corpus_error) != 0 &&
        !res->corpus_error[0])
        snprintf(res->corpus_error, sizeof res->corpus_error, "corpus '%s': not written",
                 cfg->corpus_path);
    free(lines);
}

/* For bc_known_replay: no replay once the run is interrupted or gave up on the SUT. */
static int run_stopped(void *arg)
{
    runner *run = arg;
    return interrupted(run) || atomic_load(&run->halted) != BC_RUN_COMPLETE;
}

static void free_runner(runner *run)
{
    for (int c = 0; c < run->ncells; c++)
        if (run->cells[c].shrink == SHRINK_DONE && run->cells[c].failure.original)
            free_failure(&run->cells[c].failure);
    for (int i = 0; i < run->npending; i++)
        free_chunk(run->pending[i]);
    free(run->pending);
    free(run->cells);
}

/* What a report says of where and when the run ran. */
static void describe_platform(bc_run_result *res)
{
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(res->platform, sizeof res->platform, "%.40s %.60s %.20s, %ld cores online",
                 u.sysname, u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN));
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm))
        strftime(res->started_at, sizeof res->started_at, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

bc_run_result *bc_run(const bc_run_config *cfg, char *why, size_t cap)
{
    if (bc_value_tier_refusal(cfg->value_tier, cfg->max_bytes, cfg->max_question_bytes, why,
                              cap) != 0)
        return NULL;
    bc_run_result *res = calloc(1, sizeof *res);
    if (!res) {
        snprintf(why, cap, "out of memory");
        return NULL;
    }
    double start = now_seconds();
    int nprops;
    const bc_property_info *props = bc_properties(&nprops);
    snprintf(res->broadcheck_version, sizeof res->broadcheck_version, "%s", BC_VERSION_STRING);
    snprintf(res->sut_name, sizeof res->sut_name, "%s", cfg->sut->name);
    snprintf(res->sut_version, sizeof res->sut_version, "%s", cfg->sut->version);
    snprintf(res->sut_args, sizeof res->sut_args, "%s", cfg->sut_args ? cfg->sut_args : "");
    /* The tier, so that a replay line says where its case came from, and
     * the budget a large case needs to be examined in the replay too. */
    size_t used = strlen(res->sut_args);
    if (cfg->value_tier != BC_TIER_SMALL)
        used += (size_t)snprintf(res->sut_args + used, sizeof res->sut_args - used,
                                 "%s--value-tier %s", used ? " " : "",
                                 bc_value_tier_name(cfg->value_tier));
    if (cfg->max_bytes > 0 && used < sizeof res->sut_args)
        snprintf(res->sut_args + used, sizeof res->sut_args - used, "%s--max-bytes %lld",
                 used ? " " : "", (long long)cfg->max_bytes);
    res->seed = cfg->seed;
    res->cases = cfg->seconds > 0 ? 0 : cfg->cases;
    res->value_cases = cfg->seconds > 0 ? 0 : cfg->value_cases;
    res->partial_cases = cfg->seconds > 0 ? 0 : cfg->partial_cases;
    res->seconds = cfg->seconds;
    res->shard_index = cfg->shard_index;
    res->shard_count = cfg->shard_count;
    res->jobs = cfg->jobs;
    res->nproperties = nprops;
    res->max_failures = cfg->max_failures;
    res->whole_cells = cfg->whole_cells;
    res->strict = cfg->strict;
    snprintf(res->manifest_path, sizeof res->manifest_path, "%s",
             cfg->manifest_path ? cfg->manifest_path : "");
    snprintf(res->declared_name, sizeof res->declared_name, "%s",
             cfg->declared_name ? cfg->declared_name : "");
    snprintf(res->declared_version, sizeof res->declared_version, "%s",
             cfg->declared_version ? cfg->declared_version : "");
    res->semantics = cfg->semantics;
    res->value_tier = cfg->value_tier;
    res->max_bytes = cfg->max_bytes;
    res->max_question_bytes = cfg->max_question_bytes;
    bc_semantics_format(&cfg->semantics, res->semantics_text, sizeof res->semantics_text);
    snprintf(res->broadcheck_commit, sizeof res->broadcheck_commit, "%s",
             cfg->broadcheck_commit ? cfg->broadcheck_commit : "");
    describe_platform(res);
    runner run;
    memset(&run, 0, sizeof run);
    run.config = cfg;
    run.res = res;
    run.caps = bc_sut_value_caps_of(cfg->sut);
    run.partial_caps = bc_sut_partial_caps_of(cfg->sut);
    run.cells = calloc((size_t)BC_RULE_COUNT * (size_t)nprops, sizeof *run.cells);
    worker *workers = calloc((size_t)cfg->jobs, sizeof *workers);
    pthread_t *threads = calloc((size_t)cfg->jobs, sizeof *threads);
    atomic_init(&run.consecutive_faults, 0);
    atomic_init(&run.asked_again_answered, 0);
    atomic_init(&run.unresponsive_events, 0);
    atomic_init(&run.halted, BC_RUN_COMPLETE);
    pthread_mutex_init(&run.lock, NULL);
    run.entering = 1;
    run.invalid_cell = -1;
    int ok = run.cells && workers && threads && bc_known_copy(res, cfg->known, cfg->nknown) == 0;
    if (ok) {
        ok = bc_budget_init(&run.budget, cfg->max_bytes > 0 ? cfg->max_bytes
                                                            : BC_VALUE_DEFAULT_MAX_BYTES) == 0;
        run.shared = ok ? &run.budget : NULL;
    }
    for (int r = 0; r < BC_RULE_COUNT; r++)
        for (int p = 0; p < nprops; p++) {
            bc_cell *cell = &res->cells[r][p];
            cell->failure = -1;
            int rule_on = cfg->rules == 0 || ((cfg->rules >> r) & 1u);
            int prop_on = cfg->properties == 0 || ((cfg->properties >> p) & 1u);
            cell->selected = rule_on && prop_on && bc_property_applies(p, (bc_rule)r);
            if (!cell->selected || !ok)
                continue;
            cell_run *cr = &run.cells[run.ncells++];
            cr->rule = (bc_rule)r;
            cr->property = p;
            cr->stream = stream_of((bc_rule)r, p);
            cr->cases = props[p].partial  ? cfg->partial_cases
                        : props[p].values ? cfg->value_cases
                                          : cfg->cases;
            cr->first_failure = -1;
            atomic_init(&cr->stop_chunk, NO_CHUNK);
            atomic_init(&cr->cut, 0);
        }
    run.cutoff = run.ncells - 1;
    for (int c = 0; c < run.ncells && cfg->seconds <= 0; c++)
        run.progress.planned += shard_cases(cfg, run.cells[c].cases);
    run.start = now_seconds();
    run.end = cfg->seconds > 0 ? run.start + cfg->seconds : INFINITY;
    /* a question that timed out is asked again only within --time (and with
     * no more than the time left), so that the retry never outlasts the run */
    bc_sut_set_deadline(cfg->sut, run.end);
    if (!ok)
        goto oom;
    if (cfg->corpus_path &&
        (bc_corpus_check(cfg->corpus_path, why, cap) != 0 || replay_corpus(&run, why, cap) != 0))
        goto fail;
    int started = 0;
    for (int j = 0; j < cfg->jobs && ok; j++) {
        workers[j].run = &run;
        ok = case_alloc(&workers[j].scratch) == 0;
    }
    for (int j = 0; j < cfg->jobs && ok; j++) {
        if (pthread_create(&threads[j], NULL, work, &workers[j]) != 0)
            break; /* the started workers take all the work between them */
        started++;
    }
    for (int j = 0; j < started; j++)
        pthread_join(threads[j], NULL);
    if (!ok || started == 0 || run.oom)
        goto oom;
    if (run.invalid_cell >= 0) {
        const cell_run *bad = &run.cells[run.invalid_cell];
        snprintf(why, cap, "broadcheck bug: case %lld of %s x %s is not a case broadcheck "
                 "computes (%s); please report it", (long long)run.invalid_case,
                 bc_rule_name(bad->rule), props[bad->property].name, run.invalid_detail);
        goto fail;
    }
    if (atomic_load(&run.halted) == BC_RUN_INTERRUPTED && cfg->interrupt)
        res->signal = (int)*cfg->interrupt;
    if (assemble(&run) != 0 || bc_known_match(res) != 0)
        goto oom;
    bc_known_replay(res, cfg->sut, run_stopped, &run);
    res->asked_again = atomic_load(&run.asked_again_answered);
    append_corpus(cfg, res);
    res->elapsed = now_seconds() - start;
    goto done;
oom:
    snprintf(why, cap, "out of memory");
fail:
    bc_run_result_free(res);
    res = NULL;
done:
    bc_sut_set_deadline(cfg->sut, 0); /* the SUT may be asked more after the run */
    pthread_mutex_destroy(&run.lock);
    if (run.shared)
        bc_budget_destroy(run.shared);
    if (workers)
        for (int j = 0; j < cfg->jobs; j++) {
            case_free(&workers[j].scratch);
            bc_arena_free(workers[j].arena);
        }
    free(workers);
    free(threads);
    free_runner(&run);
    return res;
}

void bc_run_result_free(bc_run_result *r)
{
    if (!r)
        return;
    for (int f = 0; f < r->nfailures; f++)
        free_failure(&r->failures[f]);
    free(r->failures);
    bc_known_free(r);
    free(r);
}

int bc_run_exit_code(const bc_run_result *r)
{
    /* A failing cell conforms only if the failure it recorded is known. */
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        for (int p = 0; p < r->nproperties; p++) {
            const bc_cell *c = &r->cells[rule][p];
            if (c->failed > 0 &&
                (c->failure < 0 || c->failure >= r->nfailures || r->failures[c->failure].known < 0))
                return 1;
        }
    return r->strict && bc_run_xpass_count(r) > 0;
}

int64_t bc_run_value_bytes(const bc_run_result *r, int64_t *moved_bytes)
{
    if (moved_bytes)
        *moved_bytes = r->value_moved_bytes;
    return r->value_bytes;
}

int64_t bc_run_case_count(const bc_run_result *r)
{
    int64_t n = 0;
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        for (int p = 0; p < r->nproperties; p++) {
            const bc_cell *c = &r->cells[rule][p];
            if (c->selected)
                n += c->passed + c->failed + c->unsupported + c->known_failed;
        }
    return n;
}

int bc_run_interrupted(const bc_run_result *r)
{
    return r->end == BC_RUN_INTERRUPTED ? (r->signal ? r->signal : SIGINT) : 0;
}

const char *bc_run_corpus_error(const bc_run_result *r)
{
    return r->corpus_error[0] ? r->corpus_error : NULL;
}

int bc_run_failure_count(const bc_run_result *r)
{
    return r->nfailures;
}

bc_failure_info bc_run_failure(const bc_run_result *r, int i)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    const bc_failure *f = &r->failures[i];
    return (bc_failure_info){props[f->property].name, f->rule, f->case_index, f->original,
                             f->minimal, f->detail, f->replay, f->shrink_calls,
                             f->shrink_stop == BC_SHRINK_MINIMAL, f->flaky,
                             f->known >= 0 && f->known < r->nknown ? r->known[f->known].id : NULL};
}
