/*
 * broadcheck bench --properties: how many cases a second the property
 * engine checks against the in-process reference, one thread, for the
 * shape properties and for the value properties (tensors of at most 64
 * elements per operand), against the targets of issue 4 (10^6 and 10^5 a
 * second per core), and the default run on every core.
 */
#include <stdio.h>
#include <time.h>

#include "broadcheck/properties.h"
#include "bench.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The cells a run of these properties selects, over every rule. */
static int64_t cells_of(uint64_t properties)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    int64_t cells = 0;
    for (int p = 0; p < count; p++)
        if ((properties >> p) & 1u)
            for (int r = 0; r < BC_RULE_COUNT; r++)
                cells += (props[p].rules >> r) & 1u;
    return cells;
}

/* Median wall time of `repeat` runs of cfg. */
static double time_run(const bc_run_config *cfg, int repeat, int *failed)
{
    double t[64];
    char why[512];
    for (int i = 0; i < repeat; i++) {
        double start = now();
        bc_run_result *r = bc_run(cfg, why, sizeof why);
        t[i] = now() - start;
        if (!r || bc_run_exit_code(r) != 0)
            *failed = 1;
        bc_run_result_free(r);
    }
    for (int i = 1; i < repeat; i++) /* insertion sort: repeat is small */
        for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
            double x = t[j];
            t[j] = t[j - 1];
            t[j - 1] = x;
        }
    return t[repeat / 2];
}

int bc_bench_properties(const bc_bench_options *o, int cores, FILE *out)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    uint64_t shape = 0, value = 0;
    for (int p = 0; p < count; p++) {
        if (props[p].values)
            value |= 1ull << p;
        else
            shape |= 1ull << p;
    }
    bc_run_config base = bc_run_config_default();
    base.sut = bc_builtin_sut("reference");
    struct {
        const char *name;
        uint64_t properties;
        int jobs;
        double target; /* cases/s per core; 0: wall time against 60 s */
    } rows[] = {
        {"shape properties, 1 thread", shape, 1, 1e6},
        {"value properties, 1 thread", value, 1, 1e5},
        {"default run, every core", 0, cores, 0},
    };
    int failed = 0;
    if (o->json)
        fprintf(o->json, "{\"properties_bench\": [");
    fprintf(out, "%-28s %12s %10s %14s %s\n", "run", "cases", "seconds", "cases/s", "vs target");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bc_run_config cfg = base;
        cfg.properties = rows[i].properties;
        cfg.jobs = rows[i].jobs;
        uint64_t sel = rows[i].properties ? rows[i].properties : shape | value;
        int64_t cases = cells_of(sel & shape) * cfg.cases + cells_of(sel & value) * cfg.value_cases;
        double s = time_run(&cfg, o->repeat, &failed);
        double rate = (double)cases / s;
        double ratio = rows[i].target > 0 ? rate / rows[i].target : 60.0 / s;
        if (o->json)
            fprintf(o->json,
                    "%s{\"run\": \"%s\", \"jobs\": %d, \"cases\": %lld, \"seconds\": %.4f, "
                    "\"cases_per_second\": %.0f, \"%s\": %.3f}",
                    i ? ", " : "", rows[i].name, cfg.jobs, (long long)cases, s, rate,
                    rows[i].target > 0 ? "ratio_to_target" : "ratio_of_60s_budget", ratio);
        fprintf(out, "%-28s %12lld %10.3f %14.0f %.2fx %s\n", rows[i].name, (long long)cases, s,
                rate, ratio,
                rows[i].target > 0 ? (rows[i].target >= 1e6 ? "(of 10^6/s)" : "(of 10^5/s)")
                                   : "(60 s / elapsed)");
    }
    if (o->json)
        fprintf(o->json, "]}\n");
    if (failed)
        fprintf(stderr, "broadcheck bench: the reference failed a property during the bench\n");
    return failed ? 1 : 0;
}
