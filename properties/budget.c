/* The memory budget a run's jobs share (budget.h). */
#include "budget.h"

#include <time.h>

struct bc_budget_waiter {
    int64_t bytes;
    bc_budget_waiter *next;
};

int bc_budget_init(bc_budget *b, int64_t total)
{
    *b = (bc_budget){.total = total};
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) != 0)
        return -1;
    /* the poll's deadlines on the monotonic clock: a clock change must
     * neither stall nor hurry a waiting check */
    int ok = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC) == 0 &&
             pthread_cond_init(&b->changed, &attr) == 0;
    pthread_condattr_destroy(&attr);
    if (!ok)
        return -1;
    if (pthread_mutex_init(&b->lock, NULL) != 0) {
        pthread_cond_destroy(&b->changed);
        return -1;
    }
    return 0;
}

void bc_budget_destroy(bc_budget *b)
{
    pthread_cond_destroy(&b->changed);
    pthread_mutex_destroy(&b->lock);
}

static void unlink_waiter(bc_budget *b, bc_budget_waiter *w)
{
    bc_budget_waiter **p = &b->head, *prev = NULL;
    while (*p != w) {
        prev = *p;
        p = &(*p)->next;
    }
    *p = w->next;
    if (b->tail == w)
        b->tail = prev;
    b->waiting--;
}

bc_budget_got bc_budget_reserve(bc_budget *b, int64_t bytes, int (*stop)(void *hook),
                                void *hook)
{
    if (bytes > b->total)
        return BC_BUDGET_TOO_LARGE;
    bc_budget_waiter me = {.bytes = bytes};
    bc_budget_got got = BC_BUDGET_RESERVED;
    pthread_mutex_lock(&b->lock);
    if (b->tail)
        b->tail->next = &me;
    else
        b->head = &me;
    b->tail = &me;
    b->waiting++;
    while (b->head != &me || b->total - b->reserved < bytes) {
        if (stop && stop(hook)) {
            got = BC_BUDGET_STOPPED;
            break;
        }
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (long)BC_BUDGET_POLL_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        if (stop)
            pthread_cond_timedwait(&b->changed, &b->lock, &until);
        else
            pthread_cond_wait(&b->changed, &b->lock);
    }
    unlink_waiter(b, &me);
    if (got == BC_BUDGET_RESERVED) {
        b->reserved += bytes;
        if (b->reserved > b->peak)
            b->peak = b->reserved;
    }
    /* the next in line may fit now (after me, or in my place) */
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
    return got;
}

void bc_budget_release(bc_budget *b, int64_t bytes)
{
    pthread_mutex_lock(&b->lock);
    b->reserved -= bytes;
    pthread_cond_broadcast(&b->changed);
    pthread_mutex_unlock(&b->lock);
}

int64_t bc_budget_peak(bc_budget *b)
{
    pthread_mutex_lock(&b->lock);
    int64_t peak = b->peak;
    pthread_mutex_unlock(&b->lock);
    return peak;
}

int bc_budget_waiting(bc_budget *b)
{
    pthread_mutex_lock(&b->lock);
    int n = b->waiting;
    pthread_mutex_unlock(&b->lock);
    return n;
}
