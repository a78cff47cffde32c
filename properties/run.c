/*
 * The runner.  Every rule x property cell has its own stream of cases; case
 * i of a cell is generated from (seed, cell, i) alone, so counts, case ids
 * and failures are the same for any --jobs and the shards of --shard K/N
 * add up to the whole.  Workers take chunks of a cell; after they finish,
 * the first failing case (lowest id) of each cell is shrunk, in cell order,
 * on one thread, so shrinking is deterministic too.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

#define CHUNK 2048
/* Under --time, a cell whose first this many chunks the SUT declined
 * entirely ends early (see next_item). */
#define DECLINED_CHUNKS 2

typedef struct cell_ref {
    bc_rule rule;
    int property;
    uint64_t stream;
    int64_t cases; /* configured for this cell (shape or value property) */
} cell_ref;

typedef struct cell_acc {
    int64_t passed, failed, unsupported;
    int64_t first_failure; /* lowest failing case id, or -1 */
} cell_acc;

typedef struct worker {
    struct runner *run;
    cell_acc *cells;
    int64_t coverage[BC_COV_COUNT];
    int64_t rejects[BC_ERR_KIND_COUNT];
    bc_vector *scratch;
} worker;

typedef struct runner {
    const bc_run_config *config;
    int ncells;
    cell_ref *cells;
    pthread_mutex_t lock;
    int next_cell;
    int entering;        /* 1: next_cell's share of time is still to be set */
    int round;           /* --time: passes over the cells so far, from 0 */
    int64_t *cell_chunk; /* per cell: the next chunk to hand out */
    double start, *deadline;
    int64_t *checked;  /* per cell: cases checked (passed or failed) so far */
    int *chunks_done;  /* per cell: chunks finished */
    int64_t cases_done, failures_seen;
    bc_sut_value_caps caps; /* the SUT's, for the value generators */
    bc_run_progress progress; /* what cfg->progress is told */
} runner;

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
    c.seed = 1;
    c.shard_count = 1;
    c.jobs = 1;
    c.max_shrink_calls = 2000;
    return c;
}

/* s as one POSIX shell word: as is when it has only safe characters, else
 * in single quotes (a ' inside becomes '\''), so that a replay line with an
 * `exec:python3 worker.py` SUT pastes into a shell as printed. */
static char *shell_word(const char *s)
{
    size_t n = strlen(s), quotes = 0;
    int safe = n > 0;
    for (const char *p = s; *p; p++) {
        safe &= (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || strchr("_./:=,+-@%", *p) != NULL;
        quotes += *p == '\'';
    }
    char *w = malloc(n + 3 * quotes + 3);
    if (!w || safe)
        return w ? memcpy(w, s, n + 1) : NULL;
    char *o = w;
    *o++ = '\'';
    for (const char *p = s; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    return w;
}

char *bc_replay_line(const char *sut_name, const char *property, const char *vector_line)
{
    const char *fmt = "broadcheck replay --sut %s --property %s %s";
    char *sut = shell_word(sut_name), *text = shell_word(vector_line);
    char *line = NULL;
    if (sut && text) {
        int len = snprintf(NULL, 0, fmt, sut, property, text);
        line = malloc((size_t)len + 1);
        if (line)
            snprintf(line, (size_t)len + 1, fmt, sut, property, text);
    }
    free(sut);
    free(text);
    return line;
}

/* The vector line of c with the reference's expectation. */
static char *vector_line(bc_vector *c)
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

/* The cells from c on that the next share of time is divided among: in the
 * first round every one; in later rounds those that checked something. */
static int cells_sharing(const runner *run, int c)
{
    if (run->round == 0)
        return run->ncells - c;
    int live = 0;
    for (int k = c; k < run->ncells; k++)
        live += run->checked[k] > 0;
    return live > 0 ? live : 1;
}

/* Under --time: whether the cells get another round when the last one is
 * done early (cells the SUT declined ended after two chunks, and their
 * time is left over).  Not for a sliver of time: each cell entered runs at
 * least one chunk. */
static int another_round(const runner *run)
{
    const double left = run->start + run->config->seconds - now_seconds();
    if (left < 0.1 || left < run->config->seconds / 100)
        return 0;
    for (int k = 0; k < run->ncells; k++)
        if (run->checked[k] > 0)
            return 1;
    return 0;
}

/* Takes the next chunk; returns 0 when there is no more work. */
static int next_item(runner *run, int *cell, int64_t *chunk)
{
    const bc_run_config *cfg = run->config;
    pthread_mutex_lock(&run->lock);
    int found = 0;
    for (;;) {
        if (run->next_cell >= run->ncells) {
            if (cfg->seconds <= 0 || !another_round(run))
                break;
            run->round++;
            run->next_cell = 0;
            run->entering = 1;
        }
        const int c = run->next_cell;
        int more;
        if (cfg->seconds <= 0) {
            more = run->cell_chunk[c] * CHUNK < run->cells[c].cases;
        } else if (run->round > 0 && run->checked[c] == 0) {
            more = 0; /* declined throughout its first round */
        } else if (run->entering) {
            /* Entering a cell: it gets an equal share of the time left, and
             * at least one chunk, so a slow cell before it cannot starve it. */
            double t = now_seconds(), left = run->start + cfg->seconds - t;
            run->deadline[c] = t + (left > 0 ? left / cells_sharing(run, c) : 0);
            run->entering = 0;
            more = 1;
        } else {
            /* A cell the SUT declined throughout so far (a rule or kind it
             * does not declare) ends early; its time goes to the others. */
            more = now_seconds() < run->deadline[c] &&
                   !(run->chunks_done[c] >= DECLINED_CHUNKS && run->checked[c] == 0);
        }
        if (more) {
            *cell = c;
            *chunk = run->cell_chunk[c]++;
            found = 1;
            break;
        }
        run->next_cell++;
        run->entering = 1;
    }
    pthread_mutex_unlock(&run->lock);
    return found;
}

/* The cases this shard checks of a cell of n cases: i < n with
 * i mod shard_count == shard_index. */
static int64_t shard_cases(const bc_run_config *cfg, int64_t n)
{
    int64_t count = cfg->shard_count, k = cfg->shard_index;
    return n / count + (k < n % count ? 1 : 0);
}

/* The failing cells the run will shrink (for the progress line). */
static int cells_to_shrink(const runner *run, const worker *workers, const bc_run_result *res)
{
    int count = 0;
    for (int c = 0; c < run->ncells; c++) {
        int failing = 0;
        for (int j = 0; j < run->config->jobs; j++)
            failing |= workers[j].cells[c].first_failure >= 0;
        count += failing && res->cells[run->cells[c].rule][run->cells[c].property].failure < 0;
    }
    return count;
}

/* Tells cfg->progress where the run is; under run->lock, or with the
 * workers stopped. */
static void report_progress(runner *run)
{
    const bc_run_config *cfg = run->config;
    if (!cfg->progress)
        return;
    bc_run_progress *p = &run->progress;
    p->cells = run->ncells;
    p->cells_done = 0;
    for (int c = 0; c < run->ncells; c++) {
        /* every chunk handed out and finished, and no more to come */
        int all_out = cfg->seconds > 0 ? run->round > 0 || c < run->next_cell
                                       : run->cell_chunk[c] * CHUNK >= run->cells[c].cases;
        p->cells_done += all_out && run->chunks_done[c] == run->cell_chunk[c];
    }
    p->cases = run->cases_done;
    p->failures = run->failures_seen;
    p->seconds = cfg->seconds;
    cfg->progress(cfg->progress_ctx, p);
}

static void *work(void *arg)
{
    worker *w = arg;
    runner *run = w->run;
    const bc_run_config *cfg = run->config;
    int cell;
    int64_t chunk;
    char detail[1024];
    bc_check_ctx ctx = {cfg->sut, 0, NULL};
    while (next_item(run, &cell, &chunk)) {
        const cell_ref *ref = &run->cells[cell];
        cell_acc *acc = &w->cells[cell];
        int64_t end = (chunk + 1) * CHUNK, done = 0, failed = 0, declined = 0;
        if (cfg->seconds <= 0 && end > ref->cases)
            end = ref->cases;
        for (int64_t i = chunk * CHUNK; i < end; i++) {
            if (i % cfg->shard_count != cfg->shard_index)
                continue;
            bc_prng r;
            bc_prng_init(&r, cfg->seed, ref->stream, (uint64_t)i);
            bc_property_gen(ref->property, ref->rule, &run->caps, &r, w->scratch);
            bc_check verdict =
                bc_property_check(ref->property, &ctx, w->scratch, detail, sizeof detail);
            if (verdict != BC_CHECK_UNSUPPORTED) /* coverage: what was checked */
                bc_classify(w->scratch, w->coverage, w->rejects);
            switch (verdict) {
            case BC_CHECK_PASS: acc->passed++; break;
            case BC_CHECK_UNSUPPORTED:
                acc->unsupported++;
                declined++;
                break;
            default:
                acc->failed++;
                failed++;
                if (acc->first_failure < 0 || i < acc->first_failure)
                    acc->first_failure = i;
                break;
            }
            done++;
        }
        pthread_mutex_lock(&run->lock);
        run->cases_done += done;
        run->failures_seen += failed;
        run->checked[cell] += done - declined;
        run->chunks_done[cell]++;
        report_progress(run);
        pthread_mutex_unlock(&run->lock);
    }
    bc_check_ctx_release(&ctx);
    return NULL;
}

static int record_failure(bc_run_result *res, int property, bc_rule rule, int64_t index,
                          const char *original, bc_vector *minimal, const char *detail,
                          int calls, int steps)
{
    bc_failure *grown = realloc(res->failures, (size_t)(res->nfailures + 1) * sizeof *grown);
    if (!grown)
        return -1;
    res->failures = grown;
    bc_failure *f = &res->failures[res->nfailures];
    memset(f, 0, sizeof *f);
    int count;
    const bc_property_info *props = bc_properties(&count);
    f->property = property;
    f->rule = rule;
    f->case_index = index;
    f->original = strdup(original);
    f->minimal = vector_line(minimal);
    f->replay = f->minimal ? bc_replay_line(res->sut_name, props[property].name, f->minimal) : NULL;
    snprintf(f->detail, sizeof f->detail, "%s",
             detail[0] ? detail : "the failure did not reproduce on the shrunk case: a flaky SUT");
    f->shrink_calls = calls;
    f->shrink_steps = steps;
    res->cells[rule][property].failure = res->nfailures++;
    return f->original && f->minimal && f->replay ? 0 : -1;
}

static int applies(int property, bc_rule rule)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    return (props[property].rules >> rule) & 1u;
}

/* Replays the corpus before generating anything. */
static int replay_corpus(const bc_run_config *cfg, bc_run_result *res, char *why, size_t cap)
{
    bc_corpus corpus;
    if (bc_corpus_read(cfg->corpus_path, &corpus, why, cap) != 0)
        return -1;
    bc_vector *v = malloc(sizeof *v);
    if (!v) {
        bc_corpus_free(&corpus);
        snprintf(why, cap, "out of memory");
        return -1;
    }
    char detail[1024], syntax[256];
    int status = 0, count;
    const bc_property_info *props = bc_properties(&count);
    bc_check_ctx ctx = {cfg->sut, 0, NULL};
    for (int l = 0; l < corpus.count && status == 0; l++) {
        if (bc_vector_parse(corpus.lines[l], v, syntax, sizeof syntax) != 1)
            continue; /* read back what bc_corpus_read already checked */
        for (int p = 0; p < res->nproperties; p++) {
            bc_cell *cell = &res->cells[v->params.rule][p];
            /* a value line goes to the value properties, a shape line to the others */
            if (!cell->selected || props[p].values != v->value.present)
                continue;
            res->corpus_replayed++;
            bc_check k = bc_property_check(p, &ctx, v, detail, sizeof detail);
            if (k == BC_CHECK_PASS) {
                cell->passed++;
            } else if (k == BC_CHECK_UNSUPPORTED) {
                cell->unsupported++;
            } else {
                cell->failed++;
                res->corpus_failed++;
                if (cell->failure < 0 &&
                    record_failure(res, p, v->params.rule, -1, corpus.lines[l], v, detail, 0, 0))
                    status = -1;
            }
        }
    }
    bc_check_ctx_release(&ctx);
    free(v);
    bc_corpus_free(&corpus);
    if (status)
        snprintf(why, cap, "out of memory");
    return status;
}

bc_run_result *bc_run(const bc_run_config *cfg, char *why, size_t cap)
{
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
    res->seed = cfg->seed;
    res->cases = cfg->seconds > 0 ? 0 : cfg->cases;
    res->value_cases = cfg->seconds > 0 ? 0 : cfg->value_cases;
    res->seconds = cfg->seconds;
    res->shard_index = cfg->shard_index;
    res->shard_count = cfg->shard_count;
    res->jobs = cfg->jobs;
    res->nproperties = nprops;
    runner run;
    memset(&run, 0, sizeof run);
    run.config = cfg;
    run.caps = bc_sut_value_caps_of(cfg->sut);
    run.cells = calloc((size_t)BC_RULE_COUNT * (size_t)nprops, sizeof *run.cells);
    run.deadline = calloc((size_t)BC_RULE_COUNT * (size_t)nprops, sizeof *run.deadline);
    worker *workers = calloc((size_t)cfg->jobs, sizeof *workers);
    pthread_t *threads = calloc((size_t)cfg->jobs, sizeof *threads);
    run.checked = calloc((size_t)BC_RULE_COUNT * (size_t)nprops, sizeof *run.checked);
    run.chunks_done = calloc((size_t)BC_RULE_COUNT * (size_t)nprops, sizeof *run.chunks_done);
    run.cell_chunk = calloc((size_t)BC_RULE_COUNT * (size_t)nprops, sizeof *run.cell_chunk);
    run.entering = 1;
    int ok = run.cells && run.deadline && run.checked && run.chunks_done && run.cell_chunk &&
             workers && threads;
    for (int r = 0; r < BC_RULE_COUNT; r++)
        for (int p = 0; p < nprops; p++) {
            bc_cell *cell = &res->cells[r][p];
            cell->failure = -1;
            int rule_on = cfg->rules == 0 || ((cfg->rules >> r) & 1u);
            int prop_on = cfg->properties == 0 || ((cfg->properties >> p) & 1u);
            cell->selected = rule_on && prop_on && applies(p, (bc_rule)r);
            if (cell->selected && ok)
                run.cells[run.ncells++] =
                    (cell_ref){(bc_rule)r, p, stream_of((bc_rule)r, p),
                               props[p].values ? cfg->value_cases : cfg->cases};
        }
    if (ok && cfg->corpus_path && replay_corpus(cfg, res, why, cap) != 0)
        goto fail;
    if (!ok)
        goto oom;
    for (int c = 0; c < run.ncells && cfg->seconds <= 0; c++)
        run.progress.planned += shard_cases(cfg, run.cells[c].cases);
    run.start = now_seconds();
    pthread_mutex_init(&run.lock, NULL);
    int started = 0;
    for (int j = 0; j < cfg->jobs && ok; j++) {
        workers[j].run = &run;
        workers[j].cells = calloc((size_t)run.ncells + 1, sizeof *workers[j].cells);
        workers[j].scratch = malloc(sizeof *workers[j].scratch);
        if (!workers[j].cells || !workers[j].scratch) {
            ok = 0;
            break;
        }
        for (int c = 0; c < run.ncells; c++)
            workers[j].cells[c].first_failure = -1;
    }
    for (int j = 0; j < cfg->jobs && ok; j++) {
        if (pthread_create(&threads[j], NULL, work, &workers[j]) != 0) {
            /* the started workers take all the work between them */
            break;
        }
        started++;
    }
    for (int j = 0; j < started; j++)
        pthread_join(threads[j], NULL);
    pthread_mutex_destroy(&run.lock);
    if (!ok || started == 0)
        goto oom;
    if (cfg->progress)
        run.progress.to_shrink = cells_to_shrink(&run, workers, res);
    /* Merge, in worker order: sums and minima do not depend on it. */
    for (int c = 0; c < run.ncells; c++) {
        bc_cell *cell = &res->cells[run.cells[c].rule][run.cells[c].property];
        int64_t first = -1;
        for (int j = 0; j < cfg->jobs; j++) {
            const cell_acc *a = &workers[j].cells[c];
            cell->passed += a->passed;
            cell->failed += a->failed;
            cell->unsupported += a->unsupported;
            if (a->first_failure >= 0 && (first < 0 || a->first_failure < first))
                first = a->first_failure;
        }
        if (first < 0 || cell->failure >= 0)
            continue; /* no new failure, or the corpus already showed one */
        run.progress.shrinking++;
        report_progress(&run);
        /* Shrink the first failure of the cell. */
        bc_vector *v = workers[0].scratch;
        bc_prng r;
        bc_prng_init(&r, cfg->seed, run.cells[c].stream, (uint64_t)first);
        bc_property_gen(run.cells[c].property, run.cells[c].rule, &run.caps, &r, v);
        char *original = vector_line(v), detail[1024];
        bc_check_ctx ctx = {cfg->sut, 0, NULL};
        int steps = bc_shrink(run.cells[c].property, &ctx, v, cfg->max_shrink_calls, detail,
                              sizeof detail);
        bc_check_ctx_release(&ctx);
        int failed = !original || record_failure(res, run.cells[c].property, run.cells[c].rule,
                                                 first, original, v, detail,
                                                 (int)ctx.sut_calls, steps);
        free(original);
        if (failed)
            goto oom;
    }
    for (int j = 0; j < cfg->jobs; j++)
        for (int k = 0; k < BC_COV_COUNT; k++)
            res->coverage[k] += workers[j].coverage[k];
    for (int j = 0; j < cfg->jobs; j++)
        for (int k = 0; k < BC_ERR_KIND_COUNT; k++)
            res->rejects[k] += workers[j].rejects[k];
    if (cfg->corpus_path && res->nfailures > 0) {
        const char **lines = calloc((size_t)res->nfailures, sizeof *lines);
        if (!lines)
            goto oom;
        for (int f = 0; f < res->nfailures; f++)
            lines[f] = res->failures[f].minimal;
        int status = bc_corpus_append(cfg->corpus_path, lines, res->nfailures, why, cap);
        free(lines);
        if (status != 0)
            goto fail;
    }
    res->elapsed = now_seconds() - start;
    goto done;
oom:
    snprintf(why, cap, "out of memory");
fail:
    bc_run_result_free(res);
    res = NULL;
done:
    if (workers)
        for (int j = 0; j < cfg->jobs; j++) {
            free(workers[j].cells);
            free(workers[j].scratch);
        }
    free(workers);
    free(threads);
    free(run.cells);
    free(run.deadline);
    free(run.checked);
    free(run.chunks_done);
    free(run.cell_chunk);
    return res;
}

void bc_run_result_free(bc_run_result *r)
{
    if (!r)
        return;
    for (int f = 0; f < r->nfailures; f++) {
        free(r->failures[f].original);
        free(r->failures[f].minimal);
        free(r->failures[f].replay);
    }
    free(r->failures);
    free(r);
}

int bc_run_exit_code(const bc_run_result *r)
{
    for (int rule = 0; rule < BC_RULE_COUNT; rule++)
        for (int p = 0; p < r->nproperties; p++)
            if (r->cells[rule][p].failed > 0)
                return 1;
    return 0;
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
                             f->minimal, f->detail, f->replay, f->shrink_calls};
}

int bc_replay(const bc_sut *sut, int property, const bc_vector *c, char *detail, size_t cap)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    if (property < 0 || property >= count) {
        snprintf(detail, cap, "no property %d", property);
        return 2;
    }
    if (!applies(property, c->params.rule)) {
        snprintf(detail, cap, "property %s does not apply to rule %s", props[property].name,
                 bc_rule_name(c->params.rule));
        return 2;
    }
    bc_check_ctx ctx = {sut, 0, NULL};
    bc_check k = bc_property_check(property, &ctx, c, detail, cap);
    bc_check_ctx_release(&ctx);
    switch (k) {
    case BC_CHECK_PASS: return 0;
    case BC_CHECK_FAIL: return 1;
    default:
        if (!detail[0])
            snprintf(detail, cap, "the SUT does not support a query this property needs");
        return 2;
    }
}
