/*
 * broadcheck shape: the reference's answer for one case.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broadcheck/vector.h"
#include "cli.h"

static const char shape_usage[] =
    "usage: broadcheck shape --rule RULE [OPTIONS] SHAPE SHAPE [SHAPE ...]\n"
    "\n"
    "Prints the result shape of the shapes under RULE, computed by the reference\n"
    "(spec/RULES.md). A shape is [d0,d1,...]; [] is the scalar.\n"
    "\n"
    "Partial shapes (spec/RULES.md §14): a dim may be ? (unknown), LO..HI, LO..\n"
    "(no upper bound), ..HI, or a symbol NAME (one value wherever it appears),\n"
    "optionally bounded as NAME:LO..HI; [...] is a shape of unknown rank. The\n"
    "answer then holds the result of every concretization the rule accepts.\n"
    "\n"
    "  --rule RULE          none | numpy | onnx-uni | pdpd | broadcast-to |\n"
    "                       bidirectional | explicit | matmul\n"
    "                       none and numpy take one or more shapes; onnx-uni,\n"
    "                       pdpd and matmul take A then B (pdpd's Select\n"
    "                       profiles: cond, then, else; openvino-broadcast:\n"
    "                       target, data); broadcast-to, bidirectional and\n"
    "                       explicit take the input then the target. matmul\n"
    "                       (spec/RULES.md §15): partial shapes too (§15.4). numpy\n"
    "                       under profile numpy-empty-fold also takes none: [].\n"
    "  --axis N             pdpd: the axis of A where B starts (default -1:\n"
    "                       rank(A) - rank(B))\n"
    "  --axes i,j,...       explicit: nGraph broadcast_axes, the target axes the\n"
    "                       input lacks ('' is the empty set)\n"
    "  --axes-mapping i,... explicit: OpenVINO axes_mapping, the target axis of each\n"
    "                       input axis; ?,? is a mapping of 2 unknown entries and\n"
    "                       ... one of unknown length too (a partial case,\n"
    "                       spec/RULES.md §14.9)\n"
    "  --profile NAME       pdpd: openvino-doc (default), openvino-shape-inference,\n"
    "                       paddle, openvino-select, ngraph-select,\n"
    "                       openvino-broadcast; broadcast-to: pytorch-expand;\n"
    "                       explicit: openvino-explicit, ngraph-explicit;\n"
    "                       numpy: numpy-empty-fold\n"
    "                       (spec/RULES.md §10; 'broadcheck list rules')\n"
    "  -h, --help           this text\n"
    "\n"
    "Output and exit codes:\n"
    "  0  the result shape, e.g. [2,4,5]\n"
    "  1  not broadcastable: one line 'error: KIND: ...' naming the axis and dims\n"
    "  2  malformed or invalid input (bad shape syntax, negative dim, unknown rule\n"
    "     or profile, missing --rule or explicit axes, wrong number of shapes)\n"
    "\n"
    "Examples:\n"
    "  broadcheck shape --rule numpy [2,1,5] [4,1]               # [2,4,5]\n"
    "  broadcheck shape --rule pdpd --axis 1 [2,3,4,5] [3,1]     # [2,3,4,5]\n"
    "  broadcheck shape --rule explicit --axes 0 [3] [2,3]       # [2,3]\n"
    "  broadcheck shape --rule bidirectional [3,1] [2,1,6]       # [2,3,6]\n"
    "  broadcheck shape --rule matmul [2,3,4] [4,5]              # [2,3,5]\n"
    "  broadcheck shape --rule numpy '[?,3]' '[2..5,1]' '[N,1]'  # [2..5,3]\n"
    "  broadcheck shape --rule explicit --axes-mapping '?,?' [2,3] [2,4,3]  # [2,4,3]\n";

/* The partial reference's answer (RULES.md §14); same outputs and exit codes. */
static int shape_partial(const bc_params *params, int n, char **args)
{
    bc_pshape *shapes = calloc((size_t)n, sizeof *shapes);
    bc_psymbols *syms = calloc(1, sizeof *syms);
    char why[512];
    int status = BC_EXIT_USAGE;
    if (!shapes || !syms) {
        fprintf(stderr, "broadcheck shape: out of memory\n");
        goto done;
    }
    for (int i = 0; i < n; i++) {
        const char *end;
        if (bc_pshape_parse(args[i], &end, &shapes[i], syms, why, sizeof why) != 0) {
            fprintf(stderr, "broadcheck shape: shape %d '%s': %s\n", i + 1, args[i], why);
            goto done;
        }
        if (*end != '\0') {
            fprintf(stderr, "broadcheck shape: shape %d '%s': column %d: unexpected text "
                            "after ']'\n", i + 1, args[i], (int)(end - args[i]) + 1);
            goto done;
        }
    }
    bc_pshape result;
    bc_error err;
    bc_error_kind kind = bc_pinfer(params, n, shapes, syms, &result, &err);
    if (kind == BC_OK) {
        char buf[BC_MAX_RANK * 80 + 8];
        bc_pshape_format(&result, syms, buf, sizeof buf);
        puts(buf);
        status = BC_EXIT_OK;
    } else if (bc_error_kind_is_invalid_input(kind)) {
        fprintf(stderr, "broadcheck shape: invalid input: %s\n", err.message);
    } else {
        printf("error: %s\n", err.message);
        status = BC_EXIT_FAIL;
    }
done:
    free(shapes);
    free(syms);
    return status;
}

int bc_cmd_shape(int argc, char **argv)
{
    static const struct option options[] = {
        {"rule", required_argument, NULL, 'r'},
        {"axis", required_argument, NULL, 'a'},
        {"axes", required_argument, NULL, 'x'},
        {"axes-mapping", required_argument, NULL, 'm'},
        {"profile", required_argument, NULL, 'p'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    const char *rule_name = NULL;
    const char *opt_values[4] = {NULL, NULL, NULL, NULL}; /* axis, axes, axes-mapping, profile */
    static const char *const opt_keys[4] = {"axis", "axes", "axes-mapping", "profile"};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+:h", options, NULL)) != -1) {
        switch (c) {
        case 'r': rule_name = optarg; break;
        case 'a': opt_values[0] = optarg; break;
        case 'x': opt_values[1] = optarg; break;
        case 'm': opt_values[2] = optarg; break;
        case 'p': opt_values[3] = optarg; break;
        case 'h': fputs(shape_usage, stdout); return BC_EXIT_OK;
        case ':':
            fprintf(stderr, "broadcheck shape: option '%s' needs a value\n", argv[optind - 1]);
            return BC_EXIT_USAGE;
        default:
            fprintf(stderr, "broadcheck shape: unknown option '%s' (see 'broadcheck shape "
                            "--help')\n", argv[optind - 1]);
            return BC_EXIT_USAGE;
        }
    }
    if (!rule_name) {
        fprintf(stderr, "broadcheck shape: missing --rule (none, numpy, onnx-uni, pdpd, "
                        "broadcast-to, bidirectional or explicit)\n");
        return BC_EXIT_USAGE;
    }
    bc_rule rule;
    if (bc_rule_from_name(rule_name, &rule) != 0) {
        fprintf(stderr, "broadcheck shape: --rule: unknown rule '%s' (expected none, numpy, "
                        "onnx-uni, pdpd, broadcast-to, bidirectional or explicit)\n", rule_name);
        return BC_EXIT_USAGE;
    }
    bc_params params = bc_params_for(rule);
    char why[512];
    for (int i = 0; i < 4; i++) {
        /* an axes-mapping of unknown values (?,? or ...; RULES.md §14.9), else a known one */
        int unknown = i == 2 && opt_values[i]
                          ? bc_params_set_unknown_mapping(&params, opt_values[i], why, sizeof why)
                          : 0;
        if (unknown < 0 ||
            (!unknown && opt_values[i] &&
             bc_params_set_option(&params, opt_keys[i], opt_values[i], why, sizeof why) != 0)) {
            fprintf(stderr, "broadcheck shape: --%s\n", why);
            return BC_EXIT_USAGE;
        }
    }
    const int unknown_mapping = (params.options & BC_OPT_AXES_UNKNOWN) != 0;
    if (unknown_mapping && (params.options & BC_OPT_AXES)) {
        /* they share one list: the unknown entries would stand for both */
        fprintf(stderr, "broadcheck shape: --axes-mapping of unknown values takes no --axes "
                        "beside it\n");
        return BC_EXIT_USAGE;
    }
    if (rule == BC_RULE_EXPLICIT && !(params.options & (BC_OPT_AXES | BC_OPT_AXES_MAPPING))) {
        fprintf(stderr, "broadcheck shape: --rule explicit needs --axes (broadcast_axes) or "
                        "--axes-mapping\n");
        return BC_EXIT_USAGE;
    }
    int n = argc - optind;
    /* only numpy's empty fold (RULES.md §3.1) takes no shape */
    const int empty_fold = bc_params_profile(&params) == BC_PROFILE_NUMPY_EMPTY_FOLD;
    if (n < 1 && !empty_fold) {
        fprintf(stderr, "broadcheck shape: no shapes given (e.g. [2,1,5] [4,1])\n");
        return BC_EXIT_USAGE;
    }
    if (n > BC_VECTOR_MAX_SHAPES) {
        fprintf(stderr, "broadcheck shape: %d shapes given; %s takes at most %d\n", n,
                rule_name, BC_MAX_OPERANDS);
        return BC_EXIT_USAGE;
    }
    for (int i = 0; i < n || (unknown_mapping && i == 0); i++)
        if (unknown_mapping || bc_pshape_text_is_partial(argv[optind + i]))
            return shape_partial(&params, n, argv + optind);
    bc_shape *shapes = calloc((size_t)(n > 0 ? n : 1), sizeof *shapes);
    if (!shapes) {
        fprintf(stderr, "broadcheck shape: out of memory\n");
        return BC_EXIT_USAGE;
    }
    int status = BC_EXIT_USAGE;
    for (int i = 0; i < n; i++) {
        const char *arg = argv[optind + i], *end;
        if (bc_shape_parse(arg, &end, &shapes[i], why, sizeof why) != 0) {
            fprintf(stderr, "broadcheck shape: shape %d '%s': %s\n", i + 1, arg, why);
            goto done;
        }
        if (*end != '\0') {
            fprintf(stderr, "broadcheck shape: shape %d '%s': column %d: unexpected text "
                            "after ']'\n", i + 1, arg, (int)(end - arg) + 1);
            goto done;
        }
    }
    bc_shape result;
    bc_error err;
    bc_error_kind kind = bc_infer(&params, n, shapes, &result, &err);
    if (kind == BC_OK) {
        char buf[BC_MAX_RANK * 21 + 3];
        bc_shape_format(&result, buf, sizeof buf);
        puts(buf);
        status = BC_EXIT_OK;
    } else if (bc_error_kind_is_invalid_input(kind)) {
        fprintf(stderr, "broadcheck shape: invalid input: %s\n", err.message);
    } else {
        printf("error: %s\n", err.message);
        status = BC_EXIT_FAIL;
    }
done:
    free(shapes);
    return status;
}
