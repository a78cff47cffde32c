/*
 * The bench: for each pattern, the fast engine, NumPy and the memory limit
 * measured back to back, round after round (rounds of engine / NumPy /
 * limit per pattern), so that a shared machine's drifts hit all three alike
 * and every ratio is taken within one round.
 *
 * Large patterns: the bytes the operation must move (the output plus each
 * input's distinct elements, once) per second of wall clock, each timed run
 * after a cache flush (reading a buffer twice the last-level cache, at
 * least 256 MiB, at most 1 GiB: clean lines, so no write-back lands in the
 * next timing).  The limit is the best, in the same round, of three ways to
 * move the same bytes with no broadcasting at all: a vector loop with plain
 * stores, the same loop with non-temporal stores (32 bytes wide with AVX),
 * and memset (of a non-zero byte) for the output
 * after reading the inputs.  Inputs the size of the output are streamed
 * from memory; smaller ones are read from a 16 KiB block that stays in L1,
 * as the engine's broadcast inputs do.  A transposed pattern also gets a
 * transpose limit (transpose_limit.c): the best plain transpose copy of
 * a's memory in the same round, what a transposed read costs here
 * whatever the engine does.
 *
 * Small patterns: nanoseconds of thread CPU time per call over a batch of
 * calls in a row (warm caches; shape inference, checks and plan included).
 *
 * Page policy, the same for every buffer of 4 MiB or more of the engine,
 * NumPy (numpy_bench.py) and the limit loops: transparent huge pages
 * requested with madvise(MADV_HUGEPAGE) on 2 MiB-aligned memory.  The
 * kernel's THP mode (/sys/kernel/mm/transparent_hugepage/enabled) is
 * printed: with "never" neither side gets huge pages.
 *
 * Statistics: min, median and max over the rounds of every measurement;
 * the ratios are the median of the per-round ratios.
 */
#define _GNU_SOURCE /* madvise's MADV_HUGEPAGE */
#include "bench.h"

#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && defined(__GNUC__) /* GCC and Clang: target("avx") */
#include <immintrin.h>
#define BENCH_AVX_LIMIT 1
#else
#define BENCH_AVX_LIMIT 0
#endif

#include "broadcheck/tensor.h"
#include "transpose_limit.h"

typedef struct pattern {
    const char *name;
    const char *a, *b; /* shapes */
    int transposed;    /* a is the transpose of a contiguous [d1,d0] matrix */
    int small;         /* report ns per call */
    const char *what;
    int prepared;      /* small: the call prepared once (bc_eval_plan), run each time */
} pattern;

static const pattern patterns[] = {
    {"same", "[4096,4096]", "[4096,4096]", 0, 0, "same shapes, read 2 write 1", 0},
    {"row", "[4096,4096]", "[4096]", 0, 0, "b, a row, broadcast down the rows of a", 0},
    {"row-first", "[1,4096]", "[4096,4096]", 0, 0, "a, a row, broadcast down the rows of b", 0},
    {"column", "[4096,4096]", "[4096,1]", 0, 0, "b, a column, broadcast along the rows of a", 0},
    {"scalar", "[4096,4096]", "[]", 0, 0, "a scalar, read 1 write 1", 0},
    {"outer", "[4096,1]", "[1,4096]", 0, 0, "outer sum, write-only", 0},
    {"rank5-outer", "[64,1,64,1,64]", "[1,64,1,64,1]", 0, 0,
     "alternating stretched axes, rank 5, write-only", 0},
    {"rank8-write-only", "[8,1,8,1,8,1,8,1]", "[1,8,1,8,1,8,1,8]", 0, 0,
     "alternating stretched axes, rank 8, write-only", 0},
    {"rank8-read-write", "[8,8,8,8,8,8,8,8]", "[1,8,1,8,1,8,1,8]", 0, 0,
     "rank 8, a full, b alternating: read 1 write 1", 0},
    {"transposed", "[4096,4096]", "[4096,4096]", 1, 0, "a transposed view plus b", 0},
    {"tiny", "[3,4]", "[4]", 0, 1, "12 elements: the per-call cost", 0},
    {"rank5-small", "[2,1,3,1,4]", "[1,5,1,6,1]", 0, 1, "720 elements in rows of 4", 0},
    {"tiny-prepared", "[3,4]", "[4]", 0, 1,
     "tiny, prepared once (bc_eval_plan_binary), then bc_eval_plan_run per call", 1},
    {"rank5-small-prepared", "[2,1,3,1,4]", "[1,5,1,6,1]", 0, 1,
     "rank5-small, prepared once, then bc_eval_plan_run per call", 1},
};
enum { NPATTERNS = sizeof patterns / sizeof patterns[0] };

enum { LIMIT_PLAIN, LIMIT_NT, LIMIT_MEMSET, NLIMITS };
static const char *const limit_names[NLIMITS] = {"plain", "nt", "memset"};

/* measurements of one pattern, per round; the transpose limit's only for
 * a transposed pattern */
enum { M_ENGINE, M_NUMPY, M_LIMIT0, M_TLIMIT0 = M_LIMIT0 + NLIMITS, NMEAS = M_TLIMIT0 + BC_TLIMITS };

enum { SMALL_CALLS = 200000, HUGE_MIN = 4 << 20, HUGE_ALIGN = 2 << 20, CACHED_FLOATS = 4096 };

void bc_bench_list(FILE *out)
{
    for (int i = 0; i < NPATTERNS; i++)
        fprintf(out, "%-20s %s + %s%s (float32, add): %s\n", patterns[i].name, patterns[i].a,
                patterns[i].b, patterns[i].transposed ? ", a transposed" : "",
                patterns[i].what);
}

static double wall(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

typedef struct stats {
    double min, median, max;
} stats;

static stats stats_of(const double *v, int n)
{
    double s[64];
    memcpy(s, v, sizeof *v * (size_t)n);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    stats r = {s[0], n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]), s[n - 1]};
    return r;
}

/* Memory under the page policy above; exits 2 when there is none. */
static void *alloc_bytes(size_t bytes)
{
    void *p = NULL;
    size_t align = bytes >= HUGE_MIN ? HUGE_ALIGN : 64;
    bytes = (bytes + align - 1) / align * align;
    if (posix_memalign(&p, align, bytes ? bytes : align) != 0) {
        fprintf(stderr, "broadcheck bench: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
#ifdef MADV_HUGEPAGE
    if (bytes >= HUGE_MIN)
        madvise(p, bytes, MADV_HUGEPAGE); /* advice: refused or ignored is fine */
#endif
    return p;
}

static float *alloc_filled(int64_t n, float value)
{
    float *p = alloc_bytes((size_t)(n > 0 ? n : 1) * sizeof(float));
    for (int64_t i = 0; i < n; i++)
        p[i] = value + (float)(i & 7);
    return p;
}

/* ---- the cache flush ------------------------------------------------------ */

static size_t flush_bytes(void)
{
    size_t b = (size_t)256 << 20;
#ifdef _SC_LEVEL3_CACHE_SIZE
    long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
    if (l3 > 0 && (size_t)l3 * 2 > b)
        b = (size_t)l3 * 2;
#endif
    return b > ((size_t)1 << 30) ? (size_t)1 << 30 : b;
}

static void flush(const char *buf, size_t bytes)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < bytes; i += 64)
        acc += (uint64_t)(unsigned char)buf[i];
    __asm__ volatile("" : : "r"(acc) : "memory");
}

/* ---- the limit loops ------------------------------------------------------ */

#if BENCH_AVX_LIMIT
/* limit_loop's non-temporal way with 32-byte stores (o is 64-byte aligned
 * here); the masks xm, ym as there */
__attribute__((target("avx"))) static void limit_nt_avx(float *o, int64_t n, const float *x,
                                                       int64_t xm, const float *y, int64_t ym)
{
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_stream_ps(o + i, _mm256_add_ps(_mm256_loadu_ps(x + (i & xm)),
                                              _mm256_loadu_ps(y + (i & ym))));
    _mm_sfence();
    for (; i < n; i++)
        o[i] = x[i & xm] + y[i & ym];
}
#endif

/* o[i] = x[i] + y[i] over n floats with no broadcasting; an input of
 * `cached` stride repeats its first CACHED_FLOATS floats (smaller inputs,
 * in L1 as the engine's are).  way: LIMIT_PLAIN, LIMIT_NT or LIMIT_MEMSET. */
static void limit_loop(int way, float *o, int64_t n, const float *x, int x_cached, const float *y,
                       int y_cached)
{
    const int64_t xm = x_cached ? CACHED_FLOATS - 1 : -1, ym = y_cached ? CACHED_FLOATS - 1 : -1;
    if (way == LIMIT_MEMSET) { /* read what the op reads, then write the output */
        float acc = 0;
        if (!x_cached)
            for (int64_t i = 0; i < n; i++)
                acc += x[i];
        if (!y_cached)
            for (int64_t i = 0; i < n; i++)
                acc += y[i];
        __asm__ volatile("" : : "r"(acc));
        /* not zeros: this VM stores zero bytes about 1.8x faster than any
         * other (1 GiB, huge pages: memset 0 at 33-35 GB/s, 0x5a and
         * non-temporal AVX stores at 19 GB/s), a rate no computed output
         * can reach, so a zero fill would set an unreachable limit */
        memset(o, 0x3f, (size_t)n * sizeof *o);
        return;
    }
    int64_t i = 0;
#if BENCH_AVX_LIMIT
    /* the engine's streaming copy stores 32 bytes at a time where AVX is
     * there, and 16-byte stores ran at about half its rate on write-only
     * patterns (rank5-outer 1.17 of this loop's 16-byte figure), so the
     * limit takes the wider stores too */
    if (way == LIMIT_NT && __builtin_cpu_supports("avx")) {
        limit_nt_avx(o, n, x, xm, y, ym);
        return;
    }
#endif
#ifdef __SSE2__
    /* explicit vectors: the limit must not depend on the bench's own
     * optimisation level (o is 64-byte aligned, n a multiple of 4 here) */
    for (; i + 4 <= n; i += 4) {
        __m128 v = _mm_add_ps(_mm_loadu_ps(x + (i & xm)), _mm_loadu_ps(y + (i & ym)));
        if (way == LIMIT_NT)
            _mm_stream_ps(o + i, v);
        else
            _mm_store_ps(o + i, v);
    }
    if (way == LIMIT_NT)
        _mm_sfence();
#endif
    for (; i < n; i++)
        o[i] = x[i & xm] + y[i & ym];
}

/* ---- NumPy, through bench/numpy_bench.py ---------------------------------- */

typedef struct numpy_proc {
    int available;
    char version[32];
    pid_t pid;
    FILE *to, *from;
} numpy_proc;

static void numpy_start(const bc_bench_options *o, numpy_proc *np)
{
    memset(np, 0, sizeof *np);
    if (access(o->python, X_OK) != 0 || access(o->script, R_OK) != 0)
        return;
    int in[2], out[2];
    if (pipe(in) != 0)
        return;
    if (pipe(out) != 0) {
        close(in[0]);
        close(in[1]);
        return;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return;
    }
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execl(o->python, o->python, o->script, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    np->pid = pid;
    np->to = fdopen(in[1], "w");
    np->from = fdopen(out[0], "r");
    char line[128];
    if (np->to && np->from && fgets(line, sizeof line, np->from) &&
        sscanf(line, "numpy %31s", np->version) == 1)
        np->available = 1;
}

/* Sends one command; returns the "t VALUE" answer's value, 0 for "ok", or
 * -1 (and NumPy is unavailable from then on) if the server died. */
static double numpy_ask(numpy_proc *np, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static double numpy_ask(numpy_proc *np, const char *fmt, ...)
{
    if (!np->available)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(np->to, fmt, ap);
    va_end(ap);
    fflush(np->to);
    char line[128];
    double v;
    if (fgets(line, sizeof line, np->from)) {
        if (strncmp(line, "ok", 2) == 0)
            return 0;
        if (sscanf(line, "t %lf", &v) == 1)
            return v;
    }
    np->available = 0;
    return -1;
}

static void numpy_stop(numpy_proc *np)
{
    if (np->to)
        fclose(np->to); /* EOF ends the server */
    if (np->from)
        fclose(np->from);
    if (np->pid > 0) {
        int status;
        waitpid(np->pid, &status, 0);
    }
}

/* ---- one pattern, all rounds ------------------------------------------------ */

typedef struct result {
    double v[NMEAS][64]; /* per round: seconds (large) or ns per call (small); < 0 missing */
    double bytes;        /* bytes the operation must move */
    double tbytes;       /* transposed: bytes the transpose copy moves (a read, out written) */
} result;

static void run_pattern(const pattern *pt, int rounds, const char *flushbuf, size_t fbytes,
                        numpy_proc *np, result *res)
{
    bc_shape sa, sb, sr;
    bc_shape_parse(pt->a, NULL, &sa, NULL, 0);
    bc_shape_parse(pt->b, NULL, &sb, NULL, 0);
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_shape pair[2] = {sa, sb};
    bc_infer(&p, 2, pair, &sr, NULL);
    int64_t na, nb, nr;
    bc_shape_numel(&sa, &na);
    bc_shape_numel(&sb, &nb);
    bc_shape_numel(&sr, &nr);
    float *a = alloc_filled(na, 1), *b = alloc_filled(nb, 2), *o = alloc_filled(nr, 0);
    float *cached = alloc_filled(CACHED_FLOATS, 3);
    bc_tensor A = bc_tensor_contiguous(BC_FLOAT32, &sa, a);
    bc_tensor B = bc_tensor_contiguous(BC_FLOAT32, &sb, b);
    bc_tensor O = bc_tensor_contiguous(BC_FLOAT32, &sr, o);
    if (pt->transposed) { /* a[i][j] = mem[j][i] */
        int64_t t = A.strides[0];
        A.strides[0] = A.strides[1];
        A.strides[1] = t;
    }
    res->bytes = (double)(nr + na + nb) * sizeof(float);
    res->tbytes = (double)(nr + na) * sizeof(float);
    bc_error err;
    if (bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &A, &B, &O, &err)) {
        fprintf(stderr, "broadcheck bench: %s: %s\n", pt->name, err.message);
        exit(2);
    }
    bc_eval_plan *plan = NULL;
    if (pt->prepared &&
        bc_eval_plan_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &A, &B, &O, &plan, &err)) {
        fprintf(stderr, "broadcheck bench: %s: %s\n", pt->name, err.message);
        exit(2);
    }
    const void *ins[2] = {a, b};
    numpy_ask(np, "setup %s %s %s %d %d\n", pt->name, pt->a, pt->b, pt->transposed,
              pt->small ? SMALL_CALLS : 0);
    for (int r = 0; r < rounds; r++) {
        for (int m = 0; m < NMEAS; m++)
            res->v[m][r] = -1;
        /* engine */
        if (pt->small) {
            double t0 = cpu();
            if (plan)
                for (int c = 0; c < SMALL_CALLS; c++)
                    bc_eval_plan_run(plan, o, ins, NULL);
            else
                for (int c = 0; c < SMALL_CALLS; c++)
                    bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &A, &B, &O, NULL);
            res->v[M_ENGINE][r] = (cpu() - t0) / SMALL_CALLS * 1e9;
        } else {
            flush(flushbuf, fbytes);
            double t0 = wall();
            bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &A, &B, &O, NULL);
            res->v[M_ENGINE][r] = wall() - t0;
        }
        __asm__ volatile("" : : "r"(o) : "memory");
        /* NumPy, right after */
        if (!pt->small)
            flush(flushbuf, fbytes);
        double t = numpy_ask(np, "run\n");
        res->v[M_NUMPY][r] = t > 0 ? t : -1;
        /* the limit's store strategies, right after */
        if (pt->small)
            continue;
        for (int way = 0; way < NLIMITS; way++) {
            /* an input is streamed when it has as many elements as the output */
            flush(flushbuf, fbytes);
            double t0 = wall();
            limit_loop(way, o, nr, na == nr ? a : cached, na != nr, nb == nr ? b : cached,
                       nb != nr);
            res->v[M_LIMIT0 + way][r] = wall() - t0;
            __asm__ volatile("" : : "r"(o) : "memory");
        }
        /* the transpose limit: a's memory copied transposed into o, no add */
        for (int way = 0; way < BC_TLIMITS && pt->transposed; way++) {
            flush(flushbuf, fbytes);
            double t0 = wall();
            if (bc_tlimit_run(way, o, a, sr.dims[0]))
                res->v[M_TLIMIT0 + way][r] = wall() - t0;
            __asm__ volatile("" : : "r"(o) : "memory");
            if (res->v[M_TLIMIT0 + way][r] > 0 && !bc_tlimit_check(o, a, sr.dims[0])) {
                fprintf(stderr, "broadcheck bench: transpose limit '%s' copied wrong: left out\n",
                        bc_tlimit_names[way]);
                res->v[M_TLIMIT0 + way][r] = -1;
            }
        }
    }
    numpy_ask(np, "free\n");
    bc_eval_plan_free(plan);
    free(a);
    free(b);
    free(o);
    free(cached);
}

/* ---- report ---------------------------------------------------------------- */

static void thp_mode(char *buf, size_t n)
{
    snprintf(buf, n, "unknown");
    FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
    char line[128];
    if (f && fgets(line, sizeof line, f)) {
        char *l = strchr(line, '['), *r = l ? strchr(l, ']') : NULL;
        if (l && r) {
            *r = '\0';
            snprintf(buf, n, "%s", l + 1);
        }
    }
    if (f)
        fclose(f);
}

/* Per-round derived values: GB/s from seconds, ratios; the best limit
 * per round is the fastest of the strategies in that round. */
typedef struct derived {
    int have_numpy;
    stats engine, numpy, limit[NLIMITS], best_limit, vs_limit, vs_numpy;
    const char *best_way; /* the strategy fastest in the most rounds */
    /* transposed patterns: the transpose limit (GB/s of the copy's own
     * bytes), per strategy (have_t: it ran in every round) and best, the
     * engine's GB/s over it, and it over the store limit */
    int transposed, have_t[BC_TLIMITS];
    stats tlimit[BC_TLIMITS], best_tlimit, vs_tlimit, tlimit_vs_limit;
    const char *best_tway;
} derived;

/* The transpose limit's figures, from the engine's GB/s e[] and the best
 * store limit best[] of each round. */
static void derive_tlimit(derived *d, const result *res, int rounds, const double *e,
                          const double *best)
{
    double t[BC_TLIMITS][64], tb[64], ve[64], vl[64];
    int wins[BC_TLIMITS] = {0}, any = 0;
    for (int way = 0; way < BC_TLIMITS; way++) {
        d->have_t[way] = 1;
        for (int r = 0; r < rounds; r++)
            d->have_t[way] &= res->v[M_TLIMIT0 + way][r] > 0;
        any |= d->have_t[way];
    }
    if (!any)
        return;
    for (int r = 0; r < rounds; r++) {
        int w = -1;
        for (int way = 0; way < BC_TLIMITS; way++) {
            if (!d->have_t[way])
                continue;
            t[way][r] = res->tbytes / res->v[M_TLIMIT0 + way][r] / 1e9;
            if (w < 0 || t[way][r] > t[w][r])
                w = way;
        }
        wins[w]++;
        tb[r] = t[w][r];
        ve[r] = e[r] / tb[r];
        vl[r] = tb[r] / best[r];
    }
    int w = -1;
    for (int way = 0; way < BC_TLIMITS; way++) {
        if (d->have_t[way])
            d->tlimit[way] = stats_of(t[way], rounds);
        if (d->have_t[way] && (w < 0 || wins[way] > wins[w]))
            w = way;
    }
    d->transposed = 1;
    d->best_tway = bc_tlimit_names[w];
    d->best_tlimit = stats_of(tb, rounds);
    d->vs_tlimit = stats_of(ve, rounds);
    d->tlimit_vs_limit = stats_of(vl, rounds);
}

static derived derive(const pattern *pt, const result *res, int rounds)
{
    derived d;
    memset(&d, 0, sizeof d);
    double e[64], n[64], l[NLIMITS][64], best[64], vl[64], vn[64];
    int wins[NLIMITS] = {0}, nn = 0;
    for (int r = 0; r < rounds; r++) {
        /* large: GB/s (higher is better); small: ns per call (lower is better) */
        double conv = pt->small ? 1 : 0;
        e[r] = conv ? res->v[M_ENGINE][r] : res->bytes / res->v[M_ENGINE][r] / 1e9;
        if (res->v[M_NUMPY][r] > 0) {
            n[nn] = conv ? res->v[M_NUMPY][r] : res->bytes / res->v[M_NUMPY][r] / 1e9;
            vn[nn] = conv ? n[nn] / e[r] : e[r] / n[nn];
            nn++;
        }
        if (pt->small)
            continue;
        int w = 0;
        for (int way = 0; way < NLIMITS; way++) {
            l[way][r] = res->bytes / res->v[M_LIMIT0 + way][r] / 1e9;
            if (l[way][r] > l[w][r])
                w = way;
        }
        wins[w]++;
        best[r] = l[w][r];
        vl[r] = e[r] / best[r];
    }
    d.engine = stats_of(e, rounds);
    if (pt->transposed)
        derive_tlimit(&d, res, rounds, e, best);
    d.have_numpy = nn == rounds;
    if (d.have_numpy) {
        d.numpy = stats_of(n, nn);
        d.vs_numpy = stats_of(vn, nn);
    }
    if (!pt->small) {
        for (int way = 0; way < NLIMITS; way++)
            d.limit[way] = stats_of(l[way], rounds);
        d.best_limit = stats_of(best, rounds);
        d.vs_limit = stats_of(vl, rounds);
        int w = 0;
        for (int way = 1; way < NLIMITS; way++)
            if (wins[way] > wins[w])
                w = way;
        d.best_way = limit_names[w];
    }
    return d;
}

static void json_stats(FILE *js, const char *key, stats s)
{
    fprintf(js, ", \"%s\": {\"min\": %.4g, \"median\": %.4g, \"max\": %.4g}", key, s.min, s.median,
            s.max);
}

int bc_bench_run(const bc_bench_options *o, FILE *out)
{
    int selected[NPATTERNS], any = 0;
    for (int i = 0; i < NPATTERNS; i++) {
        selected[i] = !o->pattern || strcmp(o->pattern, patterns[i].name) == 0;
        any |= selected[i];
    }
    if (!any) {
        fprintf(stderr, "broadcheck bench: unknown pattern '%s'; the patterns are:\n",
                o->pattern);
        bc_bench_list(stderr);
        return 2;
    }
    int rounds = o->repeat < 1 ? 1 : o->repeat > 64 ? 64 : o->repeat;
    size_t fbytes = flush_bytes();
    char *flushbuf = alloc_bytes(fbytes);
    memset(flushbuf, 1, fbytes);
    char thp[32];
    thp_mode(thp, sizeof thp);
    numpy_proc np;
    signal(SIGPIPE, SIG_IGN); /* a dead NumPy server is noticed by numpy_ask */
    numpy_start(o, &np);
    fprintf(out, "broadcheck bench: fast engine, one thread, float32 add; %d rounds of engine, "
                 "NumPy, limit per pattern, back to back\n", rounds);
    fprintf(out, "pages: madvise(MADV_HUGEPAGE) on every buffer >= 4 MiB, engine, NumPy and "
                 "limit alike (THP mode: %s)\n", thp);
    fprintf(out, "large: wall clock after reading %zu MiB to flush the caches; small: thread CPU "
                 "time over %d calls\n", fbytes >> 20, SMALL_CALLS);
    if (np.available)
        fprintf(out, "numpy %s (%s)\n", np.version, o->python);
    else
        fprintf(out, "NumPy not available (%s): its columns print '-'\n", o->python);
    fflush(out);

    result res[NPATTERNS];
    derived d[NPATTERNS];
    for (int i = 0; i < NPATTERNS; i++) {
        if (!selected[i])
            continue;
        run_pattern(&patterns[i], rounds, flushbuf, fbytes, &np, &res[i]);
        d[i] = derive(&patterns[i], &res[i], rounds);
    }
    numpy_stop(&np);
    free(flushbuf);

    if (o->json) {
        FILE *js = o->json;
        fprintf(js, "{\"rounds\": %d, \"dtype\": \"float32\", \"op\": \"add\", "
                    "\"statistic\": \"min/median/max over rounds; ratios per round\", "
                    "\"pages\": \"madvise(MADV_HUGEPAGE) >= 4 MiB, all sides\", \"thp\": \"%s\", "
                    "\"flush_bytes\": %zu, \"numpy\": ", rounds, thp, fbytes);
        if (np.version[0])
            fprintf(js, "\"%s\"", np.version);
        else
            fprintf(js, "null");
        fprintf(js, ", \"patterns\": [");
        const char *sep = "";
        for (int i = 0; i < NPATTERNS; i++) {
            if (!selected[i])
                continue;
            const pattern *pt = &patterns[i];
            fprintf(js, "%s\n  {\"name\": \"%s\", \"a\": \"%s\", \"b\": \"%s\", "
                        "\"transposed\": %s, \"bytes\": %.0f", sep, pt->name, pt->a, pt->b,
                    pt->transposed ? "true" : "false", res[i].bytes);
            json_stats(js, pt->small ? "engine_ns_per_call" : "engine_gbps", d[i].engine);
            if (d[i].have_numpy) {
                json_stats(js, pt->small ? "numpy_ns_per_call" : "numpy_gbps", d[i].numpy);
                json_stats(js, "ratio_numpy", d[i].vs_numpy);
            }
            if (!pt->small) {
                for (int way = 0; way < NLIMITS; way++) {
                    char key[32];
                    snprintf(key, sizeof key, "limit_%s_gbps", limit_names[way]);
                    json_stats(js, key, d[i].limit[way]);
                }
                json_stats(js, "limit_best_gbps", d[i].best_limit);
                fprintf(js, ", \"limit_best_way\": \"%s\"", d[i].best_way);
                json_stats(js, "ratio_limit", d[i].vs_limit);
            }
            if (d[i].transposed) {
                for (int way = 0; way < BC_TLIMITS; way++) {
                    char key[48];
                    snprintf(key, sizeof key, "transpose_limit_%s_gbps", bc_tlimit_names[way]);
                    if (d[i].have_t[way])
                        json_stats(js, key, d[i].tlimit[way]);
                }
                json_stats(js, "transpose_limit_best_gbps", d[i].best_tlimit);
                fprintf(js, ", \"transpose_limit_best_way\": \"%s\"", d[i].best_tway);
                json_stats(js, "ratio_transpose_limit", d[i].vs_tlimit);
                json_stats(js, "transpose_limit_vs_limit", d[i].tlimit_vs_limit);
            }
            fprintf(js, "}");
            sep = ",";
        }
        fprintf(js, "\n]}\n");
    }
    int any_large = 0, any_small = 0;
    for (int i = 0; i < NPATTERNS; i++) {
        any_large |= selected[i] && !patterns[i].small;
        any_small |= selected[i] && patterns[i].small;
    }
    if (any_large) {
        fprintf(out, "\nmedians over rounds (min-max of the ratio); limit = best of plain, nt, "
                     "memset stores in the same round\n");
        fprintf(out, "%-17s %-38s %7s %7s %-6s %-15s %7s %-15s\n", "pattern", "shapes", "GB/s",
                "limit", "best", "vs limit", "numpy", "vs numpy");
    }
    for (int i = 0; i < NPATTERNS; i++) {
        if (!selected[i] || patterns[i].small)
            continue;
        const pattern *pt = &patterns[i];
        char shapes[64], npg[16] = "-", npr[32] = "-", vl[32];
        snprintf(shapes, sizeof shapes, "%s+%s%s", pt->a, pt->b, pt->transposed ? "^T" : "");
        if (d[i].have_numpy) {
            snprintf(npg, sizeof npg, "%.2f", d[i].numpy.median);
            snprintf(npr, sizeof npr, "%.2fx (%.2f-%.2f)", d[i].vs_numpy.median,
                     d[i].vs_numpy.min, d[i].vs_numpy.max);
        }
        snprintf(vl, sizeof vl, "%.2f (%.2f-%.2f)", d[i].vs_limit.median, d[i].vs_limit.min,
                 d[i].vs_limit.max);
        fprintf(out, "%-17s %-38s %7.2f %7.2f %-6s %-15s %7s %-15s\n", pt->name, shapes,
                d[i].engine.median, d[i].best_limit.median, d[i].best_way, vl, npg, npr);
    }
    for (int i = 0; i < NPATTERNS; i++) {
        if (!selected[i] || !d[i].transposed)
            continue;
        fprintf(out, "%s: transpose limit (a transposed copy of a's memory, no add, GB/s of "
                     "its own bytes: a read, out written; best of scalar, tiles, tiles-nt, "
                     "rows-nt in the same round) %.2f %s, %.2f (%.2f-%.2f) of the limit; "
                     "engine %.2f (%.2f-%.2f) of the transpose limit\n",
                patterns[i].name, d[i].best_tlimit.median, d[i].best_tway,
                d[i].tlimit_vs_limit.median, d[i].tlimit_vs_limit.min, d[i].tlimit_vs_limit.max,
                d[i].vs_tlimit.median, d[i].vs_tlimit.min, d[i].vs_tlimit.max);
    }
    if (any_small)
        fprintf(out, "\n%-20s %-35s %8s %9s %-15s\n", "pattern", "shapes", "ns/call",
                "numpy ns", "vs numpy");
    for (int i = 0; i < NPATTERNS; i++) {
        if (!selected[i] || !patterns[i].small)
            continue;
        const pattern *pt = &patterns[i];
        char shapes[64], npg[16] = "-", npr[32] = "-";
        snprintf(shapes, sizeof shapes, "%s+%s", pt->a, pt->b);
        if (d[i].have_numpy) {
            snprintf(npg, sizeof npg, "%.0f", d[i].numpy.median);
            snprintf(npr, sizeof npr, "%.1fx (%.1f-%.1f)", d[i].vs_numpy.median,
                     d[i].vs_numpy.min, d[i].vs_numpy.max);
        }
        fprintf(out, "%-20s %-35s %8.1f %9s %-15s\n", pt->name, shapes, d[i].engine.median, npg,
                npr);
    }
    return 0;
}
