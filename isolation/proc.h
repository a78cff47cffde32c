/*
 * Private to isolation/: one worker process and the frames
 * exchanged with it.  Everything a worker can do wrong (die, hang, grow
 * past its memory limit, write junk) ends here as a one-line diagnosis; the
 * caller then frees the process and starts another for the next question.
 */
#ifndef BROADCHECK_PROC_H
#define BROADCHECK_PROC_H

#include <stddef.h>
#include <stdint.h>

#include "../wire/wire.h"

typedef struct bc_proc bc_proc;

typedef struct bc_proc_launch {
    char *const *argv;  /* executed as is: argv[0] is a path */
    char *const *env;   /* the worker's environment; NULL: the harness's */
    int memory_mb;      /* resident limit the harness watches; > 0 */
    int limit_after_hello; /* exec: workers: after the HELLO, limit the address space of
                              every process in the worker's group to its size then plus
                              memory_mb (broadcheck-worker sets the same on itself) */
} bc_proc_launch;

/* Starts a worker and reads its HELLO within timeout_ms.  Returns NULL
 * with why (a FATAL frame's message, an exec failure, a bad HELLO, ...). */
bc_proc *bc_proc_start(const bc_proc_launch *launch, int timeout_ms, bc_wire_hello *hello,
                       char *why, size_t cap);

/* The buffer to encode the next request into, and its sequence number. */
bc_wbuf *bc_proc_request(bc_proc *p, uint32_t *seq);

/* Sends the request and waits for the ANSWER with its sequence number.
 * Returns 0 with the answer's payload (valid until the next call), or -1
 * with the fault in why; the worker is then dead and must be freed. */
int bc_proc_ask(bc_proc *p, int timeout_ms, const unsigned char **payload, size_t *len,
                char *why, size_t cap);

/* Kills the worker (if alive), reaps it and frees everything. */
void bc_proc_kill(bc_proc *p);
/* Ends a healthy worker: closes its input so it exits on its own, and
 * kills it if it has not within a short grace period. */
void bc_proc_stop(bc_proc *p);

#endif
