/*
 * The names the reports print and merge reads back (internal.h): coverage
 * classes, how a cell or a run ended, why a shrink stopped.  Each table
 * follows its enum's order.
 */
#include <string.h>

#include "internal.h"

static const char *const coverage_names[BC_COV_COUNT] = {
    [BC_COV_ACCEPT] = "accept",
    [BC_COV_REJECT] = "reject",
    [BC_COV_RANK_0] = "rank-0",
    [BC_COV_SIZE_0] = "size-0",
    [BC_COV_STRETCH] = "stretch",
    [BC_COV_STRETCH_FIRST] = "stretch-first",
    [BC_COV_STRETCH_MIDDLE] = "stretch-middle",
    [BC_COV_STRETCH_LAST] = "stretch-last",
    [BC_COV_STRETCH_TO_0] = "stretch-to-0",
    [BC_COV_RANK_GAP] = "rank-gap",
    [BC_COV_MAX_RANK] = "max-rank",
    [BC_COV_MANY_OPERANDS] = "many-operands",
    [BC_COV_MAX_OPERANDS] = "max-operands",
    [BC_COV_HUGE_DIM] = "huge-dim",
    [BC_COV_VALUE] = "value",
    [BC_COV_VALUE_SIZE_0] = "value-size-0",
    [BC_COV_VALUE_STRIDED] = "value-strided",
    [BC_COV_VALUE_NARY] = "value-nary",
    [BC_COV_VALUE_SELECT] = "value-where",
    [BC_COV_VALUE_BROADCAST] = "value-broadcast",
    [BC_COV_VALUE_SUM_TO_SHAPE] = "value-sum-to-shape",
    [BC_COV_VALUE_HIGH_RANK] = "value-rank-7-plus",
    [BC_COV_VALUE_MANY_OPERANDS] = "value-many-operands",
    [BC_COV_PARTIAL] = "partial",
    [BC_COV_PARTIAL_DYNAMIC] = "partial-dynamic",
    [BC_COV_PARTIAL_INTERVAL] = "partial-interval",
    [BC_COV_PARTIAL_UNBOUNDED] = "partial-unbounded",
    [BC_COV_PARTIAL_SYMBOL] = "partial-symbol",
    [BC_COV_PARTIAL_SYMBOL_SHARED] = "partial-symbol-shared",
    [BC_COV_PARTIAL_DYNAMIC_RANK] = "partial-unknown-rank",
    [BC_COV_PARTIAL_REJECT] = "partial-reject",
    [BC_COV_PAST_64_OPERANDS] = "more-than-64-operands",
    [BC_COV_NO_OPERANDS] = "no-operands",
};

const char *bc_coverage_name(bc_coverage c)
{
    return (unsigned)c < BC_COV_COUNT ? coverage_names[c] : "?";
}

static const char *const cell_end_names[BC_CELL_END_COUNT] = {
    [BC_CELL_RAN] = "ran",
    [BC_CELL_FIRST_FAILURE] = "first-failure",
    [BC_CELL_MAX_FAILURES] = "max-failures",
    [BC_CELL_UNRESPONSIVE] = "sut-unresponsive",
    [BC_CELL_INTERRUPTED] = "interrupted",
    [BC_CELL_NO_TIME] = "no-time",
};

static const char *const run_end_names[BC_RUN_END_COUNT] = {
    [BC_RUN_COMPLETE] = "complete",
    [BC_RUN_MAX_FAILURES] = "max-failures",
    [BC_RUN_UNRESPONSIVE] = "sut-unresponsive",
    [BC_RUN_INTERRUPTED] = "interrupted",
};

static const char *const shrink_stop_names[BC_SHRINK_STOP_COUNT] = {
    [BC_SHRINK_MINIMAL] = "minimal",
    [BC_SHRINK_CALL_LIMIT] = "call-limit",
    [BC_SHRINK_TIME] = "time",
    [BC_SHRINK_UNRESPONSIVE] = "sut-unresponsive",
    [BC_SHRINK_INTERRUPTED] = "interrupted",
};

static int index_of(const char *const *names, int count, const char *name)
{
    for (int i = 0; i < count; i++)
        if (strcmp(names[i], name) == 0)
            return i;
    return -1;
}

const char *bc_cell_end_name(bc_cell_end e)
{
    return (unsigned)e < BC_CELL_END_COUNT ? cell_end_names[e] : "?";
}

int bc_cell_end_from_name(const char *name)
{
    return index_of(cell_end_names, BC_CELL_END_COUNT, name);
}

const char *bc_run_end_name(bc_run_end e)
{
    return (unsigned)e < BC_RUN_END_COUNT ? run_end_names[e] : "?";
}

int bc_run_end_from_name(const char *name)
{
    return index_of(run_end_names, BC_RUN_END_COUNT, name);
}

const char *bc_shrink_stop_name(bc_shrink_stop s)
{
    return (unsigned)s < BC_SHRINK_STOP_COUNT ? shrink_stop_names[s] : "?";
}

int bc_shrink_stop_from_name(const char *name)
{
    return index_of(shrink_stop_names, BC_SHRINK_STOP_COUNT, name);
}
