/*
 * Instruction counts of the fast engine per call, for bench/callgrind_calls.sh:
 * N calls of one float32 add (numpy rule) on contiguous operands, one-shot
 * (bc_eval_binary) or prepared once (bc_eval_plan_binary) and run N times.
 * Usage: callgrind_calls A B TRANSPOSED N PREPARED   (shapes as "[3,4]")
 */
#include <stdio.h>
#include <stdlib.h>

#include "broadcheck/tensor.h"

static float *filled(int64_t n)
{
    float *p = aligned_alloc(64, (size_t)(n + 16) * sizeof *p);
    if (!p)
        exit(2);
    for (int64_t i = 0; i < n; i++)
        p[i] = (float)(i % 1000);
    return p;
}

int main(int argc, char **argv)
{
    if (argc != 6) {
        fprintf(stderr, "usage: callgrind_calls A B TRANSPOSED N PREPARED\n");
        return 2;
    }
    bc_shape sa, sb, sr;
    bc_params p = bc_params_for(BC_RULE_NUMPY);
    if (bc_shape_parse(argv[1], NULL, &sa, NULL, 0) || bc_shape_parse(argv[2], NULL, &sb, NULL, 0))
        return 2;
    bc_shape pair[2] = {sa, sb};
    bc_error err;
    if (bc_infer(&p, 2, pair, &sr, &err))
        return 2;
    int transposed = atoi(argv[3]), calls = atoi(argv[4]), prepared = atoi(argv[5]);
    int64_t na, nb, nr;
    bc_shape_numel(&sa, &na);
    bc_shape_numel(&sb, &nb);
    bc_shape_numel(&sr, &nr);
    float *a = filled(na), *b = filled(nb), *o = filled(nr);
    bc_tensor A = bc_tensor_contiguous(BC_FLOAT32, &sa, a);
    bc_tensor B = bc_tensor_contiguous(BC_FLOAT32, &sb, b);
    bc_tensor O = bc_tensor_contiguous(BC_FLOAT32, &sr, o);
    if (transposed && A.rank == 2) { /* a[i][j] = mem[j][i], as the bench's */
        int64_t t = A.strides[0];
        A.strides[0] = A.strides[1];
        A.strides[1] = t;
    }
    if (prepared) {
        bc_eval_plan *plan;
        if (bc_eval_plan_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &A, &B, &O, &plan, &err)) {
            fprintf(stderr, "%s\n", err.message);
            return 1;
        }
        const void *in[2] = {a, b};
        for (int c = 0; c < calls; c++)
            bc_eval_plan_run(plan, o, in, NULL);
        bc_eval_plan_free(plan);
    } else {
        for (int c = 0; c < calls; c++)
            if (bc_eval_binary(BC_EVAL_FAST, BC_OP_ADD, &p, &A, &B, &O, &err)) {
                fprintf(stderr, "%s\n", err.message);
                return 1;
            }
    }
    printf("%g\n", (double)o[nr - 1]);
    free(a);
    free(b);
    free(o);
    return 0;
}
