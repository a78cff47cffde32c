/*
 * broadcheck summarize: the JSON reports of several SUTs as one Markdown
 * table and one HTML page (include/broadcheck/report.h).
 */
#include <getopt.h>
#include <stdio.h>

#include "broadcheck/properties.h"
#include "broadcheck/report.h"
#include "cli.h"

static const char summarize_usage[] =
    "usage: broadcheck summarize [--markdown OUT.md] [--html OUT.html] [--title T]\n"
    "                            REPORT.json...\n"
    "\n"
    "Reads the JSON reports of runs of several SUTs (one each, e.g. those of\n"
    "scripts/certify-libraries.sh) and writes a Markdown table and a\n"
    "self-contained HTML page: a row per SUT with its declared name and version,\n"
    "verdict, cell counts and known divergences; then each SUT's rule x property\n"
    "matrix (pass, fail, known, unsupported), each failing cell linked to its\n"
    "minimal case and replay line. Every figure comes from the reports.\n"
    "\n"
    "  --markdown FILE       write the Markdown table ('-': standard output)\n"
    "  --html FILE           write the HTML page\n"
    "  --title TEXT          the heading (default 'broadcheck certifications')\n"
    "\n"
    "Exit codes: 0 every SUT conforms (with known divergences or not); 1 one\n"
    "diverges; 2 bad usage, an unreadable or malformed report (the message names\n"
    "the file), or an output that cannot be written (then none is written).\n";

int bc_cmd_summarize(int argc, char **argv)
{
    enum { O_MARKDOWN = 1, O_HTML, O_TITLE, O_HELP };
    static const struct option options[] = {
        {"markdown", required_argument, NULL, O_MARKDOWN},
        {"html", required_argument, NULL, O_HTML},
        {"title", required_argument, NULL, O_TITLE},
        {"help", no_argument, NULL, O_HELP},
        {NULL, 0, NULL, 0},
    };
    bc_summary_output out = {NULL, NULL, NULL};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":", options, NULL)) != -1) {
        switch (c) {
        case O_MARKDOWN: out.markdown = optarg; break;
        case O_HTML: out.html = optarg; break;
        case O_TITLE: out.title = optarg; break;
        case O_HELP: fputs(summarize_usage, stdout); return BC_EXIT_OK;
        case ':':
            fprintf(stderr, "broadcheck summarize: option '%s' needs a value\n",
                    argv[optind - 1]);
            return BC_EXIT_USAGE;
        default:
            fprintf(stderr, "broadcheck summarize: unknown option '%s' (see 'broadcheck "
                            "summarize --help')\n", argv[optind - 1]);
            return BC_EXIT_USAGE;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "broadcheck summarize: no reports given (expected JSON reports of "
                        "'broadcheck run --json FILE')\n");
        return BC_EXIT_USAGE;
    }
    if (!out.markdown && !out.html) {
        fprintf(stderr, "broadcheck summarize: nothing to write (give --markdown FILE, --html "
                        "FILE or both)\n");
        return BC_EXIT_USAGE;
    }
    /* An output on an input would destroy the report it reads. */
    const char *outputs[] = {out.markdown, out.html};
    for (int i = optind; i < argc; i++)
        for (int o = 0; o < 2; o++)
            if (outputs[o] && bc_same_file(outputs[o], argv[i])) {
                fprintf(stderr, "broadcheck summarize: --%s '%s' is the input '%s': it would be "
                                "overwritten\n", o ? "html" : "markdown", outputs[o], argv[i]);
                return BC_EXIT_USAGE;
            }
    if (out.markdown && out.html && bc_same_file(out.markdown, out.html)) {
        fprintf(stderr, "broadcheck summarize: --markdown and --html are one file\n");
        return BC_EXIT_USAGE;
    }
    char why[1024];
    int status = bc_summarize_reports(argc - optind, (const char *const *)argv + optind, &out,
                                      why, sizeof why);
    if (status < 0) {
        fprintf(stderr, "broadcheck summarize: %s\n", why);
        return BC_EXIT_USAGE;
    }
    return status ? BC_EXIT_FAIL : BC_EXIT_OK;
}
