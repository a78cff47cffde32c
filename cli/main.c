/*
 * broadcheck: the command line.  Each subcommand lives in its own file;
 * this one only dispatches and documents.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "broadcheck_commit.h" /* generated at build time: BC_COMMIT */
#include "cli.h"

#ifndef BC_VERSION
#define BC_VERSION "unknown"
#endif

static const char usage[] =
    "usage: broadcheck COMMAND [OPTIONS] [ARGS]\n"
    "\n"
    "A conformance suite for tensor broadcasting. Commands:\n"
    "  shape     the result shape of shapes under a rule, from the reference\n"
    "            (broadcheck shape --rule numpy [2,1,5] [4,1]  prints [2,4,5])\n"
    "  vectors   check conformance-vector files against the reference\n"
    "            (default: every spec/vectors/*.vec)\n"
    "  run       generate cases, check a SUT (default: the reference) against\n"
    "            every property, shrink failures, write reports\n"
    "  replay    check one case under one property, as 'run' printed it\n"
    "  merge     merge the JSON reports of 'run --shard K/N' into one result\n"
    "  summarize the JSON reports of several SUTs as one Markdown table and HTML page\n"
    "  list      list properties, rules, suts, or the paths of broadcheck's own files\n"
    "  mutants   run the default suite against every built-in mutant: the kill table\n"
    "  bench     the fast compute engine's throughput against memory bandwidth and\n"
    "            NumPy (--json FILE also writes it machine-readable)\n"
    "\n"
    "Rules: none, numpy (= ONNX multidirectional), onnx-uni, pdpd, broadcast-to,\n"
    "bidirectional, explicit; spec/RULES.md states each one.\n"
    "\n"
    "Exit codes: 0 success; 1 not broadcastable or a check failed; 2 bad usage,\n"
    "malformed or invalid input, or a file that cannot be read or written; 128+N\n"
    "'run' stopped by signal N (130 SIGINT, 143 SIGTERM), its reports written.\n"
    "\n"
    "'broadcheck COMMAND --help' documents a command; --version prints the version\n"
    "and the commit it was built from.\n";

int main(int argc, char **argv)
{
    /* Past a file size limit (ulimit -f) a write fails with EFBIG instead
     * of killing the process halfway through a corpus line or a report:
     * both are then cut back or left as they were. */
    signal(SIGXFSZ, SIG_IGN);
    if (argc < 2) {
        fputs(usage, stderr);
        return BC_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        fputs(usage, stdout);
        return BC_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("broadcheck %s (commit %s, vector format %d)\n", BC_VERSION, BC_COMMIT, 1);
        return BC_EXIT_OK;
    }
    if (strcmp(cmd, "shape") == 0)
        return bc_cmd_shape(argc - 1, argv + 1);
    if (strcmp(cmd, "vectors") == 0)
        return bc_cmd_vectors(argc - 1, argv + 1);
    if (strcmp(cmd, "run") == 0)
        return bc_cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "replay") == 0)
        return bc_cmd_replay(argc - 1, argv + 1);
    if (strcmp(cmd, "list") == 0)
        return bc_cmd_list(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return bc_cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "mutants") == 0)
        return bc_cmd_mutants(argc - 1, argv + 1);
    if (strcmp(cmd, "merge") == 0)
        return bc_cmd_merge(argc - 1, argv + 1);
    if (strcmp(cmd, "summarize") == 0)
        return bc_cmd_summarize(argc - 1, argv + 1);
    fprintf(stderr, "broadcheck: unknown command '%s' (expected shape, vectors, run, replay, merge, summarize, list, mutants or bench; see "
                    "'broadcheck --help')\n", cmd);
    return BC_EXIT_USAGE;
}
