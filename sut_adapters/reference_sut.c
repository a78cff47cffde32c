/*
 * The built-in "reference" SUT: the reference rules themselves, so that a
 * run without --sut checks every metamorphic property on the reference.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"

void bc_answer_from_reference(const bc_params *p, int n, const bc_shape *shapes,
                              bc_sut_answer *answer)
{
    bc_error err;
    bc_error_kind kind = bc_infer(p, n, shapes, &answer->shape, &err);
    if (kind == BC_OK) {
        answer->status = BC_SUT_OK;
        return;
    }
    answer->status = BC_SUT_REJECTED;
    answer->kind = kind;
    snprintf(answer->message, sizeof answer->message, "%s", err.message);
}

static void reference_infer(const bc_sut *sut, const bc_params *p, int n, const bc_shape *shapes,
                            bc_sut_answer *answer)
{
    (void)sut;
    bc_answer_from_reference(p, n, shapes, answer);
}

static const bc_sut_ops reference_ops = {reference_infer};

const bc_sut bc_reference_sut = {
    "reference", "broadcheck " BC_VERSION_STRING,
    "the reference rules of spec/RULES.md (the default SUT)", NULL, &reference_ops,
};
