/*
 * Guarded buffers (guard.h): each in its own mapping, inaccessible gaps on
 * both sides, poison in between.  A pool keeps its slots across resets, so
 * a question costs system calls only when it needs a bigger buffer than any
 * before it.
 */
#define _DEFAULT_SOURCE
#include "guard.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

typedef struct slot {
    unsigned char *base; /* the mapping: gap, data pages, gap */
    size_t length;
    unsigned char *data; /* the accessible pages */
    size_t data_length;
    uint64_t used_in; /* the pool's generation it was last handed out in */
    unsigned char *buf; /* in use: the buffer, at the end of the data pages before its margin */
    size_t bytes, margin;
    int label;
    unsigned char *clean; /* every byte before it is poison (a write there is found by bc_guard_check) */
} slot;

struct bc_guard_pool {
    slot *slots;
    int count, capacity;
    int cursor; /* where the next allocation looks first: slots are reused in order */
    int last;   /* the slot allocated last */
    /* A slot is in use while its used_in is this: a reset frees every slot
     * by counting on, not by a pass over hundreds of them (that pass, and
     * summing the mapped bytes, were 5 % of the value properties) */
    uint64_t generation;
    size_t mapped; /* the bytes of every slot's mapping */
    size_t page;
    unsigned char *poison; /* a page of poison bytes, to compare with */
};

bc_guard_pool *bc_guard_pool_new(void)
{
    bc_guard_pool *pool = calloc(1, sizeof *pool);
    if (!pool)
        return NULL;
    pool->page = (size_t)sysconf(_SC_PAGESIZE);
    pool->generation = 1;
    if (!(pool->poison = malloc(pool->page))) {
        free(pool);
        return NULL;
    }
    memset(pool->poison, BC_GUARD_POISON, pool->page);
    return pool;
}

void bc_guard_pool_free(bc_guard_pool *pool)
{
    if (!pool)
        return;
    for (int i = 0; i < pool->count; i++)
        munmap(pool->slots[i].base, pool->slots[i].length);
    free(pool->slots);
    free(pool->poison);
    free(pool);
}

/* At a reset, slots the last question did not use are unmapped, the
 * largest first, while the pool maps more than this: a pool kept across
 * many questions (the runner keeps one per thread) holds what the last
 * question used and at most this much more, not every buffer it ever saw
 * (a huge-tier buffer is 2 GiB).  Reused slots are what spares a run the
 * page faults of fresh ones. */
#define BC_GUARD_KEEP_BYTES ((size_t)512 << 20)

static int in_use(const bc_guard_pool *pool, const slot *s)
{
    return s->used_in == pool->generation;
}

/* Unmaps slots not in use, the largest first, while the pool maps more
 * than keep bytes. */
static void unmap_free_slots(bc_guard_pool *pool, size_t keep)
{
    while (pool->mapped > keep) {
        int largest = -1;
        for (int i = 0; i < pool->count; i++)
            if (!in_use(pool, &pool->slots[i]) &&
                (largest < 0 || pool->slots[i].length > pool->slots[largest].length))
                largest = i;
        if (largest < 0)
            break;
        pool->mapped -= pool->slots[largest].length;
        munmap(pool->slots[largest].base, pool->slots[largest].length);
        pool->slots[largest] = pool->slots[--pool->count]; /* the last one in its place */
    }
}

static void free_every_slot(bc_guard_pool *pool)
{
    pool->generation++;
    pool->cursor = 0;
    pool->last = 0;
}

void bc_guard_pool_reset(bc_guard_pool *pool)
{
    unmap_free_slots(pool, BC_GUARD_KEEP_BYTES);
    free_every_slot(pool);
}

void bc_guard_pool_trim(bc_guard_pool *pool, size_t keep)
{
    free_every_slot(pool);
    unmap_free_slots(pool, keep);
}

/* A new slot with at least `need` accessible bytes (a multiple of the page). */
static slot *new_slot(bc_guard_pool *pool, size_t need)
{
    if (pool->count == pool->capacity) {
        int capacity = pool->capacity ? 2 * pool->capacity : 16;
        slot *grown = realloc(pool->slots, (size_t)capacity * sizeof *grown);
        if (!grown)
            return NULL;
        pool->slots = grown;
        pool->capacity = capacity;
    }
    size_t length = BC_GUARD_GAP + need + BC_GUARD_GAP;
    void *base = mmap(NULL, length, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED)
        return NULL;
    unsigned char *data = (unsigned char *)base + BC_GUARD_GAP;
    if (mprotect(data, need, PROT_READ | PROT_WRITE) != 0) {
        munmap(base, length);
        return NULL;
    }
    slot *s = &pool->slots[pool->count++];
    *s = (slot){base, length, data, need, 0, NULL, 0, 0, 0, data + need};
    pool->mapped += length;
    return s;
}

/* A buffer in the smallest free slot that fits (a new one when none
 * does); its bytes poisoned too unless `filled` (the caller writes them). */
static void *alloc_in_pool(bc_guard_pool *pool, size_t bytes, size_t margin, int label,
                           int filled)
{
    if (bytes > SIZE_MAX / 2 - margin - pool->page)
        return NULL;
    size_t need = (bytes + margin + pool->page - 1) / pool->page * pool->page;
    if (need == 0)
        need = pool->page;
    /* The smallest free slot that fits, the first of equals from where the
     * last allocation was (a question allocates the same sizes in the same
     * order as the one before).  The smallest, not the first: a small
     * buffer in a large slot made the next large one map a new slot, and
     * a medium-tier run kept mapping and faulting in fresh pages. */
    slot *best = NULL;
    for (int k = 0, i = pool->cursor; k < pool->count; k++, i = i + 1 < pool->count ? i + 1 : 0) {
        slot *s = &pool->slots[i];
        if (!in_use(pool, s) && s->data_length >= need && (!best || s->data_length < best->data_length)) {
            best = s;
            /* none is smaller, and it is the first of equals: the usual
             * case (the same sizes as the question before), found without
             * the rest of the pool, which a question of many operands
             * filled with hundreds of slots (40 % of the value properties'
             * instructions went to this loop) */
            if (s->data_length == need)
                break;
        }
    }
    if (!best && !(best = new_slot(pool, need)))
        return NULL;
    pool->last = (int)(best - pool->slots);
    pool->cursor = (pool->last + 1) % pool->count;
    best->used_in = pool->generation;
    best->bytes = bytes;
    best->margin = margin;
    best->label = label;
    best->buf = best->data + best->data_length - margin - bytes;
    /* Poison from the lower of this buffer and the last one used here to the
     * end: the bytes below were poisoned before and checked since (every
     * buffer a SUT is handed, input or output, goes through bc_guard_check
     * after its call).  A fresh slot, or one whose check found a write, is
     * poisoned whole.  A buffer its caller fills skips its own bytes, not
     * the margin. */
    unsigned char *from = best->buf < best->clean ? best->buf : best->clean;
    if (best->clean == best->data + best->data_length)
        from = best->data;
    unsigned char *end = best->data + best->data_length;
    if (filled) {
        memset(from, BC_GUARD_POISON, (size_t)(best->buf - from));
        from = best->buf + bytes;
    }
    memset(from, BC_GUARD_POISON, (size_t)(end - from));
    best->clean = best->buf;
    return best->buf;
}

void *bc_guard_alloc(bc_guard_pool *pool, size_t bytes, size_t margin, int label)
{
    return alloc_in_pool(pool, bytes, margin, label, 0);
}

void *bc_guard_alloc_filled(bc_guard_pool *pool, size_t bytes, size_t margin, int label)
{
    return alloc_in_pool(pool, bytes, margin, label, 1);
}

/* The slot of buf, looked for from the last allocated backwards (an
 * output is checked soon after it is allocated). */
static const slot *slot_of(const bc_guard_pool *pool, const void *buf)
{
    for (int k = 0; k < pool->count; k++) {
        const slot *s = &pool->slots[(pool->last - k + pool->count) % pool->count];
        if (in_use(pool, s) && s->buf == buf)
            return s;
    }
    return NULL;
}

static int all_poison(const bc_guard_pool *pool, const unsigned char *p, size_t n)
{
    for (size_t done = 0; done < n; done += pool->page) {
        size_t chunk = n - done < pool->page ? n - done : pool->page;
        if (memcmp(p + done, pool->poison, chunk) != 0)
            return 0;
    }
    return 1;
}

int bc_guard_check(bc_guard_pool *pool, const void *buf)
{
    slot *s = (slot *)slot_of(pool, buf);
    if (!s)
        return BC_GUARD_NOT_A_BUFFER;
    const int verdict = !all_poison(pool, s->buf + s->bytes, s->margin) ? BC_GUARD_WROTE_AFTER
                        : !all_poison(pool, s->data, (size_t)(s->buf - s->data))
                            ? BC_GUARD_WROTE_BEFORE
                            : BC_GUARD_INTACT;
    /* The next buffer here re-poisons only from the lower of it and this
     * one, trusting the bytes below to be poison: not so once a SUT wrote
     * them, and a stale byte would fail the next question (a shrink's
     * candidate) that did not write it.  Poisoned whole, as a new slot. */
    if (verdict != BC_GUARD_INTACT)
        s->clean = s->data + s->data_length;
    return verdict;
}

int bc_guard_intact(bc_guard_pool *pool, const void *buf)
{
    return bc_guard_check(pool, buf) == BC_GUARD_INTACT;
}

int bc_guard_find(const bc_guard_pool *pool, const void *addr, int *label, int *after,
                  size_t *distance)
{
    const unsigned char *a = addr;
    for (int i = 0; i < pool->count; i++) {
        const slot *s = &pool->slots[i];
        /* compare as integers: addr may be anywhere */
        uintptr_t x = (uintptr_t)a, lo = (uintptr_t)s->base, hi = lo + s->length;
        uintptr_t start = (uintptr_t)s->buf, end = start + s->bytes;
        if (!in_use(pool, s) || x < lo || x >= hi || (x >= start && x < end))
            continue;
        *label = s->label;
        *after = x >= end;
        *distance = x >= end ? x - end : start - x;
        return 1;
    }
    return 0;
}
