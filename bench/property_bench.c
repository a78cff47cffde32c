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

/* Median wall time of `repeat` runs of cfg; the value bytes compared and
 * moved, the same in every run (the same seed, the same cases). */
static double time_run(const bc_run_config *cfg, int repeat, int *failed, int64_t *compared,
                       int64_t *moved)
{
    double t[64];
    char why[512];
    for (int i = 0; i < repeat; i++) {
        double start = now();
        bc_run_result *r = bc_run(cfg, why, sizeof why);
        t[i] = now() - start;
        if (!r || bc_run_exit_code(r) != 0)
            *failed = 1;
        if (r)
            *compared = bc_run_value_bytes(r, moved);
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
    uint64_t shape = 0, value = 0, differential = 0;
    for (int p = 0; p < count; p++) {
        if (props[p].values)
            value |= 1ull << p;
        else
            shape |= 1ull << p;
        if (strcmp(props[p].name, "value-differential") == 0)
            differential = 1ull << p;
    }
    bc_run_config base = bc_run_config_default();
    base.sut = bc_builtin_sut("reference");
    struct {
        const char *name;
        uint64_t properties;
        int jobs;
        double target; /* cases/s per core; 0: wall time against 60 s; -1: GB/s */
        bc_value_tier tier;
    } rows[] = {
        {"shape properties, 1 thread", shape, 1, 1e6, BC_TIER_SMALL},
        {"value properties, 1 thread", value, 1, 1e5, BC_TIER_SMALL},
        {"default run, every core", 0, cores, 0, BC_TIER_SMALL},
        {"medium values, 1 thread", differential, 1, -1, BC_TIER_MEDIUM},
        {"medium values, every core", differential, cores, -1, BC_TIER_MEDIUM},
    };
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
        uint64_t sel = rows[i].properties ? rows[i].properties : shape | value;
        int64_t cases = cells_of(sel & shape) * cfg.cases + cells_of(sel & value) * cfg.value_cases;
        int64_t compared = 0, moved = 0;
        double s = time_run(&cfg, o->repeat, &failed, &compared, &moved);
        double rate = (double)cases / s, gbps = (double)compared / s * 1e-9,
               moved_gbps = (double)moved / s * 1e-9;
        double ratio = rows[i].target > 0 ? rate / rows[i].target
                       : rows[i].target < 0 ? gbps /* of the 1 GB/s target */
                                            : 60.0 / s;
        if (o->json) {
            fprintf(o->json,
                    "%s{\"run\": \"%s\", \"jobs\": %d, \"cases\": %lld, \"seconds\": %.4f, "
                    "\"cases_per_second\": %.0f, ",
                    i ? ", " : "", rows[i].name, cfg.jobs, (long long)cases, s, rate);
            if (rows[i].target < 0)
                fprintf(o->json,
                        "\"value_tier\": \"%s\", \"value_bytes\": %lld, "
                        "\"value_moved_bytes\": %lld, \"checked_gbps\": %.4f, "
                        "\"moved_gbps\": %.4f, ",
                        bc_value_tier_name(rows[i].tier), (long long)compared, (long long)moved,
                        gbps, moved_gbps);
            fprintf(o->json, "\"%s\": %.3f}",
                    rows[i].target > 0   ? "ratio_to_target"
                    : rows[i].target < 0 ? "ratio_to_1_gbps_checked"
                                         : "ratio_of_60s_budget",
                    ratio);
        }
        fprintf(out, "%-28s %12lld %10.3f %14.0f %.2fx ", rows[i].name, (long long)cases, s, rate,
                ratio);
        if (rows[i].target < 0)
            fprintf(out, "(of 1 GB/s checked: %.3f GB/s checked, %.3f GB/s moved)\n", gbps,
                    moved_gbps);
        else
            fprintf(out, "%s\n",
                    rows[i].target > 0 ? (rows[i].target >= 1e6 ? "(of 10^6/s)" : "(of 10^5/s)")
                                       : "(60 s / elapsed)");
    }
    if (o->json)
        fprintf(o->json, "]}\n");
    if (failed)
        fprintf(stderr, "broadcheck bench: the reference failed a property during the bench\n");
    return failed ? 1 : 0;
}
