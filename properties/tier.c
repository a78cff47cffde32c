/*
 * Value tiers (docs/PROPERTIES.md "Value tiers"): their names, and whether a
 * run at one can go within its memory budget and the SUT's question size.
 * Apart from the runner, so that the reports (which name the tier) link it
 * alone.
 */
#include <stdio.h>
#include <string.h>

#include "broadcheck/properties.h"

static const char *const tier_names[BC_TIER_COUNT] = {"small", "medium", "huge"};

const char *bc_value_tier_name(bc_value_tier t)
{
    return t >= 0 && t < BC_TIER_COUNT ? tier_names[t] : "unknown";
}

int bc_value_tier_from_name(const char *name, bc_value_tier *out)
{
    for (int t = 0; t < BC_TIER_COUNT; t++)
        if (strcmp(name, tier_names[t]) == 0) {
            *out = (bc_value_tier)t;
            return 0;
        }
    return -1;
}

int bc_value_tier_refusal(bc_value_tier t, int64_t max_bytes, int64_t max_question_bytes,
                          char *why, size_t cap)
{
    if (t < 0 || t >= BC_TIER_COUNT) {
        snprintf(why, cap, "no value tier %d (small, medium, huge)", (int)t);
        return -1;
    }
    if (max_bytes < 0) {
        snprintf(why, cap, "a negative memory budget (%lld bytes)", (long long)max_bytes);
        return -1;
    }
    if (t != BC_TIER_HUGE)
        return 0;
    if (max_bytes < BC_HUGE_MIN_BYTES) {
        snprintf(why, cap, "the huge value tier needs a memory budget of at least %lld bytes "
                 "(%lld GiB: a result of 2^31 one-byte elements, the SUT's and the oracle's, and "
                 "the inputs), %s; give it with --max-bytes on a machine that has it",
                 (long long)BC_HUGE_MIN_BYTES, (long long)(BC_HUGE_MIN_BYTES >> 30),
                 max_bytes == 0 ? "and none was given" : "more than was given");
        return -1;
    }
    if (max_question_bytes > 0 && max_question_bytes < ((int64_t)1 << 31)) {
        snprintf(why, cap, "the huge value tier runs in-process SUTs (built-in ones) and workers "
                 "that take shared-file questions (HELLO features bit 6, wire/PROTOCOL.md): "
                 "this one takes questions of at most %lld bytes (the wire protocol's frame "
                 "limit), and a huge case's result alone is past 2^31 bytes; such a SUT is not "
                 "examined on this tier",
                 (long long)max_question_bytes);
        return -1;
    }
    return 0;
}
