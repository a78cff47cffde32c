/*
 * The broadcheck command line, run as a user runs it: exit codes, what goes
 * to stdout and stderr, and that every message names what was wrong.
 */
#include <fcntl.h>
#include <pty.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#ifndef BC_CLI_PATH
#error "BC_CLI_PATH must name the broadcheck executable"
#endif

typedef struct run_result {
    int status;
    char out[16384];
    char err[16384];
} run_result;

static void read_all(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t got;
    while ((got = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)got;
    buf[n] = '\0';
}

/* Drops the progress lines a run prints on stderr off a terminal every 10 s
 * (a slow machine may take that long): what the table checks on stderr is
 * the rest. */
static void strip_progress(char *err)
{
    char *out = err;
    for (char *line = err; *line;) {
        char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) + 1 : strlen(line);
        int progress = strncmp(line, "broadcheck run: ", 16) == 0 && strstr(line, " cells, ") &&
                       strstr(line, " cells, ") < line + n;
        if (!progress) {
            memmove(out, line, n);
            out += n;
        }
        line += n;
    }
    *out = '\0';
}

/* Runs broadcheck with args (NULL-terminated); output beyond the buffers is
 * dropped, which no case here comes near.  Its stderr as it is. */
static void run_raw(run_result *r, const char *const *args)
{
    char *argv[160];
    int argc = 0;
    argv[argc++] = (char *)BC_CLI_PATH;
    for (; *args && argc < 159; args++)
        argv[argc++] = (char *)*args;
    argv[argc] = NULL;
    char out_path[] = "/tmp/bc_cli_out_XXXXXX", err_path[] = "/tmp/bc_cli_err_XXXXXX";
    int out_fd = mkstemp(out_path), err_fd = mkstemp(err_path);
    assert_true(out_fd >= 0 && err_fd >= 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(out_fd, 1);
        dup2(err_fd, 2);
        execv(argv[0], argv);
        _exit(127);
    }
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus));
    r->status = WEXITSTATUS(wstatus);
    lseek(out_fd, 0, SEEK_SET);
    lseek(err_fd, 0, SEEK_SET);
    read_all(out_fd, r->out, sizeof r->out);
    read_all(err_fd, r->err, sizeof r->err);
    close(out_fd);
    close(err_fd);
    unlink(out_path);
    unlink(err_path);
}

/* run_raw, without the progress lines on stderr. */
static void run(run_result *r, const char *const *args)
{
    run_raw(r, args);
    strip_progress(r->err);
}

typedef struct cli_case {
    const char *args[16];
    int status;
    const char *out; /* exact stdout, or NULL */
    const char *err; /* a part stderr must contain, or NULL for empty */
    const char *out_part; /* a part stdout must contain, or NULL */
} cli_case;

static const cli_case shape_cases[] = {
    /* results */
    {{"shape", "--rule", "numpy", "[2,1,5]", "[4,1]"}, 0, "[2,4,5]\n", NULL, NULL},
    {{"shape", "--rule", "numpy", "[]", "[]"}, 0, "[]\n", NULL, NULL},
    /* an axes-mapping of unknown values (RULES.md §14.9), as its vectors answer */
    {{"shape", "--rule", "explicit", "--axes-mapping", "?,?", "[2,3]", "[2,4,3]"}, 0, "[2,4,3]\n",
     NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes-mapping", "...", "[4]", "[1,4,2,3]"}, 0,
     "[1,4,2,3]\n", NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes-mapping", "?,?", "[2,3]", "[3,2]"}, 1, NULL, NULL,
     "error: dim-mismatch"},
    {{"shape", "--rule", "explicit", "--axes-mapping", "?,1", "[2,3]", "[2,4,3]"}, 2, "",
     "entry 1 is '1' but others are '?'", NULL},
    {{"shape", "--rule", "explicit", "--axes-mapping", "?,,?", "[2,3]", "[2,4,3]"}, 2, "",
     "entry 1 is empty", NULL},
    {{"shape", "--rule", "explicit", "--axes", "0", "--axes-mapping", "?", "[3]", "[2,3]"}, 2, "",
     "takes no --axes beside it", NULL},
    {{"shape", "--rule", "numpy", "[1,0]", "[3,1]", "[1]"}, 0, "[3,0]\n", NULL, NULL},
    {{"shape", "--rule", "none", "[2,3]", "[2,3]"}, 0, "[2,3]\n", NULL, NULL},
    /* numpy's empty fold (RULES.md §3.1): no shape is [], under the profile only */
    {{"shape", "--rule", "numpy", "--profile", "numpy-empty-fold"}, 0, "[]\n", NULL, NULL},
    {{"shape", "--rule", "numpy", "--profile", "numpy-empty-fold", "[2,1]", "[3]"}, 0, "[2,3]\n",
     NULL, NULL},
    {{"shape", "--rule", "numpy"}, 2, "", "no shapes given", NULL},
    {{"shape", "--rule", "none", "--profile", "numpy-empty-fold"}, 2, "",
     "none has no profile 'numpy-empty-fold'", NULL},
    {{"shape", "--rule", "onnx-uni", "[2,3,4,5]", "[1,3,1,5]"}, 0, "[2,3,4,5]\n", NULL, NULL},
    {{"shape", "--rule", "pdpd", "--axis", "1", "[2,3,4,5]", "[3,1]"}, 0, "[2,3,4,5]\n", NULL, NULL},
    {{"shape", "--rule", "pdpd", "--axis=-1", "[2,3,4,5]", "[4,5]"}, 0, "[2,3,4,5]\n", NULL, NULL},
    {{"shape", "--rule", "pdpd", "--profile", "paddle", "--axis", "1", "[2,1,4]", "[3]"}, 0,
     "[2,3,4]\n", NULL, NULL},
    {{"shape", "--rule", "broadcast-to", "[3,1]", "[2,3,4]"}, 0, "[2,3,4]\n", NULL, NULL},
    {{"shape", "--rule", "bidirectional", "[3,1]", "[2,1,6]"}, 0, "[2,3,6]\n", NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes", "0", "[3]", "[2,3]"}, 0, "[2,3]\n", NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes", "", "[2,3]", "[2,3]"}, 0, "[2,3]\n", NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes-mapping", "1", "[3]", "[2,3]"}, 0, "[2,3]\n", NULL, NULL},
    /* not broadcastable: exit 1, one line "error: ..." naming axis and dims */
    {{"shape", "--rule", "numpy", "[3]", "[2]"}, 1, NULL, NULL, "error: dim-mismatch: at result axis 0"},
    {{"shape", "--rule", "numpy", "[3,1,5]", "[4,4,5]"}, 1, NULL, NULL, "has 3 and operand 1 has 4"},
    {{"shape", "--rule", "none", "[2,3]", "[2]"}, 1, NULL, NULL, "error: rank-mismatch"},
    {{"shape", "--rule", "onnx-uni", "[5]", "[2,5]"}, 1, NULL, NULL, "error: rank-too-large"},
    {{"shape", "--rule", "pdpd", "--axis", "-2", "[2,3]", "[3]"}, 1, NULL, NULL, "error: axis-out-of-range"},
    {{"shape", "--rule", "pdpd", "--axis", "3", "[2,3,4,5]", "[4,5]"}, 1, NULL, NULL,
     "error: window-out-of-range"},
    {{"shape", "--rule", "broadcast-to", "[2]", "[1]"}, 1, NULL, NULL, "error: dim-mismatch: at axis 0"},
    {{"shape", "--rule", "explicit", "--axes", "0,0", "[]", "[2,3]"}, 1, NULL, NULL, "error: axes-duplicate"},
    {{"shape", "--rule", "explicit", "--axes-mapping", "1,0", "[2,3]", "[3,2]"}, 1, NULL, NULL,
     "error: axes-unsorted"},
    /* malformed or invalid input: exit 2, the reason on stderr, nothing on stdout */
    {{"shape", "--rule", "numpy", "[2,*]", "[1]"}, 2, "", "shape 1 '[2,*]': column 4: expected a dim", NULL},
    {{"shape", "--rule", "numpy", "[1]", "(2,3)"}, 2, "", "shape 2 '(2,3)': column 1: expected '['", NULL},
    {{"shape", "--rule", "numpy", "[-1]", "[2]"}, 2, "", "negative-dim: operand 0 has dim -1 at axis 0", NULL},
    {{"shape", "--rule", "numpy", "[99999999999999999999]"}, 2, "", "past the int64 range", NULL},
    {{"shape", "--rule", "fancy", "[1]"}, 2, "", "unknown rule 'fancy'", NULL},
    {{"shape", "[1]", "[2]"}, 2, "", "missing --rule", NULL},
    {{"shape", "--rule", "pdpd", "--axis"}, 2, "", "option '--axis' needs a value", NULL},
    {{"shape", "--rule", "pdpd", "--axis", "one", "[1]", "[1]"}, 2, "", "axis: expected an integer", NULL},
    {{"shape", "--rule", "pdpd", "--profile", "tf", "[1]", "[1]"}, 2, "", "unknown profile 'tf'", NULL},
    {{"shape", "--rule", "numpy", "--profile", "paddle", "[1]", "[1]"}, 2, "", "numpy has no profile 'paddle'", NULL},
    {{"shape", "--rule", "numpy", "--axis", "1", "[1]", "[1]"}, 2, "", "numpy takes no axis option", NULL},
    {{"shape", "--rule", "explicit", "[1]", "[1]"}, 2, "", "needs --axes", NULL},
    {{"shape", "--rule", "explicit", "--axes", "a", "[1]", "[1]"}, 2, "", "axes: expected an integer", NULL},
    {{"shape", "--rule", "onnx-uni", "[1]"}, 2, "", "onnx-uni takes exactly 2 shapes, got 1", NULL},
    {{"shape", "--rule", "numpy"}, 2, "", "no shapes given", NULL},
    {{"shape", "--rule", "numpy", "--frobnicate", "[1]"}, 2, "", "unknown option '--frobnicate'", NULL},
    {{"frobnicate"}, 2, "", "unknown command 'frobnicate'", NULL},
    {{NULL}, 2, "", "usage: broadcheck", NULL},
    /* help */
    {{"--help"}, 0, NULL, NULL, "Exit codes"},
    {{"shape", "--help"}, 0, NULL, NULL, "--axes-mapping"},
    {{"vectors", "--help"}, 0, NULL, NULL, "FILE:LINE"},
    {{"vectors", "/nonexistent/file.vec"}, 2, NULL, "'/nonexistent/file.vec': cannot open", NULL},
    /* run, replay, list */
    {{"run", "--cases", "300", "--quiet"}, 0, "", NULL, NULL},
    {{"run", "--cases", "300", "--rule", "numpy"}, 0, NULL, NULL, "passed, 0 failed"},
    {{"run", "--sut", "mutant:max-dim", "--cases", "2000", "--rule", "numpy",
      "--property", "shape-differential"}, 1, NULL, NULL,
     "broadcheck replay --sut mutant:max-dim --property shape-differential 'numpy [1] [0] -> [0]'"},
    {{"run", "--sut", "nosuch"}, 2, "", "unknown SUT 'nosuch'", NULL},
    {{"run", "--rule", "numpy,fancy"}, 2, "", "unknown rule 'fancy'", NULL},
    {{"run", "--property", "nice"}, 2, "", "unknown property 'nice'", NULL},
    {{"run", "--cases", "0"}, 2, "", "--cases: expected a positive integer", NULL},
    {{"run", "--cases", "10", "--time", "1"}, 2, "", "not both", NULL},
    {{"run", "--shard", "3/2"}, 2, "", "1 <= K <= N", NULL},
    {{"run", "--seed", "-4"}, 2, "", "--seed: expected an unsigned", NULL},
    {{"run", "--jobs", "0"}, 2, "", "--jobs: expected 1 to 256", NULL},
    {{"run", "--progress-interval", "-1"}, 2, "", "--progress-interval: expected seconds >= 0", NULL},
    {{"run", "--progress-interval", "soon"}, 2, "", "got 'soon'", NULL},
    /* the summary ends with the verdict and the reports written */
    {{"run", "--cases", "100", "--rule", "none"}, 0, NULL, NULL,
     "passed, 0 failed, 0 unsupported\nverdict: CONFORMS\nreports: none written"},
    {{"run", "--sut", "mutant:max-dim", "--cases", "300", "--rule", "numpy", "--property",
      "shape-differential"}, 1, NULL, NULL, "\nverdict: DIVERGES: 1 new failure\nreports: none"},
    /* --quiet: nothing on stdout or stderr, however often progress is due */
    {{"run", "--cases", "3000", "--rule", "numpy", "--quiet", "--progress-interval", "0"}, 0, "",
     NULL, NULL},
    {{"run", "--cases", "10", "--json", "/nonexistent/dir/r.json", "--quiet"}, 2, "",
     "/nonexistent/dir/r.json", NULL},
    {{"replay", "--sut", "mutant:max-dim", "--property", "shape-differential", "numpy [1] [0]"}, 1,
     NULL, NULL, "FAIL shape-differential on mutant:max-dim: SUT gives [1], reference gives [0]"},
    {{"replay", "--property", "shape-differential", "numpy [1] [0] -> [0]"}, 0,
     "PASS shape-differential on reference\n", NULL, NULL},
    {{"replay", "--property", "commutative", "pdpd [1] [1]"}, 2, "", "does not apply to rule pdpd", NULL},
    {{"replay", "--property", "shape-differential", "numpy [1"}, 2, "", "the case: column 7", NULL},
    {{"replay", "numpy [1]"}, 2, "", "expected --property P", NULL},
    /* value cases: run, replay exactly, bad value keys */
    {{"run", "--sut", "mutant:flat-modulo", "--cases", "10", "--value-cases", "2000", "--rule",
      "numpy", "--property", "value-differential"}, 1, NULL, NULL,
     "broadcheck replay --sut mutant:flat-modulo --property value-differential 'numpy op=add "
     "dtype=int32 [2] [2,1] -> [2,2]'"},
    {{"replay", "--sut", "mutant:flat-modulo", "--property", "value-differential",
      "numpy op=add dtype=int32 [2,1] [2] -> [2,2]"}, 1,
     "FAIL value-differential on mutant:flat-modulo: int32 SUT: element [0,1] is 101, reference "
     "has 100 (2 of 4 elements differ)\n", NULL, NULL},
    {{"replay", "--property", "sum-of-broadcast", "explicit axes=1 op=broadcast dtype=int64 "
      "layout=7 values=3 [2] [2,3] -> [2,3]"}, 0, "PASS sum-of-broadcast on reference\n", NULL, NULL},
    {{"replay", "--property", "value-differential", "numpy op=where operand=1 [2] [2] [2]"}, 2, "",
     "operand= goes with op=sum-to-shape only", NULL},
    {{"replay", "--property", "value-differential", "numpy dtype=int32 [2] [2]"}, 2, "",
     "needs op=", NULL},
    /* value cases broadcheck does not compute are refused, never asked of a SUT */
    {{"replay", "--property", "value-differential", "numpy op=where [2] [2]"}, 2, "",
     "column 7: not a value case broadcheck computes: op=where under rule numpy takes 3 shapes, "
     "got 2", NULL},
    {{"replay", "--property", "value-differential", "numpy op=sub [2] [2] [2]"}, 2, "",
     "op=sub takes exactly 2 shapes; only add, mul, max and min fold 3", NULL},
    {{"replay", "--property", "value-differential", "explicit axes=0 op=add [] [2]"}, 2, "",
     "op=add does not compute under rule explicit", NULL},
    {{"replay", "--property", "value-differential",
      "explicit profile=ngraph-explicit axes-mapping=0 op=broadcast [2] [2]"}, 2, "",
     "op=broadcast: profile ngraph-explicit states shapes only", NULL},
    {{"replay", "--property", "value-differential", "numpy op=div dtype=bool [2] [2]"}, 2, "",
     "op=div is not defined on dtype bool", NULL},
    /* sub on bool is a question only under semantics bool_sub=xor */
    {{"replay", "--property", "value-differential", "numpy op=sub dtype=bool [2] [2]"}, 2, "",
     "sub on bool is defined only under semantics bool_sub=xor", NULL},
    {{"replay", "--property", "value-differential", "bidirectional op=sum-to-shape operand=1 [2] [2]"},
     2, "", "sums to the input (operand 0)", NULL},
    {{"replay", "--property", "value-differential", "numpy axis=1 op=add [2] [2]"}, 2, "",
     "the rule's options are invalid input: bad-params", NULL},
    {{"replay", "--property", "value-differential", "numpy op=pow [2] [2]"}, 2, "",
     "op: unknown operation 'pow'", NULL},
    {{"replay", "--property", "value-differential", "numpy op=add layout=-1 [2] [2]"}, 2, "",
     "layout: expected a seed", NULL},
    {{"run", "--value-cases", "x"}, 2, "", "--value-cases: expected a positive integer", NULL},
    /* value tiers: the huge one only within a declared memory budget */
    {{"run", "--value-tier", "huge"}, 2, "",
     "--value-tier huge: the huge value tier needs a memory budget of at least 5368709120 bytes "
     "(5 GiB: a result of 2^31 one-byte elements, the SUT's and the oracle's, and the inputs), "
     "and none was given", NULL},
    {{"run", "--value-tier", "huge", "--max-bytes", "4G"}, 2, "", "more than was given", NULL},
    {{"replay", "--value-tier", "huge", "--property", "value-differential",
      "numpy op=add dtype=int8 [46341,1] [46341] -> [46341,46341]"}, 2, "",
     "needs a memory budget of at least 5368709120 bytes", NULL},
    {{"run", "--value-tier", "big"}, 2, "", "--value-tier: expected small, medium or huge, got 'big'",
     NULL},
    {{"run", "--max-bytes", "12Q"}, 2, "", "--max-bytes: expected a positive number of bytes", NULL},
    /* a case past the budget is not examined: neither passed nor failed */
    {{"replay", "--max-bytes", "1M", "--property", "value-differential",
      "numpy op=add dtype=int32 [1000,1] [1000] -> [1000,1000]"}, 2, "",
     "not examined: the check needs", NULL},
    /* a sum-to-shape is charged scratch for its terms only under the
     * semantics that hold them (float16_sum=wide, int_overflow=saturate):
     * 400,000 int8 terms fit 2 MiB (charged 16 bytes each, it needed 7.2 MB
     * and was not examined) */
    {{"replay", "--max-bytes", "2M", "--property", "value-differential",
      "numpy op=sum-to-shape dtype=int8 operand=0 [] [400000] -> []"}, 0,
     "PASS value-differential on reference\n", NULL, NULL},
    /* the SIMD-tail mutant: right up to 1,000 elements and on whole vectors of
     * 8, wrong on the tail of a medium result, replayed from its line */
    {{"replay", "--sut", "mutant:simd-tail", "--property", "value-differential",
      "none op=add dtype=int32 [1000] -> [1000]"}, 0, "PASS value-differential on mutant:simd-tail\n",
     NULL, NULL},
    {{"replay", "--sut", "mutant:simd-tail", "--property", "value-differential",
      "none op=add dtype=int32 [1008] -> [1008]"}, 0, "PASS value-differential on mutant:simd-tail\n",
     NULL, NULL},
    {{"replay", "--sut", "mutant:simd-tail", "--value-tier", "medium", "--property",
      "value-differential", "none op=add dtype=int32 [1001] -> [1001]"}, 1,
     "FAIL value-differential on mutant:simd-tail: int32 SUT: element [1000] is -1515870811, "
     "reference has 1001 (1 of 1001 elements differ)\n", NULL, NULL},
    {{"run", "--sut", "mutant:simd-tail", "--value-tier", "medium", "--rule", "none", "--property",
      "value-differential", "--value-cases", "20", "--jobs", "1"}, 1, NULL, NULL,
     "value tier: medium, "},
    {{"mutants", "--jobs", "0"}, 2, "", "--jobs: expected 1 to 256, got '0'", NULL},
    {{"mutants", "--colour"}, 2, "", "unknown or incomplete option '--colour'", NULL},
    {{"list", "properties"}, 0, NULL, NULL, "pdpd-is-padded-numpy (metamorphic, shapes)"},
    {{"list", "properties"}, 0, NULL, NULL, "value-differential (differential, values)"},
    {{"list", "suts"}, 0, NULL, NULL, "mutant:zero-wildcard"},
    {{"list", "rules"}, 0, NULL, NULL, "pdpd profiles: openvino-doc, openvino-shape-inference, paddle"},
    {{"list", "rules"}, 0, NULL, NULL, "\nbroadcast-to profiles: pytorch-expand\n"},
    {{"list", "rules"}, 0, NULL, NULL, "\nnumpy profiles: numpy-empty-fold\n"},
    {{"list", "rules"}, 0, NULL, NULL, "\nexplicit profiles: openvino-explicit, ngraph-explicit\n"},
    {{"list", "rules"}, 0, NULL, NULL,
     "paddle, openvino-select, ngraph-select, openvino-broadcast\n"},
    {{"list", "colors"}, 2, "", "expected 'properties', 'rules', 'suts' or 'paths', got 'colors'",
     NULL},
    {{"list"}, 2, "", "(see 'broadcheck list --help')", NULL},
    {{"list", "paths"}, 0, NULL, NULL, "\nvectors   /"},
    /* every subcommand's --help exits 0 and says its usage on stdout */
    {{"run", "--help"}, 0, NULL, NULL, "usage: broadcheck run"},
    {{"replay", "--help"}, 0, NULL, NULL, "usage: broadcheck replay"},
    {{"merge", "--help"}, 0, NULL, NULL, "usage: broadcheck merge"},
    {{"summarize", "--help"}, 0, NULL, NULL, "usage: broadcheck summarize"},
    {{"summarize"}, 2, NULL, "no reports given", NULL},
    {{"list", "--help"}, 0, NULL, NULL, "usage: broadcheck list"},
    {{"mutants", "--help"}, 0, NULL, NULL, "usage: broadcheck mutants"},
    {{"bench", "--help"}, 0, NULL, NULL, "usage: broadcheck bench"},
    {{"mutants", "-h"}, 0, NULL, NULL, "usage: broadcheck mutants"},
    {{"list", "-h"}, 0, NULL, NULL, "usage: broadcheck list"},
    /* one spelling: --json takes a file everywhere */
    {{"bench", "--json"}, 2, "", "unknown or incomplete option '--json'", NULL},
    {{"--version"}, 0, NULL, NULL, " (commit "},
};

static void test_shape_table(void **state)
{
    (void)state;
    run_result *r = malloc(sizeof *r);
    assert_non_null(r);
    for (size_t i = 0; i < sizeof shape_cases / sizeof *shape_cases; i++) {
        const cli_case *c = &shape_cases[i];
        run(r, c->args);
        char desc[256] = "";
        for (const char *const *a = c->args; *a; a++) {
            strncat(desc, " ", sizeof desc - strlen(desc) - 1);
            strncat(desc, *a, sizeof desc - strlen(desc) - 1);
        }
        if (r->status != c->status)
            fail_msg("broadcheck%s: exit %d, want %d\nstdout: %s\nstderr: %s", desc, r->status,
                     c->status, r->out, r->err);
        if (c->out && strcmp(r->out, c->out) != 0)
            fail_msg("broadcheck%s: stdout '%s', want '%s'", desc, r->out, c->out);
        if (c->out_part && !strstr(r->out, c->out_part))
            fail_msg("broadcheck%s: stdout '%s' lacks '%s'", desc, r->out, c->out_part);
        if (c->err ? !strstr(r->err, c->err) : r->err[0] != '\0')
            fail_msg("broadcheck%s: stderr '%s', want %s'%s'", desc, r->err,
                     c->err ? "a part " : "", c->err ? c->err : "");
        /* a "not broadcastable" answer is exactly one line */
        if (c->status == 1 && strcmp(c->args[0], "shape") == 0 &&
            (strncmp(r->out, "error: ", 7) != 0 ||
                               strchr(r->out, '\n') != r->out + strlen(r->out) - 1))
            fail_msg("broadcheck%s: want one 'error:' line, got '%s'", desc, r->out);
    }
    free(r);
}

static void test_vectors_command(void **state)
{
    (void)state;
    char path[] = "/tmp/bc_cli_vec_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *text = "numpy [1] [2] -> [2]\nnumpy [3] [2] -> [3]\n";
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    run_result *r = malloc(sizeof *r);
    assert_non_null(r);
    const char *args[] = {"vectors", path, NULL};
    run(r, args);
    assert_int_equal(r->status, 1);
    char want[256];
    snprintf(want, sizeof want, "%s:2: FAIL numpy [3] [2] -> [3]", path);
    if (!strstr(r->out, want) || !strstr(r->out, "1 passed, 1 failed"))
        fail_msg("vectors output lacks the failure:\n%s", r->out);
    unlink(path);
    /* the committed vectors all pass */
    const char *spec_args[] = {"vectors", BC_SPEC_DIR "/vectors", NULL};
    run(r, spec_args);
    if (r->status != 0)
        fail_msg("spec/vectors fail:\n%s%s", r->out, r->err);
    assert_non_null(strstr(r->out, " 0 failed\n"));
    free(r);
}

/* Off a terminal, --progress-interval 0 prints a plain status line after
 * every chunk of 2048 cases (one job: in order), then one per shrink. */
static void test_progress_off_a_terminal(void **state)
{
    (void)state;
    const char *args[] = {"run", "--rule", "numpy", "--property", "shape-differential",
                          "--cases", "5000", "--jobs", "1", "--progress-interval", "0", NULL};
    run_result *r = malloc(sizeof *r);
    assert_non_null(r);
    run_raw(r, args);
    assert_int_equal(r->status, 0);
    const char *err = r->err;
    const char *want[] = {
        "broadcheck run: 0/1 cells, 2048/5000 cases, 0 failing, ",
        "broadcheck run: 0/1 cells, 4096/5000 cases, 0 failing, ",
        "broadcheck run: 1/1 cells, 5000/5000 cases, 0 failing, ",
    };
    const char *line = err;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        if (strncmp(line, want[i], strlen(want[i])) != 0)
            fail_msg("progress line %zu is not '%s...':\n%s", i + 1, want[i], err);
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        if (!strstr(line, " elapsed, ETA ") || strstr(line, " elapsed, ETA ") > end ||
            memchr(line, '\r', (size_t)(end - line)) || memchr(line, '\033', (size_t)(end - line)))
            fail_msg("progress line %zu is not plain, or has no ETA:\n%s", i + 1, err);
        line = end + 1;
    }
    if (*line)
        fail_msg("more than three progress lines:\n%s", err);
    free(r);
}

/* On a terminal: one line redrawn in place, the failures in red unless
 * NO_COLOR is set, cleared at the end.  Returns what the terminal got. */
static char *run_on_terminal(int no_color)
{
    int master, slave;
    assert_int_equal(openpty(&master, &slave, NULL, NULL, NULL), 0);
    char *argv[] = {(char *)BC_CLI_PATH, "run", "--sut", "mutant:max-dim", "--rule", "numpy",
                    "--property", "shape-differential", "--cases", "5000", "--jobs", "1",
                    "--whole-cells", "--progress-interval", "0", NULL};
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null_fd = open("/dev/null", O_WRONLY);
        dup2(null_fd, 1);
        dup2(slave, 2);
        close(master);
        setenv("TERM", "xterm", 1);
        if (no_color)
            setenv("NO_COLOR", "1", 1);
        else
            unsetenv("NO_COLOR");
        execv(argv[0], argv);
        _exit(127);
    }
    close(slave);
    size_t cap = 1 << 20, n = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    ssize_t got;
    /* until every copy of the slave is closed (EIO): the child has ended */
    while (n < cap - 1 && (got = read(master, text + n, cap - 1 - n)) > 0)
        n += (size_t)got;
    text[n] = '\0';
    close(master);
    int wstatus;
    assert_int_equal(waitpid(pid, &wstatus, 0), pid);
    assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 1);
    return text;
}

static void test_progress_on_a_terminal(void **state)
{
    (void)state;
    char *text = run_on_terminal(0);
    if (!strstr(text, "\rbroadcheck run: 1/1 cells, 5000/5000 cases, ") ||
        !strstr(text, "shrinking failing cell 1 of 1") || strchr(text, '\n'))
        fail_msg("no live line redrawn in place:\n%s", text);
    if (!strstr(text, "\033[31m") || !strstr(text, "\033[0m"))
        fail_msg("the failures are not in red:\n%s", text);
    /* cleared at the end: spaces over the line, back to its start */
    size_t len = strlen(text);
    if (len < 3 || text[len - 1] != '\r' || text[len - 2] != ' ')
        fail_msg("the live line is not cleared at the end:\n%s", text);
    free(text);
    text = run_on_terminal(1);
    if (strchr(text, '\033') || !strstr(text, " failing, "))
        fail_msg("NO_COLOR=1, yet escape sequences (or no line):\n%s", text);
    free(text);
}

/* bench --json FILE: the text on stdout as without it, the JSON in FILE. */
static void test_bench_json_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/bc_cli_bench_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/bench.json", dir);
    const char *args[] = {"bench", "--pattern", "tiny", "--repeat", "1", "--python",
                          "/nonexistent/python3", "--json", path, NULL};
    run_result *r = malloc(sizeof *r);
    assert_non_null(r);
    run(r, args);
    if (r->status != 0 || !strstr(r->out, "broadcheck bench: fast engine"))
        fail_msg("bench --json FILE: exit %d\n%s%s", r->status, r->out, r->err);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char json[4096] = "";
    size_t n = fread(json, 1, sizeof json - 1, f);
    json[n] = '\0';
    fclose(f);
    if (json[0] != '{' || !strstr(json, "\"statistic\": \"min/median/max") ||
        !strstr(json, "\"name\": \"tiny\"") || !strstr(json, "\"engine_ns_per_call\": {\"min\": "))
        fail_msg("bench --json FILE wrote:\n%s", json);
    unlink(path);
    /* an unwritable FILE: exit 2, nothing left behind */
    snprintf(path, sizeof path, "%s/no-dir/bench.json", dir);
    run(r, args);
    if (r->status != 2 || !strstr(r->err, "--json: cannot write"))
        fail_msg("bench --json into a missing folder: exit %d\n%s", r->status, r->err);
    rmdir(dir);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_table),
        cmocka_unit_test(test_vectors_command),
        cmocka_unit_test(test_progress_off_a_terminal),
        cmocka_unit_test(test_progress_on_a_terminal),
        cmocka_unit_test(test_bench_json_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
