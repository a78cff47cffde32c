/* The vector format: parse, format round trip, syntax errors by column,
 * and checking against the reference. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "broadcheck/vector.h"

static bc_vector *vec;

static int setup(void **state)
{
    (void)state;
    vec = malloc(sizeof *vec);
    return vec ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    free(vec);
    return 0;
}

static void parses_to(const char *line, const char *canonical)
{
    char why[512] = "";
    int r = bc_vector_parse(line, vec, why, sizeof why);
    if (r != 1)
        fail_msg("'%s' did not parse: %s", line, why);
    char buf[2048];
    bc_vector_format(vec, buf, sizeof buf);
    assert_string_equal(buf, canonical);
    /* the line's head is its rule and options, as bc_params_format gives them */
    char head[1024];
    int n = bc_params_format(&vec->params, head, sizeof head);
    assert_int_equal(n, (int)strlen(head));
    const char *rest = buf + n;
    if (strncmp(buf, head, (size_t)n) != 0 ||
        (strncmp(rest, " [", 2) != 0 && strncmp(rest, " op=", 4) != 0 &&
         strncmp(rest, " ->", 3) != 0))
        fail_msg("'%s' does not start with its params' whole text '%s'", buf, head);
}

static void rejected(const char *line, const char *why_part)
{
    char why[512] = "";
    assert_int_equal(bc_vector_parse(line, vec, why, sizeof why), -1);
    if (!strstr(why, why_part))
        fail_msg("'%s': reason '%s' lacks '%s'", line, why, why_part);
}

static void test_parse_and_format(void **state)
{
    (void)state;
    parses_to("numpy [2,1,5] [4,1] -> [2,4,5]", "numpy [2,1,5] [4,1] -> [2,4,5]");
    parses_to("  numpy\t[3]  [2] -> error:dim-mismatch   # [000] example\n",
              "numpy [3] [2] -> error:dim-mismatch");
    parses_to("pdpd axis=1 profile=paddle [2,3,4,5] [3,1] -> [2,3,4,5]",
              "pdpd profile=paddle axis=1 [2,3,4,5] [3,1] -> [2,3,4,5]");
    parses_to("explicit axes= [2,3] [2,3] -> [2,3]", "explicit axes= [2,3] [2,3] -> [2,3]");
    parses_to("explicit axes-mapping=0,2 [2,3] [2,1,3] -> error",
              "explicit axes-mapping=0,2 [2,3] [2,1,3] -> error");
    parses_to("numpy [] -> []\r\n", "numpy [] -> []");
    assert_int_equal(vec->nshapes, 1);
    char why[64];
    assert_int_equal(bc_vector_parse("   # only a comment\n", vec, why, sizeof why), 0);
    assert_int_equal(bc_vector_parse("\n", vec, why, sizeof why), 0);
}

static void test_syntax_errors(void **state)
{
    (void)state;
    rejected("nump [1] -> [1]", "column 1: unknown rule 'nump'");
    rejected("numpy [1] [2", "column 11: shape 2:");
    rejected("numpy [1] [x] -> [1]", "column 11: shape 2: column 2: expected a dim");
    rejected("numpy [1] [2]", "missing '-> EXPECTED'");
    rejected("numpy [1] -> ", "expected a shape, 'error' or 'error:KIND' after '->'");
    rejected("numpy [1] -> error:oops", "unknown error kind 'oops'");
    rejected("numpy [1] -> [1] extra", "unexpected 'extra' after the expected result");
    rejected("pdpd [1] axis=0 [1] -> [1]", "options come first");
    rejected("pdpd axis=x [1] [1] -> [1]", "axis: expected an integer");
    rejected("pdpd axis=1 axis=2 [1] [1] -> [1]", "option 'axis' given twice");
    rejected("pdpd profile=tf [1] [1] -> [1]", "unknown profile 'tf'");
    rejected("explicit axes=0,,1 [1] [1,1,1] -> [1]", "expected an integer at entry 1");
    rejected("numpy color=red [1] -> [1]", "unknown option 'color'");
    rejected("numpy 3 -> [1]", "expected KEY=VALUE, a shape");
    rejected("numpy [1]] -> [1]", "unexpected ']' after ']'");
}

static void test_check_against_reference(void **state)
{
    (void)state;
    struct {
        const char *line;
        int agrees;
    } cases[] = {
        {"numpy [2,1,5] [4,1] -> [2,4,5]", 1},
        {"numpy [2,1,5] [4,1] -> [2,4,6]", 0},
        {"numpy [3] [2] -> error", 1},
        {"numpy [3] [2] -> error:dim-mismatch", 1},
        {"numpy [3] [2] -> error:rank-mismatch", 0},
        {"numpy [3] [3] -> error", 0},
        {"numpy axis=1 [3] [3] -> error:bad-params", 1},
        {"onnx-uni [3] -> error:operand-count", 1},
        {"pdpd [2,3,4,5] [3,1] -> error:dim-mismatch", 1},
        {"pdpd axis=1 [2,3,4,5] [3,1] -> [2,3,4,5]", 1},
        {"explicit [1] [1] -> error:bad-params", 1},
        {"explicit axes=0 axes-mapping=1 [1] [1,1] -> error:bad-params", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char why[256];
        assert_int_equal(bc_vector_parse(cases[i].line, vec, why, sizeof why), 1);
        bc_error_kind got;
        bc_shape shape;
        bc_error err;
        if (bc_vector_check(vec, &got, &shape, &err) != cases[i].agrees)
            fail_msg("'%s' should %sagree", cases[i].line, cases[i].agrees ? "" : "not ");
    }
}

static void test_check_file_names_lines(void **state)
{
    (void)state;
    char path[] = "/tmp/bc_vectors_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs("# header\n"
          "numpy [1] [2] -> [2]\n"
          "\n"
          "numpy [3] [2] -> [3]\n"
          "numpy [ -> [1]\n"
          "none [2] [2] -> [2]  # ok\n",
          f);
    fclose(f);
    char *text = NULL;
    size_t size = 0;
    FILE *report = open_memstream(&text, &size);
    long passed = 0, failed = 0;
    assert_int_equal(bc_vector_check_file(path, report, &passed, &failed), 0);
    fclose(report);
    assert_int_equal(passed, 2);
    assert_int_equal(failed, 2);
    char want4[256], want5[256];
    snprintf(want4, sizeof want4, "%s:4: FAIL numpy [3] [2] -> [3]", path);
    snprintf(want5, sizeof want5, "%s:5: syntax:", path);
    if (!strstr(text, want4) || !strstr(text, want5) || !strstr(text, "dim-mismatch"))
        fail_msg("report lacks the failing lines:\n%s", text);
    free(text);
    unlink(path);
    report = fopen("/dev/null", "w");
    assert_int_equal(bc_vector_check_file("/nonexistent/x.vec", report, &passed, &failed), -1);
    fclose(report);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_and_format),
        cmocka_unit_test(test_syntax_errors),
        cmocka_unit_test(test_check_against_reference),
        cmocka_unit_test(test_check_file_names_lines),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
