/*
 * broadcheck merge: the JSON reports of a run's shards made into one result
 * and its reports (include/broadcheck/report.h).
 */
#include <getopt.h>
#include <stdio.h>

#include "broadcheck/report.h"
#include "cli.h"

static const char merge_usage[] =
    "usage: broadcheck merge [--json OUT] [--junit OUT] [--certificate OUT] [--quiet]\n"
    "                        IN.json...\n"
    "\n"
    "Merges the JSON reports of the shards of one run ('broadcheck run --shard K/N\n"
    "--json IN.json' for K = 1..N) into the result the unsharded run gives: counts,\n"
    "coverage and rejections summed, and per cell the failure with the lowest case\n"
    "index. The reports must come from the same broadcheck version, SUT, seed,\n"
    "--cases or --time and shard count, one per shard; a missing shard is a\n"
    "warning, noted in every report. The merged reports say shard \"1/1\" and\n"
    "carry a 'merge' object (docs/REPORTS.md).\n"
    "\n"
    "  --json FILE           write the merged JSON report\n"
    "  --junit FILE          write JUnit XML\n"
    "  --certificate FILE    write a Markdown certificate\n"
    "  --quiet               no summary on stdout\n"
    "\n"
    "The summary ends with the verdict and the reports written.\n"
    "\n"
    "Exit codes: 0 the merged verdict conforms; 1 a merged cell failed (DIVERGES);\n"
    "2 bad usage, an unreadable, malformed or mismatched report (the message names\n"
    "the file and the field), or a report that cannot be written; 3 NOT CERTIFIED:\n"
    "no cell failed, but a shard is missing, a shard stopped short, or nothing was\n"
    "checked.\n";

int bc_cmd_merge(int argc, char **argv)
{
    enum { O_JSON = 1, O_JUNIT, O_CERT, O_QUIET, O_HELP };
    static const struct option options[] = {
        {"json", required_argument, NULL, O_JSON},
        {"junit", required_argument, NULL, O_JUNIT},
        {"certificate", required_argument, NULL, O_CERT},
        {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    bc_merge_output out = {NULL, NULL, NULL, stdout, stderr};
    int c;
    optind = 1;
    opterr = 0;
    /* Options may follow the inputs (no '+'): 'merge a.json b.json --json all.json'. */
    while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
        switch (c) {
        case O_JSON: out.json = optarg; break;
        case O_JUNIT: out.junit = optarg; break;
        case O_CERT: out.certificate = optarg; break;
        case O_QUIET: out.summary = NULL; break;
        case O_HELP: fputs(merge_usage, stdout); return BC_EXIT_OK;
        case ':':
            fprintf(stderr, "broadcheck merge: option '%s' needs a value\n", argv[optind - 1]);
            return BC_EXIT_USAGE;
        default:
            fprintf(stderr, "broadcheck merge: unknown option '%s' (see 'broadcheck merge "
                            "--help')\n", argv[optind - 1]);
            return BC_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "broadcheck merge: no reports given (expected the JSON reports of "
                        "'broadcheck run --shard K/N --json FILE')\n");
        return BC_EXIT_USAGE;
    }
    /* A report streamed to standard output has it to itself. */
    if (out.summary && (bc_output_is_stdout(out.json) || bc_output_is_stdout(out.junit) ||
                        bc_output_is_stdout(out.certificate)))
        out.summary = stderr;
    char why[1024];
    int status = bc_merge_reports(argc - optind, (const char *const *)argv + optind, &out, why,
                                  sizeof why);
    if (status < 0) {
        fprintf(stderr, "broadcheck merge: %s\n", why);
        return BC_EXIT_USAGE;
    }
    if (out.summary) {
        /* every output was written: bc_merge_reports writes all or fails */
        const char *outputs[] = {out.json, out.junit, out.certificate}, *written[3];
        int nwritten = 0;
        for (int i = 0; i < 3; i++)
            if (outputs[i])
                written[nwritten++] = outputs[i];
        bc_cli_print_reports(stdout, written, nwritten);
    }
    return status; /* BC_EXIT_OK, BC_EXIT_FAIL or BC_EXIT_NOT_CERTIFIED: the verdict's */
}
