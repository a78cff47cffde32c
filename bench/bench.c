/*
 * The bench: for each pattern, the bytes per second the fast engine moves
 * (the output plus each input's distinct elements, once) and the ratio to
 * (a) this machine's memory bandwidth, measured in the same run by a triad
 * loop, and (b) NumPy on the same pattern and dtype, measured in the same
 * run by bench/numpy_bench.py when the interpreter has numpy.
 *
 * Statistic: the median of `repeat` timed runs, each after the caches were
 * flushed by writing a buffer larger than the last-level cache.  Small
 * patterns are timed as nanoseconds per call over many calls in a row
 * (warm caches: the latency of shape inference, checks and plan included).
 */
#define _POSIX_C_SOURCE 200809L
#include "bench.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "broadcheck/tensor.h"

typedef struct pattern {
    const char *name;
    const char *a, *b; /* shapes */
    int transposed;    /* a is the transpose of a contiguous [d1,d0] matrix */
    int small;         /* report ns per call */
} pattern;

static const pattern patterns[] = {
    {"same", "[4096,4096]", "[4096,4096]", 0, 0},
    {"row", "[4096,4096]", "[4096]", 0, 0},
    {"column", "[4096,4096]", "[4096,1]", 0, 0},
    {"outer", "[4096,1]", "[1,4096]", 0, 0},
    {"scalar", "[4096,4096]", "[]", 0, 0},
    {"stretched-first", "[1,4096]", "[4096,4096]", 0, 0},
    {"interleaved", "[64,1,64,1,64]", "[1,64,1,64,1]", 0, 0},
    {"transposed", "[4096,4096]", "[4096,4096]", 1, 0},
    {"rank8", "[8,8,8,8,8,8,8,8]", "[1,8,1,8,1,8,1,8]", 0, 0},
    {"tiny", "[3,4]", "[4]", 0, 1},
    {"rank5-small", "[2,1,3,1,4]", "[1,5,1,6,1]", 0, 1},
};
enum { NPATTERNS = sizeof patterns / sizeof patterns[0] };

void bc_bench_list(FILE *out)
{
    for (int i = 0; i < NPATTERNS; i++)
        fprintf(out, "%-16s %s + %s%s (float32, add)\n", patterns[i].name, patterns[i].a,
                patterns[i].b, patterns[i].transposed ? ", a transposed" : "");
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Larger than the last-level cache of the machines we run on (a 32 MB L3
 * per CCD here; the VM reports more, which the hardware does not have). */
enum { FLUSH_BYTES = 256 << 20 };

static void flush(char *buf)
{
    static unsigned char v;
    memset(buf, ++v, FLUSH_BYTES);
    __asm__ volatile("" : : "r"(buf) : "memory");
}

static void *alloc_filled(int64_t n, float value)
{
    float *p = malloc((size_t)(n > 0 ? n : 1) * sizeof(float));
    if (!p) {
        fprintf(stderr, "broadcheck bench: out of memory (%lld floats)\n", (long long)n);
        exit(2);
    }
    for (int64_t i = 0; i < n; i++)
        p[i] = value + (float)(i & 7);
    return p;
}

/* ---- the triad: a[i] = b[i] + s * c[i], STREAM's counting (24 bytes) ---- */

static double triad_gbps(char *flushbuf, int repeat)
{
    const int64_t n = 16 << 20; /* 3 x 128 MB */
    double *a = malloc((size_t)n * 8), *b = malloc((size_t)n * 8), *c = malloc((size_t)n * 8);
    if (!a || !b || !c) {
        fprintf(stderr, "broadcheck bench: out of memory for the triad\n");
        exit(2);
    }
    for (int64_t i = 0; i < n; i++) {
        a[i] = 0;
        b[i] = 1;
        c[i] = (double)i;
    }
    double t[64];
    const double s = 3.0;
    for (int r = 0; r < repeat; r++) {
        flush(flushbuf);
        double t0 = now();
        for (int64_t i = 0; i < n; i++)
            a[i] = b[i] + s * c[i];
        t[r] = now() - t0;
        __asm__ volatile("" : : "r"(a) : "memory");
    }
    free(a);
    free(b);
    free(c);
    return 3.0 * 8.0 * (double)n / median(t, repeat) / 1e9;
}

/* ---- NumPy, through bench/numpy_bench.py ---------------------------------- */

typedef struct numpy_result {
    int available;
    char version[32];
    double value[NPATTERNS]; /* seconds per run, or ns per call; < 0 if missing */
} numpy_result;

static void run_numpy(const bc_bench_options *o, const int *selected, numpy_result *res)
{
    res->available = 0;
    for (int i = 0; i < NPATTERNS; i++)
        res->value[i] = -1;
    if (access(o->python, X_OK) != 0 || access(o->script, R_OK) != 0)
        return;
    char *argv[NPATTERNS + 8];
    char specs[NPATTERNS][160], rep[16];
    int n = 0;
    argv[n++] = (char *)o->python;
    argv[n++] = (char *)o->script;
    snprintf(rep, sizeof rep, "%d", o->repeat);
    argv[n++] = rep;
    for (int i = 0; i < NPATTERNS; i++) {
        if (!selected[i])
            continue;
        snprintf(specs[i], sizeof specs[i], "%s;%s;%s;%d;%d", patterns[i].name, patterns[i].a,
                 patterns[i].b, patterns[i].transposed, patterns[i].small);
        argv[n++] = specs[i];
    }
    argv[n] = NULL;
    int fd[2];
    if (pipe(fd) != 0)
        return;
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        close(fd[0]);
        close(fd[1]);
        return;
    }
    if (pid == 0) {
        dup2(fd[1], 1);
        close(fd[0]);
        close(fd[1]);
        execv(o->python, argv);
        _exit(127);
    }
    close(fd[1]);
    FILE *in = fdopen(fd[0], "r");
    char line[256];
    while (in && fgets(line, sizeof line, in)) {
        char name[64];
        double v;
        if (sscanf(line, "numpy %31s", res->version) == 1) {
            res->available = 1;
        } else if (sscanf(line, "%63s %lf", name, &v) == 2) {
            for (int i = 0; i < NPATTERNS; i++)
                if (strcmp(name, patterns[i].name) == 0)
                    res->value[i] = v;
        }
    }
    if (in)
        fclose(in);
    int status;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        res->available = 0;
}

/* ---- one pattern --------------------------------------------------------- */

typedef struct measured {
    double value; /* seconds per run (large) or ns per call (small) */
    double bytes; /* bytes the operation must move */
    double out_bytes;
} measured;

/* The normal-store memory limit of a pattern, in counted GB/s.  A normal
 * store first reads the line it writes (write-allocate), so the triad
 * moves 32 bytes for the 24 it counts: DRAM does triad * 4/3.  A pattern
 * that counts B bytes of which W are output moves B + W, so its limit is
 * triad * 4/3 * B / (B + W): the triad itself for same-shape (3 streams),
 * half the DRAM rate for a pattern that only writes (outer, scalar-like). */
static double store_limit(double triad, const measured *m)
{
    return triad * 4.0 / 3.0 * m->bytes / (m->bytes + m->out_bytes);
}

static measured run_pattern(const pattern *pt, char *flushbuf, int repeat)
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
    bc_tensor A = bc_tensor_contiguous(BC_FLOAT32, &sa, a);
    bc_tensor B = bc_tensor_contiguous(BC_FLOAT32, &sb, b);
    bc_tensor O = bc_tensor_contiguous(BC_FLOAT32, &sr, o);
    if (pt->transposed) { /* a[i][j] = mem[j][i] */
        int64_t t = A.strides[0];
        A.strides[0] = A.strides[1];
        A.strides[1] = t;
    }
    measured m = {0, (double)(nr + na + nb) * sizeof(float), (double)nr * sizeof(float)};
    double t[64];
    bc_error err;
    if (bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &A, &B, &O, &err)) {
        fprintf(stderr, "broadcheck bench: %s: %s\n", pt->name, err.message);
        exit(2);
    }
    for (int r = 0; r < repeat; r++) {
        if (pt->small) {
            const int calls = 200000;
            double t0 = now();
            for (int c = 0; c < calls; c++)
                bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &A, &B, &O, NULL);
            t[r] = (now() - t0) / calls * 1e9;
        } else {
            flush(flushbuf);
            double t0 = now();
            bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &A, &B, &O, NULL);
            t[r] = now() - t0;
        }
        __asm__ volatile("" : : "r"(o) : "memory");
    }
    m.value = median(t, repeat);
    free(a);
    free(b);
    free(o);
    return m;
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
    int repeat = o->repeat < 1 ? 1 : o->repeat > 64 ? 64 : o->repeat;
    char *flushbuf = malloc(FLUSH_BYTES);
    if (!flushbuf) {
        fprintf(stderr, "broadcheck bench: out of memory for the cache flush buffer\n");
        return 2;
    }
    memset(flushbuf, 0, FLUSH_BYTES);
    fprintf(out, "broadcheck bench: fast engine, one thread, float32 add, median of %d "
                 "runs (caches flushed before each large run)\n", repeat);
    double triad = triad_gbps(flushbuf, repeat);
    measured m[NPATTERNS];
    for (int i = 0; i < NPATTERNS; i++)
        if (selected[i])
            m[i] = run_pattern(&patterns[i], flushbuf, repeat);
    free(flushbuf);
    numpy_result np;
    bc_bench_options nopt = *o;
    nopt.repeat = repeat;
    run_numpy(&nopt, selected, &np);

    if (o->json) {
        FILE *js = o->json;
        fprintf(js, "{\"statistic\": \"median\", \"repeat\": %d, \"dtype\": \"float32\", "
                    "\"op\": \"add\", \"triad_gbps\": %.3f, \"numpy\": ", repeat, triad);
        if (np.available)
            fprintf(js, "\"%s\"", np.version);
        else
            fprintf(js, "null");
        fprintf(js, ", \"patterns\": [");
        const char *sep = "";
        for (int i = 0; i < NPATTERNS; i++) {
            if (!selected[i])
                continue;
            const pattern *pt = &patterns[i];
            double npv = np.available ? np.value[i] : -1;
            fprintf(js, "%s\n  {\"name\": \"%s\", \"a\": \"%s\", \"b\": \"%s\", "
                        "\"transposed\": %s, \"bytes\": %.0f", sep, pt->name, pt->a, pt->b,
                    pt->transposed ? "true" : "false", m[i].bytes);
            if (pt->small) {
                fprintf(js, ", \"ns_per_call\": %.1f", m[i].value);
                if (npv > 0)
                    fprintf(js, ", \"numpy_ns_per_call\": %.1f, \"ratio_numpy\": %.3f", npv,
                            npv / m[i].value);
            } else {
                double gbps = m[i].bytes / m[i].value / 1e9;
                fprintf(js, ", \"seconds\": %.6f, \"gbps\": %.3f, \"ratio_bandwidth\": %.3f, "
                            "\"store_limit_gbps\": %.3f, \"ratio_store_limit\": %.3f",
                        m[i].value, gbps, gbps / triad, store_limit(triad, &m[i]),
                        gbps / store_limit(triad, &m[i]));
                if (npv > 0)
                    fprintf(js, ", \"numpy_gbps\": %.3f, \"ratio_numpy\": %.3f",
                            m[i].bytes / npv / 1e9, npv / m[i].value);
            }
            fprintf(js, "}");
            sep = ",";
        }
        fprintf(js, "\n]}\n");
    }
    fprintf(out, "memory bandwidth (triad, STREAM counting): %.2f GB/s; 'limit' is each pattern's "
                 "normal-store limit derived from it (write-allocate counted)\n", triad);
    if (np.available)
        fprintf(out, "numpy %s (%s)\n", np.version, o->python);
    else
        fprintf(out, "numpy: not available (%s)\n", o->python);
    fprintf(out, "\n%-16s %-36s %7s %8s %7s %8s %10s %8s\n", "pattern", "shapes", "GB/s",
            "vs triad", "limit", "vs limit", "numpy GB/s", "vs numpy");
    for (int i = 0; i < NPATTERNS; i++) {
        if (!selected[i] || patterns[i].small)
            continue;
        const pattern *pt = &patterns[i];
        char shapes[64], npg[16] = "-", npr[16] = "-";
        snprintf(shapes, sizeof shapes, "%s+%s%s", pt->a, pt->b, pt->transposed ? "^T" : "");
        double gbps = m[i].bytes / m[i].value / 1e9;
        if (np.available && np.value[i] > 0) {
            snprintf(npg, sizeof npg, "%.2f", m[i].bytes / np.value[i] / 1e9);
            snprintf(npr, sizeof npr, "%.2fx", np.value[i] / m[i].value);
        }
        double lim = store_limit(triad, &m[i]);
        fprintf(out, "%-16s %-36s %7.2f %7.0f%% %7.2f %7.0f%% %10s %8s\n", pt->name, shapes, gbps,
                100.0 * gbps / triad, lim, 100.0 * gbps / lim, npg, npr);
    }
    fprintf(out, "\n%-16s %-36s %7s %10s %8s\n", "pattern", "shapes", "ns/call", "numpy ns",
            "vs numpy");
    for (int i = 0; i < NPATTERNS; i++) {
        if (!selected[i] || !patterns[i].small)
            continue;
        const pattern *pt = &patterns[i];
        char shapes[64], npg[16] = "-", npr[16] = "-";
        snprintf(shapes, sizeof shapes, "%s+%s", pt->a, pt->b);
        if (np.available && np.value[i] > 0) {
            snprintf(npg, sizeof npg, "%.0f", np.value[i]);
            snprintf(npr, sizeof npr, "%.1fx", np.value[i] / m[i].value);
        }
        fprintf(out, "%-16s %-36s %7.1f %10s %8s\n", pt->name, shapes, m[i].value, npg, npr);
    }
    return 0;
}
