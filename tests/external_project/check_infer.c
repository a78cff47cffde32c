/*
 * Proves the installed headers and library work from outside: numpy
 * broadcasting of [2,1,5] and [4,1] is [2,4,5] (spec/RULES.md).
 */
#include <stdio.h>

#include <broadcheck/shape.h>

int main(void)
{
    bc_shape in[2], out;
    char why[256];
    if (bc_shape_parse("[2,1,5]", NULL, &in[0], why, sizeof why) != 0 ||
        bc_shape_parse("[4,1]", NULL, &in[1], why, sizeof why) != 0) {
        fprintf(stderr, "check_infer: bc_shape_parse failed: %s\n", why);
        return 1;
    }
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    bc_error err;
    if (bc_infer(&p, 2, in, &out, &err) != BC_OK) {
        fprintf(stderr, "check_infer: bc_infer rejected the case: %s\n", err.message);
        return 1;
    }
    char text[64];
    bc_shape_format(&out, text, sizeof text);
    if (out.rank != 3 || out.dims[0] != 2 || out.dims[1] != 4 || out.dims[2] != 5) {
        fprintf(stderr, "check_infer: numpy [2,1,5] [4,1] gave %s, want [2,4,5]\n", text);
        return 1;
    }
    printf("numpy [2,1,5] [4,1] -> %s\n", text);
    return 0;
}
