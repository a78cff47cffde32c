/*
 * broadcheck bench [--json FILE] [--pattern NAME] [--repeat N] [--python PATH]
 *
 * The fast engine's throughput on fixed broadcasting patterns, with the
 * memory limit and NumPy measured in the same rounds
 * (bench/bench.c; docs/ENGINE.md has the table and how to read it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "broadcheck/paths.h"
#include "cli.h"

static const char bench_usage[] =
    "usage: broadcheck bench [--json FILE] [--pattern NAME] [--repeat N] [--python PATH]\n"
    "       broadcheck bench --properties [--json FILE] [--repeat N]\n"
    "       broadcheck bench --list\n"
    "\n"
    "Times the fast engine (one thread, float32 add) on each pattern, with NumPy and\n"
    "the memory limit (the best of plain, non-temporal and memset stores moving the\n"
    "same bytes) measured right after it, round after round; prints the bytes per\n"
    "second each moves (output plus each input's distinct elements) and the ratios\n"
    "taken within each round.  Small patterns: ns of CPU time per call.  Every\n"
    "buffer of 4 MiB or more gets madvise(MADV_HUGEPAGE), NumPy's too.\n"
    "\n"
    "  --json FILE     also write min/median/max of every figure as JSON to FILE\n"
    "                  (whole or not at all)\n"
    "  --pattern NAME  run one pattern (--list prints them)\n"
    "  --repeat N      rounds per pattern (default 5)\n"
    "  --python PATH   interpreter for the NumPy comparison (default\n"
    "                  $BROADCHECK_PYTHON or /usr/bin/python3); without numpy the bench\n"
    "                  says \"NumPy not available\" and its columns print '-'\n"
    "  --properties    instead: property cases a second against the reference, one\n"
    "                  thread, shape, partial-shape and value properties, and the\n"
    "                  default run on every core (targets 10^6/s, none, 10^5/s and\n"
    "                  60 s; rates of the cases each run examined); then the\n"
    "                  medium value tier's value-differential, one thread and every\n"
    "                  core, in GB/s of output compared (target 1 GB/s) and of bytes\n"
    "                  moved\n"
    "\n"
    "Exit codes: 0 measured; 1 the reference failed a property (--properties);\n"
    "2 bad usage, an unknown pattern or an unwritable --json FILE.\n";

/* Runs the bench, the JSON into a buffer first so that FILE is written
 * whole after the run, or not at all. */
static int bench(bc_bench_options *o, int properties, const char *json_path)
{
    char *json = NULL, why[1024];
    size_t json_len = 0;
    if (json_path && !(o->json = open_memstream(&json, &json_len))) {
        fprintf(stderr, "broadcheck bench: --json: out of memory\n");
        return BC_EXIT_USAGE;
    }
    int status;
    if (properties)
        status = bc_bench_properties(o, bc_cli_default_jobs(), stdout) ? BC_EXIT_FAIL : BC_EXIT_OK;
    else
        status = bc_bench_run(o, stdout) ? BC_EXIT_USAGE : BC_EXIT_OK;
    if (o->json && fclose(o->json) != 0 && status == BC_EXIT_OK) {
        fprintf(stderr, "broadcheck bench: --json: out of memory\n");
        status = BC_EXIT_USAGE;
    }
    if (json_path && status != BC_EXIT_USAGE &&
        bc_cli_write_whole(json_path, json, json_len, why, sizeof why) != 0) {
        fprintf(stderr, "broadcheck bench: --json: %s\n", why);
        status = BC_EXIT_USAGE;
    }
    free(json);
    return status;
}

int bc_cmd_bench(int argc, char **argv)
{
    char script[4096], why[1024];
    bc_bench_options o = {NULL, NULL, 5, "/usr/bin/python3", script};
    const char *env = getenv("BROADCHECK_PYTHON"), *json_path = NULL;
    if (env && *env)
        o.python = env;
    /* a missing script is said by the NumPy column ("not available") */
    if (bc_path_find(BC_PATH_BENCH, "numpy_bench.py", script, sizeof script, why, sizeof why))
        fprintf(stderr, "broadcheck bench: %s\n", why);
    int properties = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--properties") == 0) {
            properties = 1;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(bench_usage, stdout);
            return BC_EXIT_OK;
        } else if (strcmp(a, "--list") == 0) {
            bc_bench_list(stdout);
            return BC_EXIT_OK;
        } else if (strcmp(a, "--json") == 0 && i + 1 < argc) {
            json_path = argv[++i];
        } else if (strcmp(a, "--pattern") == 0 && i + 1 < argc) {
            o.pattern = argv[++i];
        } else if (strcmp(a, "--repeat") == 0 && i + 1 < argc) {
            char *end;
            long n = strtol(argv[++i], &end, 10);
            if (*end || n < 1 || n > 64) {
                fprintf(stderr, "broadcheck bench: --repeat takes 1 to 64, got '%s'\n", argv[i]);
                return BC_EXIT_USAGE;
            }
            o.repeat = (int)n;
        } else if (strcmp(a, "--python") == 0 && i + 1 < argc) {
            o.python = argv[++i];
        } else {
            fprintf(stderr, "broadcheck bench: unknown or incomplete option '%s' (see "
                            "'broadcheck bench --help')\n", a);
            return BC_EXIT_USAGE;
        }
    }
    return bench(&o, properties, json_path);
}
