/*
 * Private to broadcheck: where the buffers of a value question live.  One
 * placement for every path a value question takes (the harness in process,
 * broadcheck-worker for adapter libraries, the bytes an exec: worker gets),
 * so that whatever a SUT reads or writes outside its buffers is the same in
 * every process, and a replay reproduces it:
 *
 *   [inaccessible][poison ... | the buffer | BC_GUARD_MARGIN poison][inaccessible]
 *
 * Each buffer sits at the end of its own pages, followed by its margin of
 * poison bytes and then BC_GUARD_GAP bytes mapped PROT_NONE; the bytes from
 * the start of its pages up to it are poison too, preceded by another gap.
 * So a read just past an input's last element gives poison (a wrong value
 * the properties see), a read or write further away faults at once, and an
 * output's unwritten elements hold poison in every process.  Where a fault
 * lands tells which buffer and which side (bc_guard_find), which is how
 * broadcheck-worker names an out-of-bounds read or a wild write.
 *
 * Buffers come from a pool that keeps its mappings: a reset makes every
 * buffer free for the next question without a system call.
 */
#ifndef BROADCHECK_GUARD_H
#define BROADCHECK_GUARD_H

#include <stddef.h>
#include <stdint.h>

#define BC_GUARD_POISON 0xA5        /* every byte of a buffer's pages before it is filled */
#define BC_GUARD_MARGIN 64          /* poison bytes after every input's last byte */
#define BC_GUARD_OUTPUT_MARGIN 256  /* poison bytes after an output, checked after the call */
#define BC_GUARD_GAP ((size_t)64 << 10) /* inaccessible bytes on each side of a buffer */

typedef struct bc_guard_pool bc_guard_pool;

bc_guard_pool *bc_guard_pool_new(void);
void bc_guard_pool_free(bc_guard_pool *pool);
/* Every buffer is free again; the mappings stay for the next ones (those
 * the last question did not use are unmapped, the largest first, while
 * the pool maps more than 512 MiB: a pool kept for a whole run does not
 * keep every buffer it ever held). */
void bc_guard_pool_reset(bc_guard_pool *pool);
/* Every buffer is free again, and mappings are unmapped, the largest
 * first, until at most keep bytes stay mapped: what a thread holds once a
 * check has given back the memory it took from a shared budget. */
void bc_guard_pool_trim(bc_guard_pool *pool, size_t keep);

/* A buffer of `bytes` followed by `margin` poison bytes and a gap, its own
 * pages poisoned throughout; `label` names it for bc_guard_find (the input
 * index, or -1 for an output).  Its address is a multiple of the largest
 * power of two dividing bytes + margin (up to the page size): keep both
 * multiples of the element size.  NULL when out of memory. */
void *bc_guard_alloc(bc_guard_pool *pool, size_t bytes, size_t margin, int label);
/* The same for a buffer whose every byte the caller writes before anyone
 * reads it (an input made from its case): its pages before it and its
 * margin are poisoned, its own bytes are left for the caller (on large
 * inputs, poison written only to be overwritten was a tenth of a run). */
void *bc_guard_alloc_filled(bc_guard_pool *pool, size_t bytes, size_t margin, int label);

/* Which poison around buf, a buffer allocated since the last reset, a SUT
 * wrote: none (BC_GUARD_INTACT), its margin (BC_GUARD_WROTE_AFTER, tested
 * first) or the bytes from its pages' start to it (BC_GUARD_WROTE_BEFORE).
 * BC_GUARD_NOT_A_BUFFER when buf is no such buffer (a caller's own memory).
 * A write also marks the pages to be poisoned whole when next used: a
 * reused slot is otherwise re-poisoned only from its previous buffer up,
 * and a stale byte below would fail the next question, which did not
 * write it.  Checking inputs too is what keeps that true of them. */
enum {
    BC_GUARD_INTACT = 0,
    BC_GUARD_WROTE_AFTER = 1,
    BC_GUARD_WROTE_BEFORE = 2,
    BC_GUARD_NOT_A_BUFFER = 3,
};
int bc_guard_check(bc_guard_pool *pool, const void *buf);
/* 1 if bc_guard_check finds buf's poison intact, else 0. */
int bc_guard_intact(bc_guard_pool *pool, const void *buf);

/* Where addr lies: 1 if in a gap or margin of a buffer allocated since the
 * last reset, with its label, *after = 1 past its end (0 before its start)
 * and *distance the bytes from the buffer's nearest edge; 0 if elsewhere.
 * Reads only the pool (no locks, no allocation), so a signal handler may
 * call it. */
int bc_guard_find(const bc_guard_pool *pool, const void *addr, int *label, int *after,
                  size_t *distance);

#endif
