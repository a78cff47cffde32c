/*
 * The names of the coverage classes (internal.h), as the reports print
 * them.  The table follows the enum's order.
 */
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
};

const char *bc_coverage_name(bc_coverage c)
{
    return (unsigned)c < BC_COV_COUNT ? coverage_names[c] : "?";
}
