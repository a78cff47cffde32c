/*
 * broadcheck bench [--json] [--pattern NAME] [--repeat N] [--python PATH]
 *
 * The fast engine's throughput on fixed broadcasting patterns, with this
 * machine's memory bandwidth and NumPy measured in the same run
 * (bench/bench.c; docs/ENGINE.md has the table and how to read it).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../bench/bench.h"
#include "cli.h"

#ifndef BC_SOURCE_DIR
#define BC_SOURCE_DIR "."
#endif

static const char bench_usage[] =
    "usage: broadcheck bench [--json] [--pattern NAME] [--repeat N] [--python PATH]\n"
    "       broadcheck bench --properties [--json] [--repeat N]\n"
    "\n"
    "Times the fast engine (one thread, float32 add) on each pattern and prints the\n"
    "bytes per second it moves (output plus each input's distinct elements) and the\n"
    "ratio to this machine's memory bandwidth (a triad loop) and to NumPy, both\n"
    "measured in the same run.  Small patterns are reported in ns per call.\n"
    "\n"
    "  --json          machine-readable output\n"
    "  --pattern NAME  run one pattern (--list prints them)\n"
    "  --repeat N      timed runs per pattern, the median is reported (default 5)\n"
    "  --python PATH   interpreter for the NumPy comparison (default $BC_PYTHON or\n"
    "                  /usr/bin/python3); without numpy the ratios print as '-'\n"
    "  --properties    instead: property cases a second against the reference, one\n"
    "                  thread, shape and value properties, and the default run on\n"
    "                  every core (targets 10^6/s, 10^5/s and 60 s)\n";

int bc_cmd_bench(int argc, char **argv)
{
    bc_bench_options o = {0, NULL, 5, "/usr/bin/python3", BC_SOURCE_DIR "/bench/numpy_bench.py"};
    const char *env = getenv("BC_PYTHON");
    if (env && *env)
        o.python = env;
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
        } else if (strcmp(a, "--json") == 0) {
            o.json = 1;
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
            fprintf(stderr, "broadcheck bench: unknown or incomplete option '%s'\n%s", a,
                    bench_usage);
            return BC_EXIT_USAGE;
        }
    }
    if (properties) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        return bc_bench_properties(&o, cores > 0 && cores <= 256 ? (int)cores : 1, stdout)
                   ? BC_EXIT_FAIL
                   : BC_EXIT_OK;
    }
    return bc_bench_run(&o, stdout) ? BC_EXIT_USAGE : BC_EXIT_OK;
}
