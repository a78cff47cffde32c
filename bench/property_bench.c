/*
 * broadcheck bench --properties: how many cases a second the property
 * engine checks against the in-process reference, one thread, for the
 * shape properties and for the value properties (tensors of at most 64
 * elements per operand), against the targets of issue 4 (10^6 and 10^5 a
 * second per core), and the default run on every core; then the medium
 * value tier's value-differential (10^3 to 2^20 elements an operand), one
 * thread and every core, in GB/s of output compared (issue 16's target,
 * 1 GB/s) and of bytes moved (the questions' inputs and outputs).
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "broadcheck/properties.h"
#include "bench.h"

/* The medium rows' cases per cell (the figures in docs/PROPERTIES.md
 * "Throughput" were taken with --value-cases 2000): seven rules' cells. */
#define MEDIUM_CASES 2000

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Median wall time of `repeat` runs of cfg; the cases the run examined
 * and the value bytes compared and moved, the same in every run (the same
 * seed, the same cases). */
static double time_run(const bc_run_config *cfg, int repeat, int *failed, int64_t *cases,
                       int64_t *compared, int64_t *moved)
{
    double t[64];
    char why[512];
    for (int i = 0; i < repeat; i++) {
        double start = now();
        bc_run_result *r = bc_run(cfg, why, sizeof why);
        t[i] = now() - start;
        if (!r || bc_run_exit_code(r) != 0)
            *failed = 1;
        if (r) {
            *cases = bc_run_case_count(r);
            *compared = bc_run_value_bytes(r, moved);
        }
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

/* What a row's figure is held against. */
typedef enum target_kind {
    CASES_PER_SECOND, /* issue 4's per-core rates */
    WALL_60_SECONDS,  /* the default run's budget */
    CHECKED_GBPS,     /* issue 16's 1 GB/s of output compared */
    NO_TARGET         /* no goal was set: the rate alone */
} target_kind;

int bc_bench_properties(const bc_bench_options *o, int cores, FILE *out)
{
    int count;
    const bc_property_info *props = bc_properties(&count);
    uint64_t shape = 0, partial = 0, value = 0, differential = 0;
    for (int p = 0; p < count; p++) {
        if (props[p].values)
            value |= 1ull << p;
        else if (props[p].partial)
            partial |= 1ull << p;
        else
            shape |= 1ull << p;
        if (strcmp(props[p].name, "value-differential") == 0)
            differential = 1ull << p;
    }
    bc_run_config base = bc_run_config_default();
    base.sut = bc_builtin_sut("reference");
    /* Issue 4's shape target was set on the static shape properties; the
     * partial-shape ones came later, ask the reference once per
     * concretization and have no target of their own: their own row. */
    struct {
        const char *name;
        uint64_t properties; /* 0: the default run's (all) */
        int jobs;
        target_kind kind;
        double target; /* CASES_PER_SECOND: per core */
        bc_value_tier tier;
    } rows[] = {
        {"shape properties, 1 thread", shape, 1, CASES_PER_SECOND, 1e6, BC_TIER_SMALL},
        {"partial shapes, 1 thread", partial, 1, NO_TARGET, 0, BC_TIER_SMALL},
        {"value properties, 1 thread", value, 1, CASES_PER_SECOND, 1e5, BC_TIER_SMALL},
        {"default run, every core", 0, cores, WALL_60_SECONDS, 60, BC_TIER_SMALL},
        {"medium values, 1 thread", differential, 1, CHECKED_GBPS, 1, BC_TIER_MEDIUM},
        {"medium values, every core", differential, cores, CHECKED_GBPS, 1, BC_TIER_MEDIUM},
    };
    static const char *const ratio_names[] = {"ratio_to_target", "ratio_of_60s_budget",
                                              "ratio_to_1_gbps_checked", NULL};
    int failed = 0;
    if (o->json)
        fprintf(o->json, "{\"properties_bench\": [");
    fprintf(out, "%-28s %12s %10s %14s %s\n", "run", "cases", "seconds", "cases/s", "vs target");
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        bc_run_config cfg = base;
        cfg.properties = rows[i].properties;
        cfg.jobs = rows[i].jobs;
        cfg.value_tier = rows[i].tier;
        if (rows[i].tier == BC_TIER_MEDIUM)
            cfg.value_cases = MEDIUM_CASES;
        int64_t cases = 0, compared = 0, moved = 0;
        double s = time_run(&cfg, o->repeat, &failed, &cases, &compared, &moved);
        double rate = (double)cases / s, gbps = (double)compared / s * 1e-9,
               moved_gbps = (double)moved / s * 1e-9;
        double ratio = 0;
        switch (rows[i].kind) {
        case CASES_PER_SECOND: ratio = rate / rows[i].target; break;
        case WALL_60_SECONDS: ratio = rows[i].target / s; break;
        case CHECKED_GBPS: ratio = gbps / rows[i].target; break;
        case NO_TARGET: break;
        }
        if (o->json) {
            fprintf(o->json,
                    "%s{\"run\": \"%s\", \"jobs\": %d, \"cases\": %lld, \"seconds\": %.4f, "
                    "\"cases_per_second\": %.0f",
                    i ? ", " : "", rows[i].name, cfg.jobs, (long long)cases, s, rate);
            if (rows[i].kind == CHECKED_GBPS)
                fprintf(o->json,
                        ", \"value_tier\": \"%s\", \"value_bytes\": %lld, "
                        "\"value_moved_bytes\": %lld, \"checked_gbps\": %.4f, "
                        "\"moved_gbps\": %.4f",
                        bc_value_tier_name(rows[i].tier), (long long)compared, (long long)moved,
                        gbps, moved_gbps);
            if (ratio_names[rows[i].kind])
                fprintf(o->json, ", \"%s\": %.3f", ratio_names[rows[i].kind], ratio);
            fprintf(o->json, "}");
        }
        fprintf(out, "%-28s %12lld %10.3f %14.0f ", rows[i].name, (long long)cases, s, rate);
        switch (rows[i].kind) {
        case CASES_PER_SECOND:
            fprintf(out, "%.2fx (of %s/s)\n", ratio, rows[i].target >= 1e6 ? "10^6" : "10^5");
            break;
        case WALL_60_SECONDS: fprintf(out, "%.2fx (60 s / elapsed)\n", ratio); break;
        case CHECKED_GBPS:
            fprintf(out, "%.2fx (of 1 GB/s checked: %.3f GB/s checked, %.3f GB/s moved)\n", ratio,
                    gbps, moved_gbps);
            break;
        case NO_TARGET: fprintf(out, "(no target)\n"); break;
        }
    }
    if (o->json)
        fprintf(o->json, "]}\n");
    if (failed)
        fprintf(stderr, "broadcheck bench: the reference failed a property during the bench\n");
    return failed ? 1 : 0;
}
