/*
 * Private to properties/: the memory budget (--max-bytes) that a run's jobs
 * share.  Each value check of --jobs J workers takes what its check needs
 * (bc_property_check_bytes) from the pool before it allocates and gives it
 * back when it ends, so J huge checks in flight together stay within the
 * one budget the user stated (docs/PROPERTIES.md "The huge tier's budget").
 *
 * No deadlock: a check reserves once, all it will need, before it holds
 * anything, and never waits while holding a reservation.  No starvation:
 * waiters are served in order of arrival, so a large check is not passed
 * over for ever by smaller ones that keep fitting.
 */
#ifndef BROADCHECK_PROPERTIES_BUDGET_H
#define BROADCHECK_PROPERTIES_BUDGET_H

#include <pthread.h>
#include <stdint.h>

/* Checks needing at most this many bytes do not take the pool: a mutex per
 * check would cost the small tiers' thousands of checks a second, while
 * what one holds is bounded anyway (beside the pool, each other job holds
 * at most one such check and the buffers it keeps for reuse, guard.c's
 * BC_GUARD_KEEP_BYTES).  64 MiB is also the largest arena block a job
 * keeps at a reset (value.c). */
#define BC_BUDGET_SHARED_MIN ((int64_t)64 << 20)

typedef struct bc_budget_waiter bc_budget_waiter;

typedef struct bc_budget {
    pthread_mutex_t lock;
    pthread_cond_t changed; /* bytes released, or a waiter left the queue */
    int64_t total;          /* the run's --max-bytes */
    int64_t reserved;       /* held by checks in flight */
    int64_t peak;           /* the most ever reserved at once (tests) */
    int waiting;            /* checks in the queue (tests) */
    bc_budget_waiter *head, *tail; /* the queue, first come first served */
} bc_budget;

/* total: the budget in bytes (> 0).  0, or -1 (out of resources). */
int bc_budget_init(bc_budget *b, int64_t total);
void bc_budget_destroy(bc_budget *b);

typedef enum bc_budget_got {
    BC_BUDGET_RESERVED, /* bytes are the caller's until bc_budget_release */
    BC_BUDGET_TOO_LARGE, /* bytes > total: never fits, the caller did not wait */
    BC_BUDGET_STOPPED   /* stop said so while waiting: nothing reserved */
} bc_budget_got;

/* Reserves bytes (>= 0), waiting behind earlier callers until they fit.
 * While waiting, stop(hook) is asked every BC_BUDGET_POLL_MS (and at once):
 * non-zero abandons the wait.  Polled, not signalled, because what stops a
 * run is a flag a signal handler sets (run.c), and a handler may not wake a
 * condition variable (pthread_cond_broadcast is not async-signal-safe).
 * stop may be NULL (wait until it fits). */
#define BC_BUDGET_POLL_MS 50
bc_budget_got bc_budget_reserve(bc_budget *b, int64_t bytes, int (*stop)(void *hook),
                                void *hook);
/* Gives back bytes a bc_budget_reserve returned BC_BUDGET_RESERVED for. */
void bc_budget_release(bc_budget *b, int64_t bytes);

/* For tests: the most reserved at once, and the checks waiting now. */
int64_t bc_budget_peak(bc_budget *b);
int bc_budget_waiting(bc_budget *b);

#endif
