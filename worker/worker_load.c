/*
 * Loading an adapter library and checking its descriptor: everything the
 * harness will rely on is verified here, once, before the HELLO.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "worker.h"

#define KNOWN_FEATURES 0x3Fu /* bit 5, matmul values: appended */
#define VALUE_FEATURES (KNOWN_FEATURES & ~(uint32_t)BC_ADAPTER_FEATURE_SHAPE)

/* One mask of the capabilities: no bits past the enumeration. */
static int check_mask(const char *path, const char *field, uint32_t v, uint32_t known, char *why,
                      size_t cap)
{
    if ((v & ~known) == 0)
        return 0;
    snprintf(why, cap, "%s: bad descriptor: caps.%s has unknown bits 0x%x", path, field,
             v & ~known);
    return -1;
}

static int check_descriptor(const char *path, const bc_adapter *d, char *why, size_t cap)
{
    if (d->abi_version < BC_ADAPTER_ABI_OLDEST || d->abi_version > BC_ADAPTER_ABI_VERSION) {
        snprintf(why, cap, "%s: ABI version mismatch: the adapter was built for ABI version %u, "
                           "this broadcheck speaks versions %u to %u", path, d->abi_version,
                 BC_ADAPTER_ABI_OLDEST, BC_ADAPTER_ABI_VERSION);
        return -1;
    }
    if (d->struct_size < BC_ADAPTER_V1_SIZE) {
        snprintf(why, cap, "%s: bad descriptor: struct_size is %u, a version-%u descriptor has "
                           "at least %zu bytes", path, d->struct_size, BC_ADAPTER_ABI_VERSION,
                 (size_t)BC_ADAPTER_V1_SIZE);
        return -1;
    }
    if (!d->name || !d->name[0] || strlen(d->name) > BC_WIRE_MAX_NAME) {
        snprintf(why, cap, "%s: bad descriptor: the name is %s", path,
                 d->name && d->name[0] ? "longer than 255 bytes" : "missing");
        return -1;
    }
    const bc_adapter_capabilities *c = &d->caps;
    if (check_mask(path, "features", c->features, KNOWN_FEATURES, why, cap) ||
        check_mask(path, "rules", c->rules, (1u << BC_RULE_COUNT) - 1, why, cap) ||
        check_mask(path, "profiles", c->profiles, (1u << BC_PROFILE_COUNT) - 1, why, cap) ||
        check_mask(path, "ops", c->ops, (1u << BC_OP_COUNT) - 1, why, cap) ||
        check_mask(path, "dtypes", c->dtypes, (1u << BC_DTYPE_COUNT) - 1, why, cap))
        return -1;
    /* a version-1 adapter may size its arrays by version 1's 72 (adapter.h) */
    const int most = d->abi_version == 1 ? BC_ADAPTER_V1_MAX_OPERANDS : BC_ADAPTER_MAX_OPERANDS;
    if (c->max_rank < 0 || c->max_rank > BC_ADAPTER_MAX_RANK || c->max_operands < 1 ||
        c->max_operands > most) {
        snprintf(why, cap, "%s: bad descriptor: caps.max_rank %d (0..%d) or caps.max_operands %d "
                           "(1..%d in ABI version %u) out of range", path, c->max_rank,
                 BC_ADAPTER_MAX_RANK, c->max_operands, most, d->abi_version);
        return -1;
    }
    if ((c->features & BC_ADAPTER_FEATURE_SHAPE) && !d->infer_shape) {
        snprintf(why, cap, "%s: bad descriptor: declares shape inference but infer_shape is NULL",
                 path);
        return -1;
    }
    if ((c->features & VALUE_FEATURES) && !d->eval) {
        snprintf(why, cap, "%s: bad descriptor: declares value operations but eval is NULL", path);
        return -1;
    }
    uint32_t partial = bc_worker_partial(d);
    if (check_mask(path, "partial", partial, 0x1Fu, why, cap))
        return -1;
    if (partial && !d->infer_partial) {
        snprintf(why, cap, "%s: bad descriptor: declares partial shapes but infer_partial is NULL",
                 path);
        return -1;
    }
    return 0;
}

int bc_worker_load(const char *path, bc_worker_adapter *ad, char *why, size_t cap)
{
    memset(ad, 0, sizeof *ad);
    ad->library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!ad->library) {
        const char *e = dlerror();
        snprintf(why, cap, "cannot load adapter %s: %s", path, e ? e : "dlopen failed");
        return -1;
    }
    dlerror();
    /* POSIX: a function pointer may be read through a data pointer. */
    void *sym = dlsym(ad->library, BC_ADAPTER_ENTRY_SYMBOL);
    if (!sym) {
        snprintf(why, cap, "%s: missing symbol %s (not a broadcheck adapter, or built for "
                           "another ABI version)", path, BC_ADAPTER_ENTRY_SYMBOL);
        bc_worker_unload(ad);
        return -1;
    }
    bc_adapter_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    ad->desc = entry();
    if (!ad->desc) {
        snprintf(why, cap, "%s: %s returned no descriptor", path, BC_ADAPTER_ENTRY_SYMBOL);
        bc_worker_unload(ad);
        return -1;
    }
    if (check_descriptor(path, ad->desc, why, cap) != 0) {
        bc_worker_unload(ad);
        return -1;
    }
    return 0;
}

void bc_worker_unload(bc_worker_adapter *ad)
{
    if (ad->library)
        dlclose(ad->library);
    memset(ad, 0, sizeof *ad);
}

uint32_t bc_worker_partial(const bc_adapter *d)
{
    /* An adapter built before the partial fields were appended has none. */
    return d->struct_size >= sizeof *d ? d->partial : 0;
}

void bc_worker_hello(const bc_worker_adapter *ad, bc_wire_hello *hello)
{
    memset(hello, 0, sizeof *hello);
    hello->partial = bc_worker_partial(ad->desc);
    /* This worker takes inputs laid out as generated (3) and says whether
     * the adapter takes partial shapes (0 if not); it says 4 only for more
     * than 72 operands, so that a harness of version 3 takes every other
     * adapter as before (PROTOCOL.md, Versioning). */
    hello->protocol = ad->desc->caps.max_operands > BC_WIRE_V3_MAX_SHAPES
                          ? BC_WIRE_PROTOCOL_MANY_OPERANDS
                          : BC_WIRE_PROTOCOL_LAYOUT;
    /* and 5 only for an adapter taking an axes_mapping of unknown values */
    if (hello->partial & BC_ADAPTER_PARTIAL_AXES_UNKNOWN)
        hello->protocol = BC_WIRE_PROTOCOL_AXES_UNKNOWN;
    snprintf(hello->name, sizeof hello->name, "%s", ad->desc->name);
    snprintf(hello->version, sizeof hello->version, "%s",
             ad->desc->version ? ad->desc->version : "");
    snprintf(hello->description, sizeof hello->description, "%s",
             ad->desc->description ? ad->desc->description : "");
    hello->caps = ad->desc->caps;
    /* and takes value questions in a shared file (EVAL_SHM, worker_shm.c):
     * a transport feature of this program, never the adapter's */
    hello->caps.features |= BC_WIRE_FEATURE_SHM;
}
