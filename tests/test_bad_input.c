/*
 * Bad input to the command line and to the files it reads, one table row
 * each (test_cli.c has the first cases of each kind; these are the rest):
 * malformed shapes, dims past the int64 range, ranks and operand counts past
 * 64, unknown names, junk axes, missing, unreadable and unwritable files,
 * truncated or binary vector files and corpus lines, a newer corpus.  Every
 * row must exit 2, say on stderr what was wrong and where (the substrings
 * given), leave no report file and no temporary file behind, and leave a
 * corpus it was given unchanged.  Report and corpus paths that are not
 * regular files (a FIFO, a device, a symbolic link to nothing), or that
 * are another output or an input, are refused before anything runs and
 * left as they were.  Then two (and more) runs appending to the same corpus
 * at once must leave it well formed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmocka.h>

#include "broadcheck/vector.h"
#include "cli_spawn.h"

static char dir[256];
static char rank65[256], ops129[129][4];

/* The files the rows read, made in dir by setup (the length counts NUL bytes). */
#define FIXTURE(name, text) {name, text, sizeof text - 1}
static const struct fixture {
    const char *name;
    const char *text;
    size_t len;
} fixtures[] = {
    FIXTURE("truncated.vec", "numpy [1] [2] -> [2]\nnumpy [2,3"),
    FIXTURE("binary.vec", "numpy [1] [2] -> [2]\n\x7f" "ELF\0\x02\x01\x01\0\n"),
    FIXTURE("noise.vec", "\xff\xfe\x01\x02 [1] -> [1]\n"),
    FIXTURE("newer.corpus", "# broadcheck corpus v99\nnumpy [1] [0] -> [0]\n"),
    FIXTURE("truncated.corpus", "# broadcheck corpus v1\nnumpy [1] [0] -> [0]\nnumpy [1] [0"),
    FIXTURE("binary.corpus", "# broadcheck corpus v1\nnumpy [1]\0 [0] -> [0]\n"),
    FIXTURE("junk.corpus", "# broadcheck corpus v1\nnot a vector\n"),
    FIXTURE("huge.corpus", "# broadcheck corpus v1\nnumpy [9223372036854775808] -> error\n"),
    FIXTURE("afile", "a plain file, not a folder\n"),
};

static int setup(void **state)
{
    (void)state;
    if (bc_scratch_dir("bc_bad_input", dir, sizeof dir) != 0)
        return -1;
    char path[512];
    for (size_t i = 0; i < sizeof fixtures / sizeof *fixtures; i++) {
        const struct fixture *f = &fixtures[i];
        if (bc_scratch_file(dir, f->name, f->text, f->len, path, sizeof path) != 0)
            return -1;
    }
    /* a corpus line of rank 65 */
    char text[512] = "# broadcheck corpus v1\nnumpy [1";
    for (int k = 1; k < 65; k++)
        strcat(text, ",1");
    strcat(text, "] -> [1]\n");
    if (bc_scratch_file(dir, "rank65.corpus", text, strlen(text), path, sizeof path) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/adir", dir); /* a folder where a file is wanted */
    if (mkdir(path, 0755) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/afifo", dir); /* opening it for reading would block */
    if (mkfifo(path, 0644) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/dangling", dir); /* a symbolic link to nothing */
    if (symlink("no-such-file", path) != 0)
        return -1;
    snprintf(path, sizeof path, "%s/adev", dir); /* a device like /dev/null (root only) */
    if (mknod(path, S_IFCHR | 0666, makedev(1, 3)) != 0)
        fprintf(stderr, "note: cannot make a device node (%s): its rows are skipped\n",
                path);
    strcpy(rank65, "[1");
    for (int k = 1; k < 65; k++)
        strcat(rank65, ",1");
    strcat(rank65, "]");
    for (int i = 0; i < 129; i++)
        strcpy(ops129[i], "[1]");
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char sub[512];
    snprintf(sub, sizeof sub, "%s/adir", dir);
    bc_scratch_remove(sub);
    bc_scratch_remove(dir); /* unlinks the FIFO, the device and the link too */
    return 0;
}

typedef struct bad_case {
    const char *args[14]; /* "@x" is dir/x; "{rank65}" a shape of rank 65; "{ops129}" 129 shapes */
    const char *err[2];   /* parts stderr must contain (what, and where) */
    const char *report;   /* "@x": a report the row asks for that must not be left */
    const char *corpus;   /* "@x": a file (corpus, input) that must be left unchanged */
    const char *keep;     /* "@x": a FIFO, device or link that must still be one */
} bad_case;

/* A run whose SUT has failures to append, given a corpus. */
#define CORPUS_RUN(corpus)                                                                 \
    {"run", "--sut", "mutant:max-dim", "--cases", "10", "--quiet", "--json", "@r.json",   \
     "--corpus", corpus}

static const bad_case cases[] = {
    /* shapes */
    {{"shape", "--rule", "numpy", "[2,3"},
     {"shape 1 '[2,3'", "column 5: expected ',' or ']'"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[2,,3]"},
     {"column 4", "expected a dim (an integer) at axis 1"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[1,2,]"}, {"column 6", "at axis 2"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[1]]"}, {"column 4", "unexpected text after ']'"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", ""},
     {"shape 1 ''", "column 1: expected '[' to start a shape, found the end"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[1e3]"}, {"shape 1 '[1e3]'", "column 3"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[0x10]"}, {"shape 1 '[0x10]'", "column 3"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[ 2 3 ]"}, {"column 5", "after the dim at axis 0"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[1]", "[2,*]"},
     {"shape 2 '[2,*]'", "column 4"}, NULL, NULL, NULL},
    /* dims: negative, past the int64 range (INT64_MAX itself is legal: test_cli) */
    {{"shape", "--rule", "numpy", "[2,3]", "[1,-2]"},
     {"negative-dim", "operand 1 has dim -2 at axis 1"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[-9223372036854775808]"},
     {"negative-dim", "at axis 0"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[1,9223372036854775808]"},
     {"column 4: dim at axis 1", "above INT64_MAX"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "[-9223372036854775809]"},
     {"column 2: dim at axis 0", "below INT64_MIN"}, NULL, NULL, NULL},
    /* ranks past 64 and operand counts past 128 */
    {{"shape", "--rule", "numpy", "{rank65}"},
     {"column 130", "rank past the limit of 64 axes"}, NULL, NULL, NULL},
    {{"shape", "--rule", "numpy", "{ops129}"},
     {"operand-count", "takes 1 to 128 shapes, got 129"}, NULL, NULL, NULL},
    {{"shape", "--rule", "none", "{ops129}", "[1]", "[1]", "[1]", "[1]", "[1]", "[1]", "[1]", "[1]"},
     {"137 shapes given", "at most 128"}, NULL, NULL, NULL},
    /* rules, profiles, axes */
    {{"shape", "--rule", "NumPy", "[1]"}, {"--rule", "unknown rule 'NumPy'"}, NULL, NULL, NULL},
    {{"shape", "--rule", "pdpd", "--profile", "", "[1]", "[1]"},
     {"--profile", "unknown profile ''"}, NULL, NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes", "1,,2", "[1]", "[1,1,1]"},
     {"--axes", "at entry 1, found ',2'"}, NULL, NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes-mapping", "0,", "[1]", "[1]"},
     {"--axes-mapping", "at entry 1"}, NULL, NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes", "99999999999999999999", "[1]", "[1,1]"},
     {"--axes", "entry 0 is past the int64 range"}, NULL, NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes",
      "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
      "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0", /* 65 */
      "[1]", "[1]"}, {"--axes", "more than 64 entries"}, NULL, NULL, NULL},
    {{"shape", "--rule", "explicit", "--axes", "0", "--axes-mapping", "0", "[1]", "[1,1]"},
     {"bad-params", "exactly one of axes"}, NULL, NULL, NULL},
    {{"shape", "--rule", "pdpd", "--axis", "1.5", "[1]", "[1]"},
     {"--axis", "found '1.5'"}, NULL, NULL, NULL},
    {{"shape", "--rule", "pdpd", "--axis", "-99999999999999999999", "[1]", "[1]"},
     {"--axis", "past the int64 range"}, NULL, NULL, NULL},
    /* run: names and numbers */
    {{"run", "--rule", ""}, {"--rule", "no rule named"}, NULL, NULL, NULL},
    {{"run", "--rule", "NUMPY"}, {"--rule", "unknown rule 'NUMPY'"}, NULL, NULL, NULL},
    {{"run", "--property", "shape-differential,bogus"},
     {"--property", "unknown property 'bogus'"}, NULL, NULL, NULL},
    {{"run", "--sut", ""}, {"--sut", "unknown SUT ''"}, NULL, NULL, NULL},
    {{"run", "--sut", "mutant:nope"}, {"--sut", "unknown SUT 'mutant:nope'"}, NULL, NULL, NULL},
    {{"run", "--shard", "0/2"}, {"--shard", "got '0/2'"}, NULL, NULL, NULL},
    {{"run", "--shard", "1/0"}, {"--shard", "got '1/0'"}, NULL, NULL, NULL},
    {{"run", "--shard", "2"}, {"--shard", "expected K/N, got '2'"}, NULL, NULL, NULL},
    {{"run", "--shard", "a/b"}, {"--shard", "got 'a/b'"}, NULL, NULL, NULL},
    {{"run", "--time", "-1"}, {"--time", "got '-1'"}, NULL, NULL, NULL},
    {{"run", "--time", "nan"}, {"--time", "got 'nan'"}, NULL, NULL, NULL},
    {{"run", "--cases", "9223372036854775808"},
     {"--cases", "got '9223372036854775808'"}, NULL, NULL, NULL},
    {{"run", "--seed", "18446744073709551616"},
     {"--seed", "got '18446744073709551616'"}, NULL, NULL, NULL},
    {{"run", "--jobs", "257"}, {"--jobs", "got '257'"}, NULL, NULL, NULL},
    {{"run", "--max-shrink-calls", "x"}, {"--max-shrink-calls", "got 'x'"}, NULL, NULL, NULL},
    {{"run", "--cases", "10", "extra"}, {"unexpected argument 'extra'", "run"}, NULL, NULL, NULL},
    {{"run", "--corpus"}, {"'--corpus'", "needs a value"}, NULL, NULL, NULL},
    /* replay: names and malformed cases */
    {{"replay", "--property", "nosuch", "numpy [1] [1]"},
     {"--property", "unknown property 'nosuch'"}, NULL, NULL, NULL},
    {{"replay", "--sut", "nosuch", "--property", "commutative", "numpy [1] [1]"},
     {"--sut", "unknown SUT 'nosuch'"}, NULL, NULL, NULL},
    {{"replay", "--property", "commutative", "frob [1] [1]"},
     {"the case: column 1", "unknown rule 'frob'"}, NULL, NULL, NULL},
    {{"replay", "--property", "commutative", "numpy [1] [1] -> [1] extra"},
     {"the case: column", "unexpected 'extra'"}, NULL, NULL, NULL},
    {{"replay", "--property", "commutative", "numpy {rank65} [1]"},
     {"the case: column 7", "rank past the limit"}, NULL, NULL, NULL},
    /* vector files: missing, unreadable, truncated, binary */
    {{"vectors", "@afile/x.vec"},
     {"broadcheck vectors: '", "afile/x.vec': cannot open: Not a directory"}, NULL, NULL, NULL},
    {{"vectors", "@truncated.vec"},
     {"truncated.vec' is malformed", "truncated.vec:LINE"}, NULL, NULL, NULL},
    {{"vectors", "@binary.vec"}, {"binary.vec' is malformed", "NUL byte"}, NULL, NULL, NULL},
    {{"vectors", "@noise.vec"}, {"noise.vec' is malformed", "syntax error"}, NULL, NULL, NULL},
    {{"vectors", "@adir"}, {"adir' has no .vec files", "folder"}, NULL, NULL, NULL},
    /* corpus files: refused before any case runs, so the mutant's failures
     * are not appended and the corpus is left as it was */
    {CORPUS_RUN("@newer.corpus"),
     {"newer.corpus:1", "written by a newer broadcheck (corpus v99; this one reads v1)"},
     "@r.json", "@newer.corpus", NULL},
    {CORPUS_RUN("@truncated.corpus"),
     {"truncated.corpus:3", "column 11"}, "@r.json", "@truncated.corpus", NULL},
    {CORPUS_RUN("@binary.corpus"),
     {"binary.corpus:2", "a NUL byte"}, "@r.json", "@binary.corpus", NULL},
    {CORPUS_RUN("@junk.corpus"),
     {"junk.corpus:2", "unknown rule 'not'"}, "@r.json", "@junk.corpus", NULL},
    {CORPUS_RUN("@rank65.corpus"),
     {"rank65.corpus:2", "rank past the limit of 64"}, "@r.json", "@rank65.corpus", NULL},
    {CORPUS_RUN("@huge.corpus"),
     {"huge.corpus:2", "past the int64 range"}, "@r.json", "@huge.corpus", NULL},
    {CORPUS_RUN("@adir"),
     {"adir'", "is a directory, not a corpus file"}, "@r.json", NULL, NULL},
    {CORPUS_RUN("@afile/c"),
     {"afile/c'", "cannot open: Not a directory"}, "@r.json", NULL, NULL},
    /* reports that cannot be written: the path and the reason named */
    {{"run", "--cases", "10", "--quiet", "--junit", "@missing/r.xml"},
     {"cannot write JUnit report '", "missing/r.xml'"}, "@missing/r.xml", NULL, NULL},
    {{"run", "--cases", "10", "--quiet", "--certificate", "@missing/c.md"},
     {"cannot write certificate report '", "missing/c.md'"}, "@missing/c.md", NULL, NULL},
    {{"run", "--cases", "10", "--quiet", "--json", "@afile/r.json"},
     {"afile/r.json'", "Not a directory"}, "@afile/r.json", NULL, NULL},
    {{"run", "--cases", "10", "--quiet", "--json", "@adir"},
     {"adir'", "it is a directory, not a regular file"}, NULL, NULL, NULL},
    {{"run", "--cases", "10", "--quiet", "--json", ""},
     {"JSON report", "no path given"}, NULL, NULL, NULL},
    {{"merge", "--json", "@m.json", "@newer.corpus"},
     {"newer.corpus'", "not valid JSON: line 1"}, "@m.json", NULL, NULL},
    /* outputs that are not regular files: refused, never replaced */
    {{"run", "--cases", "10", "--quiet", "--json", "@afifo"},
     {"--json", "afifo': it is a FIFO, not a regular file"}, NULL, NULL, "@afifo"},
    {{"run", "--cases", "10", "--quiet", "--junit", "@adev"},
     {"--junit", "it is a character device, not a regular file"}, NULL, NULL, "@adev"},
    {{"run", "--cases", "10", "--quiet", "--certificate", "@dangling"},
     {"--certificate", "dangling': it is a symbolic link to a missing file"}, NULL, NULL,
     "@dangling"},
    {{"merge", "--json", "@afifo", "@newer.corpus"},
     {"afifo'", "it is a FIFO"}, NULL, NULL, "@afifo"},
    /* outputs on each other, on the corpus, on an input */
    {{"run", "--cases", "10", "--quiet", "--json", "@same", "--junit", "@same"},
     {"--json", "--junit", }, "@same", NULL, NULL},
    {{"run", "--cases", "10", "--quiet", "--json", "-", "--certificate", "/dev/stdout"},
     {"are one file", "--certificate '/dev/stdout'"}, NULL, NULL, NULL},
    {{"run", "--sut", "mutant:max-dim", "--cases", "10", "--quiet", "--json", "@newer.corpus",
      "--corpus", "@newer.corpus"}, {"--json", "is the corpus"}, NULL, "@newer.corpus", NULL},
    {{"run", "--cases", "10", "--quiet", "--corpus", "@adir/../newer.corpus", "--certificate",
      "@newer.corpus"}, {"--certificate", "is the corpus"}, NULL, "@newer.corpus", NULL},
    {{"merge", "--json", "@newer.corpus", "@truncated.corpus", "@newer.corpus"},
     {"--json", "is input 2"}, NULL, "@newer.corpus", NULL},
    {{"merge", "--junit", "@m.xml", "--certificate", "@m.xml", "@newer.corpus"},
     {"--junit '", "are one file"}, "@m.xml", NULL, NULL},
    /* corpus paths that are not regular files: refused before the run, a
     * FIFO without blocking, a link to nothing without creating its target */
    {CORPUS_RUN("@afifo"), {"corpus '", "afifo': is a FIFO, not a corpus file"}, "@r.json", NULL,
     "@afifo"},
    {CORPUS_RUN("@adev"), {"corpus '", "is a character device, not a corpus file"}, "@r.json",
     NULL, "@adev"},
    {CORPUS_RUN("@dangling"), {"corpus '", "dangling': is a symbolic link to a missing file"},
     "@r.json", NULL, "@dangling"},
    {CORPUS_RUN("@missing/c"), {"corpus '", "cannot be created in its folder"}, "@r.json", NULL, NULL},
    /* replay: a value property needs a value line */
    {{"replay", "--sut", "mutant:flat-modulo", "--property", "value-differential",
      "numpy [2,1] [2] -> [2,2]"}, {"value-differential checks values", "a shape line"}, NULL,
     NULL, NULL},
};

/* An argument of a row, expanded: "@x" -> dir/x, "{rank65}" inside -> the shape. */
static const char *expand(const char *arg, char *buf, size_t cap)
{
    if (arg[0] == '@') {
        snprintf(buf, cap, "%s/%s", dir, arg + 1);
        return buf;
    }
    const char *at = strstr(arg, "{rank65}");
    if (!at)
        return arg;
    snprintf(buf, cap, "%.*s%s%s", (int)(at - arg), arg, rank65, at + strlen("{rank65}"));
    return buf;
}

static char *read_file(const char *path, size_t *len)
{
    *len = 0; /* also when the file cannot be read */
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *buf = malloc(1 << 16);
    *len = buf ? fread(buf, 1, 1 << 16, f) : 0;
    fclose(f);
    return buf;
}

static void test_bad_input_table(void **state)
{
    (void)state;
    static char bufs[14][512];
    char subdir[512];
    snprintf(subdir, sizeof subdir, "%s/adir", dir);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const bad_case *c = &cases[i];
        const char *args[160];
        int n = 0;
        char line[1024] = "broadcheck";
        for (int a = 0; a < 14 && c->args[a]; a++) {
            if (strcmp(c->args[a], "{ops129}") == 0) {
                for (int k = 0; k < 129; k++)
                    args[n++] = ops129[k];
            } else {
                args[n++] = expand(c->args[a], bufs[a], sizeof bufs[a]);
            }
            strncat(line, " ", sizeof line - strlen(line) - 1);
            strncat(line, c->args[a], sizeof line - strlen(line) - 1);
        }
        args[n] = NULL;
        if (strstr(line, "@adev")) {
            char dev[512];
            snprintf(dev, sizeof dev, "%s/adev", dir);
            if (access(dev, F_OK) != 0)
                continue; /* no device node here (not root) */
        }
        char corpus_path[512], report_path[512], keep_path[512];
        struct stat keep_before;
        if (c->keep)
            assert_int_equal(lstat(expand(c->keep, keep_path, sizeof keep_path), &keep_before), 0);
        size_t before_len = 0, after_len = 0;
        char *before = NULL;
        if (c->corpus)
            before = read_file(expand(c->corpus, corpus_path, sizeof corpus_path), &before_len);

        bc_spawned r;
        assert_int_equal(bc_spawn(args, &r), 0);
        if (r.status != 2)
            fail_msg("%s: exit %d, want 2\nstdout: %s\nstderr: %s", line, r.status, r.out, r.err);
        for (int k = 0; k < 2; k++)
            if (c->err[k] && !strstr(r.err, c->err[k]))
                fail_msg("%s: stderr lacks '%s':\n%s", line, c->err[k], r.err);
        if (r.err[0] == '\0' || r.err[strlen(r.err) - 1] != '\n')
            fail_msg("%s: stderr is not whole lines: '%s'", line, r.err);
        if (strcmp(c->args[0], "vectors") != 0 && r.out[0] != '\0')
            fail_msg("%s: something on stdout: %s", line, r.out);
        if (c->report && access(expand(c->report, report_path, sizeof report_path), F_OK) == 0)
            fail_msg("%s: the report %s was left behind", line, report_path);
        if (bc_scratch_count(dir, ".tmp.") != 0 || bc_scratch_count(subdir, ".tmp.") != 0)
            fail_msg("%s: a temporary file was left in %s", line, dir);
        struct stat st;
        if (stat(subdir, &st) != 0 || !S_ISDIR(st.st_mode))
            fail_msg("%s: %s is no longer a folder", line, subdir);
        struct stat keep_after;
        if (c->keep && (lstat(keep_path, &keep_after) != 0 ||
                        keep_after.st_mode != keep_before.st_mode ||
                        keep_after.st_ino != keep_before.st_ino))
            fail_msg("%s: %s was replaced", line, keep_path);
        if (strstr(line, "@dangling") && access(expand("@no-such-file", keep_path,
                                                       sizeof keep_path), F_OK) == 0)
            fail_msg("%s: the dangling link's target was created", line);
        if (before) {
            char *after = read_file(corpus_path, &after_len);
            if (!after || after_len != before_len || memcmp(before, after, before_len) != 0)
                fail_msg("%s: the corpus %s was changed", line, corpus_path);
            free(after);
            free(before);
        }
        bc_spawned_free(&r);
    }
}

/* A long corpus line (past any fixed buffer) is replayed whole, not
 * truncated into a line that no longer parses and is skipped. */
static void test_long_corpus_line_is_replayed(void **state)
{
    (void)state;
    static char text[40000];
    char dims[512] = "", path[512], report[512];
    for (int k = 0; k < 20; k++)
        strcat(dims, k ? ",1000000000000" : "1000000000000");
    strcpy(text, "# broadcheck corpus v1\nnumpy");
    for (int i = 0; i < 40; i++)
        snprintf(text + strlen(text), sizeof text - strlen(text), " [%s]", dims);
    snprintf(text + strlen(text), sizeof text - strlen(text), " -> [%s]\n", dims);
    assert_true(strlen(text) > 8192);
    assert_int_equal(bc_scratch_file(dir, "long.corpus", text, strlen(text), path, sizeof path), 0);
    snprintf(report, sizeof report, "%s/long.json", dir);
    const char *args[] = {"run", "--rule", "numpy", "--property", "shape-differential", "--cases",
                          "1", "--quiet", "--json", report, "--corpus", path, NULL};
    bc_spawned r;
    assert_int_equal(bc_spawn(args, &r), 0);
    if (r.status != 0)
        fail_msg("exit %d: %s", r.status, r.err);
    size_t len;
    char *json = read_file(report, &len);
    assert_non_null(json);
    json[len < (1 << 16) ? len : (1 << 16) - 1] = '\0';
    if (!strstr(json, "\"replayed\": 1"))
        fail_msg("the long corpus line was not replayed:\n%s", strstr(json, "\"corpus\""));
    free(json);
    bc_spawned_free(&r);
    unlink(report);
    unlink(path);
}

/* Runs appending to one corpus at once leave it well formed: one header,
 * then canonical vector lines, each whole, none twice. */
static void test_concurrent_corpus_appends(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/shared.corpus", dir);
    for (int round = 0; round < 2; round++) {
        /* round 0 starts from no file; round 1 reads lines while others append */
        int pids[4];
        char seeds[4][8];
        for (int p = 0; p < 4; p++) {
            snprintf(seeds[p], sizeof seeds[p], "%d", 1 + p + 4 * round);
            const char *args[] = {"run", "--sut", "mutant:max-dim", "--cases", "3000",
                                  "--seed", seeds[p], "--quiet", "--corpus", path, NULL};
            pids[p] = bc_spawn_background(args);
            assert_true(pids[p] > 0);
        }
        for (int p = 0; p < 4; p++) {
            int status = bc_spawn_wait(pids[p]);
            if (status != 1)
                fail_msg("round %d, run %d: exit %d, want 1 (the mutant's failures)", round, p,
                         status);
        }
        size_t len;
        char *text = read_file(path, &len);
        assert_non_null(text);
        assert_true(len > 0 && len < (1 << 16));
        text[len] = '\0';
        assert_int_equal(strlen(text), len); /* no NUL byte */
        assert_true(text[len - 1] == '\n');  /* the last line is whole */
        assert_true(strncmp(text, "# broadcheck corpus v1\n", 23) == 0);
        static bc_vector v;
        char why[512], again[8192];
        char *lines[512];
        int count = 0;
        for (char *line = strtok(text + 23, "\n"); line; line = strtok(NULL, "\n")) {
            if (bc_vector_parse(line, &v, why, sizeof why) != 1)
                fail_msg("round %d: corpus line '%s' does not parse: %s", round, line, why);
            bc_vector_format(&v, again, sizeof again);
            if (strcmp(again, line) != 0)
                fail_msg("round %d: corpus line '%s' is not canonical", round, line);
            for (int k = 0; k < count; k++)
                if (strcmp(lines[k], line) == 0)
                    fail_msg("round %d: corpus line '%s' is there twice", round, line);
            assert_true(count < 512);
            lines[count++] = line;
        }
        assert_true(count > 0);
        free(text);
    }
    unlink(path);
}

/* Vectors from a pipe (/dev/stdin) are read once: a malformed line exits 2
 * as it does from a file (the file used to be read a second time to tell a
 * malformed line from a failed one, and a pipe is empty the second time). */
static void test_vectors_from_a_pipe(void **state)
{
    (void)state;
    const char *args[] = {"vectors", "/dev/stdin", NULL};
    static const struct {
        const char *text;
        int status;
    } rows[] = {{"numpy [1\n", 2}, {"numpy [1] [2] -> [2]\n", 0}, {"numpy [1] [2] -> [1]\n", 1}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        bc_spawn_opts opts = {0, rows[i].text, NULL, 300};
        bc_spawned r;
        assert_int_equal(bc_spawn_with(args, &opts, &r), 0);
        if (r.status != rows[i].status)
            fail_msg("'%s' on stdin: exit %d, want %d\n%s%s", rows[i].text, r.status,
                     rows[i].status, r.out, r.err);
        bc_spawned_free(&r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input_table),
        cmocka_unit_test(test_vectors_from_a_pipe),
        cmocka_unit_test(test_long_corpus_line_is_replayed),
        cmocka_unit_test(test_concurrent_corpus_appends),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
