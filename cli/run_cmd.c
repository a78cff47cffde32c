/*
 * broadcheck run, replay and list: the property engine from the command
 * line.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "broadcheck/manifest.h"
#include "broadcheck/paths.h"
#include "broadcheck/progress.h"
#include "broadcheck/properties.h"
#include "broadcheck/report.h"
#include "broadcheck/sut_loader.h"
#include "broadcheck_commit.h" /* generated at build time: BC_COMMIT */
#include "cli.h"

static const char run_usage[] =
    "usage: broadcheck run [OPTIONS]\n"
    "\n"
    "Generates cases for every rule x property cell, checks them against a SUT,\n"
    "shrinks the first failure of each cell to a 1-minimal case and prints it with\n"
    "a replay line. The same seed and version give the same cases, counts and\n"
    "case ids, whatever --jobs is.\n"
    "\n"
    "  --sut NAME            the system under test (default: reference): a built-in\n"
    "                        name, a shipped library adapter (numpy, torch, onnx,\n"
    "                        dask, numba, sparse, octave, tfjs, ort, tfjs-wasm,\n"
    "                        ort-web, stdlib, mathjs, onednn, xnnpack, xtensor,\n"
    "                        eigen: with its manifest unless --manifest is given),\n"
    "                        an adapter\n"
    "  --timeout-ms N        an external SUT's time per question (default 2000;\n"
    "                        10000 on the medium tier), and 1 ms more for each\n"
    "                        10 kB a value question moves; a question not answered\n"
    "                        in time is asked again once with 4 x N, and is a\n"
    "                        timeout only if that goes unanswered too\n"
    "  --start-timeout-ms N  an external SUT's worker's time from its start to its\n"
    "                        HELLO, at open and at every restart (default 60000;\n"
    "                        never less than --timeout-ms)\n"
    "  --memory-mb N         an external SUT's worker memory limit (default 1024)\n"
    "  --value-tier T        how large value cases are (docs/PROPERTIES.md):\n"
    "                        small (default, at most 64 elements an operand),\n"
    "                        medium (10^3 to 2^20 elements, lengths crossing\n"
    "                        vector widths, cache blocks and thread grains) or\n"
    "                        huge (results past 2^31 one-byte elements; needs\n"
    "                        --max-bytes of at least 5G, and an in-process SUT\n"
    "                        or a worker taking shared-file questions, with\n"
    "                        --memory-mb covering them)\n"
    "  --max-bytes N         the memory the run's value checks may use together,\n"
    "                        shared by its --jobs, in bytes or with K, M, G\n"
    "                        (default 1G); a check waits for others to give\n"
    "                        theirs back, and a case needing more than all of\n"
    "                        it is not examined (counted unsupported); the huge\n"
    "                        tier draws its cases again until one fits (64 draws)\n"
    "  --rule R,...          rules to check (default: all)\n"
    "  --property P,...      properties to check (default: all); see\n"
    "                        'broadcheck list properties'\n"
    "  --cases N             cases per rule x property cell (default 50000 for\n"
    "                        shape properties, 10000 for value properties)\n"
    "  --value-cases N       cases per value-property cell, after --cases\n"
    "  --partial-cases N     cases per partial-property cell (default 5000), after\n"
    "                        --cases (spec/RULES.md §14)\n"
    "  --time SECONDS        instead of --cases: share this time among the cells\n"
    "                        (counts then depend on the machine); a cell the SUT\n"
    "                        declines throughout gives its share to the others\n"
    "  --seed S              the seed, an unsigned 64-bit integer (default 1)\n"
    "  --shard K/N           run only shard K of N (1 <= K <= N): case i of each\n"
    "                        cell runs on shard (i mod N) + 1\n"
    "  --jobs J              worker threads (default: the cores this process may\n"
    "                        use; the results are the same for any J)\n"
    "  --corpus FILE         replay FILE's cases first; append new failures to it\n"
    "  --max-shrink-calls N  SUT calls one shrink may make (default 2000)\n"
    "  --whole-cells         a failing cell checks its whole budget too (by default a\n"
    "                        cell stops at its first failing case, which is shrunk)\n"
    "  --max-failures N      after the N-th failing cell (in cell order) the cells\n"
    "                        after it are not run\n"
    "  --fail-fast           --max-failures 1\n"
    "  --unresponsive-after K  after K questions in a row that timed out or crashed,\n"
    "                        the cells in progress end as 'SUT unresponsive'; one more\n"
    "                        such question ends the run (default 5; 0: never)\n"
    "  --manifest FILE       the SUT's manifest (docs/MANIFEST.md): its declared name,\n"
    "                        version and scope (checked against the SUT's own), and\n"
    "                        its known divergences: each case replayed after the\n"
    "                        run (XFAIL if it fails, XPASS if it passes), and a\n"
    "                        failure it explains is known, not a divergence\n"
    "  --strict              a known divergence whose case passes (XPASS) fails the\n"
    "                        run (default: a warning)\n"
    "  --json FILE           write the JSON report (docs/REPORTS.md)\n"
    "  --junit FILE          write JUnit XML, one testcase per rule x property\n"
    "  --certificate FILE    write a Markdown certificate\n"
    "                        (FILE '-' or /dev/stdout: to standard output, and the\n"
    "                        summary to standard error)\n"
    "  --quiet               no summary on stdout, no progress on stderr\n"
    "  --progress-interval S seconds between progress reports on stderr: on a\n"
    "                        terminal a line redrawn in place (default 0.25),\n"
    "                        elsewhere a plain line (default 10); 0: one per\n"
    "                        chunk of cases. NO_COLOR=1: no color\n"
    "\n"
    "The summary ends with the verdict and the reports written.\n"
    "\n"
    "--time S ends the run within S seconds plus one question's --timeout-ms, or\n"
    "one worker start's --start-timeout-ms if a worker is restarting then (and, with\n"
    "--manifest, one more question per known divergence, replayed at the end); a\n"
    "question is asked again only within S, and one its second ask could not settle\n"
    "by then is not judged. A\n"
    "question for which no worker could be started is not judged: the case is\n"
    "skipped, and counts towards the SUT being unresponsive.\n"
    "SIGINT, SIGTERM or SIGHUP stop the run: the workers are killed, the reports and\n"
    "the corpus get what was found so far, marked interrupted (a second signal ends\n"
    "broadcheck at once).\n"
    "\n"
    "Verdicts: CONFORMS (every checked cell passes), CONFORMS WITH KNOWN\n"
    "DIVERGENCES (every failure is a --manifest's known divergence), DIVERGES (a\n"
    "new failure, or an XPASS under --strict).\n"
    "\n"
    "Exit codes: 0 the SUT conforms (with known divergences or not); 1 it diverges;\n"
    "2 bad usage or an environment error (unreadable corpus or manifest, a manifest\n"
    "whose scope disagrees with the SUT's, unwritable report or corpus); 3 NOT\n"
    "CERTIFIED: nothing failed, but nothing was checked (every question\n"
    "unsupported) or the run stopped short (an unresponsive SUT, cells left\n"
    "without time); 128+N stopped by signal N (130 SIGINT, 143 SIGTERM, 129\n"
    "SIGHUP), the reports written.\n";

static const char replay_usage[] =
    "usage: broadcheck replay [--sut NAME] [--manifest FILE] [--timeout-ms N] [--memory-mb N]\n"
    "                         [--start-timeout-ms N] [--value-tier T] [--max-bytes N]\n"
    "                         --property P 'CASE'\n"
    "\n"
    "Checks one case, a line of the vector format (its expectation is ignored),\n"
    "under one property, exactly as 'broadcheck run' did. 'run' prints this line\n"
    "for every failure it shrinks.  --manifest: the value semantics the SUT\n"
    "declares (docs/MANIFEST.md) are what the reference computes; a shipped\n"
    "adapter (--sut numpy) reads its own manifest unless one is given; a failure\n"
    "that one of its known divergences explains (as 'run' would count it) is\n"
    "named on the next line, 'known divergence ID of FILE (class ...)'.\n"
    "--value-tier and --max-bytes, as 'run' took them (its replay lines repeat\n"
    "them): a case needing more memory than --max-bytes (default 1G) is not\n"
    "examined (exit 2); the huge tier needs --max-bytes of at least 5G.\n"
    "\n"
    "Exit codes: 0 passes; 1 fails (what disagreed is printed); 2 bad usage, or\n"
    "the property does not apply to the case or the SUT does not support it.\n";

static int parse_u64(const char *text, uint64_t max, uint64_t *out)
{
    if (!text[0] || text[0] == '-' || text[0] == '+')
        return -1;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end || errno == ERANGE || v > max)
        return -1;
    *out = v;
    return 0;
}

/* ---- signals: stop the run, keep what it found ------------------------------- */

/* The handler's state: the only globals of the command line, because a
 * signal handler can reach nothing else. */
static volatile sig_atomic_t stop_signal;
static const bc_sut *running_sut;

static void on_stop_signal(int sig)
{
    if (stop_signal) { /* a second one: stop now, as the user asks */
        signal(sig, SIG_DFL);
        raise(sig);
        return;
    }
    stop_signal = sig;
    if (running_sut)
        bc_sut_interrupt(running_sut); /* cuts the questions in flight */
}

static void catch_stop_signals(const bc_sut *sut)
{
    running_sut = sut;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
}

/* Opens --sut (sut_loader.h); NULL after saying why on stderr. */
static const bc_sut *find_sut(const char *name, const bc_sut_options *opts)
{
    char why[1024];
    const bc_sut *sut = bc_sut_open(name, opts, why, sizeof why);
    if (!sut)
        fprintf(stderr, "broadcheck: --sut: %s\n", why);
    return sut;
}

/* An external SUT's time per question on the medium and huge tiers unless
 * --timeout-ms is given. */
#define BC_LARGE_TIER_TIMEOUT_MS 10000

/* --value-tier and --max-bytes, for run and replay: 1 if opt was one of
 * them (0 ok), -1 on a bad value (said on stderr). */
static int tier_option(const char *cmd, int opt, int tier_opt, int bytes_opt, const char *value,
                       bc_value_tier *tier, int64_t *max_bytes)
{
    if (opt == tier_opt) {
        if (bc_value_tier_from_name(value, tier) == 0)
            return 1;
        fprintf(stderr, "broadcheck %s: --value-tier: expected small, medium or huge, got '%s'\n",
                cmd, value);
        return -1;
    }
    if (opt != bytes_opt)
        return 0;
    char digits[32];
    size_t n = strlen(value);
    int shift = 0;
    if (n > 0 && strchr("KMGkmg", value[n - 1])) {
        shift = strchr("Kk", value[n - 1]) ? 10 : strchr("Mm", value[n - 1]) ? 20 : 30;
        n--;
    }
    uint64_t v;
    if (n == 0 || n >= sizeof digits ||
        (memcpy(digits, value, n), digits[n] = '\0', parse_u64(digits, INT64_MAX >> shift, &v)) != 0 ||
        v == 0) {
        fprintf(stderr, "broadcheck %s: --max-bytes: expected a positive number of bytes "
                        "(a suffix K, M or G allowed), got '%s'\n", cmd, value);
        return -1;
    }
    *max_bytes = (int64_t)(v << shift);
    return 1;
}

/* The most bytes one question to sut may carry: none for a built-in SUT
 * (in process) or a worker taking shared-file questions, the wire
 * protocol's frame limit for any other. */
static int64_t question_limit(const bc_sut *sut)
{
    return bc_builtin_sut(sut->name) == sut ? 0 : bc_sut_question_limit(sut);
}

/* --timeout-ms, --start-timeout-ms and --memory-mb (their option codes
 * timeout_opt, start_opt and memory_opt): 1 if opt was one of them (0 ok),
 * -1 on a bad value. */
static int sut_option(int opt, int timeout_opt, int start_opt, int memory_opt, const char *value,
                      bc_sut_options *o)
{
    uint64_t v;
    if (opt != timeout_opt && opt != start_opt && opt != memory_opt)
        return 0;
    if (parse_u64(value, 1u << 30, &v) != 0 || v == 0) {
        fprintf(stderr, "broadcheck: --%s: expected a positive integer, got '%s'\n",
                opt == timeout_opt ? "timeout-ms" : opt == start_opt ? "start-timeout-ms"
                                                                    : "memory-mb",
                value);
        return -1;
    }
    if (opt == timeout_opt)
        o->timeout_ms = (int)v;
    else if (opt == start_opt)
        o->start_timeout_ms = (int)v;
    else
        o->memory_mb = (int)v;
    return 1;
}

static int rule_index(const char *name)
{
    bc_rule r;
    return bc_rule_from_name(name, &r) == 0 ? (int)r : -1;
}

/* Parses "a,b,c" into a bit mask, each name's bit given by index_of (-1 for
 * an unknown name).  Returns -1 with a message naming the option if a name
 * is unknown or the list is empty. */
static int parse_name_list(const char *list, const char *option, int (*index_of)(const char *),
                           const char *expected, uint64_t *mask)
{
    char *copy = strdup(list), *save = NULL;
    int status = copy ? 0 : -1;
    *mask = 0;
    for (char *tok = copy ? strtok_r(copy, ",", &save) : NULL; tok; tok = strtok_r(NULL, ",", &save)) {
        int i = index_of(tok);
        if (i < 0) {
            fprintf(stderr, "broadcheck run: --%s: unknown %s '%s' (%s)\n", option, option, tok,
                    expected);
            status = -1;
            break;
        }
        *mask |= (uint64_t)1 << i;
    }
    if (status == 0 && *mask == 0) {
        fprintf(stderr, "broadcheck run: --%s: no %s named\n", option, option);
        status = -1;
    }
    free(copy);
    return status;
}

/* The reports and the corpus, checked before a run that may take hours:
 * each report path writable (and not a folder, FIFO or device), no two
 * outputs on one file, no report on the corpus.  Says why on stderr. */
static int check_outputs(const char *const *opts, const char *const *whats,
                         const char *const *paths, int n, const char *corpus)
{
    char why[1024];
    for (int i = 0; i < n; i++) {
        if (!paths[i])
            continue;
        if (bc_output_check(whats[i], paths[i], why, sizeof why) != 0) {
            fprintf(stderr, "broadcheck run: %s: %s\n", opts[i], why);
            return -1;
        }
        for (int j = 0; j < i; j++)
            if (paths[j] && bc_same_file(paths[i], paths[j])) {
                fprintf(stderr, "broadcheck run: %s '%s' and %s '%s' are one file: each report "
                        "needs its own\n", opts[j], paths[j], opts[i], paths[i]);
                return -1;
            }
        if (corpus && bc_same_file(paths[i], corpus)) {
            fprintf(stderr, "broadcheck run: %s '%s' is the corpus (--corpus '%s'): the report "
                    "would overwrite it\n", opts[i], paths[i], corpus);
            return -1;
        }
    }
    if (corpus && bc_corpus_check(corpus, why, sizeof why) != 0) {
        fprintf(stderr, "broadcheck run: --corpus: %s\n", why);
        return -1;
    }
    return 0;
}

int bc_cmd_run(int argc, char **argv)
{
    enum { O_SUT = 1, O_RULE, O_PROPERTY, O_CASES, O_VALUE_CASES, O_PARTIAL_CASES, O_TIME, O_SEED,
           O_SHARD, O_JOBS, O_CORPUS, O_SHRINK, O_JSON, O_JUNIT, O_CERT, O_QUIET, O_HELP,
           O_TIMEOUT, O_MEMORY, O_WHOLE, O_MAX_FAILURES, O_FAIL_FAST, O_UNRESPONSIVE, O_PROGRESS,
           O_MANIFEST, O_STRICT, O_TIER, O_MAX_BYTES, O_START_TIMEOUT };
    static const struct option options[] = {
        {"value-tier", required_argument, NULL, O_TIER},
        {"max-bytes", required_argument, NULL, O_MAX_BYTES},
        {"sut", required_argument, NULL, O_SUT},
        {"rule", required_argument, NULL, O_RULE},
        {"property", required_argument, NULL, O_PROPERTY},
        {"cases", required_argument, NULL, O_CASES},
        {"value-cases", required_argument, NULL, O_VALUE_CASES},
        {"partial-cases", required_argument, NULL, O_PARTIAL_CASES},
        {"time", required_argument, NULL, O_TIME},
        {"seed", required_argument, NULL, O_SEED},
        {"shard", required_argument, NULL, O_SHARD},
        {"jobs", required_argument, NULL, O_JOBS},
        {"corpus", required_argument, NULL, O_CORPUS},
        {"max-shrink-calls", required_argument, NULL, O_SHRINK},
        {"json", required_argument, NULL, O_JSON},
        {"junit", required_argument, NULL, O_JUNIT},
        {"certificate", required_argument, NULL, O_CERT},
        {"quiet", no_argument, NULL, O_QUIET},
        {"help", no_argument, NULL, O_HELP},
        {"timeout-ms", required_argument, NULL, O_TIMEOUT},
        {"start-timeout-ms", required_argument, NULL, O_START_TIMEOUT},
        {"memory-mb", required_argument, NULL, O_MEMORY},
        {"whole-cells", no_argument, NULL, O_WHOLE},
        {"max-failures", required_argument, NULL, O_MAX_FAILURES},
        {"fail-fast", no_argument, NULL, O_FAIL_FAST},
        {"unresponsive-after", required_argument, NULL, O_UNRESPONSIVE},
        {"progress-interval", required_argument, NULL, O_PROGRESS},
        {"manifest", required_argument, NULL, O_MANIFEST},
        {"strict", no_argument, NULL, O_STRICT},
        {NULL, 0, NULL, 0},
    };
    bc_run_config cfg = bc_run_config_default();
    cfg.jobs = bc_cli_default_jobs();
    double progress_interval = -1; /* the mode's default */
    bc_sut_options sut_opts = bc_sut_options_default();
    const char *sut_name = "reference", *json = NULL, *junit = NULL, *cert = NULL;
    const char *manifest_path = NULL;
    int quiet = 0, have_cases = 0, have_value_cases = 0, have_partial_cases = 0, have_timeout = 0;
    uint64_t v;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:", options, NULL)) != -1) {
        int tier_opt = tier_option("run", c, O_TIER, O_MAX_BYTES, optarg, &cfg.value_tier,
                                   &cfg.max_bytes);
        if (tier_opt < 0)
            return BC_EXIT_USAGE;
        if (tier_opt > 0)
            continue;
        int sut_opt = sut_option(c, O_TIMEOUT, O_START_TIMEOUT, O_MEMORY, optarg, &sut_opts);
        if (sut_opt < 0)
            return BC_EXIT_USAGE;
        have_timeout |= sut_opt > 0 && c == O_TIMEOUT;
        if (sut_opt > 0)
            continue;
        switch (c) {
        case O_SUT: sut_name = optarg; break;
        case O_RULE: {
            uint64_t rules;
            if (parse_name_list(optarg, "rule", rule_index,
                                "expected none, numpy, onnx-uni, pdpd, broadcast-to, "
                                "bidirectional or explicit", &rules) != 0)
                return BC_EXIT_USAGE;
            cfg.rules = (unsigned)rules;
            break;
        }
        case O_PROPERTY:
            if (parse_name_list(optarg, "property", bc_property_from_name,
                                "see 'broadcheck list properties'", &cfg.properties) != 0)
                return BC_EXIT_USAGE;
            break;
        case O_CASES:
            if (parse_u64(optarg, INT64_MAX, &v) != 0 || v == 0) {
                fprintf(stderr, "broadcheck run: --cases: expected a positive integer, got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            cfg.cases = (int64_t)v;
            if (!have_value_cases)
                cfg.value_cases = (int64_t)v;
            if (!have_partial_cases)
                cfg.partial_cases = (int64_t)v;
            have_cases = 1;
            break;
        case O_VALUE_CASES:
            if (parse_u64(optarg, INT64_MAX, &v) != 0 || v == 0) {
                fprintf(stderr, "broadcheck run: --value-cases: expected a positive integer, got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            cfg.value_cases = (int64_t)v;
            have_value_cases = 1;
            break;
        case O_PARTIAL_CASES:
            if (parse_u64(optarg, INT64_MAX, &v) != 0 || v == 0) {
                fprintf(stderr, "broadcheck run: --partial-cases: expected a positive integer, "
                                "got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            cfg.partial_cases = (int64_t)v;
            have_partial_cases = 1;
            break;
        case O_TIME: {
            char *end;
            errno = 0;
            double t = strtod(optarg, &end);
            if (*end || errno || !(t > 0) || t > 1e7) {
                fprintf(stderr, "broadcheck run: --time: expected seconds > 0, got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            cfg.seconds = t;
            break;
        }
        case O_SEED:
            if (parse_u64(optarg, UINT64_MAX, &cfg.seed) != 0) {
                fprintf(stderr, "broadcheck run: --seed: expected an unsigned 64-bit integer, got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            break;
        case O_SHARD: {
            const char *slash = strchr(optarg, '/');
            uint64_t k, n;
            char head[32];
            size_t len = slash ? (size_t)(slash - optarg) : 0;
            if (!slash || len == 0 || len >= sizeof head) {
                fprintf(stderr, "broadcheck run: --shard: expected K/N, got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            memcpy(head, optarg, len);
            head[len] = '\0';
            if (parse_u64(head, 1u << 20, &k) != 0 || parse_u64(slash + 1, 1u << 20, &n) != 0 ||
                n == 0 || k == 0 || k > n) {
                fprintf(stderr, "broadcheck run: --shard: expected K/N with 1 <= K <= N, got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            cfg.shard_index = (int)k - 1;
            cfg.shard_count = (int)n;
            break;
        }
        case O_JOBS:
            if (parse_u64(optarg, BC_MAX_JOBS, &v) != 0 || v == 0) {
                fprintf(stderr, "broadcheck run: --jobs: expected 1 to %d, got '%s'\n",
                        BC_MAX_JOBS, optarg);
                return BC_EXIT_USAGE;
            }
            cfg.jobs = (int)v;
            break;
        case O_CORPUS: cfg.corpus_path = optarg; break;
        case O_SHRINK:
            if (parse_u64(optarg, 1000000000, &v) != 0) {
                fprintf(stderr, "broadcheck run: --max-shrink-calls: expected a count, got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            cfg.max_shrink_calls = (int)v;
            break;
        case O_WHOLE: cfg.whole_cells = 1; break;
        case O_FAIL_FAST: cfg.max_failures = 1; break;
        case O_MAX_FAILURES:
            if (parse_u64(optarg, 1000000, &v) != 0 || v == 0) {
                fprintf(stderr, "broadcheck run: --max-failures: expected a count of failing "
                                "cells >= 1, got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            cfg.max_failures = (int)v;
            break;
        case O_UNRESPONSIVE:
            if (parse_u64(optarg, 1000000, &v) != 0) {
                fprintf(stderr, "broadcheck run: --unresponsive-after: expected a count of "
                                "questions (0: never), got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            cfg.unresponsive_after = (int)v;
            break;
        case O_MANIFEST: manifest_path = optarg; break;
        case O_STRICT: cfg.strict = 1; break;
        case O_JSON: json = optarg; break;
        case O_JUNIT: junit = optarg; break;
        case O_CERT: cert = optarg; break;
        case O_QUIET: quiet = 1; break;
        case O_PROGRESS: {
            char *end;
            errno = 0;
            progress_interval = strtod(optarg, &end);
            if (*end || errno || !(progress_interval >= 0) || progress_interval > 1e6) {
                fprintf(stderr, "broadcheck run: --progress-interval: expected seconds >= 0, "
                                "got '%s'\n", optarg);
                return BC_EXIT_USAGE;
            }
            break;
        }
        case O_HELP: fputs(run_usage, stdout); return BC_EXIT_OK;
        case ':':
            fprintf(stderr, "broadcheck run: option '%s' needs a value\n", argv[optind - 1]);
            return BC_EXIT_USAGE;
        default:
            fprintf(stderr, "broadcheck run: unknown option '%s' (see 'broadcheck run --help')\n",
                    argv[optind - 1]);
            return BC_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "broadcheck run: unexpected argument '%s'\n", argv[optind]);
        return BC_EXIT_USAGE;
    }
    if ((have_cases || have_value_cases || have_partial_cases) && cfg.seconds > 0) {
        fprintf(stderr, "broadcheck run: give --cases/--value-cases or --time, not both\n");
        return BC_EXIT_USAGE;
    }
    static const char *const report_opts[] = {"--json", "--junit", "--certificate"};
    static const char *const report_whats[] = {"JSON report", "JUnit report",
                                               "certificate report"};
    const char *const report_paths[] = {json, junit, cert};
    if (check_outputs(report_opts, report_whats, report_paths, 3, cfg.corpus_path) != 0)
        return BC_EXIT_USAGE;
    /* A report streamed to standard output has it to itself: the summary
     * goes to standard error then. */
    FILE *summary = bc_output_is_stdout(json) || bc_output_is_stdout(junit) ||
                            bc_output_is_stdout(cert) ? stderr : stdout;
    bc_manifest *manifest = NULL;
    char why[1024], named_spec[4200], named_manifest[4096];
    /* A shipped adapter (--sut numpy) comes with its manifest. */
    if (!manifest_path && !bc_sut_spec_is_external(sut_name)) {
        int named = bc_named_sut_resolve(sut_name, named_spec, sizeof named_spec, named_manifest,
                                         sizeof named_manifest, why, sizeof why);
        if (named < 0) {
            fprintf(stderr, "broadcheck run: --sut: %s\n", why);
            return BC_EXIT_USAGE;
        }
        if (named == 0)
            manifest_path = named_manifest;
    }
    if (manifest_path) {
        manifest = bc_manifest_load(manifest_path, why, sizeof why);
        if (!manifest) {
            fprintf(stderr, "broadcheck run: --manifest: %s\n", why);
            return BC_EXIT_USAGE;
        }
        cfg.known = bc_manifest_known(manifest, &cfg.nknown);
        cfg.manifest_path = manifest_path;
        cfg.declared_name = bc_manifest_name(manifest);
        cfg.declared_version = bc_manifest_version(manifest);
        cfg.semantics = *bc_manifest_semantics(manifest);
    }
    /* A medium question carries up to 72 MiB to a worker, whose library may
     * take a second on it: 2 s was too little on a loaded machine (a timeout
     * is a failure).  The replay line repeats the limit, as any other. */
    if (cfg.value_tier != BC_TIER_SMALL && !have_timeout && !bc_builtin_sut(sut_name) &&
        sut_opts.timeout_ms < BC_LARGE_TIER_TIMEOUT_MS)
        sut_opts.timeout_ms = BC_LARGE_TIER_TIMEOUT_MS;
    cfg.sut = find_sut(sut_name, &sut_opts);
    if (!cfg.sut) {
        bc_manifest_free(manifest);
        return BC_EXIT_USAGE;
    }
    cfg.max_question_bytes = question_limit(cfg.sut);
    if (bc_value_tier_refusal(cfg.value_tier, cfg.max_bytes, cfg.max_question_bytes, why,
                              sizeof why) != 0) {
        fprintf(stderr, "broadcheck run: --value-tier %s: %s\n",
                bc_value_tier_name(cfg.value_tier), why);
        bc_sut_close(cfg.sut);
        bc_manifest_free(manifest);
        return BC_EXIT_USAGE;
    }
    if (manifest && bc_manifest_check_sut(manifest, cfg.sut, why, sizeof why) != 0) {
        fprintf(stderr, "broadcheck run: --manifest '%s': %s\n", manifest_path, why);
        bc_sut_close(cfg.sut);
        bc_manifest_free(manifest);
        return BC_EXIT_USAGE;
    }
    bc_progress *progress = NULL;
    if (!quiet) {
        bc_progress_options po = bc_progress_options_for(stderr, progress_interval,
                                                         "broadcheck run");
        progress = bc_progress_start(&po);
        cfg.progress = progress ? bc_progress_report : NULL;
        cfg.progress_ctx = progress;
    }
    cfg.interrupt = &stop_signal;
    catch_stop_signals(cfg.sut);
    /* A replay must run under the limits the failure was found under, and
     * under the value semantics of the manifest given (a shipped adapter's
     * own manifest is the replay's default, so only one given is repeated:
     * another one would be replaced by it). */
    char sut_args[4200] = "";
    bc_sut_options defaults = bc_sut_options_default();
    if (sut_opts.timeout_ms != defaults.timeout_ms)
        snprintf(sut_args, sizeof sut_args, "--timeout-ms %d", sut_opts.timeout_ms);
    if (sut_opts.start_timeout_ms != defaults.start_timeout_ms)
        snprintf(sut_args + strlen(sut_args), sizeof sut_args - strlen(sut_args),
                 "%s--start-timeout-ms %d", sut_args[0] ? " " : "", sut_opts.start_timeout_ms);
    if (sut_opts.memory_mb != defaults.memory_mb)
        snprintf(sut_args + strlen(sut_args), sizeof sut_args - strlen(sut_args), "%s--memory-mb %d",
                 sut_args[0] ? " " : "", sut_opts.memory_mb);
    if (manifest_path && manifest_path != named_manifest)
        snprintf(sut_args + strlen(sut_args), sizeof sut_args - strlen(sut_args),
                 "%s--manifest %s", sut_args[0] ? " " : "", manifest_path);
    /* (bc_run adds the value tier and the memory budget) */
    cfg.sut_args = sut_args;
    cfg.broadcheck_commit = BC_COMMIT;
    bc_run_result *res = bc_run(&cfg, why, sizeof why);
    running_sut = NULL;
    bc_progress_stop(progress);
    bc_sut_close(cfg.sut);
    bc_manifest_free(manifest); /* the result holds copies */
    if (!res) {
        fprintf(stderr, "broadcheck run: %s\n", why);
        return BC_EXIT_USAGE;
    }
    if (!quiet)
        bc_report_summary(res, summary);
    int status = bc_report_exit_code(res);
    struct {
        const char *path;
        int (*write)(const bc_run_result *, const char *, char *, size_t);
    } reports[] = {{json, bc_report_json}, {junit, bc_report_junit}, {cert, bc_report_certificate}};
    const char *written[3];
    int nwritten = 0;
    for (size_t i = 0; i < sizeof reports / sizeof *reports; i++) {
        if (!reports[i].path)
            continue;
        if (reports[i].write(res, reports[i].path, why, sizeof why) != 0) {
            fprintf(stderr, "broadcheck run: %s\n", why);
            status = BC_EXIT_USAGE;
        } else {
            written[nwritten++] = reports[i].path;
        }
    }
    if (!quiet)
        bc_cli_print_reports(summary, written, nwritten);
    if (bc_run_corpus_error(res)) {
        fprintf(stderr, "broadcheck run: %s\n", bc_run_corpus_error(res));
        status = BC_EXIT_USAGE;
    }
    /* Stopped by a signal (during the run, or while the reports were
     * written, which finish first): its conventional exit code. */
    int sig = bc_run_interrupted(res) ? bc_run_interrupted(res) : (int)stop_signal;
    if (sig) {
        fprintf(stderr, "broadcheck run: stopped by signal %d (%s); the reports hold what was "
                        "found until then\n", sig, strsignal(sig));
        status = 128 + sig;
    }
    bc_run_result_free(res);
    return status;
}

/* The manifest a replay reads: the one given, or a shipped adapter's own;
 * *out stays NULL where there is neither (the reference's semantics, no
 * known divergence).  0, or -1 (said on stderr). */
static int read_replay_manifest(const char *sut_name, const char *manifest_path, bc_manifest **out,
                                char *path_out, size_t path_cap)
{
    char why[1024], named_spec[4200], named_manifest[4096];
    *out = NULL;
    if (!manifest_path && !bc_sut_spec_is_external(sut_name) &&
        bc_named_sut_resolve(sut_name, named_spec, sizeof named_spec, named_manifest,
                             sizeof named_manifest, why, sizeof why) == 0)
        manifest_path = named_manifest;
    if (!manifest_path)
        return 0;
    if (!(*out = bc_manifest_load(manifest_path, why, sizeof why))) {
        fprintf(stderr, "broadcheck replay: --manifest: %s\n", why);
        return -1;
    }
    snprintf(path_out, path_cap, "%s", manifest_path);
    return 0;
}

/* After a failing replay: the known divergence of the manifest that
 * explains it, as a run would count it, so that whoever replays a line
 * from a certification page sees it is the declared one. */
static void say_known(const bc_manifest *m, const char *manifest_path, int property,
                      const char *line, const char *detail)
{
    int n;
    const bc_known_divergence *entries = m ? bc_manifest_known(m, &n) : NULL;
    int k = entries ? bc_known_find(entries, n, property, line, detail) : -1;
    if (k < 0)
        return;
    const bc_known_divergence *e = &entries[k];
    printf("known divergence '%s' of %s (class %c: %s): %s%s%s\n", e->id, manifest_path,
           e->klass,
           e->klass == 'a'   ? "a bug of the SUT"
           : e->klass == 'b' ? "a declared limit"
                             : "a legitimate variant of the rule",
           e->note, e->link && e->link[0] ? " " : "", e->link ? e->link : "");
}

int bc_cmd_replay(int argc, char **argv)
{
    static const struct option options[] = {
        {"sut", required_argument, NULL, 's'},
        {"property", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {"timeout-ms", required_argument, NULL, 'T'},
        {"start-timeout-ms", required_argument, NULL, 'U'},
        {"memory-mb", required_argument, NULL, 'M'},
        {"manifest", required_argument, NULL, 'm'},
        {"value-tier", required_argument, NULL, 'V'},
        {"max-bytes", required_argument, NULL, 'B'},
        {NULL, 0, NULL, 0},
    };
    const char *sut_name = "reference", *property = NULL, *manifest_path = NULL;
    bc_value_tier tier = BC_TIER_SMALL;
    int64_t max_bytes = 0;
    bc_sut_options sut_opts = bc_sut_options_default();
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
        int sut_opt = sut_option(c, 'T', 'U', 'M', optarg, &sut_opts);
        if (sut_opt == 0)
            sut_opt = tier_option("replay", c, 'V', 'B', optarg, &tier, &max_bytes);
        if (sut_opt < 0)
            return BC_EXIT_USAGE;
        if (sut_opt > 0)
            continue;
        switch (c) {
        case 's': sut_name = optarg; break;
        case 'p': property = optarg; break;
        case 'm': manifest_path = optarg; break;
        case 'h': fputs(replay_usage, stdout); return BC_EXIT_OK;
        case ':':
            fprintf(stderr, "broadcheck replay: option '%s' needs a value\n", argv[optind - 1]);
            return BC_EXIT_USAGE;
        default:
            fprintf(stderr, "broadcheck replay: unknown option '%s'\n", argv[optind - 1]);
            return BC_EXIT_USAGE;
        }
    }
    if (!property || optind != argc - 1) {
        fprintf(stderr, "broadcheck replay: expected --property P and one case (see "
                        "'broadcheck replay --help')\n");
        return BC_EXIT_USAGE;
    }
    int p = bc_property_from_name(property);
    if (p < 0) {
        fprintf(stderr, "broadcheck replay: --property: unknown property '%s'\n", property);
        return BC_EXIT_USAGE;
    }
    char why[1024], known_path[4096] = "";
    bc_manifest *manifest;
    if (read_replay_manifest(sut_name, manifest_path, &manifest, known_path, sizeof known_path) !=
        0)
        return BC_EXIT_USAGE;
    bc_semantics semantics = {0};
    if (manifest)
        semantics = *bc_manifest_semantics(manifest);
    const bc_sut *sut = find_sut(sut_name, &sut_opts);
    if (!sut) {
        bc_manifest_free(manifest);
        return BC_EXIT_USAGE;
    }
    if (bc_value_tier_refusal(tier, max_bytes, question_limit(sut), why, sizeof why) != 0) {
        fprintf(stderr, "broadcheck replay: --value-tier %s: %s\n", bc_value_tier_name(tier), why);
        bc_sut_close(sut);
        bc_manifest_free(manifest);
        return BC_EXIT_USAGE;
    }
    bc_vector *v = malloc(sizeof *v);
    if (!v) {
        bc_sut_close(sut);
        bc_manifest_free(manifest);
        return BC_EXIT_USAGE;
    }
    int status = BC_EXIT_USAGE;
    /* The expectation is ignored, so a case may leave it out. */
    const char *text = argv[optind];
    char *with_arrow = NULL;
    if (!strstr(text, "->") && (with_arrow = malloc(strlen(text) + 10)) != NULL) {
        snprintf(with_arrow, strlen(text) + 10, "%s -> error", text);
        text = with_arrow;
    }
    int count;
    const int partial = bc_properties(&count)[p].partial;
    bc_pvector *pv = partial ? malloc(sizeof *pv) : NULL;
    why[0] = '\0';
    if (partial ? !pv || bc_pvector_parse(text, pv, why, sizeof why) != 1
                : bc_vector_parse(text, v, why, sizeof why) != 1) {
        fprintf(stderr, "broadcheck replay: the case: %s\n",
                why[0] ? why : "empty (expected a vector line, e.g. 'numpy [2] [1] -> [2]')");
    } else {
        int r = partial ? bc_replay_partial(sut, p, pv, why, sizeof why)
                        : bc_replay_within(sut, &semantics, max_bytes, question_limit(sut), p,
                                           v, why, sizeof why);
        if (r == 0) {
            printf("PASS %s on %s\n", property, sut->name);
            status = BC_EXIT_OK;
        } else if (r == 1) {
            printf("FAIL %s on %s: %s\n", property, sut->name, why);
            say_known(manifest, known_path, p, text, why);
            status = BC_EXIT_FAIL;
        } else {
            fprintf(stderr, "broadcheck replay: %s\n", why);
        }
    }
    free(v);
    free(pv);
    free(with_arrow);
    bc_sut_close(sut);
    bc_manifest_free(manifest);
    return status;
}

static const char list_usage[] =
    "usage: broadcheck list properties|rules|suts|paths\n"
    "       broadcheck list suts [--sut SPEC]\n"
    "\n"
    "  properties  each property: what it checks, the bug it catches, its rules\n"
    "  rules       each rule and the profiles it takes\n"
    "  suts        the built-in SUTs, SPEC if given, and every adapter library in\n"
    "              the folders of $BROADCHECK_ADAPTER_PATH (colon-separated), each\n"
    "              available or not, and what it declares\n"
    "  paths       where this broadcheck finds its own files: KIND PATH, one a line\n"
    "              (worker, vectors, adapters, python, js, bench), installed\n"
    "              relative to the program, else in the build tree\n"
    "\n"
    "Exit codes: 0 listed; 1 (paths) a file is missing, said on stderr; 2 bad usage.\n";

/* broadcheck list paths: every kind of paths.h, found or not. */
static int list_paths(void)
{
    int missing = 0;
    for (int k = 0; k < BC_PATH_COUNT; k++) {
        char path[4096], why[2048];
        if (bc_path_find((bc_path_kind)k, NULL, path, sizeof path, why, sizeof why) != 0) {
            fprintf(stderr, "broadcheck list paths: %s\n", why);
            missing = 1;
        }
        printf("%-9s %s\n", bc_path_name((bc_path_kind)k), path);
    }
    return missing ? BC_EXIT_FAIL : BC_EXIT_OK;
}

int bc_cmd_list(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "--help") == 0 || strcmp(what, "-h") == 0) {
        fputs(list_usage, stdout);
        return BC_EXIT_OK;
    }
    if (strcmp(what, "paths") == 0 && argc == 2)
        return list_paths();
    if (strcmp(what, "properties") == 0) {
        int count;
        const bc_property_info *props = bc_properties(&count);
        for (int i = 0; i < count; i++) {
            printf("%s (%s, %s)\n  checks: %s\n  catches: %s\n  rules:", props[i].name,
                   props[i].kind, props[i].values ? "values" : "shapes", props[i].checks,
                   props[i].why);
            for (int r = 0; r < BC_RULE_COUNT; r++)
                if ((props[i].rules >> r) & 1u)
                    printf(" %s", bc_rule_name((bc_rule)r));
            printf("\n");
        }
        return BC_EXIT_OK;
    }
    if (strcmp(what, "rules") == 0) {
        for (int r = 0; r < BC_RULE_COUNT; r++) {
            printf("%s", bc_rule_name((bc_rule)r));
            for (int p = 1, listed = 0; p < BC_PROFILE_COUNT; p++)
                if (bc_rule_takes_profile((bc_rule)r, (bc_profile)p))
                    printf("%s%s", listed++ ? ", " : " profiles: ", bc_profile_name((bc_profile)p));
            printf("\n");
        }
        return BC_EXIT_OK;
    }
    if (strcmp(what, "suts") == 0) {
        /* broadcheck list suts [--sut SPEC], plus $BROADCHECK_ADAPTER_PATH's *.so */
        const char *extra = argc > 3 && strcmp(argv[2], "--sut") == 0 ? argv[3] : NULL;
        if (argc > (extra ? 4 : 2)) {
            fprintf(stderr, "broadcheck list suts: expected at most '--sut SPEC'\n");
            return BC_EXIT_USAGE;
        }
        bc_sut_options opts = bc_sut_options_default();
        bc_sut_list(stdout, extra, getenv("BROADCHECK_ADAPTER_PATH"), &opts);
        return BC_EXIT_OK;
    }
    fprintf(stderr, "broadcheck list: expected 'properties', 'rules', 'suts' or 'paths'%s%s%s "
                    "(see 'broadcheck list --help')\n",
            what[0] ? ", got '" : "", what, what[0] ? "'" : "");
    return BC_EXIT_USAGE;
}
