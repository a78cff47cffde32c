/*
 * Test scaffolding for test_reports only: three fake properties standing in
 * for properties/property.c, so that the reports can be tested on their own.
 */
#include <string.h>

#include "broadcheck/properties.h"

static const bc_property_info fake_properties[] = {
    {"fake-differential", "differential", "checks nothing", "catches nothing", ~0u, 0, 0},
    {"fake-commutative", "metamorphic", "checks nothing", "catches nothing", ~0u, 0, 0},
    {"fake-unsupported", "metamorphic", "checks nothing", "catches nothing", ~0u, 0, 0},
};

const bc_property_info *bc_properties(int *count)
{
    if (count)
        *count = (int)(sizeof fake_properties / sizeof fake_properties[0]);
    return fake_properties;
}

int bc_property_from_name(const char *name)
{
    for (int i = 0; i < (int)(sizeof fake_properties / sizeof fake_properties[0]); i++)
        if (strcmp(fake_properties[i].name, name) == 0)
            return i;
    return -1;
}
