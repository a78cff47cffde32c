/* Private to isolation/: the shared file of an EVAL_SHM question
 * (wire/PROTOCOL.md, "EVAL_SHM"): a value question too large for a frame
 * (or past a threshold the caller gives) goes to a worker that declares
 * BC_WIRE_FEATURE_SHM as a path, offsets and sizes; its inputs and output
 * live in one memfd the worker opens by /proc/<harness pid>/fd/<fd>. */
#ifndef BROADCHECK_SHM_H
#define BROADCHECK_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "../wire/wire.h"

typedef struct bc_shm_file {
    int fd;                 /* the memfd, close-on-exec; -1 when closed */
    unsigned char *map;     /* all of it, shared, read-write */
    bc_wire_shm_plan plan;
    char path[64];          /* /proc/<pid>/fd/<fd> */
} bc_shm_file;

/* 1 if req goes by a shared file to a worker of `protocol`: its frame, or
 * its answer's output, would pass threshold bytes (<= 0: the frame limit,
 * BC_WIRE_MAX_PAYLOAD, so that only what no frame can carry goes there). */
int bc_shm_wanted(const bc_eval_request *req, uint32_t protocol, int64_t threshold);

/* Makes the file for req: each input laid out as in a frame (protocol 3:
 * from its data pointer, then its poison margin), every other byte poison
 * (guard.h), the output's room included.  0, or -1 with why (then nothing
 * is left open). */
int bc_shm_create(bc_shm_file *f, const bc_eval_request *req, char *why, size_t cap);

/* After the answer: 0 if every byte outside the output's room is as the
 * harness wrote it (the inputs, their margins, the padding, the output's
 * guard), else -1 with why naming the first region changed. */
int bc_shm_check(const bc_shm_file *f, const bc_eval_request *req, char *why, size_t cap);

/* Copies the output's first `bytes` to dst, handing the file's pages back
 * to the system as it goes (a huge output is not held twice for long). */
void bc_shm_copy_out(bc_shm_file *f, void *dst, size_t bytes);

/* Unmaps and closes: the memory goes once the worker has let go of it
 * too (it has, or it is dead).  Safe to call twice. */
void bc_shm_close(bc_shm_file *f);

#endif
