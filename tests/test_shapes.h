/*
 * Shapes for cmocka tests: sh("[2,3]") is that shape, and a text that does
 * not parse fails the test naming it.  Include after <cmocka.h>.
 */
#ifndef BROADCHECK_TEST_SHAPES_H
#define BROADCHECK_TEST_SHAPES_H

#include "broadcheck/shape.h"

static inline bc_shape sh(const char *text)
{
    bc_shape s;
    char why[128];
    if (bc_shape_parse(text, NULL, &s, why, sizeof why))
        fail_msg("bad shape %s: %s", text, why);
    return s;
}

#endif
