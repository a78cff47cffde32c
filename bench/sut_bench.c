/*
 * broadcheck-sut-bench: shape questions per second through each kind of
 * SUT: the reference in process, an adapter library in its isolated worker
 * (broadcheck-worker, over the wire protocol), and a Python worker over
 * exec:.  Two figures each:
 *
 *   raw     the round trip alone: infer_shape on a fixed set of numpy cases;
 *   engine  'broadcheck run --rule numpy --property shape-differential'
 *           end to end (generation, the reference's own answer, the
 *           comparison), in cases per second, for --jobs 1 and 2.
 *
 *   broadcheck-sut-bench [--adapter PATH] [--python CMD] [--questions N]
 *                        [--cases N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "broadcheck/properties.h"
#include "broadcheck/sut_loader.h"

#ifndef BC_BENCH_ADAPTER
#define BC_BENCH_ADAPTER "libbc_example_adapter.so"
#endif
#ifndef BC_BENCH_PYTHON
#define BC_BENCH_PYTHON "exec:python3 examples/python_worker/broadcheck_worker.py"
#endif

#define NCASES 4096

typedef struct bench_case {
    int n;
    bc_shape shapes[4];
} bench_case;

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* numpy cases like the generator's common ones: 1..4 shapes, rank 0..6,
 * dims 0..5, mostly broadcastable. */
static void make_cases(bench_case *c)
{
    uint64_t s = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < NCASES; i++) {
        s = s * 6364136223846793005u + 1442695040888963407u;
        c[i].n = 1 + (int)(s >> 62);
        for (int k = 0; k < c[i].n; k++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            bc_shape *sh = &c[i].shapes[k];
            sh->rank = (int)((s >> 33) % 7);
            for (int d = 0; d < sh->rank; d++)
                sh->dims[d] = (s >> (3 * d)) & 1 ? 1 : (int64_t)(2 + d % 4);
        }
    }
}

/* Shape questions per second; -1 if the SUT answered anything but a
 * result or a rejection. */
static double raw_rate(const bc_sut *sut, const bench_case *cases, long questions)
{
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_sut_answer a;
    double t = now();
    for (long q = 0; q < questions; q++) {
        const bench_case *c = &cases[q % NCASES];
        sut->ops->infer_shape(sut, &p, c->n, c->shapes, &a);
        if (a.status != BC_SUT_OK && a.status != BC_SUT_REJECTED) {
            fprintf(stderr, "broadcheck-sut-bench: %s: %s\n", sut->name, a.message);
            return -1;
        }
    }
    return (double)questions / (now() - t);
}

/* End-to-end cases per second of one run. */
static double engine_rate(const bc_sut *sut, long cases, int jobs)
{
    bc_run_config cfg = bc_run_config_default();
    cfg.sut = sut;
    cfg.rules = 1u << BC_RULE_NUMPY;
    cfg.properties = (uint64_t)1 << bc_property_from_name("shape-differential");
    cfg.cases = cases;
    cfg.jobs = jobs;
    char why[512];
    double t = now();
    bc_run_result *r = bc_run(&cfg, why, sizeof why);
    double rate = r && bc_run_exit_code(r) == 0 ? (double)cases / (now() - t) : -1;
    if (!r)
        fprintf(stderr, "broadcheck-sut-bench: %s\n", why);
    bc_run_result_free(r);
    return rate;
}

int main(int argc, char **argv)
{
    const char *adapter = BC_BENCH_ADAPTER, *python = BC_BENCH_PYTHON;
    long questions = 200000, cases = 100000;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--adapter") == 0 && i + 1 < argc)
            adapter = argv[++i];
        else if (strcmp(argv[i], "--python") == 0 && i + 1 < argc)
            python = argv[++i];
        else if (strcmp(argv[i], "--questions") == 0 && i + 1 < argc)
            questions = atol(argv[++i]);
        else if (strcmp(argv[i], "--cases") == 0 && i + 1 < argc)
            cases = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: broadcheck-sut-bench [--adapter PATH] [--python 'exec:CMD'] "
                            "[--questions N] [--cases N]\n");
            return 2;
        }
    }
    if (questions < 1 || cases < 1) {
        fprintf(stderr, "broadcheck-sut-bench: --questions and --cases take positive counts\n");
        return 2;
    }
    bench_case *c = malloc(NCASES * sizeof *c);
    if (!c)
        return 2;
    make_cases(c);
    const char *specs[3] = {"reference", adapter, python};
    const char *kinds[3] = {"in process", "adapter .so, isolated worker", "exec: Python worker"};
    double raw[3] = {0}, engine1[3] = {0}, engine2[3] = {0};
    int status = 0;
    printf("%-30s %14s %16s %16s\n", "SUT", "raw q/s", "engine c/s -j1", "engine c/s -j2");
    for (int s = 0; s < 3; s++) {
        char why[1024];
        bc_sut_options o = bc_sut_options_default();
        const bc_sut *sut = bc_sut_open(specs[s], &o, why, sizeof why);
        if (!sut) {
            fprintf(stderr, "broadcheck-sut-bench: %s\n", why);
            status = 2;
            continue;
        }
        /* Python is ~100x slower: ask it a tenth as much. */
        long q = s == 2 ? (questions + 9) / 10 : questions, n = s == 2 ? (cases + 9) / 10 : cases;
        raw[s] = raw_rate(sut, c, q);
        engine1[s] = engine_rate(sut, n, 1);
        engine2[s] = engine_rate(sut, n, 2);
        printf("%-30s %14.0f %16.0f %16.0f\n", kinds[s], raw[s], engine1[s], engine2[s]);
        if (raw[s] < 0 || engine1[s] < 0 || engine2[s] < 0)
            status = 1;
        bc_sut_close(sut);
    }
    if (raw[1] > 0 && raw[0] > 0)
        printf("isolated adapter / in process: raw %.3f, engine %.3f; target >= 20000 shape "
               "cases/s through an out-of-process C adapter: %s (engine, --jobs 1)\n",
               raw[1] / raw[0], engine1[1] / engine1[0], engine1[1] >= 20000 ? "met" : "NOT met");
    if (raw[2] > 0 && raw[1] > 0)
        printf("Python worker / isolated adapter: raw %.3f\n", raw[2] / raw[1]);
    free(c);
    return status;
}
