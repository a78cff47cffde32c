/*
 * Capabilities: a question outside what a worker declared is answered
 * "unsupported" by the harness, and never sent (docs/ISOLATION.md).
 */
#include <stdio.h>
#include <string.h>

#include "isolated.h"

static int bit(uint32_t mask, int i)
{
    return (mask >> i) & 1u;
}

static int refuse_shapes(const bc_adapter_capabilities *c, const bc_params *p, int n,
                         const bc_shape *shapes, char *why, size_t cap)
{
    if (!bit(c->rules, (int)p->rule)) {
        snprintf(why, cap, "the adapter does not declare rule %s", bc_rule_name(p->rule));
        return 1;
    }
    bc_profile prof = bc_params_resolved_profile(p);
    if (prof != BC_PROFILE_DEFAULT && !bit(c->profiles, (int)prof)) {
        snprintf(why, cap, "the adapter does not declare %s profile %s", bc_rule_name(p->rule),
                 bc_profile_name(prof));
        return 1;
    }
    if (n > c->max_operands) {
        snprintf(why, cap, "%d shapes, the adapter declares at most %d", n, c->max_operands);
        return 1;
    }
    for (int i = 0; i < n; i++)
        if (shapes[i].rank > c->max_rank) {
            snprintf(why, cap, "shape %d has rank %d, the adapter declares at most %d", i,
                     shapes[i].rank, c->max_rank);
            return 1;
        }
    return 0;
}

int bc_caps_refuse_shape(const bc_adapter_capabilities *caps, const bc_params *p, int n,
                         const bc_shape *shapes, char *why, size_t cap)
{
    why[0] = '\0';
    if (!(caps->features & BC_ADAPTER_FEATURE_SHAPE)) {
        snprintf(why, cap, "the adapter does not declare shape inference");
        return 1;
    }
    return refuse_shapes(caps, p, n, shapes, why, cap);
}

static const char *const kind_names[] = {"elementwise", "select", "broadcast", "sum-to-shape",
                                         "matmul"};

static int refuse_dtype(const bc_adapter_capabilities *c, bc_dtype t, char *why, size_t cap)
{
    if (bit(c->dtypes, (int)t))
        return 0;
    snprintf(why, cap, "the adapter does not declare dtype %s", bc_dtype_name(t));
    return 1;
}

int bc_caps_refuse_eval(const bc_adapter_capabilities *caps, const bc_eval_request *req,
                        char *why, size_t cap)
{
    why[0] = '\0';
    if ((unsigned)req->kind >= BC_VALUE_OP_COUNT ||
        !(caps->features & (BC_ADAPTER_FEATURE_ELEMENTWISE << req->kind))) {
        snprintf(why, cap, "the adapter does not declare %s",
                 (unsigned)req->kind < BC_VALUE_OP_COUNT ? kind_names[req->kind] : "this value kind");
        return 1;
    }
    if (req->kind == BC_VALUE_ELEMENTWISE && !bit(caps->ops, (int)req->op)) {
        snprintf(why, cap, "the adapter does not declare op %s", bc_op_name(req->op));
        return 1;
    }
    if (refuse_shapes(caps, req->params, req->n, req->shapes, why, cap) ||
        refuse_dtype(caps, req->out_dtype, why, cap))
        return 1;
    for (int i = 0; i < req->ninputs; i++)
        if (refuse_dtype(caps, req->inputs[i].dtype, why, cap))
            return 1;
    return 0;
}

/* Appends the names of mask's bits, comma-separated. */
static size_t names(char *buf, size_t cap, size_t at, const char *label, uint32_t mask, int count,
                    const char *(*name)(int))
{
    if (at >= cap)
        return at;
    int k = snprintf(buf + at, cap - at, "; %s ", label);
    at += k > 0 ? (size_t)k : 0;
    int first = 1;
    for (int i = 0; i < count && at < cap; i++)
        if (bit(mask, i)) {
            k = snprintf(buf + at, cap - at, "%s%s", first ? "" : ",", name(i));
            at += k > 0 ? (size_t)k : 0;
            first = 0;
        }
    if (first && at < cap) {
        k = snprintf(buf + at, cap - at, "-");
        at += k > 0 ? (size_t)k : 0;
    }
    return at;
}

static const char *rule_name(int i) { return bc_rule_name((bc_rule)i); }
static const char *profile_name(int i) { return bc_profile_name((bc_profile)i); }
static const char *op_name(int i) { return bc_op_name((bc_op)i); }
static const char *dtype_name(int i) { return bc_dtype_name((bc_dtype)i); }
static const char *feature_name(int i) { return i == 0 ? "shape" : kind_names[i - 1]; }

void bc_caps_format(const bc_adapter_capabilities *c, char *buf, size_t cap)
{
    size_t at = names(buf, cap, 0, "implements", c->features, 1 + BC_VALUE_OP_COUNT, feature_name);
    at = names(buf, cap, at, "rules", c->rules, BC_RULE_COUNT, rule_name);
    if (bit(c->rules, BC_RULE_PDPD) || (c->profiles & ~1u))
        at = names(buf, cap, at, "profiles", c->profiles, BC_PROFILE_COUNT, profile_name);
    /* value kinds (bits 1 to 5), not the transport's bit 6 (wire.h) */
    if (c->features & ~(uint32_t)BC_ADAPTER_FEATURE_SHAPE & ~(uint32_t)BC_WIRE_FEATURE_SHM) {
        at = names(buf, cap, at, "ops", c->ops, BC_OP_COUNT, op_name);
        at = names(buf, cap, at, "dtypes", c->dtypes, BC_DTYPE_COUNT, dtype_name);
    }
    if (at < cap)
        snprintf(buf + at, cap - at, "; max rank %d; max operands %d", c->max_rank,
                 c->max_operands);
    if (strncmp(buf, "; ", 2) == 0)
        memmove(buf, buf + 2, strlen(buf + 2) + 1);
}

int bc_caps_refuse_partial(const bc_adapter_capabilities *caps, unsigned partial,
                           const bc_params *p, int n, const bc_pshape *shapes, char *why,
                           size_t cap)
{
    why[0] = '\0';
    if (!partial) {
        snprintf(why, cap, "the adapter takes no partial shapes (protocol 1, or none declared)");
        return 1;
    }
    if (!bit(caps->rules, (int)p->rule)) {
        snprintf(why, cap, "the adapter does not declare rule %s", bc_rule_name(p->rule));
        return 1;
    }
    bc_profile prof = bc_params_resolved_profile(p);
    if (prof != BC_PROFILE_DEFAULT && !bit(caps->profiles, (int)prof)) {
        snprintf(why, cap, "the adapter does not declare %s profile %s", bc_rule_name(p->rule),
                 bc_profile_name(prof));
        return 1;
    }
    if ((p->options & BC_OPT_AXES_UNKNOWN) && !(partial & BC_PARTIAL_AXES_UNKNOWN)) {
        /* a HELLO before protocol 5 cannot declare it (wire/PROTOCOL.md) */
        snprintf(why, cap,
                 "the adapter does not declare an axes_mapping of unknown values "
                 "(protocol 5)");
        return 1;
    }
    if (n < 0 || n > caps->max_operands) {
        snprintf(why, cap, "%d shapes, the adapter declares at most %d", n, caps->max_operands);
        return 1;
    }
    static const char *const what[] = {"unknown dims (?)", "intervals", "symbols",
                                       "shapes of unknown rank"};
    for (int i = 0; i < n; i++) {
        unsigned need = 0;
        if (shapes[i].rank == BC_RANK_DYNAMIC)
            need |= BC_PARTIAL_DYNAMIC_RANK;
        if (shapes[i].rank > caps->max_rank) {
            snprintf(why, cap, "shape %d has rank %d, the adapter declares at most %d", i,
                     shapes[i].rank, caps->max_rank);
            return 1;
        }
        for (int k = 0; k < shapes[i].rank; k++) {
            const bc_pdim *d = &shapes[i].dims[k];
            if (d->sym)
                need |= BC_PARTIAL_SYMBOL;
            if (d->lo == 0 && d->hi == BC_DIM_UNBOUNDED)
                need |= d->sym ? 0u : BC_PARTIAL_DYNAMIC;
            else if (d->lo != d->hi)
                need |= BC_PARTIAL_INTERVAL;
        }
        for (int f = 0; f < 4; f++)
            if ((need >> f) & ~partial >> f & 1u) {
                snprintf(why, cap, "shape %d has %s, which the adapter does not declare", i,
                         what[f]);
                return 1;
            }
    }
    return 0;
}
