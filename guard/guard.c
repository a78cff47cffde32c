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
    int in_use;
    unsigned char *buf; /* in use: the buffer, at the end of the data pages before its margin */
    size_t bytes, margin;
    int label;
} slot;

struct bc_guard_pool {
    slot *slots;
    int count, capacity;
    size_t page;
};

bc_guard_pool *bc_guard_pool_new(void)
{
    bc_guard_pool *pool = calloc(1, sizeof *pool);
    if (pool)
        pool->page = (size_t)sysconf(_SC_PAGESIZE);
    return pool;
}

void bc_guard_pool_free(bc_guard_pool *pool)
{
    if (!pool)
        return;
    for (int i = 0; i < pool->count; i++)
        munmap(pool->slots[i].base, pool->slots[i].length);
    free(pool->slots);
    free(pool);
}

void bc_guard_pool_reset(bc_guard_pool *pool)
{
    for (int i = 0; i < pool->count; i++)
        pool->slots[i].in_use = 0;
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
    *s = (slot){base, length, data, need, 0, NULL, 0, 0, 0};
    return s;
}

void *bc_guard_alloc(bc_guard_pool *pool, size_t bytes, size_t margin, int label)
{
    if (bytes > SIZE_MAX / 2 - margin - pool->page)
        return NULL;
    size_t need = (bytes + margin + pool->page - 1) / pool->page * pool->page;
    if (need == 0)
        need = pool->page;
    slot *best = NULL; /* the smallest free slot that fits: the least to poison */
    for (int i = 0; i < pool->count; i++) {
        slot *s = &pool->slots[i];
        if (!s->in_use && s->data_length >= need && (!best || s->data_length < best->data_length))
            best = s;
    }
    if (!best && !(best = new_slot(pool, need)))
        return NULL;
    memset(best->data, BC_GUARD_POISON, best->data_length);
    best->in_use = 1;
    best->bytes = bytes;
    best->margin = margin;
    best->label = label;
    best->buf = best->data + best->data_length - margin - bytes;
    return best->buf;
}

static const slot *slot_of(const bc_guard_pool *pool, const void *buf)
{
    for (int i = 0; i < pool->count; i++)
        if (pool->slots[i].in_use && pool->slots[i].buf == buf)
            return &pool->slots[i];
    return NULL;
}

static int all_poison(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != BC_GUARD_POISON)
            return 0;
    return 1;
}

int bc_guard_intact(const bc_guard_pool *pool, const void *buf)
{
    const slot *s = slot_of(pool, buf);
    if (!s)
        return 0;
    return all_poison(s->data, (size_t)(s->buf - s->data)) &&
           all_poison(s->buf + s->bytes, s->margin);
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
        if (!s->in_use || x < lo || x >= hi || (x >= start && x < end))
            continue;
        *label = s->label;
        *after = x >= end;
        *distance = x >= end ? x - end : start - x;
        return 1;
    }
    return 0;
}
